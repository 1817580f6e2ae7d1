// expect: staticpy: ValueError: reduction is not a valid value for reduction
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

int main() {
    const auto x = zeros<float>(3_c);
    (void)F::mse_loss(x, x, "sum"_s);
#if STATICPY_EXPECT_FAIL
    (void)F::mse_loss(x, x, "average"_s);
#endif
}
