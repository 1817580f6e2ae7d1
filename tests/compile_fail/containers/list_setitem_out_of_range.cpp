// expect: staticpy: IndexError: list assignment index out of range
// Python: l = [1, 2]; l[2] = 0
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs.setitem(-2_c, 0_c);
#if STATICPY_EXPECT_FAIL
    (void)xs.setitem(2_c, 0_c);
#endif
}
