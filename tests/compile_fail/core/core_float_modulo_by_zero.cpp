// expect: staticpy: ZeroDivisionError: float modulo
// Python: 1.5 % 0.0
#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)(1.5_c % 1_c);
#if STATICPY_EXPECT_FAIL
    (void)(1.5_c % 0.0_c);
#endif
}
