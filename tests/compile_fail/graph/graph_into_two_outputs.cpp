// expect: staticpy: TypeError: into() takes a function with one output
#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(2_c, 3_c);
    auto y = zeros<float>(2_c, 3_c);
    jit([](auto t) { return t * 2.0f; }).into(y, x);
#if STATICPY_EXPECT_FAIL
    jit([](auto t) { return list(t * 2.0f, t + 1.0f); }).into(y, x);
#endif
}
