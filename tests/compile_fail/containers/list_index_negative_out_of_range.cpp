// expect: staticpy: IndexError: list index out of range
// Python: [1, 2][-3]
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs[-2_c];
#if STATICPY_EXPECT_FAIL
    (void)xs[-3_c];
#endif
}
