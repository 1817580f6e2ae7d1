// expect: staticpy: TypeError: filter needs a predicate whose result is known at compile time
// Which elements are kept, and so the result's type, would depend on run-time values.
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1, 2);
    (void)filter([](auto) { return True; }, xs);
#if STATICPY_EXPECT_FAIL
    (void)filter([](int x) { return x > 1; }, xs);
#endif
}
