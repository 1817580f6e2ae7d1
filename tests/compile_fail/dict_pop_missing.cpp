// expect: staticpy: KeyError: pop of a key that is not in the dict
// d.pop("missing") without a default: Python's KeyError (with a default it is fine).
#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("lr"_s = 0.1);
    (void)d.pop("missing"_s, 0);
#if STATICPY_EXPECT_FAIL
    (void)d.pop("missing"_s);
#endif
}
