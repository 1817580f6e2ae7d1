// expect: staticpy: TypeError: argnums must be a compile-time int (0_c) or a std::tuple of them
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    auto f = [](auto v) { return v.sum(); };
    (void)grad(f, 0_c)(x);
#if STATICPY_EXPECT_FAIL
    (void)grad(f, 0)(x);
#endif
}
