// expect: staticpy: TypeError: unhashable type: 'dict'
// d.pop({}) : a dict is no key either.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("a"_s = 1);
    (void)d.pop("a"_s);
#if STATICPY_EXPECT_FAIL
    (void)d.pop(staticpy::dict(), 0);
#endif
}
