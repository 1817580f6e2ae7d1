// expect: staticpy: IndexError: Dimension out of range
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.cat([x, x], 2)
    auto x = zeros<float>(2_c, 3_c);
    (void)cat(std::vector{x, x}, -2_c);
#if STATICPY_EXPECT_FAIL
    (void)cat(std::vector{x, x}, 2_c);
#endif
}
