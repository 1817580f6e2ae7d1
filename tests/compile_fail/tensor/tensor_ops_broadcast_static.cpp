// expect: staticpy: RuntimeError: The size of tensor a must match the size of tensor b at a
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.ones(2, 3) + torch.ones(2, 4)
    auto a = zeros<float>(2_c, 3_c);
    auto b = zeros<float>(2_c, 4_c);
    (void)(a + zeros<float>(1_c, 3_c));
#if STATICPY_EXPECT_FAIL
    (void)(a + b);
#endif
}
