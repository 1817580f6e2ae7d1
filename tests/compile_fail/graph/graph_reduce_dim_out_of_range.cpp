// expect: staticpy: IndexError: Dimension out of range
#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(2_c, 3_c);
    (void)jit([](auto t) { return (t * 2.0f).sum(1_c); })(x);
#if STATICPY_EXPECT_FAIL
    (void)jit([](auto t) { return (t * 2.0f).sum(2_c); })(x);
#endif
}
