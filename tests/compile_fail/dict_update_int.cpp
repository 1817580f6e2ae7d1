// expect: staticpy: TypeError: 'int' object is not iterable
// d.update(1): Python's TypeError, word for word.
#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("a"_s = 1);
    (void)d.update("b"_s = 1);
#if STATICPY_EXPECT_FAIL
    (void)d.update(1);
#endif
}
