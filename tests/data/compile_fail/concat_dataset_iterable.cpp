// expect: staticpy: ValueError: ConcatDataset does not support IterableDataset
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    std::vector<std::vector<int>> parts{{1}, {2}};
    auto chain = ChainDataset(parts);
    std::vector<int> a{1};
#if STATICPY_EXPECT_FAIL
    (void)ConcatDataset(std::tie(a, chain));
#endif
}
