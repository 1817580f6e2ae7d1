// expect: staticpy: TypeError: a run-time index needs a list whose elements share one type
// The element's type would depend on a run-time value.
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto xs = list(1, 2.5);
    int i = 1;
    (void)list(1, 2)[i];
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs[i];
#endif
}
