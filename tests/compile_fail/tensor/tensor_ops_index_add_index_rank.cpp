// expect: staticpy: IndexError: index_add_(): Index is supposed to be a vector
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // x.index_add(0, torch.zeros(2, 1, dtype=torch.long), x)
    auto x = zeros<float>(2_c, 3_c);
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c), x);
#if STATICPY_EXPECT_FAIL
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c, 1_c), x);
#endif
}
