// expect: staticpy: TypeError: a run-time str has no compile-time length
// Python extends by a str's characters; a run-time std::string has no compile-time length.
#include <string>

#include <staticpy/containers/list.hpp>
using namespace staticpy;
using namespace staticpy::literals;

int main() {
    constexpr auto xs = list(1_c);
    std::string s = "ab";
    (void)xs.extend("ab"_s);
#if STATICPY_EXPECT_FAIL
    (void)xs.extend(s);
#endif
}
