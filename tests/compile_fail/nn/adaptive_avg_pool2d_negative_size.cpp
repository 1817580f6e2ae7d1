// expect: staticpy: RuntimeError: adaptive_avg_pool2d: elements of output_size must be greater than
// or equal to 0
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(1_c, 4_c, 4_c);
    (void)adaptive_avg_pool2d(x, std::tuple{2_c, 0_c});
#if STATICPY_EXPECT_FAIL
    (void)adaptive_avg_pool2d(x, std::tuple{2_c, -2_c});
#endif
}
