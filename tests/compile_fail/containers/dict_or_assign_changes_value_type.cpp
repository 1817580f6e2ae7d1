// expect: staticpy: TypeError: d |= e would change the dict's type
// d |= e where e's value for an existing key has another type: d's type would change.
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
    d |= staticpy::dict("lr"_s = "high"_s);
#endif
}
