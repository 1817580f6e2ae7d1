// expect: staticpy: TypeError: The key should be a compile-time str, int, float, bool or None, but got a run-time str
// d["lr"] with a string literal (or a std::string): write "lr"_s.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto d = staticpy::dict("lr"_s = 0.1);
    (void)d["lr"_s];
#if STATICPY_EXPECT_FAIL
    (void)d["lr"];
#endif
}
