// expect: staticpy: ValueError: expected 2D or 3D input
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    nn::BatchNorm1d<3> bn;
    (void)bn(zeros<float>(2_c, 3_c, 4_c));
#if STATICPY_EXPECT_FAIL
    (void)bn(zeros<float>(2_c, 3_c, 4_c, 5_c)); // PyTorch: expected 2D or 3D input (got 4D input)
#endif
}
