// expect: staticpy: RuntimeError: mat1 and mat2 shapes cannot be multiplied
#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto f = jit([](auto x, auto w) { return sigmoid(matmul(x, w)); });
    auto x = zeros<float>(2_c, 3_c);
    (void)f(x, zeros<float>(3_c, 5_c));
#if STATICPY_EXPECT_FAIL
    (void)f(x, zeros<float>(4_c, 5_c));
#endif
}
