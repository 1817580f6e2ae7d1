// expect: staticpy: TypeError: The key should be a compile-time str, int, float, bool or None, but got a run-time int
// A key whose value is only known at run time cannot select a compile-time entry (MindSpore's
// graph mode rejects it too); the message says to write 1_c.
#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/dict.hpp>
#include <staticpy/containers/list.hpp>
#include <staticpy/containers/slice.hpp>
#include <staticpy/core/print.hpp>

using namespace staticpy::literals;

int main(int argc, char**) {
    (void)staticpy::dict(staticpy::pair(1_c, 1));
    (void)argc;
#if STATICPY_EXPECT_FAIL
    (void)staticpy::dict(staticpy::pair(argc, 1));
#endif
}
