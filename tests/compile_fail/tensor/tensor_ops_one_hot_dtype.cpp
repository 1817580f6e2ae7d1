// expect: staticpy: RuntimeError: one_hot is only applicable to index tensor of type LongTensor.
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // F.one_hot(torch.zeros(2, dtype=torch.int32), 3)
    (void)one_hot(zeros<std::int64_t>(2_c), 3_c);
#if STATICPY_EXPECT_FAIL
    (void)one_hot(zeros<std::int32_t>(2_c), 3_c);
#endif
}
