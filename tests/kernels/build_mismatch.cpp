// A translation unit built for another kernel configuration than the library staticpy::kernels
// (here without xsimd: STATICPY_NO_XSIMD) in compiled mode. It must not link: the instance it
// declares extern, gemm_any<float, its kernel_build>, is not the library's
// (tests/kernels/CMakeLists.txt expects the linker to say so).
#include <cstdio>

#include "staticpy/kernels/gemm.hpp"

int main() {
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    float c[4] = {};
    staticpy::kernels::gemm<float>(2, 2, 2, a, 2, 1, b, 2, 1, c, 2);
    std::printf("%g %g %g %g\n", double(c[0]), double(c[1]), double(c[2]), double(c[3]));
}
