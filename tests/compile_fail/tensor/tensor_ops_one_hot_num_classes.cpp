// expect: staticpy: RuntimeError: one_hot(): a compile-time num_classes is -1 (inferred) or
// positive
#include <cstdint>
#include <tuple>
#include <vector>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // F.one_hot(torch.zeros(2, dtype=torch.long), 0)
    (void)one_hot(zeros<std::int64_t>(2_c), -1_c);
#if STATICPY_EXPECT_FAIL
    (void)one_hot(zeros<std::int64_t>(2_c), 0_c);
#endif
}
