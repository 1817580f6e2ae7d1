// expect: staticpy: RuntimeError: "avg_pool2d" not implemented for this dtype
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<std::int32_t>(1_c, 4_c, 4_c);
    (void)avg_pool2d(x.to<std::int64_t>(), 2_c);
#if STATICPY_EXPECT_FAIL
    (void)avg_pool2d(x, 2_c);
#endif
}
