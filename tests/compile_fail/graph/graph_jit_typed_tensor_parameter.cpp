// expect: staticpy: TypeError: the function cannot take its traced arguments
#include <cstdint>

#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;

int main() {
    auto x = tensor<float>({1, 2, 3});
    // Numbers may be declared as numbers: they are given their values.
    (void)jit([](const auto& t, double lr, std::int64_t n) { return t * lr + n; })(x, 0.5, 2);
#if STATICPY_EXPECT_FAIL
    // A tensor is a Tracer while the function is traced: its parameter must be auto.
    (void)jit([](const Tensor<float>& t, double lr) { return t * lr; })(x, 0.5);
#endif
}
