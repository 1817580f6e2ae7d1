// expect: staticpy: ValueError: At least one dataset should be passed
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    std::vector<int> a{1, 2};
    (void)StackDataset(a);
#if STATICPY_EXPECT_FAIL
    auto s = StackDataset();
    (void)s;
#endif
}
