// expect: staticpy: IndexError: Dimension out of range
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(2_c, 3_c);
    auto ok = t.transpose(0_c, -1_c);
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = t.transpose(0_c, 2_c);
    (void)bad;
#endif
}
