// expect: staticpy: TypeError: list indices must be integers or slices, not float
// Python: [1, 2][1.0]
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs[1_c];
#if STATICPY_EXPECT_FAIL
    (void)xs[1.0_c];
#endif
}
