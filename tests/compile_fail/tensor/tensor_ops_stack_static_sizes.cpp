// expect: staticpy: RuntimeError: stack expects each tensor to be equal size
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.stack([torch.zeros(2, 3), torch.zeros(2, 4)], 2)
    auto x = zeros<float>(2_c, 3_c);
    (void)stack(list(x, x), 2_c);
#if STATICPY_EXPECT_FAIL
    (void)stack(list(x, zeros<float>(2_c, 4_c)), 2_c);
#endif
}
