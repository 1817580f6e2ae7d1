// expect: staticpy: RuntimeError: index_add_(): Expected dtype int32/int64 for index
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // x.index_add(0, torch.zeros(2, dtype=torch.uint8), x)
    auto x = zeros<float>(2_c, 3_c);
    (void)index_add(x, 0_c, zeros<std::int32_t>(2_c), x);
#if STATICPY_EXPECT_FAIL
    (void)index_add(x, 0_c, zeros<std::uint8_t>(2_c), x);
#endif
}
