// expect: staticpy: RuntimeError: expected scalar type Long but found a floating type
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

// A floating target holds class probabilities, of the input's shape; class indices are int64.
int main() {
    const auto logits = zeros<float>(2_c, 3_c);
    (void)F::cross_entropy(logits, zeros<std::int64_t>(2_c));
    (void)F::cross_entropy(logits, zeros<float>(2_c, 3_c));
#if STATICPY_EXPECT_FAIL
    (void)F::cross_entropy(logits, zeros<float>(2_c));
#endif
}
