// expect: staticpy: TypeError: 'float' object is not iterable
// Python: [].extend(2.5)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    (void)xs.extend(std::tuple(2.5));
#if STATICPY_EXPECT_FAIL
    (void)xs.extend(2.5);
#endif
}
