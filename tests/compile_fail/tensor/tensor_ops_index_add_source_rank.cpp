// expect: staticpy: RuntimeError: index_add_(): source must have the same number of dimensions as
// self
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // a source of another rank (PyTorch broadcasts some; staticpy asks for self's rank)
    auto x = zeros<float>(2_c, 3_c);
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c), x);
#if STATICPY_EXPECT_FAIL
    (void)index_add(x, 0_c, zeros<std::int64_t>(2_c), zeros<float>(2_c, 3_c, 1_c));
#endif
}
