// expect: staticpy: RuntimeError: expected scalar type of the input
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

int main() {
    const auto logits = zeros<double>(2_c, 3_c);
    const auto labels = zeros<std::int64_t>(2_c);
    (void)F::cross_entropy(logits, labels, {.weight = ones<double>(3_c)});
#if STATICPY_EXPECT_FAIL
    (void)F::cross_entropy(logits, labels, {.weight = ones<float>(3_c)});
#endif
}
