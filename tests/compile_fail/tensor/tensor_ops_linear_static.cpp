// expect: staticpy: RuntimeError: mat1 and mat2 shapes cannot be multiplied
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.nn.functional.linear(torch.ones(2, 3), torch.ones(5, 4))
    auto x = zeros<float>(2_c, 3_c);
    auto w = zeros<float>(5_c, 4_c);
    (void)linear(x, zeros<float>(5_c, 3_c));
#if STATICPY_EXPECT_FAIL
    (void)linear(x, w);
#endif
}
