// expect: staticpy: RuntimeError: mat1 and mat2 shapes cannot be multiplied (the input's last
// size is not the nn::Linear's in_features)
#include <staticpy/nn/modules.hpp>

using namespace staticpy;
using namespace staticpy::literals;

int main() {
    // the second Linear takes 100 features, the first gives 128
    nn::Sequential model(nn::Linear<784, 128>{}, nn::ReLU{}, nn::Linear<100, 10>{});
    const auto x = zeros<float>(64_c, 784_c);
    (void)nn::Sequential(nn::Linear<784, 128>{}, nn::ReLU{}, nn::Linear<128, 10>{})(x);
#if STATICPY_EXPECT_FAIL
    (void)model(x);
#endif
}
