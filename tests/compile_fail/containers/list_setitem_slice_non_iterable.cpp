// expect: staticpy: TypeError: can only assign an iterable
// Python: l = [1, 2]; l[0:1] = 5
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs.setitem(slice(0_c, 1_c), list(5_c));
#if STATICPY_EXPECT_FAIL
    (void)xs.setitem(slice(0_c, 1_c), 5_c);
#endif
}
