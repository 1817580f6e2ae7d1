// expect: staticpy: IndexError: list assignment index out of range
// Python: l = [1, 2]; del l[-3]
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs.delitem(-2_c);
#if STATICPY_EXPECT_FAIL
    (void)xs.delitem(-3_c);
#endif
}
