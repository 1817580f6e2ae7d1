// expect: staticpy: RuntimeError: Index tensor must have the same number of dimensions as src
// tensor
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // x.scatter_add(1, index, torch.zeros(6))
    auto x = zeros<float>(2_c, 3_c);
    (void)scatter_add(x, 1_c, zeros<std::int64_t>(2_c, 2_c), x);
#if STATICPY_EXPECT_FAIL
    (void)scatter_add(x, 1_c, zeros<std::int64_t>(2_c, 2_c), zeros<float>(6_c));
#endif
}
