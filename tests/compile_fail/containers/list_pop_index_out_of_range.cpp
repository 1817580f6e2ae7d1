// expect: staticpy: IndexError: pop index out of range
// Python: [1, 2].pop(5)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs.pop(-2_c);
#if STATICPY_EXPECT_FAIL
    (void)xs.pop(5_c);
#endif
}
