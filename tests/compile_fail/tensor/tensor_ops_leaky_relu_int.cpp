// expect: staticpy: RuntimeError: leaky_relu is only implemented for floating-point tensors
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<std::int64_t>(3_c);
    (void)clamp(x, 0, 1);
#if STATICPY_EXPECT_FAIL
    (void)leaky_relu(x, 0.1); // the slope is a parameter: it does not make x a float tensor
#endif
}
