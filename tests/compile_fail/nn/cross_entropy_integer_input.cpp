// expect: staticpy: RuntimeError: cross_entropy and nll_loss take a floating-point input
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

int main() {
    const auto labels = zeros<std::int64_t>(2_c);
    (void)F::cross_entropy(zeros<float>(2_c, 3_c), labels);
#if STATICPY_EXPECT_FAIL
    (void)F::cross_entropy(zeros<std::int64_t>(2_c, 3_c), labels);
#endif
}
