// expect: staticpy: RuntimeError: Given normalized_shape, expected input with shape [*,
// normalized_shape...], but the input's last sizes differ
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // PyTorch: "Given normalized_shape=[5], expected input with shape [*, 5], but got input of
    // size[2, 3, 4]" (the sizes are in the failing requirement, raise::layer_norm_input_shape)
    nn::LayerNorm<5> ln;
    (void)ln(zeros<float>(2_c, 3_c, 5_c));
#if STATICPY_EXPECT_FAIL
    (void)ln(zeros<float>(2_c, 3_c, 4_c));
#endif
}
