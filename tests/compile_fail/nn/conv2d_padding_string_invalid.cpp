// expect: staticpy: ValueError: Invalid padding string {padding}, should be one of {'same', 'valid'}, where {padding} is raise::conv2d_padding_string's argument
#include <staticpy/nn/conv.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(std::int64_t{2}, 1_c, 28_c, 28_c);
    (void)nn::Conv2d<1, 6, 3, 1, "same"_s>{}(x);
#if STATICPY_EXPECT_FAIL
    // PyTorch's ValueError: Invalid padding string 'full', should be one of {'same', 'valid'}
    (void)nn::Conv2d<1, 6, 3, 1, "full"_s>{}(x);
#endif
}
