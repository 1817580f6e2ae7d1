// expect: staticpy: RuntimeError: dropout takes a floating-point input
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    (void)nn::functional::dropout(zeros<float>(4_c), 0.5);
#if STATICPY_EXPECT_FAIL
    (void)nn::functional::dropout(zeros<std::int64_t>(4_c), 0.5);
#endif
}
