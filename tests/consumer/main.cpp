// Built against the *installed* staticpy package by the install-consumer test: if the install
// misses a header or the package config misses a dependency, this fails to build.
#include <string>

#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;

int main() {
    constexpr auto config = staticpy::dict("lr"_s = 0.1, "epochs"_s = 10);
    static_assert(config["epochs"_s] == 10);
    const auto keys = staticpy::list(1_c, 2_c).extend(config);
    return staticpy::repr(keys) == "[1, 2, 'lr', 'epochs']" ? 0 : 1;
}
