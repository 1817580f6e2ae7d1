#pragma once
// cross_entropy and nll_loss on GPU tensors (nn/functional.hpp's class_loss_op and its
// derivative, handed over as tensor/class_loss_device.hpp describes): row kernels, a block per row
// of C classes, with the CPU's formulas (class_rows in nn/functional.hpp), sums in double:
//   class_loss_targets      one block: the first row whose class index is out of range, and the
//                           sum of the target classes' weights ('mean' divides by it);
//   class_loss_rows         each row's loss: the row's log-sum-exp (max, then the sum of
//                           exp(x - max)) with the sums of the class coefficients q_c and of
//                           q_c x_c where label smoothing or a probability target needs them;
//   class_loss_total        one block: the rows' losses summed, divided for 'mean';
//   class_loss_input_grad   each row's gradient, scale (Q softmax - q) (log-probabilities: -w_t
//                           scale at the target class);
//   class_loss_target_grad  a probability target's gradient, scale (1 - e) w_c (lse - x_c).
// A class index out of range is PyTorch's IndexError "Target 7 is out of bounds." (the CPU's
// message, where PyTorch's CUDA kernels stop the process with a device assertion): the targets
// are checked on the device and one number is read back, before any loss is computed.

#include <algorithm>
#include <cstdint>
#include <string>

#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/tensor/class_loss_device.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::cuda::detail {

/// The class-loss kernels, after typedefs of staticpy_x_t (the input's and the weights' element
/// type), staticpy_target_t, staticpy_g_t (the cotangent's) and staticpy_out_t.
inline constexpr const char* class_loss_source = R"(
__device__ inline double staticpy_weight_of(const staticpy_x_t* w, long long c) {
    return w ? (double)w[c] : 1.0;
}

// One block: the first row whose class index is neither ignore_index nor in [0, classes) (rows
// where there is none), and the sum of the other rows' target weights.
extern "C" __global__ void class_loss_targets(long long rows, long long classes,
                                              const long long* t, const staticpy_x_t* w,
                                              long long ignore_index, long long* first_bad,
                                              double* denominator) {
    __shared__ long long bad32[32];
    __shared__ double sum32[32];
    long long bad = rows;
    double total = 0;
    for (long long r = threadIdx.x; r < rows; r += blockDim.x) {
        const long long c = t[r];
        if (c == ignore_index)
            continue;
        if (c < 0 || c >= classes)
            bad = r < bad ? r : bad;
        else
            total += staticpy_weight_of(w, c);
    }
    bad = staticpy_block_reduce(bad, [](long long a, long long b) { return b < a ? b : a; }, bad32);
    total = staticpy_block_reduce(total, [](double a, double b) { return a + b; }, sum32);
    if (threadIdx.x == 0) {
        *first_bad = bad;
        *denominator = total;
    }
}

struct staticpy_row_sums {
    double lse;      // log sum exp x_c
    double mass;     // sum q_c
    double weighted; // sum q_c x_c
};

// Row xr's sums over its classes, `inner` apart. The coefficients q_c: none (coefficients 0), the
// class weights (1), or a probability target's w_c ((1 - e) t_c + e / C) (2), tr its row.
__device__ staticpy_row_sums staticpy_row_pass(const staticpy_x_t* xr, long long classes,
                                               long long inner, int coefficients,
                                               const staticpy_x_t* w, const staticpy_target_t* tr,
                                               double smoothing, double spread, double* sum32) {
    double m = -staticpy_infinity(0.0);
    for (long long c = threadIdx.x; c < classes; c += blockDim.x) {
        const double v = (double)xr[c * inner];
        m = (v > m || v != v) ? v : m;
    }
    m = staticpy_block_reduce(m, [](double a, double b) { return (b > a || b != b) ? b : a; }, sum32);
    double total = 0, mass = 0, weighted = 0;
    for (long long c = threadIdx.x; c < classes; c += blockDim.x) {
        const double v = (double)xr[c * inner];
        total += std::exp(v - m);
        if (coefficients != 0) {
            double q = staticpy_weight_of(w, c);
            if (coefficients == 2)
                q *= (1 - smoothing) * (double)tr[c * inner] + spread;
            mass += q;
            weighted += q * v;
        }
    }
    const auto add = [](double a, double b) { return a + b; };
    total = staticpy_block_reduce(total, add, sum32);
    if (coefficients != 0) {
        mass = staticpy_block_reduce(mass, add, sum32);
        weighted = staticpy_block_reduce(weighted, add, sum32);
    }
    staticpy_row_sums s;
    s.lse = m + std::log(total);
    s.mass = mass;
    s.weighted = weighted;
    return s;
}

__device__ inline long long staticpy_row_base(long long r, long long classes, long long inner) {
    return (r / inner) * classes * inner + r % inner;
}

// Row r's class, -1 where it is ignored (or out of range: class_loss_targets reported it).
__device__ inline long long staticpy_class_of(const staticpy_target_t* t, long long r,
                                              long long classes, long long ignore_index) {
    const long long c = (long long)t[r];
    return c == ignore_index || c < 0 || c >= classes ? -1 : c;
}

// Each row's loss, into rows_out (reduction 'none') or into acc (to be summed).
extern "C" __global__ void class_loss_rows(long long rows, long long classes, long long inner,
                                           const staticpy_x_t* x, const staticpy_target_t* t,
                                           const staticpy_x_t* w, long long ignore_index,
                                           double smoothing, int logits, int indices,
                                           staticpy_out_t* rows_out, double* acc) {
    __shared__ double sum32[32];
    const double spread = classes > 0 ? smoothing / (double)classes : 0.0;
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const long long base = staticpy_row_base(r, classes, inner);
        const staticpy_x_t* xr = x + base;
        double loss = 0;
        if (indices) {
            const long long c = staticpy_class_of(t, r, classes, ignore_index);
            if (c >= 0) {
                const double wt = staticpy_weight_of(w, c);
                const double xt = (double)xr[c * inner];
                if (!logits) {
                    loss = -wt * xt;
                } else if (smoothing == 0) {
                    const staticpy_row_sums s =
                        staticpy_row_pass(xr, classes, inner, 0, w, t, 0, 0, sum32);
                    loss = wt * (s.lse - xt);
                } else {
                    const staticpy_row_sums s =
                        staticpy_row_pass(xr, classes, inner, 1, w, t, 0, 0, sum32);
                    loss = (1 - smoothing) * wt * (s.lse - xt) +
                           spread * (s.mass * s.lse - s.weighted);
                }
            }
        } else if (classes > 0) {
            const staticpy_row_sums s =
                staticpy_row_pass(xr, classes, inner, 2, w, t + base, smoothing, spread, sum32);
            loss = s.mass * s.lse - s.weighted;
        }
        if (threadIdx.x == 0) {
            if (rows_out)
                rows_out[r] = (staticpy_out_t)loss;
            else
                acc[r] = loss;
        }
    }
}

// One block: the rows' losses summed, divided by *denominator where given, else by divisor.
extern "C" __global__ void class_loss_total(long long rows, const double* acc,
                                            const double* denominator, double divisor,
                                            staticpy_out_t* out) {
    __shared__ double sum32[32];
    double total = 0;
    for (long long r = threadIdx.x; r < rows; r += blockDim.x)
        total += acc[r];
    total = staticpy_block_reduce(total, [](double a, double b) { return a + b; }, sum32);
    if (threadIdx.x == 0)
        out[0] = (staticpy_out_t)(total / (denominator ? *denominator : divisor));
}

// Row r's scale: its cotangent (per_row), or the loss's divided by the mean's denominator.
__device__ inline double staticpy_scale(const staticpy_g_t* g, long long r, int per_row,
                                        const double* denominator, double divisor) {
    return per_row ? (double)g[r] : (double)g[0] / (denominator ? *denominator : divisor);
}

extern "C" __global__ void class_loss_input_grad(
    long long rows, long long classes, long long inner, const staticpy_x_t* x,
    const staticpy_target_t* t, const staticpy_x_t* w, long long ignore_index, double smoothing,
    int logits, int indices, const staticpy_g_t* g, int per_row, const double* denominator,
    double divisor, staticpy_out_t* out) {
    __shared__ double sum32[32];
    const double spread = classes > 0 ? smoothing / (double)classes : 0.0;
    double weight_total = (double)classes;
    if (w && indices && smoothing != 0) {
        weight_total = 0;
        for (long long c = threadIdx.x; c < classes; c += blockDim.x)
            weight_total += (double)w[c];
        weight_total =
            staticpy_block_reduce(weight_total, [](double a, double b) { return a + b; }, sum32);
    }
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const long long base = staticpy_row_base(r, classes, inner);
        const staticpy_x_t* xr = x + base;
        staticpy_out_t* gr = out + base;
        const double scale = staticpy_scale(g, r, per_row, denominator, divisor);
        if (indices) {
            const long long target = staticpy_class_of(t, r, classes, ignore_index);
            const double wt = target >= 0 ? staticpy_weight_of(w, target) : 0.0;
            if (target < 0 || !logits) {
                for (long long c = threadIdx.x; c < classes; c += blockDim.x)
                    gr[c * inner] = (staticpy_out_t)(c == target ? -scale * wt : 0.0);
                continue;
            }
            const double lse = staticpy_row_pass(xr, classes, inner, 0, w, t, 0, 0, sum32).lse;
            const double mass = (1 - smoothing) * wt + spread * weight_total;
            for (long long c = threadIdx.x; c < classes; c += blockDim.x) {
                const double p = std::exp((double)xr[c * inner] - lse);
                double v = scale * (mass * p - spread * staticpy_weight_of(w, c));
                if (c == target)
                    v -= scale * (1 - smoothing) * wt;
                gr[c * inner] = (staticpy_out_t)v;
            }
        } else {
            const staticpy_row_sums s =
                staticpy_row_pass(xr, classes, inner, 2, w, t + base, smoothing, spread, sum32);
            for (long long c = threadIdx.x; c < classes; c += blockDim.x) {
                const double p = std::exp((double)xr[c * inner] - s.lse);
                const double q = staticpy_weight_of(w, c) *
                                 ((1 - smoothing) * (double)t[base + c * inner] + spread);
                gr[c * inner] = (staticpy_out_t)(scale * (s.mass * p - q));
            }
        }
    }
}

extern "C" __global__ void class_loss_target_grad(
    long long rows, long long classes, long long inner, const staticpy_x_t* x,
    const staticpy_x_t* w, double smoothing, const staticpy_g_t* g, int per_row,
    const double* denominator, double divisor, staticpy_out_t* out) {
    __shared__ double sum32[32];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
        const long long base = staticpy_row_base(r, classes, inner);
        const staticpy_x_t* xr = x + base;
        const double scale = staticpy_scale(g, r, per_row, denominator, divisor);
        const double lse = staticpy_row_pass(xr, classes, inner, 0, w, 0, 0, 0, sum32).lse;
        for (long long c = threadIdx.x; c < classes; c += blockDim.x)
            out[base + c * inner] = (staticpy_out_t)(scale * (1 - smoothing) *
                                                     staticpy_weight_of(w, c) *
                                                     (lse - (double)xr[c * inner]));
    }
}
)";

/// The kernels' module for one combination of element types (a key of the kernel registry).
template <class T, class U, class G, class O>
struct class_loss_kernels {
    static std::string source() {
        return block_reduce_source + typedef_of<T>("staticpy_x_t") +
               typedef_of<U>("staticpy_target_t") + typedef_of<G>("staticpy_g_t") +
               typedef_of<O>("staticpy_out_t") + class_loss_source;
    }
};

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// A class loss or its derivative on one GPU's tensors (flat and contiguous; weight and the
/// cotangent undefined where there are none): the row kernels of class_loss_source.
template <class T, class U, class G, class O>
void class_loss_on_cuda(class_loss_device_tag, const class_loss_device_call& call,
                        const Tensor<T, dynamic_shape<1>>& input,
                        const Tensor<U, dynamic_shape<1>>& target,
                        const Tensor<T, dynamic_shape<1>>& weight,
                        const Tensor<G, dynamic_shape<1>>& cotangent,
                        Tensor<O, dynamic_shape<1>> out) {
    namespace cd = cuda::detail;
    using result = class_loss_device_call::result;
    using reduce = class_loss_device_call::reduce;
    const Device device = input.device();
    cd::make_current(device.index());
    const cd::device_shape launch_shape = cd::shape_of_device(device.index());
    const std::int64_t rows = call.outer * call.inner;
    const bool gradient = call.what != result::loss;
    cd::compiled_kernels& ks = cd::module_of<cd::class_loss_kernels<T, U, G, O>>(device.index());
    const void* w = weight.defined() ? weight.data_ptr() : nullptr;
    const auto one_block = [&](const char* kernel, cd::kernel_arguments& a) {
        cd::launch_default(ks.function(kernel), 1, 1, launch_shape.block, a);
    };
    const auto per_row = [&](const char* kernel, cd::kernel_arguments& a) {
        if (rows > 0)
            cd::launch_default(
                ks.function(kernel),
                static_cast<unsigned>(std::min<std::int64_t>(rows, launch_shape.max_grid)), 1,
                launch_shape.block, a);
    };

    // Class indices: checked first, with what a 'mean' divides by.
    Tensor<double, dynamic_shape<1>> denominator;
    if (call.indices && rows > 0) {
        Tensor<std::int64_t, dynamic_shape<1>> first_bad(dynamic_shape<1>(std::int64_t{1}), device);
        denominator = Tensor<double, dynamic_shape<1>>(dynamic_shape<1>(std::int64_t{1}), device);
        cd::kernel_arguments a;
        a.add<long long>(rows);
        a.add<long long>(call.classes);
        a.add(static_cast<const void*>(target.data_ptr()));
        a.add(w);
        a.add<long long>(call.ignore_index);
        a.add(static_cast<void*>(first_bad.data_ptr()));
        a.add(static_cast<void*>(denominator.data_ptr()));
        one_block("class_loss_targets", a);
        if (const std::int64_t bad = first_bad.item(); bad < rows) {
            const Tensor<U, shape<>> value(target.storage(), target.storage_offset() + bad,
                                           shape<>{}, {});
            throw IndexError("Target " + std::to_string(static_cast<std::int64_t>(value.item())) +
                             " is out of bounds.");
        }
    }
    if (gradient && out.numel() == 0)
        return;
    // The divisor of a 'mean' of probability targets (NaN for an empty input), of a 'sum' (1).
    const double divisor = call.reduction == reduce::mean
                               ? (input.numel() == 0 ? 0.0 : static_cast<double>(rows))
                               : 1.0;
    const void* mean_denominator = call.reduction == reduce::mean && call.indices && rows > 0
                                       ? static_cast<const void*>(denominator.data_ptr())
                                       : nullptr;

    cd::kernel_arguments a;
    a.add<long long>(rows);
    a.add<long long>(call.classes);
    a.add<long long>(call.inner);
    a.add(static_cast<const void*>(input.data_ptr()));
    if (call.what == result::target_gradient) {
        a.add(w);
        a.add<double>(call.smoothing);
    } else {
        a.add(static_cast<const void*>(target.data_ptr()));
        a.add(w);
        a.add<long long>(call.ignore_index);
        a.add<double>(call.smoothing);
        a.add<int>(call.logits ? 1 : 0);
        a.add<int>(call.indices ? 1 : 0);
    }
    if (!gradient) {
        Tensor<double, dynamic_shape<1>> acc;
        if (call.reduction == reduce::none) {
            a.add(static_cast<void*>(out.data_ptr()));
            a.add(static_cast<void*>(nullptr));
        } else {
            acc = Tensor<double, dynamic_shape<1>>(dynamic_shape<1>(rows), device);
            a.add(static_cast<void*>(nullptr));
            a.add(static_cast<void*>(acc.data_ptr()));
        }
        per_row("class_loss_rows", a);
        if (call.reduction != reduce::none) {
            cd::kernel_arguments t;
            t.add<long long>(rows);
            t.add(static_cast<const void*>(acc.data_ptr()));
            t.add(mean_denominator);
            t.add<double>(divisor);
            t.add(static_cast<void*>(out.data_ptr()));
            one_block("class_loss_total", t);
        }
        return;
    }
    a.add(static_cast<const void*>(cotangent.data_ptr()));
    a.add<int>(call.reduction == reduce::none ? 1 : 0);
    a.add(mean_denominator);
    a.add<double>(divisor);
    a.add(static_cast<void*>(out.data_ptr()));
    per_row(call.what == result::input_gradient ? "class_loss_input_grad"
                                                : "class_loss_target_grad",
            a);
}

} // namespace staticpy::detail
