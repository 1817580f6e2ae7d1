// expect: staticpy: RuntimeError: Size does not match: expected index to be smaller than self apart
// from dimension dim
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.gather(torch.zeros(2, 3), 1, torch.zeros(3, 2, dtype=torch.long))
    auto x = zeros<float>(2_c, 3_c);
    (void)gather(x, 1_c, zeros<std::int64_t>(2_c, 5_c));
#if STATICPY_EXPECT_FAIL
    (void)gather(x, 1_c, zeros<std::int64_t>(3_c, 2_c));
#endif
}
