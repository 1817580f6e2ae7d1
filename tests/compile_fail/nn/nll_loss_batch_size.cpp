// expect: staticpy: ValueError: Expected input batch_size to match target batch_size
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

// Static extents that differ are known to fail; dynamic ones are checked at run time.
int main() {
    const auto log_probabilities = zeros<double>(4_c, 3_c);
    (void)F::nll_loss(log_probabilities, zeros<std::int64_t>(3));
#if STATICPY_EXPECT_FAIL
    (void)F::nll_loss(log_probabilities, zeros<std::int64_t>(3_c));
#endif
}
