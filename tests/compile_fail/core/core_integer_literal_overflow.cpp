// expect: staticpy: OverflowError
// A compile-time int is a long long; 2**63 does not fit.
#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)9223372036854775807_c;
#if STATICPY_EXPECT_FAIL
    (void)9223372036854775808_c;
#endif
}
