// Built against the *installed* staticpy package by the install-consumer test: if the install
// misses a header or the package config misses a dependency, this fails to build. The matrix
// product links the installed staticpy::kernels where staticpy was built with compiled kernels.
#include <string>

#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto config = staticpy::dict("lr"_s = 0.1, "epochs"_s = 10);
    static_assert(config["epochs"_s] == 10);
    const auto keys = staticpy::list(1_c, 2_c).extend(config);
    const auto product =
        staticpy::matmul(staticpy::ones<float>(2_c, 3_c), staticpy::ones<float>(3_c, 2_c));
    const bool product_ok = product.sum().item() == 12.0f;
    return staticpy::repr(keys) == "[1, 2, 'lr', 'epochs']" && product_ok ? 0 : 1;
}
