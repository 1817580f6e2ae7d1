// expect: staticpy: RuntimeError: divisor must be not zero
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(1_c, 4_c, 4_c);
    (void)avg_pool2d(x, 2_c, None, 0_c, False, true, 3_c);
#if STATICPY_EXPECT_FAIL
    (void)avg_pool2d(x, 2_c, None, 0_c, False, true, 0_c);
#endif
}
