// expect: staticpy: RuntimeError: gelu is only implemented for floating-point tensors
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<std::int32_t>(3_c);
    (void)sigmoid(x);
#if STATICPY_EXPECT_FAIL
    (void)gelu(x);
#endif
}
