// expect: staticpy: RuntimeError: Given input size and window: Calculated output size is below 1
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // a 3 x 3 window does not fit a 2 x 2 input
    const auto x = zeros<float>(std::int64_t{8}, 1_c, 2_c, 2_c);
    (void)nn::MaxPool2d<2>{}(x);
#if STATICPY_EXPECT_FAIL
    (void)nn::MaxPool2d<3>{}(x);
#endif
}
