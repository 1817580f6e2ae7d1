// expect: staticpy: IndexError: Dimension out of range
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.zeros(2, 3).sum(2)
    auto x = zeros<float>(2_c, 3_c);
    (void)sum(x, -2_c);
#if STATICPY_EXPECT_FAIL
    (void)sum(x, 2_c);
#endif
}
