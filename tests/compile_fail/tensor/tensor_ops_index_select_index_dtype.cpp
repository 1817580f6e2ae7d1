// expect: staticpy: RuntimeError: index_select(): Expected dtype int32 or int64 for index
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.index_select(x, 0, torch.zeros(2))
    auto x = zeros<float>(2_c, 3_c);
    (void)index_select(x, 0_c, zeros<std::int32_t>(2_c));
#if STATICPY_EXPECT_FAIL
    (void)index_select(x, 0_c, zeros<float>(2_c));
#endif
}
