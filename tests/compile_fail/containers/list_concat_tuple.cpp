// expect: staticpy: TypeError: can only concatenate list (not "tuple") to list
// Python: [1] + (2,) -> can only concatenate list (not "tuple") to list. The expectation stops
// before the quotes, which clang prints escaped (\"tuple\") and g++ does not.
#include <tuple>

#include <staticpy/containers/list.hpp>
using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    (void)(xs + list(2_c));
#if STATICPY_EXPECT_FAIL
    (void)(xs + std::tuple(2_c));
#endif
}
