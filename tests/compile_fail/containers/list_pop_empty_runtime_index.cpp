// expect: staticpy: IndexError: pop from empty list
// Python: [].pop(i): whatever i is, an empty list has nothing to pop
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list();
    int i = 0;
    (void)list(1).pop(i);
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs.pop(i);
#endif
}
