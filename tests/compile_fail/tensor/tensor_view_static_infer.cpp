// expect: staticpy: RuntimeError: shape is invalid for input of this size
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(2_c, 3_c);
    auto ok = t.view(-1_c, 2_c);
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = t.view(-1_c, 4_c);
    (void)bad;
#endif
}
