// expect: staticpy: RuntimeError: running_mean should contain as many elements as the input has
// channels
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // PyTorch: "running_mean should contain 16 elements not 6" (the sizes are in the failing
    // requirement, raise::running_mean_should_contain<16, 6>)
    nn::BatchNorm2d<6> bn;
    const auto x = zeros<float>(2_c, 16_c, 4_c, 4_c);
    (void)nn::BatchNorm2d<16>{}(x);
#if STATICPY_EXPECT_FAIL
    (void)bn(x);
#endif
}
