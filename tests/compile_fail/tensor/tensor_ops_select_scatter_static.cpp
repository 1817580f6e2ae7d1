// expect: staticpy: RuntimeError: expected src to have a size equal to the slice of self
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.select_scatter(torch.zeros(2, 3), torch.zeros(2), 0, 1)
    auto x = zeros<float>(2_c, 3_c);
    (void)select_scatter(x, zeros<float>(3_c), 0_c, 1);
#if STATICPY_EXPECT_FAIL
    (void)select_scatter(x, zeros<float>(2_c), 0_c, 1);
#endif
}
