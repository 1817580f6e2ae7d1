// expect: staticpy: RuntimeError: index_add_(): Number of indices should be equal to
// source.size(dim)
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // x.index_add(0, torch.zeros(3, dtype=torch.long), torch.zeros(2, 3))
    auto x = zeros<float>(2_c, 3_c);
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c), x);
#if STATICPY_EXPECT_FAIL
    (void)index_add(x, 0_c, zeros<std::int64_t>(3_c), x);
#endif
}
