// expect: staticpy: TypeError: slice indices must be compile-time integers or None
// A run-time bound would make the result's length a run-time value.
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    int start = 1;
    (void)xs[slice(1_c, None)];
    (void)start;
#if STATICPY_EXPECT_FAIL
    (void)xs[slice(start, None)];
#endif
}
