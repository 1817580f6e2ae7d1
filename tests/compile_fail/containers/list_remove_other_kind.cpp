// expect: staticpy: ValueError: list.remove(x): x not in list
// Python: [1, 2].remove('1'): a str never equals an int, known at compile time even for run-time
// ints
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto xs = list(1, 2);
    (void)xs.remove(2);
#if STATICPY_EXPECT_FAIL
    (void)xs.remove("1"_s);
#endif
}
