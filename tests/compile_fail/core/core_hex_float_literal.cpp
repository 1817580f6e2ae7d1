// expect: staticpy: SyntaxError: hexadecimal floating literals are not Python
// Python has no 0x1.8p1 literal (float.fromhex is a function).
#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)0x18_c;
#if STATICPY_EXPECT_FAIL
    (void)0x1.8p1_c;
#endif
}
