// expect: staticpy: ValueError: attempt to assign sequence of another size to extended slice
// Python: l = [0, 1, 2, 3]; l[::2] = [9] (size 1 for an extended slice of size 2)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(0_c, 1_c, 2_c, 3_c);
    (void)xs.setitem(slice(None, None, 2_c), list(8_c, 9_c));
#if STATICPY_EXPECT_FAIL
    (void)xs.setitem(slice(None, None, 2_c), list(9_c));
#endif
}
