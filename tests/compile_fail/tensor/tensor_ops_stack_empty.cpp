// expect: staticpy: RuntimeError: stack expects a non-empty TensorList
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // torch.stack([])
    (void)stack(std::make_tuple(zeros<float>(2_c)), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)stack(std::tuple<>{}, 0_c);
#endif
}
