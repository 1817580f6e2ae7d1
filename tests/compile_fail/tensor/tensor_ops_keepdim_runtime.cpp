// expect: staticpy: TypeError: keepdim must be known at compile time: write True or False
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(2_c, 3_c);
    bool keep = true;
    (void)keep;
    (void)sum(x, 0_c, True);
#if STATICPY_EXPECT_FAIL
    (void)sum(x, 0_c, keep);
#endif
}
