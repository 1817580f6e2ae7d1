// expect: staticpy: TypeError: 'float' object is not iterable
// dict.fromkeys(2.5, 0): Python's TypeError, word for word.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    (void)staticpy::dict.fromkeys(staticpy::list(2.5_c), 0);
#if STATICPY_EXPECT_FAIL
    (void)staticpy::dict.fromkeys(2.5_c, 0);
#endif
}
