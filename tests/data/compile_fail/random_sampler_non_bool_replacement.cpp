// expect: staticpy: TypeError: replacement should be a boolean value
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/data.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main() {
    (void)RandomSampler(10, true);
#if STATICPY_EXPECT_FAIL
    (void)RandomSampler(10, 0);
#endif
}
