// expect: staticpy: TypeError: list indices must be integers or slices, not str
// Python: [1, 2]['a']
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs[1_c];
#if STATICPY_EXPECT_FAIL
    (void)xs["a"_s];
#endif
}
