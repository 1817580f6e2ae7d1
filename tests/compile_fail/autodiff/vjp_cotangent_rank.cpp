// expect: staticpy: RuntimeError: Mismatch in shape
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // y = exp(x) has shape [3]: its cotangent must too
    auto x = ones<float>(3_c);
    auto [y, pullback] = vjp([](auto v) { return v.exp(); }, x);
    (void)pullback(ones_like(y));
#if STATICPY_EXPECT_FAIL
    (void)pullback(ones<float>(3_c, 1_c));
#endif
}
