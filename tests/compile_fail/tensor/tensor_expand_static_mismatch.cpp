// expect: staticpy: RuntimeError: The expanded size of the tensor must match the existing size
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(3_c, 1_c);
    auto ok = t.expand(3_c, 4_c);
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = t.expand(2_c, 4_c);
    (void)bad;
#endif
}
