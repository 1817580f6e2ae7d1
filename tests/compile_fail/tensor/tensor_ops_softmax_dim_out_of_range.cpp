// expect: staticpy: IndexError: Dimension out of range
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(2_c, 3_c);
    (void)softmax(x, 1_c);
#if STATICPY_EXPECT_FAIL
    (void)softmax(x, -3_c);
#endif
}
