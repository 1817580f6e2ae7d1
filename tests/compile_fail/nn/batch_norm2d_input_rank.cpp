// expect: staticpy: ValueError: expected 4D input
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    nn::BatchNorm2d<3> bn;
    (void)bn(zeros<float>(2_c, 3_c, 4_c, 4_c));
#if STATICPY_EXPECT_FAIL
    (void)bn(zeros<float>(2_c, 3_c, 4_c)); // PyTorch: expected 4D input (got 3D input)
#endif
}
