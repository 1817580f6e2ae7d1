// expect: staticpy: TypeError: The key should be a compile-time str, int, float, bool or None, but got a run-time bool
// d.setitem(b, v) with a run-time bool: write staticpy::True / False.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main(int argc, char**) {
    constexpr auto d = staticpy::dict(staticpy::pair(staticpy::True, 1));
    const bool b = argc > 1;
    (void)d.setitem(staticpy::False, 2);
    (void)b;
#if STATICPY_EXPECT_FAIL
    (void)d.setitem(b, 2);
#endif
}
