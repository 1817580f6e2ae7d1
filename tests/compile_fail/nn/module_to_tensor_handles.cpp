// expect: staticpy: TypeError: module.to(device) moves the tensors that own_parameters() and own_buffers() point to
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

// own_parameters() gives handles: parameters() works, to() cannot re-seat the member.
struct Scaled : nn::Module<Scaled> {
    decltype(ones<float>(3_c)) scale = ones<float>(3_c);
    auto own_parameters() const { return dict("scale"_s = scale); }
};

int main() {
    Scaled m;
    (void)m.parameters();
#if STATICPY_EXPECT_FAIL
    m.to(kCPU);
#endif
}
