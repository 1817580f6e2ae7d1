// expect: staticpy: RuntimeError: mean(): could not infer output dtype. Input dtype must be either
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    auto x = zeros<std::int64_t>(3_c);
    (void)sum(x);
#if STATICPY_EXPECT_FAIL
    (void)mean(x);
#endif
}
