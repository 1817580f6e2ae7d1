// expect: staticpy: RuntimeError: expected scalar type: a batch norm's input has its dtype
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    nn::BatchNorm1d<3> bn; // float parameters and statistics
    (void)bn(zeros<float>(2_c, 3_c));
#if STATICPY_EXPECT_FAIL
    (void)bn(zeros<double>(2_c, 3_c));
#endif
}
