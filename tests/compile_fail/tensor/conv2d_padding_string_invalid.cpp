// expect: staticpy: RuntimeError: Invalid padding string: {padding}, where {padding} is raise::conv2d_padding_string's argument (conv2d's padding is a number, a pair, "valid"_s or "same"_s)
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops_conv.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(std::int64_t{2}, 3_c, 8_c, 8_c);
    const auto w = zeros<float>(4_c, 3_c, 3_c, 3_c);
    (void)conv2d(x, w, None, 1_c, "valid"_s);
#if STATICPY_EXPECT_FAIL
    // PyTorch's RuntimeError: Invalid padding string: 'full'
    (void)conv2d(x, w, None, 1_c, "full"_s);
#endif
}
