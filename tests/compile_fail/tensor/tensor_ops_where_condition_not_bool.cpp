// expect: staticpy: RuntimeError: where expected condition to be a boolean tensor
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    (void)where(x > 0, x, 1);
#if STATICPY_EXPECT_FAIL
    (void)where(x, x, 1);
#endif
}
