// expect: staticpy: RuntimeError: Negation, the `-` operator, on a bool tensor is not supported
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto m = zeros<bool>(3_c);
    (void)(m == m);
#if STATICPY_EXPECT_FAIL
    (void)(-m);
#endif
}
