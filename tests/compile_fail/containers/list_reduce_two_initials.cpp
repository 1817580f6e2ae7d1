// expect: staticpy: TypeError: reduce expected at most 3 arguments
// Python: functools.reduce(f, [1], 0, 0)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto add = [](auto a, auto b) { return a + b; };
    (void)reduce(add, list(1_c), 0_c);
#if STATICPY_EXPECT_FAIL
    (void)reduce(add, list(1_c), 0_c, 0_c);
#endif
}
