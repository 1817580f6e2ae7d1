// expect: staticpy: TypeError: 'NoneType' object is not iterable
// Python: [].extend(None)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    (void)xs.extend(list(None));
#if STATICPY_EXPECT_FAIL
    (void)xs.extend(None);
#endif
}
