// expect: staticpy: TypeError: a list can only be repeated a compile-time number of times
// The result's length would depend on a run-time value.
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    int n = 2;
    (void)(xs * 2_c);
    (void)n;
#if STATICPY_EXPECT_FAIL
    (void)(xs * n);
#endif
}
