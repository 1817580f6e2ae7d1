// expect: staticpy: RuntimeError: permute(): duplicate dims are not allowed.
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(2_c, 3_c);
    auto ok = t.permute(1_c, 0_c);
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = t.permute(1_c, 1_c);
    (void)bad;
#endif
}
