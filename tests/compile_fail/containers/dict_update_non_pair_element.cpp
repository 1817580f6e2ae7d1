// expect: staticpy: TypeError: cannot convert dictionary update sequence element to a sequence
// d.update([1]): Python's "cannot convert dictionary update sequence element #0 to a sequence".
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("a"_s = 1);
    (void)d.update(staticpy::list(staticpy::pair("b"_s, 2)));
#if STATICPY_EXPECT_FAIL
    (void)d.update(staticpy::list(1));
#endif
}
