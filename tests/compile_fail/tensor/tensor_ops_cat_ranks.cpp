// expect: staticpy: RuntimeError: Tensors must have same number of dimensions
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.cat([torch.zeros(2, 3), torch.zeros(2, 3, 1)])
    auto x = zeros<float>(2_c, 3_c);
    (void)cat(std::make_tuple(x, x), 0);
#if STATICPY_EXPECT_FAIL
    (void)cat(std::make_tuple(x, zeros<float>(2_c, 3_c, 1_c)), 0);
#endif
}
