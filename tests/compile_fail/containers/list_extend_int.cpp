// expect: staticpy: TypeError: 'int' object is not iterable
// Python: [].extend(1)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    (void)xs.extend(list(2_c));
#if STATICPY_EXPECT_FAIL
    (void)xs.extend(1_c);
#endif
}
