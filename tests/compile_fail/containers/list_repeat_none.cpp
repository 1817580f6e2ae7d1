// expect: staticpy: TypeError: can't multiply sequence by non-int of type 'NoneType'
// Python: [1] * None
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    (void)(xs * 2_c);
#if STATICPY_EXPECT_FAIL
    (void)(xs * None);
#endif
}
