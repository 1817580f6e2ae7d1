// expect: staticpy: TypeError: 'int' object is not iterable
// dict.fromkeys(3): Python's TypeError, word for word.
#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;

int main() {
    (void)staticpy::dict.fromkeys(staticpy::list(3_c));
#if STATICPY_EXPECT_FAIL
    (void)staticpy::dict.fromkeys(3_c);
#endif
}
