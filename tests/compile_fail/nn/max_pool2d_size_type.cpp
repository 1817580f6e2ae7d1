// expect: staticpy: TypeError: a pooling size is an int
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto x = zeros<float>(1_c, 4_c, 4_c);
    (void)max_pool2d(x, std::tuple{2_c, 2});
#if STATICPY_EXPECT_FAIL
    (void)max_pool2d(x, 2.0);
#endif
}
