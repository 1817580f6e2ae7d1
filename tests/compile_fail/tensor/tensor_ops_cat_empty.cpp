// expect: staticpy: RuntimeError: torch.cat(): expected a non-empty list of Tensors
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.cat([])
    (void)cat(std::make_tuple(zeros<float>(2_c)), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)cat(std::tuple<>{}, 0_c);
#endif
}
