// expect: staticpy: TypeError: grad: a differentiated argument must be a tensor, a float or a container of them
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    auto f = [](auto v, int k) { return v.sum() * k; };
    (void)grad(f, 0_c)(x, 2);
#if STATICPY_EXPECT_FAIL
    (void)grad(f, 1_c)(x, 2);
#endif
}
