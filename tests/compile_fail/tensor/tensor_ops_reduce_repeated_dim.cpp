// expect: staticpy: RuntimeError: a dim appears multiple times in the list of dims
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.zeros(2, 3).sum((1, -1))
    auto x = zeros<float>(2_c, 3_c);
    (void)sum(x, list(0_c, -1_c));
#if STATICPY_EXPECT_FAIL
    (void)sum(x, list(1_c, -1_c));
#endif
}
