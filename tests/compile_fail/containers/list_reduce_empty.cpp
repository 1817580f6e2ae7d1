// expect: staticpy: TypeError: reduce() of empty iterable with no initial value
// Python: functools.reduce(f, [])
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto add = [](auto a, auto b) { return a + b; };
    (void)reduce(add, list(), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)reduce(add, list());
#endif
}
