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
    // torch.slice_scatter(torch.zeros(4, 3), torch.zeros(3, 3), 0, 0, None, 2)
    auto x = zeros<float>(4_c, 3_c);
    (void)slice_scatter(x, zeros<float>(2_c, 3_c), 0_c, 0_c, None, 2_c);
#if STATICPY_EXPECT_FAIL
    (void)slice_scatter(x, zeros<float>(3_c, 3_c), 0_c, 0_c, None, 2_c);
#endif
}
