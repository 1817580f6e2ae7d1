// expect: staticpy: IndexError: pop from empty list
// Python: [].pop()
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list();
    (void)xs.append(1_c).pop();
#if STATICPY_EXPECT_FAIL
    (void)xs.pop();
#endif
}
