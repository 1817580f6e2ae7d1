// expect: staticpy: ValueError: list.remove(x): x not in list
// Python: [1, 2].remove(3)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs.remove(2_c);
#if STATICPY_EXPECT_FAIL
    (void)xs.remove(3_c);
#endif
}
