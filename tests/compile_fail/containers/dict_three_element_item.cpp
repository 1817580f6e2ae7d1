// expect: staticpy: ValueError: dictionary update sequence element has the wrong length; 2 is required
// dict([(1, 2, 3)]): Python's "dictionary update sequence element #0 has length 3; 2 is
// required" (a static_assert cannot format the index and length).
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main() {
    (void)staticpy::dict(std::tuple(1_c, 2));
#if STATICPY_EXPECT_FAIL
    (void)staticpy::dict(std::tuple(1_c, 2, 3));
#endif
}
