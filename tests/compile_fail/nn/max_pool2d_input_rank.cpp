// expect: staticpy: RuntimeError: non-empty 3D or 4D (batch mode) tensor expected for input
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(4_c, 4_c);
    (void)max_pool2d(x.unsqueeze(0_c), 2_c);
#if STATICPY_EXPECT_FAIL
    (void)max_pool2d(x, 2_c);
#endif
}
