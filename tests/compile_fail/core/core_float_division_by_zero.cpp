// expect: staticpy: ZeroDivisionError: float division by zero
// Python: 1.0 / 0
#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)(1.0_c / 1_c);
#if STATICPY_EXPECT_FAIL
    (void)(1.0_c / 0_c);
#endif
}
