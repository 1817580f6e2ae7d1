// expect: staticpy: TypeError: '<' not supported between instances of these types
// Python: sorted([[1], 2])
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(list(1_c), 2_c);
    (void)list(list(2_c), list(1_c)).sort();
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs.sort();
#endif
}
