// expect: staticpy: RuntimeError: Sizes of tensors must match except in dimension dim
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.cat([torch.zeros(2, 3), torch.zeros(2, 4)])
    auto x = zeros<float>(2_c, 3_c);
    (void)cat(std::make_tuple(x, zeros<float>(5_c, 3_c)), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)cat(std::make_tuple(x, zeros<float>(2_c, 4_c)), 0_c);
#endif
}
