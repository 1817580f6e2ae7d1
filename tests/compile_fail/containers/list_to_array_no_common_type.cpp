// expect: staticpy: TypeError: the list's elements have no common type for a std::array
// 1 and 'a' have no common C++ type.
#include <string>

#include <staticpy/containers/convert.hpp>
using namespace staticpy;
using namespace staticpy::literals;

int main() {
    const auto xs = list(1, std::string("a"));
    (void)to_array(list(1, 2.5));
#if STATICPY_EXPECT_FAIL
    (void)to_array(xs);
#endif
}
