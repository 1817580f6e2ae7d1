// expect: staticpy: ValueError: Supported either ``tuple``- (via ``args``) or``dict``- (via
// ``kwargs``) like input/output, but both types are given.
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    std::vector<int> a{1, 2};
    (void)StackDataset("x"_s = a, "y"_s = a);
#if STATICPY_EXPECT_FAIL
    (void)StackDataset(a, "y"_s = a);
#endif
}
