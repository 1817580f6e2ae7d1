// expect: staticpy: ValueError: replacement should be a boolean value
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    (void)WeightedRandomSampler({1.0, 2.0}, 3, false);
#if STATICPY_EXPECT_FAIL
    (void)WeightedRandomSampler({1.0, 2.0}, 3, 0);
#endif
}
