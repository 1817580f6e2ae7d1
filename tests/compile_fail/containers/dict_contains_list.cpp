// expect: staticpy: TypeError: unhashable type: 'list'
// [1] in d is a TypeError in Python, not False.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict(staticpy::pair(1_c, "a"_s));
    static_assert(d.contains(1_c));
#if STATICPY_EXPECT_FAIL
    (void)d.contains(staticpy::list(1_c));
#endif
}
