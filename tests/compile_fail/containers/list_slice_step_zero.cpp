// expect: staticpy: ValueError: slice step cannot be zero
// Python: [1, 2][::0]
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs[slice(None, None, 1_c)];
#if STATICPY_EXPECT_FAIL
    (void)xs[slice(None, None, 0_c)];
#endif
}
