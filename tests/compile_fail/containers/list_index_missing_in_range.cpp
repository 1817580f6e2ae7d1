// expect: staticpy: ValueError: the value shown as the arguments of staticpy::raise::ValueError<...> is not in list
// Python: [1, 2, 1].index(1, 1, 2)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c, 2_c, 1_c);
    (void)xs.index(1_c, 1_c);
#if STATICPY_EXPECT_FAIL
    (void)xs.index(1_c, 1_c, 2_c);
#endif
}
