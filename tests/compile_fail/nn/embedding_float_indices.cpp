// expect: staticpy: RuntimeError: Expected tensor for argument #1 'indices' to have one of the
// following scalar types: Long, Int
#include <staticpy/nn.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    nn::Embedding<10, 3> emb;
    (void)emb(zeros<std::int64_t>(4_c));
#if STATICPY_EXPECT_FAIL
    (void)emb(zeros<float>(4_c));
#endif
}
