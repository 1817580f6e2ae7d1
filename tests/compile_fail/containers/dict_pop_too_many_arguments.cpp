// expect: staticpy: TypeError: pop expected at most 2 arguments
// d.pop(k, default, extra): Python's TypeError.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("lr"_s = 0.1);
    (void)d.pop("lr"_s, 1);
#if STATICPY_EXPECT_FAIL
    (void)d.pop("lr"_s, 1, 2);
#endif
}
