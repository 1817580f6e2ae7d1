// expect: staticpy: TypeError: list indices must be integers or slices, not tuple
// Python: [1, 2][0, 1]
#include <tuple>

#include <staticpy/containers/list.hpp>
using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs[0_c];
#if STATICPY_EXPECT_FAIL
    (void)xs[std::tuple(0_c, 1_c)];
#endif
}
