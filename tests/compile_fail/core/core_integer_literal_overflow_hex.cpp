// expect: staticpy: OverflowError
// Past even an unsigned long long: 2**64.
#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)0x7fffffffffffffff_c;
#if STATICPY_EXPECT_FAIL
    (void)0x1'0000'0000'0000'0000_c;
#endif
}
