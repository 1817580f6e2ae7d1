// expect: staticpy: RuntimeError: shapes with different static extents
#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy::literals;

int main() {
    auto t = staticpy::zeros(2_c, 3_c);
    staticpy::Tensor<float, staticpy::dynamic_shape<2>> ok = t;
    (void)ok;
#if STATICPY_EXPECT_FAIL
    auto bad = staticpy::Tensor<float, staticpy::static_shape<3, 2>>(t);
    (void)bad;
#endif
}
