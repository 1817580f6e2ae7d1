// expect: staticpy: RuntimeError: gather(): Expected dtype int64 for index
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.gather(x, 1, torch.zeros(2, 2, dtype=torch.int32))
    auto x = zeros<float>(2_c, 3_c);
    (void)gather(x, 1_c, zeros<std::int64_t>(2_c, 2_c));
#if STATICPY_EXPECT_FAIL
    (void)gather(x, 1_c, zeros<std::int32_t>(2_c, 2_c));
#endif
}
