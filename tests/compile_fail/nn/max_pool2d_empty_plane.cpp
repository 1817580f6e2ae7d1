// expect: staticpy: RuntimeError: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch
// size for input
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(0_c, 1_c, 4_c, 4_c); // an empty batch is fine
    (void)max_pool2d(x, 2_c);
    const auto empty = zeros<float>(1_c, 0_c, 4_c);
#if STATICPY_EXPECT_FAIL
    (void)max_pool2d(empty, 2_c);
#endif
}
