#pragma once
// layer_norm, batch_norm and their derivatives on GPU tensors (nn/normalization.hpp's ops,
// handed over as tensor/norm_device.hpp describes: the input as [outer, groups, inner], each group
// normalised with statistics of its own), with the CPU's formulas:
//   norm_statistics          a block per group: the mean in double, then the sum of squared
//                            deviations from the mean rounded to the element type (the CPU's two
//                            passes), 1 / sqrt(var + eps) of the biased variance;
//   norm_running_statistics  batch_norm in evaluation: the running statistics instead;
//   norm_update_running      a training batch_norm's update of running_mean and running_var (the
//                            unbiased variance) and num_batches_tracked, in one block;
//   norm_gradient_sums       a block per group: sum(gw) and sum(gw (x - mean)) (gw = g times
//                            layer_norm's weight), and batch_norm's weight and bias gradients;
//   norm_column_sums         layer_norm's weight and bias gradients: a thread per column and
//                            chunk of rows, summing down its rows in order; with one chunk (a
//                            wide layer fills the device alone) the CPU's sums exactly, else
//                            norm_column_finish adds the chunks' partial sums in order;
//   norm_apply               elementwise: the output or the input's gradient, each element's
//                            coefficients computed as the CPU computes its group's.
// Sums are in double, across the block: in another order than the CPU's, so a result may differ
// from the CPU's in its last bits.

#include <algorithm>
#include <cstdint>
#include <string>

#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/norm_device.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::cuda::detail {

/// The normalisation kernels, after a typedef of staticpy_x_t (the tensors' element type).
inline constexpr const char* norm_source = R"(
// Element k (below outer * inner) of group g of a contiguous [outer, groups, inner] tensor.
__device__ inline long long staticpy_norm_at(long long g, long long k, long long groups,
                                             long long inner) {
    const long long o = k / inner;
    return (o * groups + g) * inner + (k - o * inner);
}

extern "C" __global__ void norm_statistics(long long outer, long long groups, long long inner,
                                           const staticpy_x_t* x, double eps, double* mean,
                                           double* invstd, double* squares) {
    __shared__ double sum32[32];
    const long long count = outer * inner;
    for (long long g = blockIdx.x; g < groups; g += gridDim.x) {
        double total = 0;
        for (long long k = threadIdx.x; k < count; k += blockDim.x)
            total += (double)x[staticpy_norm_at(g, k, groups, inner)];
        total = staticpy_block_reduce(total, [](double a, double b) { return a + b; }, sum32);
        const double m = total / (double)count;
        const staticpy_x_t mt = (staticpy_x_t)m;
        double sq = 0;
        for (long long k = threadIdx.x; k < count; k += blockDim.x) {
            const staticpy_x_t d = x[staticpy_norm_at(g, k, groups, inner)] - mt;
            sq += (double)(d * d);
        }
        sq = staticpy_block_reduce(sq, [](double a, double b) { return a + b; }, sum32);
        if (threadIdx.x == 0) {
            mean[g] = m;
            invstd[g] = 1.0 / sqrt(sq / (double)count + eps);
            if (squares)
                squares[g] = sq;
        }
    }
}

extern "C" __global__ void norm_running_statistics(long long groups, const staticpy_x_t* rm,
                                                   long long rm_stride, const staticpy_x_t* rv,
                                                   long long rv_stride, double eps, double* mean,
                                                   double* invstd) {
    for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < groups;
         g += (long long)gridDim.x * blockDim.x) {
        mean[g] = (double)rm[g * rm_stride];
        invstd[g] = 1.0 / sqrt((double)rv[g * rv_stride] + eps);
    }
}

// One block. momentum < 0: None, the cumulative average 1 / num_batches_tracked after this batch.
extern "C" __global__ void norm_update_running(long long groups, const double* mean,
                                               const double* squares, long long count,
                                               double momentum, long long* tracked,
                                               staticpy_x_t* rm, long long rm_stride,
                                               staticpy_x_t* rv, long long rv_stride) {
    __shared__ double factor;
    if (threadIdx.x == 0) {
        long long batches = 0;
        if (tracked) {
            batches = *tracked + 1;
            *tracked = batches;
        }
        factor = momentum >= 0 ? momentum : 1.0 / (double)batches;
    }
    __syncthreads();
    const double unbiased =
        count > 1 ? 1.0 / (double)(count - 1) : staticpy_infinity(0.0) * 0.0;
    for (long long g = threadIdx.x; g < groups; g += blockDim.x) {
        staticpy_x_t& m = rm[g * rm_stride];
        staticpy_x_t& v = rv[g * rv_stride];
        m = (staticpy_x_t)((1 - factor) * (double)m + factor * mean[g]);
        v = (staticpy_x_t)((1 - factor) * (double)v + factor * squares[g] * unbiased);
    }
}

// Per group: sum(gw) and sum(gw (x - mean)) (times invstd with scaled: layer_norm's), gw = g w[i]
// with a weight per position i of the group's run (layer_norm's), else g; with dw and db,
// batch_norm's gradients of its weight, sum(g (x - mean)) invstd, and of its bias, sum(g).
extern "C" __global__ void norm_gradient_sums(long long outer, long long groups, long long inner,
                                              const staticpy_x_t* g, const staticpy_x_t* x,
                                              const staticpy_x_t* w, const double* mean,
                                              const double* invstd, int scaled, double* sum_gw,
                                              double* dot, staticpy_x_t* dw, staticpy_x_t* db) {
    __shared__ double sum32[32];
    const long long count = outer * inner;
    const int with_dot = dot != 0 || dw != 0;
    for (long long c = blockIdx.x; c < groups; c += gridDim.x) {
        const staticpy_x_t mt = with_dot ? (staticpy_x_t)mean[c] : (staticpy_x_t)0;
        const staticpy_x_t ist = scaled ? (staticpy_x_t)invstd[c] : (staticpy_x_t)1;
        double s = 0, d = 0;
        for (long long k = threadIdx.x; k < count; k += blockDim.x) {
            const long long at = staticpy_norm_at(c, k, groups, inner);
            const staticpy_x_t gw = w ? g[at] * w[at % inner] : g[at];
            s += (double)gw;
            if (with_dot)
                d += (double)(scaled ? gw * (x[at] - mt) * ist : gw * (x[at] - mt));
        }
        s = staticpy_block_reduce(s, [](double a, double b) { return a + b; }, sum32);
        if (with_dot)
            d = staticpy_block_reduce(d, [](double a, double b) { return a + b; }, sum32);
        if (threadIdx.x == 0) {
            if (sum_gw)
                sum_gw[c] = s;
            if (dot)
                dot[c] = d;
            if (dw)
                dw[c] = (staticpy_x_t)(d * invstd[c]);
            if (db)
                db[c] = (staticpy_x_t)s;
        }
    }
}

// layer_norm's weight gradient, the sum over rows of g (x - mean) invstd, and its bias gradient,
// the sum over rows of g, per column. Block row y takes rows [y chunk, (y + 1) chunk), each column
// down those rows in order. With one chunk the sums are the gradients (the CPU's sums exactly);
// else each chunk's sums go, in double, to partial_w and partial_b ([gridDim.y, width]), which
// norm_column_finish adds.
extern "C" __global__ void norm_column_sums(long long rows, long long width, long long chunk,
                                            const staticpy_x_t* g, const staticpy_x_t* x,
                                            const double* mean, const double* invstd,
                                            staticpy_x_t* dw, staticpy_x_t* db, double* partial_w,
                                            double* partial_b) {
    const long long first = (long long)blockIdx.y * chunk;
    const long long last = first + chunk < rows ? first + chunk : rows;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < width;
         j += (long long)gridDim.x * blockDim.x) {
        double sw = 0, sb = 0;
        for (long long r = first; r < last; ++r) {
            const double gv = (double)g[r * width + j];
            if (dw)
                sw += gv * ((double)x[r * width + j] - mean[r]) * invstd[r];
            sb += gv;
        }
        if (partial_b) {
            if (dw)
                partial_w[blockIdx.y * width + j] = sw;
            partial_b[blockIdx.y * width + j] = sb;
        } else {
            if (dw)
                dw[j] = (staticpy_x_t)sw;
            if (db)
                db[j] = (staticpy_x_t)sb;
        }
    }
}

// The column sums of `chunks` chunks' partial sums, in the chunks' order (dw or db null: not
// wanted).
extern "C" __global__ void norm_column_finish(long long chunks, long long width,
                                              const double* partial_w, const double* partial_b,
                                              staticpy_x_t* dw, staticpy_x_t* db) {
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < width;
         j += (long long)gridDim.x * blockDim.x) {
        double sw = 0, sb = 0;
        for (long long c = 0; c < chunks; ++c) {
            if (dw)
                sw += partial_w[c * width + j];
            sb += partial_b[c * width + j];
        }
        if (dw)
            dw[j] = (staticpy_x_t)sw;
        if (db)
            db[j] = (staticpy_x_t)sb;
    }
}

// Elementwise over a contiguous [outer, groups, inner] tensor of n elements, by mode:
//   0 layer_norm's output:     (x - mean) invstd w[i] + b[i]
//   1 batch_norm's output:     scale x + shift, scale = w invstd, shift = b - mean w invstd
//   2 layer_norm's dx:         invstd (gw - mean(gw) - (x - mean) invstd mean(gw xhat))
//   3 batch_norm's dx (batch): a g + b x + k, a = w invstd, b = -a slope,
//                              k = a (mean slope - sum(g) / count), slope = invstd^2 dot / count
//   4 batch_norm's dx (running statistics): w invstd g
// w and b absent: 1 and 0; in modes 1, 3 and 4 they are the group's.
extern "C" __global__ void norm_apply(long long n, long long groups, long long inner, int mode,
                                      const staticpy_x_t* x, const staticpy_x_t* g,
                                      const staticpy_x_t* w, const staticpy_x_t* b,
                                      const double* mean, const double* invstd,
                                      const double* sum_gw, const double* dot, double count,
                                      staticpy_x_t* y) {
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (long long)gridDim.x * blockDim.x) {
        const long long i = e % inner;
        const long long c = (e / inner) % groups;
        if (mode == 0 || mode == 2) {
            const staticpy_x_t m = (staticpy_x_t)mean[c];
            const staticpy_x_t is = (staticpy_x_t)invstd[c];
            if (mode == 0) {
                staticpy_x_t v = (x[e] - m) * is;
                if (w)
                    v *= w[i];
                if (b)
                    v += b[i];
                y[e] = v;
            } else {
                const staticpy_x_t gw = w ? g[e] * w[i] : g[e];
                const staticpy_x_t mean_gw = (staticpy_x_t)(sum_gw[c] / count);
                const staticpy_x_t mean_dot = (staticpy_x_t)(dot[c] / count);
                y[e] = is * (gw - mean_gw - (x[e] - m) * is * mean_dot);
            }
        } else {
            const double scale = (w ? (double)w[c] : 1.0) * invstd[c];
            if (mode == 1) {
                const double shift = (b ? (double)b[c] : 0.0) - mean[c] * scale;
                y[e] = (staticpy_x_t)scale * x[e] + (staticpy_x_t)shift;
            } else if (mode == 3) {
                const double slope = invstd[c] * invstd[c] * dot[c] / count;
                y[e] = (staticpy_x_t)scale * g[e] + (staticpy_x_t)(-scale * slope) * x[e] +
                       (staticpy_x_t)(scale * (mean[c] * slope - sum_gw[c] / count));
            } else {
                y[e] = (staticpy_x_t)scale * g[e] + (staticpy_x_t)0;
            }
        }
    }
}
)";

/// The kernels' module for one element type (a key of the kernel registry).
template <class T>
struct norm_kernels {
    static std::string source() {
        return block_reduce_source + typedef_of<T>("staticpy_x_t") + norm_source;
    }
};

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// A normalisation of GPU tensors (norm_device.hpp): the statistics of each group (the batch's or
/// the running ones), then what the call asks for.
template <class T>
void norm_on_cuda(norm_device_tag, const norm_device_call& call, const norm_device_tensors<T>& t) {
    namespace cd = cuda::detail;
    using result = norm_device_call::result;
    const std::int64_t groups = call.groups;
    const std::int64_t n = call.outer * groups * call.inner;
    const Device device = t.out.device();
    cd::make_current(device.index());
    const cd::device_shape launch_shape = cd::shape_of_device(device.index());
    cd::compiled_kernels& ks = cd::module_of<cd::norm_kernels<T>>(device.index());
    const auto block_per_group = static_cast<unsigned>(
        std::max<std::int64_t>(1, std::min<std::int64_t>(groups, launch_shape.max_grid)));
    auto pointer = [](const auto& tensor) {
        return tensor.defined() ? static_cast<const void*>(tensor.data_ptr()) : nullptr;
    };
    auto doubles = [&](std::int64_t count) { // one at least: no allocation of none
        return Tensor<double, dynamic_shape<1>>(dynamic_shape<1>(std::max<std::int64_t>(count, 1)),
                                                device);
    };
    if (t.out.numel() == 0)
        return;
    auto out = t.out;
    // The two gradient-sum kernels, their optional pointers null where a sum is not wanted.
    auto gradient_sums = [&](const void* x, const void* w, const void* mean, const void* invstd,
                             bool scaled, void* sum_gw, void* dot, void* dw, void* db) {
        cd::kernel_arguments a;
        a.add<long long>(call.outer);
        a.add<long long>(groups);
        a.add<long long>(call.inner);
        a.add(pointer(t.g));
        a.add(x);
        a.add(w);
        a.add(mean);
        a.add(invstd);
        a.add<int>(scaled ? 1 : 0);
        a.add(sum_gw);
        a.add(dot);
        a.add(dw);
        a.add(db);
        cd::launch_default(ks.function("norm_gradient_sums"), block_per_group, 1,
                           launch_shape.block, a);
    };
    // layer_norm's column sums over its rows (the groups): a narrow layer's few columns alone
    // would leave most of the device idle, so the rows go in chunks (of 32 rows at least, at most
    // 65535 chunks, gridDim.y's limit) until the threads fill the device.
    auto column_sums = [&](const void* x, const void* mean, const void* invstd, void* dw,
                           void* db) {
        const std::int64_t width = call.inner;
        const unsigned column_blocks = cd::grid_for(width, launch_shape);
        const std::int64_t most_chunks =
            std::min<std::int64_t>(65535, std::max<std::int64_t>(1, groups / 32));
        const std::int64_t wanted =
            std::clamp<std::int64_t>(launch_shape.max_grid / column_blocks, 1, most_chunks);
        const std::int64_t chunk = std::max<std::int64_t>(1, (groups + wanted - 1) / wanted);
        const std::int64_t chunks = std::max<std::int64_t>(1, (groups + chunk - 1) / chunk);
        Tensor<double, dynamic_shape<1>> partial_w, partial_b;
        if (chunks > 1) {
            partial_b = doubles(chunks * width);
            if (dw)
                partial_w = doubles(chunks * width);
        }
        cd::kernel_arguments a;
        a.add<long long>(groups);
        a.add<long long>(width);
        a.add<long long>(chunk);
        a.add(pointer(t.g));
        a.add(x);
        a.add(mean);
        a.add(invstd);
        a.add(dw);
        a.add(db);
        a.add(static_cast<void*>(partial_w.defined() ? partial_w.data_ptr() : nullptr));
        a.add(static_cast<void*>(partial_b.defined() ? partial_b.data_ptr() : nullptr));
        cd::launch_default(ks.function("norm_column_sums"), column_blocks,
                           static_cast<unsigned>(chunks), launch_shape.block, a);
        if (chunks > 1) {
            cd::kernel_arguments f;
            f.add<long long>(chunks);
            f.add<long long>(width);
            f.add(static_cast<const void*>(partial_w.defined() ? partial_w.data_ptr() : nullptr));
            f.add(static_cast<const void*>(partial_b.data_ptr()));
            f.add(dw);
            f.add(db);
            cd::launch_default(ks.function("norm_column_finish"), column_blocks, 1,
                               launch_shape.block, f);
        }
    };

    if (call.what == result::bias_gradient) { // sums of g alone: no statistics
        if (call.per_group_affine)
            gradient_sums(nullptr, nullptr, nullptr, nullptr, false, nullptr, nullptr, nullptr,
                          out.data_ptr());
        else
            column_sums(nullptr, nullptr, nullptr, nullptr, out.data_ptr());
        return;
    }

    // The statistics: each group's mean and invstd (and sum of squared deviations, to update the
    // running variance).
    auto mean = doubles(groups);
    auto invstd = doubles(groups);
    auto squares = doubles(call.update_running ? groups : 0);
    if (call.batch_statistics) {
        cd::kernel_arguments a;
        a.add<long long>(call.outer);
        a.add<long long>(groups);
        a.add<long long>(call.inner);
        a.add(pointer(t.x));
        a.add<double>(call.eps);
        a.add(static_cast<void*>(mean.data_ptr()));
        a.add(static_cast<void*>(invstd.data_ptr()));
        a.add(call.update_running ? static_cast<void*>(squares.data_ptr()) : nullptr);
        cd::launch_default(ks.function("norm_statistics"), block_per_group, 1, launch_shape.block,
                           a);
    } else {
        cd::kernel_arguments a;
        a.add<long long>(groups);
        a.add(pointer(t.running_mean));
        a.add<long long>(t.running_mean.strides()[0]);
        a.add(pointer(t.running_var));
        a.add<long long>(t.running_var.strides()[0]);
        a.add<double>(call.eps);
        a.add(static_cast<void*>(mean.data_ptr()));
        a.add(static_cast<void*>(invstd.data_ptr()));
        cd::launch_default(ks.function("norm_running_statistics"),
                           cd::grid_for(groups, launch_shape), 1, launch_shape.block, a);
    }
    if (call.update_running) {
        cd::kernel_arguments a;
        a.add<long long>(groups);
        a.add(static_cast<const void*>(mean.data_ptr()));
        a.add(static_cast<const void*>(squares.data_ptr()));
        a.add<long long>(call.outer * call.inner);
        a.add<double>(call.momentum);
        auto tracked = t.num_batches_tracked;
        auto running_mean = t.running_mean;
        auto running_var = t.running_var;
        a.add(tracked.defined() ? static_cast<void*>(tracked.data_ptr()) : nullptr);
        a.add(static_cast<void*>(running_mean.data_ptr()));
        a.add<long long>(running_mean.strides()[0]);
        a.add(static_cast<void*>(running_var.data_ptr()));
        a.add<long long>(running_var.strides()[0]);
        cd::launch_default(ks.function("norm_update_running"), 1, 1, launch_shape.block, a);
    }

    // The group sums of the gradients: sum(gw), sum(gw (x - mean)) (and batch_norm's dw).
    const bool sums = call.what == result::weight_gradient ||
                      (call.what == result::input_gradient && call.batch_statistics);
    auto sum_gw = doubles(sums ? groups : 0);
    auto dot = doubles(sums ? groups : 0);
    if (call.what == result::weight_gradient && !call.per_group_affine) {
        column_sums(pointer(t.x), mean.data_ptr(), invstd.data_ptr(), out.data_ptr(), nullptr);
        return;
    }
    if (sums) {
        const bool layer_input = !call.per_group_affine;
        gradient_sums(pointer(t.x), layer_input ? pointer(t.weight) : nullptr, mean.data_ptr(),
                      invstd.data_ptr(), layer_input, sum_gw.data_ptr(), dot.data_ptr(),
                      call.what == result::weight_gradient ? out.data_ptr() : nullptr, nullptr);
        if (call.what == result::weight_gradient)
            return;
    }

    // The output, or the input's gradient.
    const int mode = call.what == result::output ? (call.per_group_affine ? 1 : 0)
                     : !call.per_group_affine    ? 2
                     : call.batch_statistics     ? 3
                                                 : 4;
    cd::kernel_arguments a;
    a.add<long long>(n);
    a.add<long long>(groups);
    a.add<long long>(call.inner);
    a.add<int>(mode);
    a.add(pointer(t.x));
    a.add(pointer(t.g));
    a.add(pointer(t.weight));
    a.add(call.what == result::output ? pointer(t.bias) : nullptr);
    a.add(static_cast<const void*>(mean.data_ptr()));
    a.add(static_cast<const void*>(invstd.data_ptr()));
    a.add(sums ? static_cast<const void*>(sum_gw.data_ptr()) : nullptr);
    a.add(sums ? static_cast<const void*>(dot.data_ptr()) : nullptr);
    a.add<double>(static_cast<double>(call.outer * call.inner));
    a.add(static_cast<void*>(out.data_ptr()));
    cd::launch_default(ks.function("norm_apply"), cd::grid_for(n, launch_shape), 1,
                       launch_shape.block, a);
}

} // namespace staticpy::detail
