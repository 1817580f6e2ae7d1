// expect: staticpy: RuntimeError: softmax and log_softmax are only implemented for floating point
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<std::int32_t>(3_c);
    (void)softmax(cast<double>(x), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)log_softmax(x, 0_c);
#endif
}
