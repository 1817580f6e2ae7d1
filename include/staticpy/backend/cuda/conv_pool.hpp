#pragma once
// conv2d and the 2-D pools, with their derivatives, on GPU tensors (tensor/ops_conv.hpp and
// tensor/ops_pool.hpp hand them over as tensor/conv_pool_device.hpp describes). Each has its own
// kernels here: a convolution built of eager device ops would take a dozen kernels and a dozen
// instantiations of the device evaluator per op (a translation unit with the three
// convolutions took g++ over 12 GB).
//
// Convolutions are im2col and cuBLAS, a batch of images at a time (its column matrix within
// conv_column_budget_bytes), one strided-batched GEMM over the groups:
//   output           col = im2col(x)                [G][patch][n L]     (conv_im2col)
//                    t[g] = w[g] . col[g]           [G][O/G][n L]       (cuBLAS)
//                    y[n][o][l] = t[o][n][l] + b[o]                     (conv_output)
//   input_gradient   t[o][n][l] = g[n][o][l]                            (conv_gather)
//                    col[g] = w[g]^T . t[g]         [G][patch][n L]     (cuBLAS)
//                    dx = the sum over each input element's taps of col (conv_col2im)
//   weight_gradient  col = im2col(x), t as for the input gradient, then
//                    dw[g] (+)= t[g] . col[g]^T     [G][O/G][patch]     (cuBLAS, summed over
//                    batches)
// where patch = C/G kH kW (a group's input channel, kernel row, kernel column) and L = OH OW.
//
// Pools are a thread per element with the CPU kernels' rules (kernels/pool.hpp): windows clipped
// as PyTorch's, max's first maximum kept and NaN propagated, avg's divisor, adaptive windows
// [floor(o H / OH), ceil((o + 1) H / OH)). Their gradients are gathers, not scatters: each input
// element adds up, over the windows that hold it in output order, the share each gives it (for
// max, the window's gradient where its argmax is this element): no atomics, the CPU's sums in
// the CPU's order.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "staticpy/backend/cuda/cublas.hpp"
#include "staticpy/backend/cuda/kernel_registry.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/tensor/conv_pool_device.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/ops_matmul.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::cuda::detail {

/// The kernels, after a typedef of staticpy_t (the tensors' element type). Geometry structs are
/// passed by value, as long longs in the order of to_device_geometry below.
inline constexpr const char* conv_pool_source = R"(
struct staticpy_conv_geometry {
    long long batch, in_channels, height, width, out_channels, kernel_h, kernel_w, out_h, out_w,
        stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w, groups;
};

#define STATICPY_GRID_STRIDE(i, n)                                                                 \
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n);                  \
         i += (long long)gridDim.x * blockDim.x)

// col[row][j], row = c kH kW + a kW + b over all input channels c (so group g's rows are
// [g patch, (g + 1) patch)), j = (n - n0) L + l over images [n0, n0 + count): the input at tap
// (a, b) of output position l's window, 0 in the padding.
extern "C" __global__ void conv_im2col(staticpy_conv_geometry g, long long n0, long long count,
                                       const staticpy_t* x, staticpy_t* col) {
    const long long taps = g.kernel_h * g.kernel_w, positions = g.out_h * g.out_w;
    const long long columns = count * positions;
    STATICPY_GRID_STRIDE(i, g.in_channels * taps * columns) {
        const long long j = i % columns, row = i / columns;
        const long long c = row / taps, a = row % taps / g.kernel_w, b = row % g.kernel_w;
        const long long n = n0 + j / positions, l = j % positions;
        const long long h = l / g.out_w * g.stride_h - g.pad_h + a * g.dilation_h;
        const long long w = l % g.out_w * g.stride_w - g.pad_w + b * g.dilation_w;
        col[i] = h >= 0 && h < g.height && w >= 0 && w < g.width
                     ? x[((n * g.in_channels + c) * g.height + h) * g.width + w]
                     : (staticpy_t)0;
    }
}

// y[n][o][l] = t[o][n - n0][l] + bias[o] for images [n0, n0 + count).
extern "C" __global__ void conv_output(staticpy_conv_geometry g, long long n0, long long count,
                                       const staticpy_t* t, const staticpy_t* bias,
                                       staticpy_t* y) {
    const long long positions = g.out_h * g.out_w;
    STATICPY_GRID_STRIDE(i, count * g.out_channels * positions) {
        const long long l = i % positions, o = i / positions % g.out_channels,
                        n = i / (positions * g.out_channels);
        const staticpy_t v = t[(o * count + n) * positions + l];
        y[n0 * g.out_channels * positions + i] = bias ? v + bias[o] : v;
    }
}

// t[o][n - n0][l] = gy[n][o][l] for images [n0, n0 + count).
extern "C" __global__ void conv_gather(staticpy_conv_geometry g, long long n0, long long count,
                                       const staticpy_t* gy, staticpy_t* t) {
    const long long positions = g.out_h * g.out_w;
    STATICPY_GRID_STRIDE(i, count * g.out_channels * positions) {
        const long long l = i % positions, n = i / positions % count,
                        o = i / (positions * count);
        t[i] = gy[((n0 + n) * g.out_channels + o) * positions + l];
    }
}

// dx[n][c][h][w] for images [n0, n0 + count): col's entries of the taps that read (h, w), summed
// in tap order.
extern "C" __global__ void conv_col2im(staticpy_conv_geometry g, long long n0, long long count,
                                       const staticpy_t* col, staticpy_t* dx) {
    const long long taps = g.kernel_h * g.kernel_w, positions = g.out_h * g.out_w;
    const long long columns = count * positions, plane = g.height * g.width;
    STATICPY_GRID_STRIDE(i, count * g.in_channels * plane) {
        const long long w = i % g.width, h = i / g.width % g.height,
                        c = i / plane % g.in_channels, n = i / (plane * g.in_channels);
        staticpy_t sum = 0;
        for (long long a = 0; a < g.kernel_h; ++a) {
            const long long th = h + g.pad_h - a * g.dilation_h;
            if (th < 0 || th % g.stride_h != 0 || th / g.stride_h >= g.out_h)
                continue;
            for (long long b = 0; b < g.kernel_w; ++b) {
                const long long tw = w + g.pad_w - b * g.dilation_w;
                if (tw < 0 || tw % g.stride_w != 0 || tw / g.stride_w >= g.out_w)
                    continue;
                const long long l = th / g.stride_h * g.out_w + tw / g.stride_w;
                sum += col[(c * taps + a * g.kernel_w + b) * columns + n * positions + l];
            }
        }
        dx[n0 * g.in_channels * plane + i] = sum;
    }
}

struct staticpy_pool_geometry {
    long long planes, in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, pad_h,
        pad_w, dilation_h, dilation_w;
};

// The pools' kinds.
#define STATICPY_POOL_MAX 0
#define STATICPY_POOL_AVG 1
#define STATICPY_POOL_ADAPTIVE 2

// Output o's window along a dim of n (kernels/pool.hpp's spans): the input positions
// [begin, end), taps `dilation` apart, and for avg its size within the padded input.
struct staticpy_span {
    long long begin, end, padded;
};
__device__ inline staticpy_span staticpy_window(int kind, long long o, long long out, long long n,
                                                long long k, long long stride, long long pad,
                                                long long dilation) {
    staticpy_span s;
    if (kind == STATICPY_POOL_MAX) {
        s.begin = o * stride - pad;
        const long long end = s.begin + (k - 1) * dilation + 1;
        s.end = end < n ? end : n;
        if (s.begin < 0)
            s.begin += (-s.begin + dilation - 1) / dilation * dilation;
        s.padded = 0;
    } else if (kind == STATICPY_POOL_AVG) {
        const long long begin = o * stride - pad;
        const long long end = begin + k < n + pad ? begin + k : n + pad;
        s.begin = begin > 0 ? begin : 0;
        s.end = end < n ? end : n;
        s.padded = end - begin;
    } else {
        s.begin = o * n / out;
        s.end = ((o + 1) * n + out - 1) / out;
        s.padded = s.end - s.begin;
    }
    return s;
}

// Where the max of a window of plane x is (an offset in the plane): PyTorch's rule, from the
// first tap, a value replacing the max where greater or NaN.
__device__ inline long long staticpy_argmax(const staticpy_t* x, long long width, staticpy_span r,
                                            staticpy_span c, long long dh, long long dw) {
    long long at = r.begin * width + c.begin;
    staticpy_t m = x[at];
    for (long long ih = r.begin; ih < r.end; ih += dh)
        for (long long iw = c.begin; iw < c.end; iw += dw) {
            const staticpy_t v = x[ih * width + iw];
            if (v > m || v != v) {
                m = v;
                at = ih * width + iw;
            }
        }
    return at;
}

// sum / divisor as the CPU divides: in floating point, or an integer division for int64.
template <class T>
__device__ inline T staticpy_divided(T sum, long long d) {
    return sum / (T)d;
}

// avg pooling's divisor for a window (divisor_override 0: none).
__device__ inline long long staticpy_divisor(staticpy_span r, staticpy_span c,
                                             int count_include_pad, long long divisor_override) {
    if (divisor_override != 0)
        return divisor_override;
    if (count_include_pad)
        return r.padded * c.padded;
    return (r.end - r.begin) * (c.end - c.begin);
}

// One window's output: its max (or, with values, values at its argmax), or its average.
__device__ inline staticpy_t staticpy_pool_window(int kind, staticpy_pool_geometry g,
                                                  const staticpy_t* x, const staticpy_t* values,
                                                  staticpy_span r, staticpy_span c,
                                                  int count_include_pad,
                                                  long long divisor_override) {
    if (kind == STATICPY_POOL_MAX) {
        if (r.begin >= r.end || c.begin >= c.end)
            return (staticpy_t)0;
        const long long at = staticpy_argmax(x, g.in_w, r, c, g.dilation_h, g.dilation_w);
        return values ? values[at] : x[at];
    }
    staticpy_t sum = 0;
    for (long long ih = r.begin; ih < r.end; ++ih)
        for (long long iw = c.begin; iw < c.end; ++iw)
            sum += x[ih * g.in_w + iw];
    if (kind == STATICPY_POOL_AVG)
        return r.begin >= r.end || c.begin >= c.end
                   ? (staticpy_t)0
                   : staticpy_divided(sum, staticpy_divisor(r, c, count_include_pad,
                                                            divisor_override));
    if (g.out_h == 1 && g.out_w == 1) // adaptive: the mean over the plane (PyTorch's case)
        return sum / (staticpy_t)(g.in_h * g.in_w);
    return sum / (staticpy_t)r.padded / (staticpy_t)c.padded;
}

// y[p][oh][ow]: each window's pool of x (values: at_argmax's values, x's shape, else null).
extern "C" __global__ void pool_forward(staticpy_pool_geometry g, int kind, int count_include_pad,
                                        long long divisor_override, const staticpy_t* x,
                                        const staticpy_t* values, staticpy_t* y) {
    const long long out_plane = g.out_h * g.out_w, in_plane = g.in_h * g.in_w;
    STATICPY_GRID_STRIDE(i, g.planes * out_plane) {
        const long long p = i / out_plane, oh = i % out_plane / g.out_w, ow = i % g.out_w;
        const staticpy_span r = staticpy_window(kind, oh, g.out_h, g.in_h, g.kernel_h, g.stride_h,
                                                g.pad_h, g.dilation_h);
        const staticpy_span c = staticpy_window(kind, ow, g.out_w, g.in_w, g.kernel_w, g.stride_w,
                                                g.pad_w, g.dilation_w);
        y[i] = staticpy_pool_window(kind, g, x + p * in_plane, values ? values + p * in_plane : 0,
                                    r, c, count_include_pad, divisor_override);
    }
}

// The outputs [lo, hi] along a dim whose windows may hold input position i: a range wide
// enough for every kind (each window is then checked).
__device__ inline void staticpy_candidates(int kind, long long i, long long out, long long n,
                                           long long k, long long stride, long long pad,
                                           long long dilation, long long* lo, long long* hi) {
    if (kind == STATICPY_POOL_ADAPTIVE) {
        *lo = i * out / n - 1;
        *hi = ((i + 1) * out) / n + 1;
    } else {
        const long long first = i + pad - (k - 1) * dilation;
        *lo = first <= 0 ? 0 : first / stride;
        *hi = (i + pad) / stride;
    }
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi > out - 1 ? out - 1 : *hi;
}

// dx[p][ih][iw]: gy's share of every window that holds (ih, iw), in output order (max: the
// windows whose argmax it is).
extern "C" __global__ void pool_backward(staticpy_pool_geometry g, int kind, int count_include_pad,
                                         long long divisor_override, const staticpy_t* gy,
                                         const staticpy_t* x, staticpy_t* dx) {
    const long long out_plane = g.out_h * g.out_w, in_plane = g.in_h * g.in_w;
    const bool mean = g.out_h == 1 && g.out_w == 1;
    STATICPY_GRID_STRIDE(i, g.planes * in_plane) {
        const long long p = i / in_plane, ih = i % in_plane / g.in_w, iw = i % g.in_w;
        long long oh0, oh1, ow0, ow1;
        staticpy_candidates(kind, ih, g.out_h, g.in_h, g.kernel_h, g.stride_h, g.pad_h,
                            g.dilation_h, &oh0, &oh1);
        staticpy_candidates(kind, iw, g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w,
                            g.dilation_w, &ow0, &ow1);
        const staticpy_t* go = gy + p * out_plane;
        staticpy_t sum = 0;
        for (long long oh = oh0; oh <= oh1; ++oh) {
            const staticpy_span r = staticpy_window(kind, oh, g.out_h, g.in_h, g.kernel_h,
                                                    g.stride_h, g.pad_h, g.dilation_h);
            if (ih < r.begin || ih >= r.end)
                continue;
            for (long long ow = ow0; ow <= ow1; ++ow) {
                const staticpy_span c = staticpy_window(kind, ow, g.out_w, g.in_w, g.kernel_w,
                                                        g.stride_w, g.pad_w, g.dilation_w);
                if (iw < c.begin || iw >= c.end)
                    continue;
                const staticpy_t v = go[oh * g.out_w + ow];
                if (kind == STATICPY_POOL_MAX) {
                    if (staticpy_argmax(x + p * in_plane, g.in_w, r, c, g.dilation_h,
                                        g.dilation_w) == ih * g.in_w + iw)
                        sum += v;
                } else if (kind == STATICPY_POOL_AVG) {
                    sum += staticpy_divided(
                        v, staticpy_divisor(r, c, count_include_pad, divisor_override));
                } else {
                    sum += mean ? v / (staticpy_t)in_plane
                                : v / (staticpy_t)r.padded / (staticpy_t)c.padded;
                }
            }
        }
        dx[i] = sum;
    }
}
)";

/// The kernels' module for one element type (a key of the kernel registry).
template <class T>
struct conv_pool_kernels {
    static std::string source() { return typedef_of<T>("staticpy_t") + conv_pool_source; }
};

/// A convolution's column matrix stays within this many bytes: the batch is done this many
/// images at a time (one at least).
inline constexpr std::int64_t conv_column_budget_bytes = std::int64_t{256} << 20;

/// The geometry as the kernels' staticpy_conv_geometry takes it.
inline std::array<std::int64_t, 16> to_device_geometry(const kernels::conv2d_geometry& g) {
    return {g.batch,    g.in_channels, g.height,     g.width,    g.out_channels, g.kernel_h,
            g.kernel_w, g.out_h,       g.out_w,      g.stride_h, g.stride_w,     g.pad_h,
            g.pad_w,    g.dilation_h,  g.dilation_w, g.groups};
}
/// ... and staticpy_pool_geometry.
inline std::array<std::int64_t, 13> to_device_geometry(const kernels::pool2d_geometry& g) {
    return {g.planes,   g.in_h,     g.in_w,  g.out_h, g.out_w,      g.kernel_h,  g.kernel_w,
            g.stride_h, g.stride_w, g.pad_h, g.pad_w, g.dilation_h, g.dilation_w};
}

/// Runs the conv_pool kernels of element type T on one device.
template <class T>
class conv_pool_launcher {
public:
    explicit conv_pool_launcher(int device)
        : shape_(shape_of_device(device)), kernels_(module_of<conv_pool_kernels<T>>(device)) {}

    /// kernel(geometry, rest...) over `work` elements, a thread each (grid-stride).
    template <class Geometry, class... Rest>
    void run(const char* kernel, std::int64_t work, const Geometry& geometry, Rest... rest) {
        if (work <= 0)
            return;
        kernel_arguments a;
        a.add_dims(to_device_geometry(geometry));
        (a.add(rest), ...);
        launch_default(kernels_.function(kernel), grid_for(work, shape_), 1, shape_.block, a);
    }

private:
    device_shape shape_;
    compiled_kernels& kernels_;
};

/// A tensor's device address, null where it is undefined (a kernel's optional operand).
template <class T>
const void* address_or_null(const Tensor<T, dynamic_shape<1>>& t) {
    return t.defined() ? t.data_ptr() : nullptr;
}

/// One strided-batched GEMM per group (staticpy::detail::batched_gemm in row-major terms):
/// c[g] (n x m) (+)= a[g] (n x k) . b[g] (k x m), a[g] and b[g] `a_step` and `b_step` apart.
template <class T>
void group_gemm(int device, std::int64_t groups, std::int64_t n, std::int64_t m, std::int64_t k,
                const T* a, std::int64_t as0, std::int64_t as1, std::int64_t a_step, const T* b,
                std::int64_t bs0, std::int64_t bs1, std::int64_t b_step, T* c, bool accumulate) {
    staticpy::detail::batched_gemm gemm;
    gemm.device = device;
    gemm.type = dtype_of_v<T>;
    gemm.n = n;
    gemm.m = m;
    gemm.k = k;
    gemm.a = a;
    gemm.as0 = as0;
    gemm.as1 = as1;
    gemm.b = b;
    gemm.bs0 = bs0;
    gemm.bs1 = bs1;
    gemm.c = c;
    gemm.accumulate = accumulate;
    for (std::int64_t g = 0; g < groups; ++g) {
        gemm.a_offsets.push_back(g * a_step);
        gemm.b_offsets.push_back(g * b_step);
    }
    cublas_gemm_as<T>(gemm);
}

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// A convolution's kernel (conv_device_call) on one GPU's flat tensors: a and b its operands, bias
/// undefined where there is none.
template <class T>
void conv2d_on_cuda(conv_pool_device_tag, const conv_device_call& call,
                    const Tensor<T, dynamic_shape<1>>& a, const Tensor<T, dynamic_shape<1>>& b,
                    const Tensor<T, dynamic_shape<1>>& bias, Tensor<T, dynamic_shape<1>> out) {
    namespace cd = cuda::detail;
    using result = conv_device_call::result;
    const kernels::conv2d_geometry& geo = call.geometry;
    if (out.numel() == 0)
        return;
    const int device = out.device().index();
    cd::make_current(device);
    cd::conv_pool_launcher<T> kernels(device);
    const std::int64_t groups = geo.groups, group_out = geo.group_out(), patch = geo.patch();
    const std::int64_t positions = geo.positions(), rows = groups * patch;
    // Images at a time: the column matrix col [rows][images L] within the budget; the GEMM's
    // product (or the gathered gradient) t is [O][images L].
    const std::int64_t image_bytes = rows * positions * static_cast<std::int64_t>(sizeof(T));
    const std::int64_t per_batch = std::clamp<std::int64_t>(
        cd::conv_column_budget_bytes / std::max<std::int64_t>(image_bytes, 1), 1,
        std::max<std::int64_t>(geo.batch, 1));
    Tensor<T, dynamic_shape<1>> col(dynamic_shape<1>(rows * per_batch * positions), out.device());
    Tensor<T, dynamic_shape<1>> t(dynamic_shape<1>(geo.out_channels * per_batch * positions),
                                  out.device());
    T* pc = static_cast<T*>(col.data_ptr());
    T* pt = static_cast<T*>(t.data_ptr());
    const T* pa = static_cast<const T*>(a.data_ptr());
    const T* pb = static_cast<const T*>(b.data_ptr());
    if (patch == 0) { // no input channels: every product is an empty sum
        if (call.what == result::output) {
            t.fill_(T(0));
            kernels.run("conv_output", out.numel(), geo, 0LL, static_cast<long long>(geo.batch),
                        static_cast<const void*>(pt), cd::address_or_null(bias), out.data_ptr());
        } else {
            out.fill_(T(0));
        }
        return;
    }
    for (std::int64_t n0 = 0; n0 < geo.batch; n0 += per_batch) {
        const std::int64_t count = std::min(per_batch, geo.batch - n0);
        const std::int64_t columns = count * positions;
        const auto n = static_cast<long long>(n0), c = static_cast<long long>(count);
        const auto im2col = [&](const T* x) {
            kernels.run("conv_im2col", rows * columns, geo, n, c, static_cast<const void*>(x),
                        static_cast<void*>(pc));
        };
        const auto gather = [&](const T* g) {
            kernels.run("conv_gather", geo.out_channels * columns, geo, n, c,
                        static_cast<const void*>(g), static_cast<void*>(pt));
        };
        switch (call.what) {
        case result::output: // a = x, b = w: t[g] = w[g] . col[g]
            im2col(pa);
            cd::group_gemm<T>(device, groups, group_out, columns, patch, pb, patch, 1,
                              group_out * patch, pc, columns, 1, patch * columns, pt, false);
            kernels.run("conv_output", geo.out_channels * columns, geo, n, c,
                        static_cast<const void*>(pt), cd::address_or_null(bias), out.data_ptr());
            break;
        case result::input_gradient: // a = g, b = w: col[g] = w[g]^T . t[g]
            gather(pa);
            cd::group_gemm<T>(device, groups, patch, columns, group_out, pb, 1, patch,
                              group_out * patch, pt, columns, 1, group_out * columns, pc, false);
            kernels.run("conv_col2im", count * geo.image_size(), geo, n, c,
                        static_cast<const void*>(pc), out.data_ptr());
            break;
        case result::weight_gradient: // a = g, b = x: dw[g] (+)= t[g] . col[g]^T
            im2col(pb);
            gather(pa);
            cd::group_gemm<T>(device, groups, group_out, patch, columns, pt, columns, 1,
                              group_out * columns, pc, 1, columns, patch * columns,
                              static_cast<T*>(out.data_ptr()), n0 > 0);
            break;
        }
    }
    if (geo.batch == 0) // no images: the weight's gradient is an empty sum
        out.fill_(T(0));
}

/// A pooling kernel (pool_device_call) on one GPU's flat tensors: a and b its operands, b
/// undefined where there is none.
template <class T>
void pool2d_on_cuda(conv_pool_device_tag, const pool_device_call& call,
                    const Tensor<T, dynamic_shape<1>>& a, const Tensor<T, dynamic_shape<1>>& b,
                    Tensor<T, dynamic_shape<1>> out) {
    namespace cd = cuda::detail;
    using result = pool_device_call::result;
    if (out.numel() == 0)
        return;
    const int device = out.device().index();
    cd::make_current(device);
    cd::conv_pool_launcher<T> kernels(device);
    const int kind = static_cast<int>(call.kind);
    const int count_include_pad = call.divisor.count_include_pad ? 1 : 0;
    const auto divisor_override = static_cast<long long>(call.divisor.divisor_override);
    const void* pa = a.data_ptr();
    const void* pb = cd::address_or_null(b);
    void* po = out.data_ptr();
    switch (call.what) {
    case result::output:
        kernels.run("pool_forward", out.numel(), call.geometry, kind, count_include_pad,
                    divisor_override, pa, static_cast<const void*>(nullptr), po);
        break;
    case result::at_argmax: // a = values, b = x
        kernels.run("pool_forward", out.numel(), call.geometry, kind, count_include_pad,
                    divisor_override, pb, pa, po);
        break;
    case result::input_gradient: // a = g, b = x (max) or none
        kernels.run("pool_backward", out.numel(), call.geometry, kind, count_include_pad,
                    divisor_override, pa, pb, po);
        break;
    }
}

} // namespace staticpy::detail
