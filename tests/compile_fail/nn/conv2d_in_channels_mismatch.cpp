// expect: staticpy: RuntimeError: expected input to have in_channels channels (the input's
// channel count is not the nn::Conv2d's in_channels)
#include <staticpy/nn/conv.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // the second Conv2d takes 8 channels, the first gives 6
    nn::Sequential model(nn::Conv2d<1, 6, 5>{}, nn::ReLU{}, nn::Conv2d<8, 16, 5>{});
    const auto x = zeros<float>(std::int64_t{2}, 1_c, 28_c, 28_c);
    (void)nn::Sequential(nn::Conv2d<1, 6, 5>{}, nn::ReLU{}, nn::Conv2d<6, 16, 5>{})(x);
#if STATICPY_EXPECT_FAIL
    (void)model(x);
#endif
}
