// expect: staticpy: RuntimeError: number of dims don't match in permute
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(2_c, 3_c);
    auto ok = t.permute(1, 0);
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = t.permute(1, 0, 2);
    (void)bad;
#endif
}
