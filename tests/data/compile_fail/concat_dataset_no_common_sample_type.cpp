// expect: staticpy: TypeError: ConcatDataset's datasets have samples of no common type
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    std::vector<int> a{1};
    std::vector<std::string> b{"x"};
    std::vector<long> c{2};
    (void)ConcatDataset(std::tie(a, c));
#if STATICPY_EXPECT_FAIL
    (void)ConcatDataset(std::tie(a, b));
#endif
}
