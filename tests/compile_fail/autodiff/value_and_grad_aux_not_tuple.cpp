// expect: staticpy: TypeError: with has_aux, the function must return a std::tuple (output, aux)
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(3_c);
    (void)value_and_grad([](auto v) { return std::tuple{v.sum(), v}; }, 0_c, True)(x);
#if STATICPY_EXPECT_FAIL
    (void)value_and_grad([](auto v) { return v.sum(); }, 0_c, True)(x);
#endif
}
