// expect: staticpy: ValueError: drop_last should be a boolean value
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    (void)BatchSampler(SequentialSampler(10), 2, true);
#if STATICPY_EXPECT_FAIL
    (void)BatchSampler(SequentialSampler(10), 2, 1);
#endif
}
