// expect: staticpy: IndexError: list index out of range
// Python: [][i]: every index of an empty list is out of range
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list();
    int i = 0;
    (void)list(1)[i];
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs[i];
#endif
}
