// expect: staticpy: RuntimeError: Expected index to be smaller than self apart from dimension dim
// and to be smaller size than src
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // x.scatter_add(1, torch.zeros(2, 4, dtype=torch.long), x): index wider than src
    auto x = zeros<float>(2_c, 3_c);
    (void)scatter_add(x, 1_c, zeros<std::int64_t>(2_c, 2_c), x);
#if STATICPY_EXPECT_FAIL
    (void)scatter_add(x, 1_c, zeros<std::int64_t>(2_c, 4_c), x);
#endif
}
