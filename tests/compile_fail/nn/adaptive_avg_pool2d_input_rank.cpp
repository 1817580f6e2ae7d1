// expect: staticpy: RuntimeError: adaptive_avg_pool2d(): Expected 3D or 4D tensor
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(4_c, 4_c);
    (void)nn::AdaptiveAvgPool2d<2>{}(x.unsqueeze(0_c));
#if STATICPY_EXPECT_FAIL
    (void)nn::AdaptiveAvgPool2d<2>{}(x);
#endif
}
