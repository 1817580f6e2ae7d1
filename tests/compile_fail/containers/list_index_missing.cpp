// expect: staticpy: ValueError: the value shown as the arguments of staticpy::raise::ValueError<...> is not in list
// Python: [1, 2].index(3) is "ValueError: 3 is not in list" (3.11-3.13; 3.14 drops the 3)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c);
    (void)xs.index(2_c);
#if STATICPY_EXPECT_FAIL
    (void)xs.index(3_c);
#endif
}
