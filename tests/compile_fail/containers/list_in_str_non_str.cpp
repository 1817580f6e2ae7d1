// expect: staticpy: TypeError: 'in <string>' requires string as left operand
// Python: 1 in 'abc'
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto s = "abc"_s;
    (void)in("a"_s, s);
#if STATICPY_EXPECT_FAIL
    (void)in(1_c, s);
#endif
}
