#pragma once
// The tests' host emulation of the CUDA execution model, for the kernels staticpy generates
// (backend/cuda/codegen.hpp): the generated source is compiled as C++ for the host with this header
// included first, and each kernel is run over its grid, block by block and thread by thread, with
// its arguments read from a cuLaunchKernel-style array of pointers (backend/cuda/launch.hpp).
// Sequential execution is exact for these kernels: no thread reads what another writes.
#include <cstddef>
#include <type_traits>
#include <utility>

#define __global__
#define __device__
#define __forceinline__ inline

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace staticpy_emulation {
template <class... P, std::size_t... I>
void call(void (*kernel)(P...), void** params, std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(params[I])...);
}
template <class... P>
void launch(void (*kernel)(P...), unsigned grid, unsigned block, void** params) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b)
        for (unsigned t = 0; t < block; ++t) {
            blockIdx = {b, 0, 0};
            threadIdx = {t, 0, 0};
            call(kernel, params, std::index_sequence_for<P...>{});
        }
}
} // namespace staticpy_emulation

// After the generated source: an entry point the test finds with dlsym.
#define STATICPY_EMULATE(name)                                                                     \
    extern "C" void emulate_##name(unsigned grid, unsigned block, void** params) {                 \
        staticpy_emulation::launch(name, grid, block, params);                                     \
    }
