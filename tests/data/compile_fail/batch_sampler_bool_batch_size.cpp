// expect: staticpy: ValueError: batch_size should be a positive integer value
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
    (void)BatchSampler(SequentialSampler(10), true, true);
#endif
}
