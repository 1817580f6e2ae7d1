// expect: staticpy: TypeError: enumerate's start must be a compile-time int
// The indices are compile-time ints.
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    int start = 1;
    (void)enumerate(xs, 1_c);
    (void)start;
#if STATICPY_EXPECT_FAIL
    (void)enumerate(xs, start);
#endif
}
