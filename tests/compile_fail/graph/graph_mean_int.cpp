// expect: staticpy: RuntimeError: mean(): could not infer output dtype
#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto i = arange(6).reshape(2_c, 3_c); // int64
    (void)jit([](auto t) { return (t * 2).sum(1_c); })(i);
#if STATICPY_EXPECT_FAIL
    (void)jit([](auto t) { return (t * 2).mean(1_c); })(i);
#endif
}
