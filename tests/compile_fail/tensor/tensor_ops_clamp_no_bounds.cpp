// expect: staticpy: RuntimeError: torch.clamp: At least one of 'min' or 'max' must not be None
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros(3_c);
    (void)clamp(x, None, 1.0);
#if STATICPY_EXPECT_FAIL
    (void)clamp(x, None, None);
#endif
}
