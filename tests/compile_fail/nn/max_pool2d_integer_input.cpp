// expect: staticpy: RuntimeError: pooling is implemented for floating-point tensors only
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<std::int64_t>(1_c, 4_c, 4_c);
    (void)avg_pool2d(x, 2_c); // avg_pool2d takes int64, as PyTorch's
#if STATICPY_EXPECT_FAIL
    (void)max_pool2d(x, 2_c);
#endif
}
