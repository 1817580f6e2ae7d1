// expect: staticpy: TypeError: 'int' object is not iterable
// Python: [].extend(n)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    int n = 1;
    (void)n;
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs.extend(n);
#endif
}
