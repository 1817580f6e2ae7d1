// expect: staticpy: RuntimeError: The size of tensor a must match the size of tensor b at a
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto a = zeros<float>(3_c);
    auto c = zeros<bool>(4_c);
    (void)where(c, 1.0f, 0.0f);
#if STATICPY_EXPECT_FAIL
    (void)where(c, a, 0.0f);
#endif
}
