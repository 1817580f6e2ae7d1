// expect: staticpy: RuntimeError: expected m1 and m2 to have the same dtype
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto a = zeros<float>(2_c, 3_c);
    auto b = zeros<double>(3_c, 2_c);
    (void)matmul(a, b.to<float>());
#if STATICPY_EXPECT_FAIL
    (void)matmul(a, b);
#endif
}
