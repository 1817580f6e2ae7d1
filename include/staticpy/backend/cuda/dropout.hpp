#pragma once
// nn::functional::dropout on GPU tensors (nn/dropout.hpp's dropout_op, handed over as
// tensor/dropout_device.hpp describes): a thread per pair of elements, each pair's 64 bits drawn
// as the CPU draws them (nn/dropout.hpp's dropout_bits, SplitMix64 over a counter: written again
// here in the kernel's source, and the tests check that both give the same masks), so the same
// Generator seed drops the same elements on either device, and the result is the CPU's exactly.

#include <cstdint>
#include <string>

#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/tensor/dropout_device.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::cuda::detail {

/// The dropout kernel, after a typedef of staticpy_x_t (the tensor's element type).
inline constexpr const char* dropout_source = R"(
__device__ inline unsigned long long staticpy_dropout_bits(unsigned long long key,
                                                           unsigned long long index) {
    unsigned long long z = key + (index + 1ULL) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

extern "C" __global__ void dropout_apply(long long n, const staticpy_x_t* x, staticpy_x_t* y,
                                         unsigned long long key, unsigned long long keep_below,
                                         staticpy_x_t scale, int drop_all) {
    const long long pairs = (n + 1) / 2;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < pairs;
         k += (long long)gridDim.x * blockDim.x) {
        const long long i = 2 * k;
        const unsigned long long bits = drop_all ? 0ULL : staticpy_dropout_bits(key, k);
        const bool keep_first = !drop_all && (bits >> 32) < keep_below;
        const bool keep_second = !drop_all && (bits & 0xFFFFFFFFULL) < keep_below;
        y[i] = x[i] * (keep_first ? scale : (staticpy_x_t)0);
        if (i + 1 < n)
            y[i + 1] = x[i + 1] * (keep_second ? scale : (staticpy_x_t)0);
    }
}
)";

/// The kernel's module for one element type (a key of the kernel registry).
template <class T>
struct dropout_kernels {
    static std::string source() { return typedef_of<T>("staticpy_x_t") + dropout_source; }
};

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// A dropout of a GPU tensor x (flat, contiguous) into out (as many elements, same device).
template <class T>
void dropout_on_cuda(dropout_device_tag, const dropout_device_call& call,
                     const Tensor<T, dynamic_shape<1>>& x, Tensor<T, dynamic_shape<1>> out,
                     T scale) {
    namespace cd = cuda::detail;
    const std::int64_t n = x.numel();
    if (n == 0)
        return;
    const Device device = x.device();
    cd::make_current(device.index());
    const cd::device_shape launch_shape = cd::shape_of_device(device.index());
    cd::compiled_kernels& ks = cd::module_of<cd::dropout_kernels<T>>(device.index());
    cd::kernel_arguments a;
    a.add<long long>(n);
    a.add(static_cast<const void*>(x.data_ptr()));
    a.add(static_cast<void*>(out.data_ptr()));
    a.add<unsigned long long>(call.key);
    a.add<unsigned long long>(call.keep_below);
    a.add<T>(scale);
    a.add<int>(call.drop_all ? 1 : 0);
    cd::launch_default(ks.function("dropout_apply"), cd::grid_for((n + 1) / 2, launch_shape), 1,
                       launch_shape.block, a);
}

} // namespace staticpy::detail
