// expect: staticpy: RuntimeError: std and var only support floating point and complex dtypes
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<std::int32_t>(3_c);
    (void)var(cast<float>(x));
#if STATICPY_EXPECT_FAIL
    (void)var(x);
#endif
}
