// expect: staticpy: TypeError: '<' not supported between instances of these types
// Python: 1 < 'a'
#include <staticpy/core/value.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)py_lt(1_c, 2_c);
#if STATICPY_EXPECT_FAIL
    (void)py_lt(1_c, "a"_s);
#endif
}
