// expect: staticpy: TypeError: 'int' object is not iterable
// d.update(1): Python's TypeError, word for word.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("a"_s = 1);
    (void)d.update("b"_s = 1);
#if STATICPY_EXPECT_FAIL
    (void)d.update(1);
#endif
}
