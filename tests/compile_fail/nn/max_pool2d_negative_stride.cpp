// expect: staticpy: RuntimeError: stride should be greater than zero
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(1_c, 4_c, 4_c);
    (void)max_pool2d(x, 2_c, 1_c);
#if STATICPY_EXPECT_FAIL
    (void)max_pool2d(x, 2_c, -1_c);
#endif
}
