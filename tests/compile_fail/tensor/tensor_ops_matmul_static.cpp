// expect: staticpy: RuntimeError: mat1 and mat2 shapes cannot be multiplied
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.ones(2, 3) @ torch.ones(4, 5)
    auto a = zeros<float>(2_c, 3_c);
    auto b = zeros<float>(4_c, 5_c);
    (void)matmul(a, zeros<float>(3_c, 5_c));
#if STATICPY_EXPECT_FAIL
    (void)matmul(a, b);
#endif
}
