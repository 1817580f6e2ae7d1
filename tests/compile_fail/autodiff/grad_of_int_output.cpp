// expect: staticpy: RuntimeError: grad requires a floating-point output
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    (void)grad([](auto v) { return v.sum(); })(x);
#if STATICPY_EXPECT_FAIL
    (void)grad([](auto v) { return (v > 0).sum(); })(x);
#endif
}
