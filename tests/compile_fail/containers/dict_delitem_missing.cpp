// expect: staticpy: KeyError: the key shown as the arguments of staticpy::raise::KeyError<...> is not in the dict
// del d["missing"]: Python's KeyError.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("lr"_s = 0.1, "epochs"_s = 10);
    (void)d.delitem("lr"_s);
#if STATICPY_EXPECT_FAIL
    (void)d.delitem("missing"_s);
#endif
}
