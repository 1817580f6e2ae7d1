// expect: staticpy: RuntimeError: The size of tensor a must match the size of tensor b at a
#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // Traced with static shapes, the graph's broadcast is checked when the graph type is built.
    auto f = jit([](auto a, auto b) { return relu(a * b); });
    auto a = zeros<float>(2_c, 3_c);
    (void)f(a, zeros<float>(3_c));
#if STATICPY_EXPECT_FAIL
    (void)f(a, zeros<float>(4_c));
#endif
}
