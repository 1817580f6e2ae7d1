// expect: staticpy: TypeError: sort() takes only keyword arguments kw::key and kw::reverse
// Python: [2, 1].sort(True) is a TypeError (keyword-only arguments)
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(2_c, 1_c);
    (void)xs.sort(kw::reverse = True);
#if STATICPY_EXPECT_FAIL
    (void)xs.sort(True);
#endif
}
