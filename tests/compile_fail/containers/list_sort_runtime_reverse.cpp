// expect: staticpy: TypeError: sort's reverse must be known at compile time
// Python: sorted(l, reverse=flag) with a run-time flag
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(2_c, 1_c);
    bool flag = true;
    (void)xs.sort(kw::reverse = True);
    (void)flag;
#if STATICPY_EXPECT_FAIL
    (void)xs.sort(kw::reverse = flag);
#endif
}
