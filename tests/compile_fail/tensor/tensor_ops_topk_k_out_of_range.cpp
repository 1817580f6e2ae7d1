// expect: staticpy: RuntimeError: selected index k out of range
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<float>(2_c, 3_c);
    (void)topk(x, 3_c);
#if STATICPY_EXPECT_FAIL
    (void)topk(x, 4_c);
#endif
}
