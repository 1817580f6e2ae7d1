// expect: staticpy: KeyError: 'popitem(): dictionary is empty'
// {}.popitem(): Python's KeyError, word for word.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto one = staticpy::dict("a"_s = 1);
    constexpr auto empty = std::get<0>(one.popitem());
    static_assert(staticpy::len(empty) == 0);
#if STATICPY_EXPECT_FAIL
    (void)empty.popitem();
#endif
}
