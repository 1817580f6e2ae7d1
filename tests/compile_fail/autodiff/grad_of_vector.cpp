// expect: staticpy: RuntimeError: grad can be implicitly created only for scalar outputs
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // grad asks for the gradient of a scalar; a vector output needs a cotangent (vjp).
    auto x = zeros<float>(3_c);
    (void)grad([](auto v) { return (v * v).sum(); })(x);
#if STATICPY_EXPECT_FAIL
    (void)grad([](auto v) { return v * v; })(x);
#endif
}
