// expect: staticpy: TypeError: '<' not supported between instances of 'str' and 'int'
// Python: sorted([1, 'a'])
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, "a"_s);
    (void)list(2_c, 1_c).sort();
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs.sort();
#endif
}
