// expect: staticpy: KeyError: the key shown as the arguments of staticpy::raise::KeyError<...> is not in the dict
// d.pop("missing") without a default: Python's KeyError (with a default it is fine).
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("lr"_s = 0.1);
    (void)d.pop("missing"_s, 0);
#if STATICPY_EXPECT_FAIL
    (void)d.pop("missing"_s);
#endif
}
