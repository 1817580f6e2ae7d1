// expect: staticpy: TypeError: sort needs elements whose order is known at compile time
// The order, and so the result's type, would depend on run-time values.
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto xs = list(1, 2.5);
    (void)list(2, 1).sort();
    (void)xs;
#if STATICPY_EXPECT_FAIL
    (void)xs.sort();
#endif
}
