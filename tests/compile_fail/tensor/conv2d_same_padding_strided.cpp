// expect: staticpy: RuntimeError: padding='same' is not supported for strided convolutions
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops_conv.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(std::int64_t{2}, 3_c, 8_c, 8_c);
    const auto w = zeros<float>(4_c, 3_c, 3_c, 3_c);
    (void)conv2d(x, w, None, 1_c, "same"_s);
#if STATICPY_EXPECT_FAIL
    (void)conv2d(x, w, None, 2_c, "same"_s);
#endif
}
