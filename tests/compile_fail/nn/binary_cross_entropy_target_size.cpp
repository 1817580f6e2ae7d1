// expect: staticpy: ValueError: Using a target size that is different to the input size is
// deprecated
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

int main() {
    const auto probabilities = full<float>(3_c, 4_c, 0.5f);
    (void)F::binary_cross_entropy(probabilities, zeros<float>(3_c, 4_c));
#if STATICPY_EXPECT_FAIL
    (void)F::binary_cross_entropy(probabilities, zeros<float>(3_c, 1_c));
#endif
}
