// expect: staticpy: TypeError: d |= e would change the dict's type
// d |= e in place only when d keeps its type; a new key (or a value of another type) needs
// auto d2 = d | e.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    auto d = staticpy::dict("lr"_s = 0.1);
    d |= staticpy::dict("lr"_s = 0.2);
#if STATICPY_EXPECT_FAIL
    d |= staticpy::dict("epochs"_s = 10);
#endif
}
