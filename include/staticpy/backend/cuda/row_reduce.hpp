#pragma once
// The eager reductions with a body of their own (tensor/ops_reduce.hpp: var, argmax, argmin, and
// the indices of max(x, dim) and min(x, dim)) on GPU tensors: the tensor layer moves the reduced
// dims last, contiguous, and hands over `rows` rows of `cols` elements (row_reduce_device_call);
// here a block per row computes the CPU body's result:
//   arg_extremum_rows   the extremum (a NaN wins: a row with one gives its first NaN's index),
//                       combined across the block, then the first index that holds it: the CPU's
//                       "first index of the largest (smallest)", ties and -0.0 == 0.0 included;
//   var_rows            the CPU's two passes in double, the mean and then the sum of squared
//                       deviations, each summed across the block (so in another order than the
//                       CPU's loop: the last bits of a double may differ), with its correction
//                       and its NaN and infinity for too few elements.

#include <algorithm>
#include <cstdint>
#include <string>

#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::cuda::detail {

/// The row kernels, after a typedef of staticpy_x_t (the reduced tensor's element type).
inline constexpr const char* row_reduce_source = R"(
// Whether v replaces m as the extremum: a NaN always does (and stays), else a larger (smaller)
// value.
__device__ inline bool staticpy_beats(staticpy_x_t v, staticpy_x_t m, int largest) {
    return v != v || (largest ? v > m : v < m);
}

extern "C" __global__ void arg_extremum_rows(long long rows, long long cols,
                                             const staticpy_x_t* x, long long* out, int largest) {
    __shared__ staticpy_x_t best32[32];
    __shared__ long long index32[32];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const staticpy_x_t* row = x + r * cols;
        staticpy_x_t m = cols > 0 ? row[0] : staticpy_x_t();
        for (long long k = threadIdx.x; k < cols; k += blockDim.x)
            m = staticpy_beats(row[k], m, largest) ? row[k] : m;
        m = staticpy_block_reduce(
            m,
            [largest](staticpy_x_t a, staticpy_x_t b) {
                return staticpy_beats(b, a, largest) ? b : a;
            },
            best32);
        long long first = cols;
        for (long long k = threadIdx.x; k < cols; k += blockDim.x)
            if (row[k] == m || (row[k] != row[k] && m != m)) {
                first = k;
                break;
            }
        first = staticpy_block_reduce(first, [](long long a, long long b) { return b < a ? b : a; },
                                      index32);
        if (threadIdx.x == 0)
            out[r] = first;
    }
}

extern "C" __global__ void var_rows(long long rows, long long cols, const staticpy_x_t* x,
                                    staticpy_x_t* out, double correction) {
    __shared__ double sum32[32];
    const double nan = staticpy_infinity(0.0) * 0.0;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const staticpy_x_t* row = x + r * cols;
        double total = 0;
        for (long long k = threadIdx.x; k < cols; k += blockDim.x)
            total += (double)row[k];
        total = staticpy_block_reduce(total, [](double a, double b) { return a + b; }, sum32);
        const double n = (double)cols;
        const double mean = total / n;
        double m2 = 0;
        for (long long k = threadIdx.x; k < cols; k += blockDim.x) {
            const double dx = (double)row[k] - mean;
            m2 += dx * dx;
        }
        m2 = staticpy_block_reduce(m2, [](double a, double b) { return a + b; }, sum32);
        if (threadIdx.x == 0) {
            const double dof = n - correction > 0 ? n - correction : 0.0;
            double v = m2 / dof;
            if (cols == 0 || (dof == 0 && (m2 == 0 || m2 != m2)))
                v = nan;
            else if (dof == 0)
                v = staticpy_infinity(0.0);
            out[r] = (staticpy_x_t)v;
        }
    }
}
)";

/// The kernels' module for one element type (a key of the kernel registry).
template <class T>
struct row_reduce_kernels {
    static std::string source() {
        return block_reduce_source + typedef_of<T>("staticpy_x_t") + row_reduce_source;
    }
};

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// A body's reduction of rows of a GPU tensor (flat, contiguous, call.rows * call.cols
/// elements) into out (call.rows elements on the same device): the row kernels above.
template <class T, class Out>
void row_reduce_on_cuda(row_reduce_device_tag, const row_reduce_device_call& call,
                        const Tensor<T, dynamic_shape<1>>& x, Tensor<Out, dynamic_shape<1>> out) {
    namespace cd = cuda::detail;
    using result = row_reduce_device_call::result;
    if (call.rows == 0)
        return;
    const Device device = x.device();
    cd::make_current(device.index());
    const cd::device_shape launch_shape = cd::shape_of_device(device.index());
    cd::compiled_kernels& ks = cd::module_of<cd::row_reduce_kernels<T>>(device.index());
    cd::kernel_arguments a;
    a.add<long long>(call.rows);
    a.add<long long>(call.cols);
    a.add(static_cast<const void*>(x.data_ptr()));
    a.add(static_cast<void*>(out.data_ptr()));
    if (call.what == result::var)
        a.add<double>(call.correction);
    else
        a.add<int>(call.what == result::argmax ? 1 : 0);
    cd::launch_default(
        ks.function(call.what == result::var ? "var_rows" : "arg_extremum_rows"),
        static_cast<unsigned>(std::min<std::int64_t>(call.rows, launch_shape.max_grid)), 1,
        launch_shape.block, a);
}

} // namespace staticpy::detail
