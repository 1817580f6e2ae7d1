// expect: staticpy: IndexError: Dimension out of range
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(2_c, 3_c);
    (void)sort(x, -2_c);
#if STATICPY_EXPECT_FAIL
    (void)sort(x, 2_c);
#endif
}
