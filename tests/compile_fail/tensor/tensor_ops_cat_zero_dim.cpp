// expect: staticpy: RuntimeError: zero-dimensional tensor cannot be concatenated
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.cat([torch.zeros(2), torch.tensor(1.)])
    auto x = zeros<float>(2_c);
    (void)cat(std::make_tuple(x, x), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)cat(std::make_tuple(x, x[0]), 0_c);
#endif
}
