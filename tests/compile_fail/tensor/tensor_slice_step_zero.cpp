// expect: staticpy: ValueError: step must be greater than zero
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(4_c);
    auto ok = t.slice(0_c, 0_c, 4_c, 2_c);
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = t.slice(0_c, 0_c, 4_c, 0_c);
    (void)bad;
#endif
}
