// expect: staticpy: TypeError: 'int' object is not iterable
// dict.fromkeys(3): Python's TypeError, word for word.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    (void)staticpy::dict.fromkeys(staticpy::list(3_c));
#if STATICPY_EXPECT_FAIL
    (void)staticpy::dict.fromkeys(3_c);
#endif
}
