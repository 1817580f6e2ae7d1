// expect: staticpy: IndexError: argnums refers to an argument the function is not given
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    auto f = [](auto v) { return v.sum(); };
    (void)grad(f, 0_c)(x);
#if STATICPY_EXPECT_FAIL
    (void)grad(f, 1_c)(x);
#endif
}
