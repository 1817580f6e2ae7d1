// expect: staticpy: TypeError: The key should be a compile-time str, int, float, bool or None, but got a run-time float
// d.get(x) with a run-time double: write 2.5_c.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main(int argc, char**) {
    constexpr auto d = staticpy::dict(staticpy::pair(2.5_c, 1));
    const double x = argc * 2.5;
    (void)d.get(2.5_c);
    (void)x;
#if STATICPY_EXPECT_FAIL
    (void)d.get(x);
#endif
}
