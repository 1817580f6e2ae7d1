// expect: staticpy: RuntimeError: only Tensors of floating point dtype can require gradients
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    auto n = zeros<std::int64_t>(3_c);
    auto f = [](auto v, auto k) { return (v * k).sum(); };
    (void)grad(f)(x, n); // differentiating with respect to x only
#if STATICPY_EXPECT_FAIL
    (void)grad(f, 1_c)(x, n);
#endif
}
