// expect: staticpy: ZeroDivisionError: integer modulo by zero
// Python: 1 % 0
#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)(1_c % 1_c);
#if STATICPY_EXPECT_FAIL
    (void)(1_c % 0_c);
#endif
}
