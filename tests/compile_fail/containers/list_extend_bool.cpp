// expect: staticpy: TypeError: 'bool' object is not iterable
// Python: [].extend(True)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    (void)xs.extend(list(True));
#if STATICPY_EXPECT_FAIL
    (void)xs.extend(True);
#endif
}
