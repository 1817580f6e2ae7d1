// expect: staticpy: RuntimeError: For integral input tensors, argument alpha must not be a floating
// point number.
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.zeros(2, 3, dtype=torch.long).index_add(0, index, source, alpha=0.5)
    auto x = zeros<std::int64_t>(2_c, 3_c);
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c), x, 2);
#if STATICPY_EXPECT_FAIL
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c), x, 0.5);
#endif
}
