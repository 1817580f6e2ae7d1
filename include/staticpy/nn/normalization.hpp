#pragma once
// Normalisation layers, PyTorch 1.13's: nn::functional::batch_norm and layer_norm, and the modules
// nn::BatchNorm1d, nn::BatchNorm2d and nn::LayerNorm.
//
//   nn::Sequential model(nn::Linear<784, 128>{}, nn::BatchNorm1d<128>{}, nn::ReLU{}, ...);
//   model.eval();                               // running statistics from now on
//   auto y = nn::functional::layer_norm(x, std::array<std::int64_t, 1>{5}, w, b);
//
// Each function is one op object (tensor/op_objects.hpp): a kernel over the input that runs
// eagerly, as one opaque node of a traced graph, and on the autodiff tape, with a backward op
// object per operand (input, weight, bias) that recomputes the statistics it needs from the input
// (nothing is kept between forward and backward, so a graph whose numbering duplicates a forward
// node still gives the same numbers). First-order only, as the losses'.
//
// batch_norm's mode and running statistics are run-time arguments of its op, not operands: one
// traced graph serves training and evaluation (a graph's type cannot depend on a run-time bool).
// In training the op normalises with the batch's statistics (biased variance) and updates the
// running ones in place (running_var with the unbiased variance, as PyTorch), exactly once per
// call of batch_norm, however many nodes of the graph stand for that call: the update is a token
// in the op's arguments, which the first evaluation spends. Evaluating, it normalises with the
// running statistics. The statistics are computed in double; the kernels split the channels (or a
// layer norm's rows) across threads and sum contiguous runs in SIMD-width blocks.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/unpack.hpp>

#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/parallel.hpp"
#include "staticpy/nn/init.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/tensor.hpp"
#include "staticpy/tensor/norm_device.hpp"

namespace staticpy {

namespace raise {
/// batch_norm's input has InputChannels channels (dim 1) and its running_mean NumFeatures
/// elements: PyTorch's "running_mean should contain 16 elements not 6".
template <std::int64_t InputChannels, std::int64_t NumFeatures>
inline constexpr bool running_mean_should_contain = false;
/// The same for the weight (a batch norm without running statistics).
template <std::int64_t InputChannels, std::int64_t NumFeatures>
inline constexpr bool weight_should_contain = false;
/// layer_norm's input does not end with the normalized shape: PyTorch's "Given
/// normalized_shape=[5], expected input with shape [*, 5], but got input of size[2, 3, 4]". The
/// first of the input's trailing sizes that differs, and the normalized size there.
template <std::int64_t InputSize, std::int64_t NormalizedSize>
inline constexpr bool layer_norm_input_shape = false;
} // namespace raise

namespace nn::functional {

namespace detail {

// ---- operands
// ------------------------------------------------------------------------------------

/// A tensor, a traced value or a recorded one: what the normalisations take as input, weight and
/// bias.
template <class X>
concept norm_operand = requires {
    typename X::value_type;
    typename X::shape_type;
    X::rank;
};

/// Whether an optional operand (weight=, bias=) is given: anything but None.
template <class W>
inline constexpr bool given_v = !std::is_same_v<std::remove_cvref_t<W>, none_t>;

/// The compile-time extent I of X's shape, -1 when it is a run-time size (or X has no dim I).
template <class X, std::size_t I>
constexpr std::int64_t static_extent() {
    using S = typename X::shape_type;
    if constexpr (I >= S::rank)
        return -1;
    else
        return S::static_extents[I];
}

/// The optional operands that are given, as a tuple of references.
template <class... P>
auto given_operands(const P&... p) {
    return std::tuple_cat([&]() {
        if constexpr (given_v<P>)
            return std::tuple<const P&>(p);
        else
            return std::tuple<>{};
    }()...);
}

// ---- kernels ------------------------------------------------------------------------------------

/// How many elements sum in T lanes before they join the double total, and how many lanes: the
/// lanes are independent sums, which the compiler keeps in SIMD registers; the blocks bound the
/// rounding error of a float lane.
inline constexpr std::int64_t lane_block = 1024;
inline constexpr int lane_count = 16;

/// The sum over i < n of f(a[i], b[i]), and with Two also of h(a[i], b[i]), in double (b may
/// be a).
template <bool Two, class T, class F, class H>
std::pair<double, double> run_sums(const T* a, const T* b, std::int64_t n, F f, H h) {
    double total_f = 0;
    double total_h = 0;
    for (std::int64_t start = 0; start < n; start += lane_block) {
        const std::int64_t len = std::min(lane_block, n - start);
        const T* p = a + start;
        const T* q = b + start;
        T lanes_f[lane_count] = {};
        T lanes_h[lane_count] = {};
        std::int64_t i = 0;
        for (; i + lane_count <= len; i += lane_count)
            for (int k = 0; k < lane_count; ++k) {
                lanes_f[k] += f(p[i + k], q[i + k]);
                if constexpr (Two)
                    lanes_h[k] += h(p[i + k], q[i + k]);
            }
        double part_f = 0;
        double part_h = 0;
        for (int k = 0; k < lane_count; ++k) {
            part_f += static_cast<double>(lanes_f[k]);
            part_h += static_cast<double>(lanes_h[k]);
        }
        for (; i < len; ++i) {
            part_f += static_cast<double>(f(p[i], q[i]));
            if constexpr (Two)
                part_h += static_cast<double>(h(p[i], q[i]));
        }
        total_f += part_f;
        total_h += part_h;
    }
    return {total_f, total_h};
}

/// The sum of f(a[i]) over i < n, in double.
template <class T, class F>
double run_sum(const T* a, std::int64_t n, F f) {
    return run_sums<false>(
               a, a, n, [&](T x, T) { return f(x); }, [](T, T) { return T(0); })
        .first;
}

/// An input [N, C, d1, ...] as N x C runs of `inner` = d1 * ... contiguous elements: channel c's
/// elements are the runs n * C + c.
struct channel_layout {
    std::int64_t batch = 0;
    std::int64_t channels = 0;
    std::int64_t inner = 1;

    template <std::size_t R>
    explicit channel_layout(const std::array<std::int64_t, R>& sizes)
        : batch(sizes[0]), channels(sizes[1]) {
        for (std::size_t d = 2; d < R; ++d)
            inner *= sizes[d];
    }
    [[nodiscard]] std::int64_t per_channel() const { return batch * inner; }
    [[nodiscard]] std::int64_t numel() const { return batch * channels * inner; }
};

/// Runs body(c0, c1) over ranges of channels, across threads when the input pays for them.
template <class Body>
void for_channels(const channel_layout& l, Body&& body) {
    const int chunks = kernels::chunk_count(l.channels, kernels::threads_for(l.numel(), 2), 1);
    kernels::parallel_chunks(l.channels, chunks,
                             [&](std::int64_t c0, std::int64_t c1, int) { body(c0, c1); });
}

/// Per channel c of a contiguous input x: the sum of f(x, y), and with Two of h(x, y), over its
/// elements, y the element of a second contiguous input of the same shape at the same place (x
/// itself for one input); make(c) gives channel c's (f, h).
template <bool Two, class T, class Make>
void channel_sums(const T* x, const T* y, const channel_layout& l, double* sum_f, double* sum_h,
                  Make&& make) {
    for_channels(l, [&](std::int64_t c0, std::int64_t c1) {
        for (std::int64_t c = c0; c < c1; ++c) {
            sum_f[c] = 0;
            if constexpr (Two)
                sum_h[c] = 0;
        }
        if (l.inner == 1) {
            // [N, C]: a row holds one element of each channel; the loop runs along the row.
            for (std::int64_t n = 0; n < l.batch; ++n) {
                const T* xr = x + n * l.channels;
                const T* yr = y + n * l.channels;
                for (std::int64_t c = c0; c < c1; ++c) {
                    const auto [f, h] = make(c);
                    sum_f[c] += static_cast<double>(f(xr[c], yr[c]));
                    if constexpr (Two)
                        sum_h[c] += static_cast<double>(h(xr[c], yr[c]));
                }
            }
            return;
        }
        for (std::int64_t c = c0; c < c1; ++c) {
            const auto [f, h] = make(c);
            for (std::int64_t n = 0; n < l.batch; ++n) {
                const std::int64_t at = (n * l.channels + c) * l.inner;
                const auto [a, b] = run_sums<Two>(x + at, y + at, l.inner, f, h);
                sum_f[c] += a;
                if constexpr (Two)
                    sum_h[c] += b;
            }
        }
    });
}

/// What channel_sums takes for a sum it does not compute.
template <class T>
struct no_term {
    T operator()(T, T) const { return T(0); }
};

/// Per channel of a contiguous input: the sum of its elements.
template <class T>
void channel_totals(const T* x, const channel_layout& l, double* total) {
    channel_sums<false>(x, x, l, total, nullptr, [](std::int64_t) {
        return std::pair{[](T v, T) { return v; }, no_term<T>{}};
    });
}

/// Per channel of a contiguous input: the mean, and the sum of squared deviations from it
/// (two passes: no cancellation).
template <class T>
void channel_moments(const T* x, const channel_layout& l, std::vector<double>& mean,
                     std::vector<double>& squares) {
    const auto c = static_cast<std::size_t>(l.channels);
    mean.assign(c, 0.0);
    squares.assign(c, 0.0);
    const double count = static_cast<double>(l.per_channel());
    channel_totals(x, l, mean.data());
    for (double& m : mean)
        m /= count;
    channel_sums<false>(x, x, l, squares.data(), nullptr, [&](std::int64_t ch) {
        const T m = static_cast<T>(mean[static_cast<std::size_t>(ch)]);
        return std::pair{[m](T v, T) { return (v - m) * (v - m); }, no_term<T>{}};
    });
}

/// out = a[c] x + k[c], or with Two out = a[c] x + b[c] y + k[c], elementwise over contiguous
/// inputs of one layout (channel c's coefficients).
template <bool Two, class T>
void channel_affine(const T* x, const T* y, T* out, const channel_layout& l,
                    const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& k) {
    const std::int64_t runs = l.batch * l.channels;
    const int chunks = kernels::chunk_count(runs, kernels::threads_for(l.numel(), 2),
                                            std::max<std::int64_t>(1, 4096 / (l.inner + 1)));
    kernels::parallel_chunks(runs, chunks, [&](std::int64_t r0, std::int64_t r1, int) {
        for (std::int64_t r = r0; r < r1; ++r) {
            const auto c = static_cast<std::size_t>(r % l.channels);
            const T ac = a[c];
            const T kc = k[c];
            const std::int64_t at = r * l.inner;
            if constexpr (Two) {
                const T bc = b[c];
                for (std::int64_t i = 0; i < l.inner; ++i)
                    out[at + i] = ac * x[at + i] + bc * y[at + i] + kc;
            } else {
                for (std::int64_t i = 0; i < l.inner; ++i)
                    out[at + i] = ac * x[at + i] + kc;
            }
        }
    });
}

// ---- batch_norm ---------------------------------------------------------------------------------

/// batch_norm's running statistics, a run-time argument of its op: handles of running_mean and
/// running_var (undefined: None), of a module's num_batches_tracked (undefined for the functional
/// form, which does not count), the momentum (none: the cumulative average a module with
/// momentum=None takes, 1 / num_batches_tracked), and the update this call of batch_norm makes,
/// until a node of the graph makes it (null when it makes none: evaluation, or no statistics).
/// Two are equal when they are the same tensors and the same call, as graph::captured nodes
/// compare: what merging traced nodes asks.
template <class T>
struct running_stats {
    Tensor<T, dynamic_shape<1>> mean;
    Tensor<T, dynamic_shape<1>> var;
    Tensor<std::int64_t, shape<>> num_batches_tracked;
    std::optional<double> momentum;
    std::shared_ptr<bool> pending;

    [[nodiscard]] bool defined() const { return mean.defined(); }

    friend bool operator==(const running_stats& a, const running_stats& b) {
        auto same = [](const auto& s, const auto& t) {
            if (!s.defined() || !t.defined())
                return s.defined() == t.defined();
            return s.data_ptr() == t.data_ptr() && s.sizes() == t.sizes() &&
                   s.strides() == t.strides();
        };
        return same(a.mean, b.mean) && same(a.var, b.var) &&
               same(a.num_batches_tracked, b.num_batches_tracked) && a.momentum == b.momentum &&
               a.pending == b.pending;
    }
    /// As the IR dump shows it: "running_mean=[3], running_var=[3], momentum=0.1" or
    /// "running_mean=None, running_var=None".
    void repr_into(std::string& out) const {
        auto sizes = [](const Tensor<T, dynamic_shape<1>>& t) {
            return t.defined() ? staticpy::detail::sizes_text(t.sizes()) : std::string("None");
        };
        out += "running_mean=" + sizes(mean) + ", running_var=" + sizes(var) + ", momentum=";
        if (momentum)
            staticpy::repr_into(out, *momentum);
        else
            out += "None";
    }
};

/// batch_norm's run-time arguments: the running statistics, training, eps.
template <class T>
using batch_norm_args = std::tuple<running_stats<T>, bool, double>;

/// What a batch norm normalises with, per channel: mean and 1 / sqrt(var + eps).
struct channel_statistics {
    std::vector<double> mean;
    std::vector<double> invstd;
};

/// "<name> should contain C elements not K" (PyTorch's check_dims_match_num_input_features).
inline void check_feature_count(const char* name, std::int64_t channels, std::int64_t count) {
    if (count != channels)
        throw RuntimeError(std::string(name) + " should contain " + std::to_string(channels) +
                           " elements not " + std::to_string(count));
}

/// PyTorch's F.batch_norm check before the kernel: more than one value per channel to train on.
template <std::size_t R>
void check_values_per_channel(const std::array<std::int64_t, R>& sizes) {
    std::int64_t values = sizes[0];
    for (std::size_t d = 2; d < sizes.size(); ++d)
        values *= sizes[d];
    if (values == 1)
        throw ValueError("Expected more than 1 value per channel when training, got input size "
                         "torch.Size(" +
                         staticpy::detail::sizes_text(sizes) + ")");
}

/// PyTorch's checks of batch_norm's operands, in its order, for an input of `channels` channels.
template <class T, class... P>
void check_batch_norm_operands(const batch_norm_args<T>& args, std::int64_t channels,
                               bool has_weight, const P&... affine) {
    const auto& stats = std::get<0>(args);
    const bool training = std::get<1>(args);
    if (stats.mean.defined())
        check_feature_count("running_mean", channels, stats.mean.numel());
    else if (!training)
        throw RuntimeError("running_mean must be defined in evaluation mode");
    if (stats.var.defined())
        check_feature_count("running_var", channels, stats.var.numel());
    else if (!training)
        throw RuntimeError("running_var must be defined in evaluation mode");
    std::size_t k = 0;
    (check_feature_count(k++ == 0 && has_weight ? "weight" : "bias", channels, affine.numel()),
     ...);
}

/// The statistics a batch norm of contiguous x normalises with: the batch's (training; the
/// sums of squared deviations too, for the running variance), or the running ones.
template <class T>
channel_statistics statistics_of(const T* x, const channel_layout& l,
                                 const batch_norm_args<T>& args, std::vector<double>* squares) {
    const auto& stats = std::get<0>(args);
    const double eps = std::get<2>(args);
    const auto c = static_cast<std::size_t>(l.channels);
    channel_statistics s;
    s.invstd.resize(c);
    if (std::get<1>(args)) {
        std::vector<double> local;
        std::vector<double>& sq = squares != nullptr ? *squares : local;
        channel_moments(x, l, s.mean, sq);
        const double count = static_cast<double>(l.per_channel());
        for (std::size_t i = 0; i < c; ++i)
            s.invstd[i] = 1.0 / std::sqrt(sq[i] / count + eps);
    } else {
        const auto mean = stats.mean.contiguous();
        const auto var = stats.var.contiguous();
        s.mean.resize(c);
        for (std::size_t i = 0; i < c; ++i) {
            s.mean[i] = static_cast<double>(mean.data()[i]);
            s.invstd[i] = 1.0 / std::sqrt(static_cast<double>(var.data()[i]) + eps);
        }
    }
    return s;
}

/// The running statistics' update of a training call, once: running = (1 - m) running + m batch
/// (running_var with the unbiased variance), m the momentum or 1 / num_batches_tracked, after
/// num_batches_tracked has counted this batch.
template <class T>
void update_running_stats(const running_stats<T>& stats, const channel_statistics& batch,
                          const std::vector<double>& squares, std::int64_t count) {
    if (!stats.pending || !*stats.pending)
        return;
    *stats.pending = false;
    auto tracked = stats.num_batches_tracked;
    if (tracked.defined())
        tracked.data()[0] += 1;
    const double factor =
        stats.momentum ? *stats.momentum : 1.0 / static_cast<double>(tracked.data()[0]);
    auto mean = stats.mean;
    auto var = stats.var;
    const double unbiased =
        count > 1 ? 1.0 / static_cast<double>(count - 1) : std::numeric_limits<double>::quiet_NaN();
    for (std::size_t c = 0; c < batch.mean.size(); ++c) {
        const auto i = static_cast<std::int64_t>(c);
        T& m = mean.data()[i * mean.strides()[0]];
        T& v = var.data()[i * var.strides()[0]];
        m = static_cast<T>((1 - factor) * static_cast<double>(m) + factor * batch.mean[c]);
        v = static_cast<T>((1 - factor) * static_cast<double>(v) + factor * squares[c] * unbiased);
    }
}

/// What a normalisation's backward op differentiates for.
enum class norm_wrt { input, weight, bias };

// ---- on a GPU -----------------------------------------------------------------------------------

/// A tensor flat and contiguous (as the device kernels take it), or an undefined one.
template <class T, class S>
Tensor<T, dynamic_shape<1>> flat_or_none(const Tensor<T, S>& t) {
    return t.defined() ? staticpy::detail::flat_elements(t) : Tensor<T, dynamic_shape<1>>();
}

/// The K-th of the given affine operands flat (an undefined tensor where there is none).
template <std::size_t K, class T, class... P>
Tensor<T, dynamic_shape<1>> flat_operand(const Tensor<T, P>&... operands) {
    if constexpr (K < sizeof...(P))
        return staticpy::detail::flat_elements(std::get<K>(std::tie(operands...)));
    else
        return {};
}

/// A normalisation of GPU tensors (every tensor of t on `on`'s device, else PyTorch's error):
/// the CUDA backend's kernels (tensor/norm_device.hpp) write a new tensor of out_shape there.
template <class Out, class On>
Out normalise_on_device(const staticpy::detail::norm_device_call& call,
                        const typename Out::shape_type& out_shape, const On& on,
                        staticpy::detail::norm_device_tensors<typename Out::value_type> t) {
    auto same_device = [&](const auto& tensor) {
        if (tensor.defined())
            staticpy::detail::check_same_device(on, tensor);
    };
    same_device(t.x);
    same_device(t.g);
    same_device(t.weight);
    same_device(t.bias);
    same_device(t.running_mean);
    same_device(t.running_var);
    same_device(t.num_batches_tracked);
    Out out(out_shape, on.device());
    t.out = staticpy::detail::flat_elements(out);
    norm_on_cuda(staticpy::detail::norm_device_tag{}, call, t);
    return out;
}

/// A normalisation's call: what it computes of an input [outer, groups, inner].
inline staticpy::detail::norm_device_call norm_call(staticpy::detail::norm_device_call::result what,
                                                    bool per_group_affine, bool batch_statistics,
                                                    std::int64_t outer, std::int64_t groups,
                                                    std::int64_t inner, double eps) {
    staticpy::detail::norm_device_call call;
    call.what = what;
    call.per_group_affine = per_group_affine;
    call.batch_statistics = batch_statistics;
    call.outer = outer;
    call.groups = groups;
    call.inner = inner;
    call.eps = eps;
    return call;
}

/// What a normalisation's gradient for Wrt is in a device call.
template <norm_wrt Wrt>
inline constexpr auto norm_result =
    Wrt == norm_wrt::input    ? staticpy::detail::norm_device_call::result::input_gradient
    : Wrt == norm_wrt::weight ? staticpy::detail::norm_device_call::result::weight_gradient
                              : staticpy::detail::norm_device_call::result::bias_gradient;

/// The backward op's name for what it differentiates: "<op>_backward", "..._weight", "..._bias".
template <norm_wrt Wrt>
constexpr const char* norm_backward_name(const char* input, const char* weight, const char* bias) {
    return Wrt == norm_wrt::input ? input : Wrt == norm_wrt::weight ? weight : bias;
}

/// Which operands the backward op reads; the others give only their shapes. For the input:
/// g, x and the weight when there is one; for the weight: g, x and the weight's shape; for the
/// bias: g and the bias's shape.
template <norm_wrt Wrt, bool HasWeight>
inline constexpr auto norm_backward_reads = [] {
    if constexpr (Wrt == norm_wrt::input && HasWeight)
        return std::array<bool, 3>{true, true, true};
    else if constexpr (Wrt == norm_wrt::input)
        return std::array<bool, 2>{true, true};
    else if constexpr (Wrt == norm_wrt::weight)
        return std::array<bool, 3>{true, true, false};
    else
        return std::array<bool, 2>{true, false};
}();

template <class T, norm_wrt Wrt, bool HasWeight>
struct batch_norm_backward_op;

/// batch_norm of an input [N, C, ...] (operand 0) with the weight and bias that are given
/// (operands 1, 2; HasWeight, HasBias): y = (x - mean) / sqrt(var + eps) * weight + bias per
/// channel, the batch's statistics in training (which updates the running ones), the running
/// ones otherwise.
template <class T, bool HasWeight, bool HasBias>
struct batch_norm_op {
    static constexpr const char* name = "batch_norm";
    /// Its eager form runs on GPU tensors too (backend/cuda/normalization.hpp's kernels), so a
    /// device graph runs it as it is; so do its derivatives'.
    static constexpr bool eager_on_cuda = true;
    batch_norm_args<T> args;

    template <class S, class... P>
    Tensor<T, S> operator()(const Tensor<T, S>& input, const Tensor<T, P>&... affine) const {
        static_assert(sizeof...(P) == HasWeight + HasBias);
        const channel_layout l(input.sizes());
        if (std::get<1>(args))
            check_values_per_channel(input.sizes());
        if (input.numel() == 0)
            return input.clone(); // PyTorch's: no statistics, and none updated
        check_batch_norm_operands(args, l.channels, HasWeight, affine...);
        const auto& stats = std::get<0>(args);
        if (input.is_cuda()) {
            auto call =
                norm_call(staticpy::detail::norm_device_call::result::output, true,
                          std::get<1>(args), l.batch, l.channels, l.inner, std::get<2>(args));
            if (std::get<1>(args) && stats.defined() && stats.pending && *stats.pending) {
                *stats.pending = false; // this call updates them, on the device
                call.update_running = true;
                call.momentum = stats.momentum ? *stats.momentum : -1.0;
            }
            return normalise_on_device<Tensor<T, S>>(call, input.shape(), input,
                                                     {flat_or_none(input),
                                                      {},
                                                      flat_operand < HasWeight ? 0 : 2,
                                                      T > (affine...),
                                                      flat_operand < HasBias ? sizeof...(P) - 1 : 2,
                                                      T > (affine...),
                                                      stats.mean,
                                                      stats.var,
                                                      stats.num_batches_tracked,
                                                      {}});
        }
        const auto x = input.contiguous();
        std::vector<double> squares;
        const auto s = statistics_of(x.data(), l, args, &squares);
        if (std::get<1>(args) && stats.defined())
            update_running_stats(stats, s, squares, l.per_channel());
        const auto c = static_cast<std::size_t>(l.channels);
        std::vector<T> scale(c), shift(c);
        const auto weight = affine_at < HasWeight ? 0 : 2 > (affine...);
        const auto bias = affine_at < HasBias ? sizeof...(P) - 1 : 2 > (affine...);
        for (std::size_t i = 0; i < c; ++i) {
            const double w = HasWeight ? static_cast<double>(weight.data()[i]) : 1.0;
            const double b = HasBias ? static_cast<double>(bias.data()[i]) : 0.0;
            scale[i] = static_cast<T>(w * s.invstd[i]);
            shift[i] = static_cast<T>(b - s.mean[i] * w * s.invstd[i]);
        }
        Tensor<T, S> out{input.shape()};
        channel_affine<false>(x.data(), x.data(), out.data(), l, scale, scale, shift);
        return out;
    }

    template <std::size_t I, class G, class Y, class X, class... P>
    auto vjp(const G& g, const Y&, const X& x, const P&... affine) const {
        if constexpr (I == 0) {
            if constexpr (HasWeight)
                return staticpy::detail::apply_op(
                    batch_norm_backward_op<T, norm_wrt::input, true>{args}, g, x,
                    std::get<0>(std::tie(affine...)));
            else
                return staticpy::detail::apply_op(
                    batch_norm_backward_op<T, norm_wrt::input, false>{args}, g, x);
        } else if constexpr (I == 1 && HasWeight) {
            return staticpy::detail::apply_op(
                batch_norm_backward_op<T, norm_wrt::weight, HasWeight>{args}, g, x,
                std::get<0>(std::tie(affine...)));
        } else {
            return staticpy::detail::apply_op(
                batch_norm_backward_op<T, norm_wrt::bias, HasWeight>{args}, g,
                std::get<I - 1>(std::tie(affine...)));
        }
    }

    /// The K-th given affine operand as a contiguous tensor (an undefined one if absent).
    template <std::size_t K, class... P>
    static Tensor<T, dynamic_shape<1>> affine_at(const Tensor<T, P>&... affine) {
        if constexpr (K < sizeof...(P))
            return Tensor<T, dynamic_shape<1>>(std::get<K>(std::tie(affine...)).contiguous());
        else
            return {};
    }
};

/// batch_norm_op's derivative for its input (operands g, x and the weight when there is one),
/// its weight (g, x, and the weight, only its shape read) or its bias (g, and the bias, only its
/// shape read), PyTorch's batch_norm_backward:
///   training:   dx = w invstd (g - mean(g) - (x - mean) invstd^2 mean(g (x - mean)))
///   evaluation: dx = w invstd g      (invstd, mean: the running statistics')
///   dw = sum(g (x - mean) invstd), db = sum(g), over every dim but the channels'.
template <class T, norm_wrt Wrt, bool HasWeight>
struct batch_norm_backward_op {
    static constexpr const char* name = norm_backward_name<Wrt>(
        "batch_norm_backward", "batch_norm_backward_weight", "batch_norm_backward_bias");
    static constexpr auto reads = norm_backward_reads<Wrt, HasWeight>;
    static constexpr bool eager_on_cuda = true;
    batch_norm_args<T> args;

    template <class SG, class S, class... P>
    auto operator()(const Tensor<T, SG>& g, const Tensor<T, S>& input,
                    const Tensor<T, P>&... weight) const requires(Wrt == norm_wrt::input) {
        const channel_layout l(input.sizes());
        if (input.is_cuda())
            return normalise_on_device<Tensor<T, S>>(device_call(l), input.shape(), input,
                                                     {flat_or_none(input),
                                                      flat_or_none(g),
                                                      flat_operand<0, T>(weight...),
                                                      {},
                                                      std::get<0>(args).mean,
                                                      std::get<0>(args).var,
                                                      {},
                                                      {}});
        Tensor<T, S> out{input.shape()};
        if (input.numel() == 0)
            return out;
        const auto x = input.contiguous();
        const auto gc = g.contiguous();
        const auto s = statistics_of(x.data(), l, args, nullptr);
        const auto c = static_cast<std::size_t>(l.channels);
        std::vector<T> a(c), b(c), k(c);
        std::vector<double> sum_g(c), dot(c);
        if (std::get<1>(args))
            gradient_sums(gc.data(), x.data(), l, s, sum_g.data(), dot.data());
        const auto w = [&] {
            if constexpr (HasWeight)
                return Tensor<T, dynamic_shape<1>>(weight.contiguous()...);
            else
                return Tensor<T, dynamic_shape<1>>();
        }();
        const double count = static_cast<double>(l.per_channel());
        for (std::size_t i = 0; i < c; ++i) {
            const double scale = (HasWeight ? static_cast<double>(w.data()[i]) : 1.0) * s.invstd[i];
            if (std::get<1>(args)) {
                // dx = scale (g - sum_g / n - (x - mean) invstd^2 dot / n)
                const double slope = s.invstd[i] * s.invstd[i] * dot[i] / count;
                a[i] = static_cast<T>(scale);
                b[i] = static_cast<T>(-scale * slope);
                k[i] = static_cast<T>(scale * (s.mean[i] * slope - sum_g[i] / count));
            } else {
                a[i] = static_cast<T>(scale);
                b[i] = T(0);
                k[i] = T(0);
            }
        }
        if (std::get<1>(args))
            channel_affine<true>(gc.data(), x.data(), out.data(), l, a, b, k);
        else
            channel_affine<false>(gc.data(), gc.data(), out.data(), l, a, a, k);
        return out;
    }

    template <class SG, class S, class L>
    auto operator()(const Tensor<T, SG>& g, const Tensor<T, S>& input, const L& weight) const
        requires(Wrt == norm_wrt::weight) {
        const channel_layout l(input.sizes());
        const auto& target = staticpy::detail::shape_of_like(weight);
        using W = std::remove_cvref_t<decltype(target)>;
        Tensor<T, W> out{target};
        const auto c = static_cast<std::size_t>(l.channels);
        if (input.numel() == 0) {
            out.fill_(T(0));
            return input.is_cuda() ? out.to(input.device()) : out;
        }
        if (input.is_cuda())
            return normalise_on_device<Tensor<T, W>>(device_call(l), target, input,
                                                     {flat_or_none(input),
                                                      flat_or_none(g),
                                                      {},
                                                      {},
                                                      std::get<0>(args).mean,
                                                      std::get<0>(args).var,
                                                      {},
                                                      {}});
        const auto x = input.contiguous();
        const auto gc = g.contiguous();
        const auto s = statistics_of(x.data(), l, args, nullptr);
        std::vector<double> sum_g(c), dot(c);
        gradient_sums(gc.data(), x.data(), l, s, sum_g.data(), dot.data());
        for (std::size_t i = 0; i < c; ++i)
            out.data()[i] = static_cast<T>(dot[i] * s.invstd[i]);
        return out;
    }

    template <class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& bias) const requires(Wrt == norm_wrt::bias) {
        const channel_layout l(g.sizes());
        const auto& target = staticpy::detail::shape_of_like(bias);
        using B = std::remove_cvref_t<decltype(target)>;
        if (g.is_cuda())
            return normalise_on_device<Tensor<T, B>>(device_call(l), target, g,
                                                     {{}, flat_or_none(g), {}, {}, {}, {}, {}, {}});
        Tensor<T, B> out{target};
        const auto c = static_cast<std::size_t>(l.channels);
        std::vector<double> sum_g(c);
        if (g.numel() != 0) {
            const auto gc = g.contiguous();
            channel_totals(gc.data(), l, sum_g.data());
        }
        for (std::size_t i = 0; i < c; ++i)
            out.data()[i] = static_cast<T>(sum_g[i]);
        return out;
    }

    /// First-order only, as grad is (docs/autodiff.md).
    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }

private:
    /// This derivative as the CUDA backend's call, for an input of layout l.
    [[nodiscard]] staticpy::detail::norm_device_call device_call(const channel_layout& l) const {
        return norm_call(norm_result<Wrt>, true, std::get<1>(args), l.batch, l.channels, l.inner,
                         std::get<2>(args));
    }

    /// Per channel: sum(g) and sum(g (x - mean)).
    static void gradient_sums(const T* g, const T* x, const channel_layout& l,
                              const channel_statistics& s, double* sum_g, double* dot) {
        channel_sums<true>(g, x, l, sum_g, dot, [&](std::int64_t ch) {
            const T m = static_cast<T>(s.mean[static_cast<std::size_t>(ch)]);
            return std::pair{[](T gv, T) { return gv; }, [m](T gv, T xv) { return gv * (xv - m); }};
        });
    }
};

/// A running statistic as the op's argument: a handle of the tensor, or an undefined one for
/// None.
template <class T, class R>
Tensor<T, dynamic_shape<1>> running_handle(const R& r) {
    if constexpr (given_v<R>) {
        static_assert(is_tensor_v<R>,
                      "staticpy: TypeError: running_mean and running_var are buffers: a Tensor or "
                      "None (not a traced or recorded value: capture it)");
        if constexpr (is_tensor_v<R>) {
            static_assert(std::is_same_v<typename R::value_type, T>,
                          "staticpy: RuntimeError: running_mean and running_var have the input's "
                          "dtype (PyTorch: expected scalar type Float but found Double)");
            static_assert(R::rank == 1, "staticpy: RuntimeError: running_mean and running_var "
                                        "are 1-D tensors of C elements");
            if constexpr (std::is_same_v<typename R::value_type, T> && R::rank == 1)
                return Tensor<T, dynamic_shape<1>>(r);
        }
    }
    return {};
}

/// The compile-time checks of batch_norm's operands: a floating input [N, C, ...], and the sizes
/// the types show to be C (running_mean's first: PyTorch checks it first).
template <class X, class RM, class W>
constexpr void check_batch_norm_types() {
    static_assert(std::is_floating_point_v<typename X::value_type>,
                  "staticpy: RuntimeError: batch_norm takes a floating-point input (PyTorch: "
                  "\"batch_norm\" not implemented for 'Long')");
    static_assert(X::rank >= 2, "staticpy: IndexError: Dimension out of range (batch_norm takes an "
                                "input [N, C, ...] of rank 2 or more)");
    constexpr std::int64_t channels = static_extent<X, 1>();
    if constexpr (channels >= 0) {
        if constexpr (given_v<RM> && norm_operand<RM>) {
            constexpr std::int64_t count = static_extent<RM, 0>();
            static_assert(count < 0 || count == channels ||
                              raise::running_mean_should_contain<channels, count>,
                          "staticpy: RuntimeError: running_mean should contain as many elements as "
                          "the input has channels (the input's size at dim 1 is not the number "
                          "of features)");
        } else if constexpr (given_v<W> && norm_operand<W>) {
            constexpr std::int64_t count = static_extent<W, 0>();
            static_assert(count < 0 || count == channels ||
                              raise::weight_should_contain<channels, count>,
                          "staticpy: RuntimeError: weight should contain as many elements as the "
                          "input has channels (the input's size at dim 1 is not the number of "
                          "features)");
        }
    }
}

/// batch_norm's op applied to the input and the affine operands that are given.
template <class X, class W, class B, class T = typename X::value_type>
auto apply_batch_norm(const X& input, const W& weight, const B& bias, running_stats<T> stats,
                      bool training, double eps) {
    if (training && stats.defined())
        stats.pending = std::make_shared<bool>(true);
    const batch_norm_op<T, given_v<W>, given_v<B>> op{{std::move(stats), training, eps}};
    return std::apply(
        [&](const auto&... affine) { return staticpy::detail::apply_op(op, input, affine...); },
        given_operands(weight, bias));
}

// ---- layer_norm ---------------------------------------------------------------------------------

/// layer_norm's normalized_shape, a run-time argument of its op: the sizes of the last K dims.
template <std::size_t K>
struct normalized_shape_arg {
    std::array<std::int64_t, K> sizes{};

    friend bool operator==(const normalized_shape_arg&, const normalized_shape_arg&) = default;
    void repr_into(std::string& out) const {
        out += "normalized_shape=" + staticpy::detail::sizes_text(sizes);
    }
};

/// An input [*, d1, ..., dK] as rows of M = d1 * ... * dK contiguous elements.
struct row_layout {
    std::int64_t rows = 0;
    std::int64_t width = 1;
};

template <std::size_t K, std::size_t R>
row_layout rows_of(const std::array<std::int64_t, R>& sizes) {
    row_layout l;
    l.rows = 1;
    for (std::size_t d = 0; d < R; ++d)
        (d < R - K ? l.rows : l.width) *= sizes[d];
    return l;
}

/// Runs body(r0, r1) over ranges of rows, across threads when the input pays for them.
template <class Body>
void for_rows(const row_layout& l, Body&& body) {
    const int chunks = kernels::chunk_count(l.rows, kernels::threads_for(l.rows * l.width, 2),
                                            std::max<std::int64_t>(1, 4096 / (l.width + 1)));
    kernels::parallel_chunks(l.rows, chunks,
                             [&](std::int64_t r0, std::int64_t r1, int) { body(r0, r1); });
}

/// Each row's mean and 1 / sqrt(var + eps) (biased variance), of a contiguous input.
template <class T>
void row_statistics(const T* x, const row_layout& l, double eps, std::vector<double>& mean,
                    std::vector<double>& invstd) {
    mean.assign(static_cast<std::size_t>(l.rows), 0.0);
    invstd.assign(static_cast<std::size_t>(l.rows), 0.0);
    for_rows(l, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
            const T* xr = x + r * l.width;
            const double m =
                run_sum(xr, l.width, [](T v) { return v; }) / static_cast<double>(l.width);
            const T mt = static_cast<T>(m);
            const double squares = run_sum(xr, l.width, [mt](T v) { return (v - mt) * (v - mt); });
            mean[static_cast<std::size_t>(r)] = m;
            invstd[static_cast<std::size_t>(r)] =
                1.0 / std::sqrt(squares / static_cast<double>(l.width) + eps);
        }
    });
}

/// layer_norm's run-time arguments: the normalized shape, eps.
template <std::size_t K>
using layer_norm_args = std::tuple<normalized_shape_arg<K>, double>;

/// PyTorch's checks of layer_norm's operands (its _check_layer_norm_inputs).
template <std::size_t K, std::size_t R, class... P>
void check_layer_norm_operands(const normalized_shape_arg<K>& normalized,
                               const std::array<std::int64_t, R>& input,
                               [[maybe_unused]] bool has_weight, const P&... affine) {
    [[maybe_unused]] std::size_t k = 0; // both unused where there is no weight nor bias
    (
        [&] {
            const char* which = k++ == 0 && has_weight ? "weight" : "bias";
            const auto& sizes = affine.sizes();
            if (!std::equal(sizes.begin(), sizes.end(), normalized.sizes.begin(),
                            normalized.sizes.end()))
                throw RuntimeError(
                    std::string("Expected ") + which +
                    " to be of same shape as normalized_shape, but got " + which + " of shape " +
                    staticpy::detail::sizes_text(sizes) +
                    " and normalized_shape = " + staticpy::detail::sizes_text(normalized.sizes));
        }(),
        ...);
    bool fits = R >= K;
    for (std::size_t i = 0; fits && i < K; ++i)
        fits = input[R - K + i] == normalized.sizes[i];
    if (!fits) {
        std::string expected = "[*";
        for (std::int64_t s : normalized.sizes)
            expected += ", " + std::to_string(s);
        throw RuntimeError(
            "Given normalized_shape=" + staticpy::detail::sizes_text(normalized.sizes) +
            ", expected input with shape " + expected + "], but got input of size" +
            staticpy::detail::sizes_text(input));
    }
}

template <class T, std::size_t K, norm_wrt Wrt, bool HasWeight>
struct layer_norm_backward_op;

/// layer_norm over the last K dims of its input (operand 0), with the weight and bias that are
/// given (operands 1, 2): y = (x - mean) / sqrt(var + eps) * weight + bias, the statistics of
/// each row of d1 * ... * dK elements.
template <class T, std::size_t K, bool HasWeight, bool HasBias>
struct layer_norm_op {
    static constexpr const char* name = "layer_norm";
    /// As batch_norm's, its eager form and its derivatives' run on GPU tensors too.
    static constexpr bool eager_on_cuda = true;
    layer_norm_args<K> args;

    template <class S, class... P>
    Tensor<T, S> operator()(const Tensor<T, S>& input, const Tensor<T, P>&... affine) const {
        check_layer_norm_operands(std::get<0>(args), input.sizes(), HasWeight, affine...);
        const auto l = rows_of<K>(input.sizes());
        if (input.is_cuda())
            return normalise_on_device<Tensor<T, S>>(
                norm_call(staticpy::detail::norm_device_call::result::output, false, true, 1,
                          l.rows, l.width, std::get<1>(args)),
                input.shape(), input,
                {flat_or_none(input),
                 {},
                 flat_operand < HasWeight ? 0 : 2,
                 T > (affine...),
                 flat_operand < HasBias ? sizeof...(P) - 1 : 2,
                 T > (affine...),
                 {},
                 {},
                 {},
                 {}});
        Tensor<T, S> out{input.shape()};
        if (input.numel() == 0)
            return out;
        const auto x = input.contiguous();
        std::vector<double> mean, invstd;
        row_statistics(x.data(), l, std::get<1>(args), mean, invstd);
        const auto w = contiguous_at < HasWeight ? 0 : 2 > (affine...);
        const auto b = contiguous_at < HasBias ? sizeof...(P) - 1 : 2 > (affine...);
        const T* wd = HasWeight ? w.data() : nullptr;
        const T* bd = HasBias ? b.data() : nullptr;
        T* q = out.data();
        const T* p = x.data();
        for_rows(l, [&](std::int64_t r0, std::int64_t r1) {
            for (std::int64_t r = r0; r < r1; ++r) {
                const T m = static_cast<T>(mean[static_cast<std::size_t>(r)]);
                const T is = static_cast<T>(invstd[static_cast<std::size_t>(r)]);
                const T* xr = p + r * l.width;
                T* yr = q + r * l.width;
                for (std::int64_t j = 0; j < l.width; ++j) {
                    T v = (xr[j] - m) * is;
                    if constexpr (HasWeight)
                        v *= wd[j];
                    if constexpr (HasBias)
                        v += bd[j];
                    yr[j] = v;
                }
            }
        });
        return out;
    }

    template <std::size_t I, class G, class Y, class X, class... P>
    auto vjp(const G& g, const Y&, const X& x, const P&... affine) const {
        if constexpr (I == 0) {
            if constexpr (HasWeight)
                return staticpy::detail::apply_op(
                    layer_norm_backward_op<T, K, norm_wrt::input, true>{args}, g, x,
                    std::get<0>(std::tie(affine...)));
            else
                return staticpy::detail::apply_op(
                    layer_norm_backward_op<T, K, norm_wrt::input, false>{args}, g, x);
        } else if constexpr (I == 1 && HasWeight) {
            return staticpy::detail::apply_op(
                layer_norm_backward_op<T, K, norm_wrt::weight, HasWeight>{args}, g, x,
                std::get<0>(std::tie(affine...)));
        } else {
            return staticpy::detail::apply_op(
                layer_norm_backward_op<T, K, norm_wrt::bias, HasWeight>{args}, g,
                std::get<I - 1>(std::tie(affine...)));
        }
    }

    template <std::size_t J, class... P>
    static Tensor<T, dynamic_shape<K>> contiguous_at(const Tensor<T, P>&... affine) {
        if constexpr (J < sizeof...(P))
            return Tensor<T, dynamic_shape<K>>(std::get<J>(std::tie(affine...)).contiguous());
        else
            return {};
    }
};

/// layer_norm_op's derivative for its input (operands g, x and the weight when there is one),
/// its weight (g, x, the weight's shape) or its bias (g, the bias's shape), PyTorch's
/// layer_norm_backward, per row (xhat = (x - mean) invstd, gw = g w):
///   dx = invstd (gw - mean(gw) - xhat mean(gw xhat)),
///   dw = sum over rows of g xhat, db = sum over rows of g.
template <class T, std::size_t K, norm_wrt Wrt, bool HasWeight>
struct layer_norm_backward_op {
    static constexpr const char* name = norm_backward_name<Wrt>(
        "layer_norm_backward", "layer_norm_backward_weight", "layer_norm_backward_bias");
    static constexpr auto reads = norm_backward_reads<Wrt, HasWeight>;
    static constexpr bool eager_on_cuda = true;
    layer_norm_args<K> args;

    template <class SG, class S, class... P>
    auto operator()(const Tensor<T, SG>& g, const Tensor<T, S>& input,
                    const Tensor<T, P>&... weight) const requires(Wrt == norm_wrt::input) {
        const auto l = rows_of<K>(input.sizes());
        if (input.is_cuda())
            return normalise_on_device<Tensor<T, S>>(device_call(l), input.shape(), input,
                                                     {flat_or_none(input),
                                                      flat_or_none(g),
                                                      flat_operand<0, T>(weight...),
                                                      {},
                                                      {},
                                                      {},
                                                      {},
                                                      {}});
        Tensor<T, S> out{input.shape()};
        if (input.numel() == 0)
            return out;
        const auto x = input.contiguous();
        const auto gc = g.contiguous();
        std::vector<double> mean, invstd;
        row_statistics(x.data(), l, std::get<1>(args), mean, invstd);
        const auto w = [&] {
            if constexpr (HasWeight)
                return Tensor<T, dynamic_shape<K>>(weight.contiguous()...);
            else
                return Tensor<T, dynamic_shape<K>>();
        }();
        const T* wd = HasWeight ? w.data() : nullptr;
        const T* xp = x.data();
        const T* gp = gc.data();
        T* q = out.data();
        const double width = static_cast<double>(l.width);
        for_rows(l, [&](std::int64_t r0, std::int64_t r1) {
            std::vector<T> gw(static_cast<std::size_t>(l.width));
            for (std::int64_t r = r0; r < r1; ++r) {
                const auto ri = static_cast<std::size_t>(r);
                const T m = static_cast<T>(mean[ri]);
                const T is = static_cast<T>(invstd[ri]);
                const T* xr = xp + r * l.width;
                const T* gr = gp + r * l.width;
                for (std::int64_t j = 0; j < l.width; ++j)
                    gw[static_cast<std::size_t>(j)] = HasWeight ? gr[j] * wd[j] : gr[j];
                const auto [sum_gw, dot] = run_sums<true>(
                    gw.data(), xr, l.width, [](T a, T) { return a; },
                    [m, is](T a, T v) { return a * (v - m) * is; });
                const T mean_gw = static_cast<T>(sum_gw / width);
                const T mean_dot = static_cast<T>(dot / width);
                T* yr = q + r * l.width;
                for (std::int64_t j = 0; j < l.width; ++j)
                    yr[j] = is * (gw[static_cast<std::size_t>(j)] - mean_gw -
                                  (xr[j] - m) * is * mean_dot);
            }
        });
        return out;
    }

    template <class SG, class S, class L>
    auto operator()(const Tensor<T, SG>& g, const Tensor<T, S>& input, const L& weight) const
        requires(Wrt == norm_wrt::weight) {
        const auto l = rows_of<K>(input.sizes());
        if (input.is_cuda())
            return normalise_on_device<like_tensor<L>>(
                device_call(l), staticpy::detail::shape_of_like(weight), input,
                {flat_or_none(input), flat_or_none(g), {}, {}, {}, {}, {}, {}});
        std::vector<double> mean, invstd;
        const auto x = input.contiguous();
        row_statistics(x.data(), l, std::get<1>(args), mean, invstd);
        const auto gc = g.contiguous();
        const T* xp = x.data();
        const T* gp = gc.data();
        return column_sums(g, weight, [&](std::int64_t r, std::int64_t j) {
            const auto ri = static_cast<std::size_t>(r);
            return static_cast<double>(gp[r * l.width + j]) *
                   (static_cast<double>(xp[r * l.width + j]) - mean[ri]) * invstd[ri];
        });
    }

    template <class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& bias) const requires(Wrt == norm_wrt::bias) {
        const auto l = rows_of<K>(g.sizes());
        if (g.is_cuda())
            return normalise_on_device<like_tensor<L>>(
                device_call(l), staticpy::detail::shape_of_like(bias), g,
                {{}, flat_or_none(g), {}, {}, {}, {}, {}, {}});
        const auto gc = g.contiguous();
        const T* gp = gc.data();
        return column_sums(g, bias, [&](std::int64_t r, std::int64_t j) {
            return static_cast<double>(gp[r * l.width + j]);
        });
    }

    /// First-order only, as grad is (docs/autodiff.md).
    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }

private:
    /// A tensor of the shape of `like` (a tensor or a shape).
    template <class L>
    using like_tensor =
        Tensor<T,
               std::remove_cvref_t<decltype(staticpy::detail::shape_of_like(std::declval<L>()))>>;

    /// This derivative as the CUDA backend's call, for an input of layout l.
    [[nodiscard]] staticpy::detail::norm_device_call device_call(const row_layout& l) const {
        return norm_call(norm_result<Wrt>, false, true, 1, l.rows, l.width, std::get<1>(args));
    }

    /// A tensor of like's shape whose element j is the sum over the rows of term(r, j), the
    /// columns split across threads.
    template <class SG, class L, class Term>
    static auto column_sums(const Tensor<T, SG>& g, const L& like, Term&& term) {
        const auto& target = staticpy::detail::shape_of_like(like);
        using W = std::remove_cvref_t<decltype(target)>;
        Tensor<T, W> out{target};
        const auto l = rows_of<K>(g.sizes());
        T* q = out.data();
        const int chunks = kernels::chunk_count(l.width, kernels::threads_for(l.rows * l.width, 2),
                                                std::max<std::int64_t>(1, 4096 / (l.rows + 1)));
        kernels::parallel_chunks(l.width, chunks, [&](std::int64_t j0, std::int64_t j1, int) {
            std::vector<double> acc(static_cast<std::size_t>(j1 - j0), 0.0);
            for (std::int64_t r = 0; r < l.rows; ++r)
                for (std::int64_t j = j0; j < j1; ++j)
                    acc[static_cast<std::size_t>(j - j0)] += term(r, j);
            for (std::int64_t j = j0; j < j1; ++j)
                q[j] = static_cast<T>(acc[static_cast<std::size_t>(j - j0)]);
        });
        return out;
    }
};

/// A normalized_shape argument's sizes, and the compile-time ones where it shows them (-1
/// elsewhere): an int or compile-time int (one dim), a std::array of ints, a std::tuple or
/// staticpy list of ints and compile-time ints, or a shape.
template <class N>
struct normalized_shape_of;
template <class N>
requires(std::is_integral_v<N> || is_int_constant_v<N>) struct normalized_shape_of<N> {
    static constexpr std::size_t size = 1;
    static constexpr std::array<std::int64_t, 1> static_sizes{[] {
        if constexpr (is_int_constant_v<N>)
            return static_cast<std::int64_t>(N::value);
        else
            return std::int64_t{-1};
    }()};
    static std::array<std::int64_t, 1> sizes(const N& n) { return {static_cast<std::int64_t>(n)}; }
};
template <std::size_t K>
struct normalized_shape_of<std::array<std::int64_t, K>> {
    static constexpr std::size_t size = K;
    static constexpr auto static_sizes = [] {
        std::array<std::int64_t, K> s{};
        s.fill(-1);
        return s;
    }();
    static std::array<std::int64_t, K> sizes(const std::array<std::int64_t, K>& n) { return n; }
};
template <class... E>
struct normalized_shape_of<std::tuple<E...>> {
    static constexpr std::size_t size = sizeof...(E);
    static constexpr std::array<std::int64_t, sizeof...(E)> static_sizes{
        normalized_shape_of<E>::static_sizes[0]...};
    static std::array<std::int64_t, sizeof...(E)> sizes(const std::tuple<E...>& n) {
        return std::apply(
            [](const auto&... e) {
                return std::array<std::int64_t, sizeof...(E)>{static_cast<std::int64_t>(e)...};
            },
            n);
    }
};
template <class... E>
struct normalized_shape_of<list<E...>> {
    static constexpr std::size_t size = sizeof...(E);
    static constexpr std::array<std::int64_t, sizeof...(E)> static_sizes{
        normalized_shape_of<E>::static_sizes[0]...};
    static std::array<std::int64_t, sizeof...(E)> sizes(const list<E...>& n) {
        return boost::hana::unpack(n.elements, [](const auto&... e) {
            return std::array<std::int64_t, sizeof...(E)>{static_cast<std::int64_t>(e)...};
        });
    }
};
template <class... E>
struct normalized_shape_of<shape<E...>> {
    static constexpr std::size_t size = sizeof...(E);
    static constexpr std::array<std::int64_t, sizeof...(E)> static_sizes =
        shape<E...>::static_extents;
    static std::array<std::int64_t, sizeof...(E)> sizes(const shape<E...>& n) { return n.sizes(); }
};

template <class N>
concept normalized_shape_argument = requires {
    normalized_shape_of<N>::size;
};

/// The compile-time check of layer_norm's input against the normalized sizes the types show.
template <class X, auto Normalized>
constexpr void check_layer_norm_types() {
    constexpr std::size_t K = Normalized.size();
    static_assert(K > 0, "staticpy: RuntimeError: Expected normalized_shape to be at least "
                         "1-dimensional, i.e., containing at least one element");
    static_assert(std::is_floating_point_v<typename X::value_type>,
                  "staticpy: RuntimeError: layer_norm takes a floating-point input (PyTorch: "
                  "\"LayerNormKernelImpl\" not implemented for 'Long')");
    static_assert(X::rank >= K, "staticpy: RuntimeError: Given normalized_shape, expected input "
                                "with shape [*, normalized_shape...], but got an input of lower "
                                "rank");
    if constexpr (X::rank >= K) {
        constexpr auto mismatch = [] {
            using S = typename X::shape_type;
            for (std::size_t i = 0; i < K; ++i) {
                const std::int64_t a = S::static_extents[S::rank - K + i];
                if (a >= 0 && Normalized[i] >= 0 && a != Normalized[i])
                    return std::pair<std::int64_t, std::int64_t>{a, Normalized[i]};
            }
            return std::pair<std::int64_t, std::int64_t>{-1, -1};
        }();
        static_assert(mismatch.first < 0 ||
                          raise::layer_norm_input_shape<mismatch.first, mismatch.second>,
                      "staticpy: RuntimeError: Given normalized_shape, expected input with shape "
                      "[*, normalized_shape...], but the input's last sizes differ");
    }
}

/// layer_norm's op applied to the input and the affine operands that are given.
template <class X, std::size_t K, class W, class B, class T = typename X::value_type>
auto apply_layer_norm(const X& input, const std::array<std::int64_t, K>& normalized,
                      const W& weight, const B& bias, double eps) {
    const layer_norm_op<T, K, given_v<W>, given_v<B>> op{
        {normalized_shape_arg<K>{normalized}, eps}};
    return std::apply(
        [&](const auto&... affine) { return staticpy::detail::apply_op(op, input, affine...); },
        given_operands(weight, bias));
}

/// Whether an affine operand is None or has element type T.
template <class T, class P>
constexpr bool none_or_of_type() {
    if constexpr (given_v<P>)
        return std::is_same_v<typename P::value_type, T>;
    else
        return true;
}

/// The affine operands' element type must be the input's.
template <class T, class... P>
constexpr void check_affine_dtypes() {
    static_assert((none_or_of_type<T, P>() && ...),
                  "staticpy: RuntimeError: weight and bias have the input's dtype (PyTorch: "
                  "expected scalar type Float but found Double)");
}

} // namespace detail

// ---- the functions ------------------------------------------------------------------------------

/// torch.nn.functional.batch_norm(input, running_mean, running_var, weight=None, bias=None,
/// training=False, momentum=0.1, eps=1e-05): input [N, C, ...]; the running statistics are
/// Tensors of C elements (updated in place when training) or None; weight and bias C elements
/// or None.
///   auto y = nn::functional::batch_norm(x, mean, var, w, b, true);   // batch stats, updates
template <detail::norm_operand X, class RM, class RV, class W = none_t, class B = none_t>
auto batch_norm(const X& input, const RM& running_mean, const RV& running_var, const W& weight = {},
                const B& bias = {}, bool training = false, double momentum = 0.1,
                double eps = 1e-5) {
    using T = typename X::value_type;
    detail::check_batch_norm_types<X, RM, W>();
    detail::check_affine_dtypes<T, W, B>();
    detail::running_stats<T> stats{detail::running_handle<T>(running_mean),
                                   detail::running_handle<T>(running_var),
                                   {},
                                   momentum,
                                   {}};
    return detail::apply_batch_norm(input, weight, bias, std::move(stats), training, eps);
}

/// torch.nn.functional.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
/// normalises over the last dims, whose sizes normalized_shape gives (an int, a std::array, a
/// std::tuple or staticpy list of ints and compile-time ints, or a shape); weight and bias have
/// those sizes, or are None.
///   auto y = nn::functional::layer_norm(x, 5_c, w, b);       // x [*, 5]
///   auto z = nn::functional::layer_norm(x, std::tuple{4_c, 5_c});
template <detail::norm_operand X, detail::normalized_shape_argument N, class W = none_t,
          class B = none_t>
auto layer_norm(const X& input, const N& normalized_shape, const W& weight = {}, const B& bias = {},
                double eps = 1e-5) {
    using spec = detail::normalized_shape_of<N>;
    detail::check_layer_norm_types<X, spec::static_sizes>();
    detail::check_affine_dtypes<typename X::value_type, W, B>();
    return detail::apply_layer_norm(input, spec::sizes(normalized_shape), weight, bias, eps);
}

} // namespace nn::functional

namespace nn {

// =================================================================================================
// BatchNorm1d, BatchNorm2d
// =================================================================================================

/// The keyword arguments of nn.BatchNorm1d and nn.BatchNorm2d other than those that set the
/// parameters and buffers (affine, track_running_stats: template arguments): eps, and momentum
/// (std::nullopt: PyTorch's momentum=None, the cumulative average).
struct BatchNormOptions {
    double eps = 1e-5;
    std::optional<double> momentum = 0.1;
};

namespace detail {

/// What BatchNorm1d and BatchNorm2d share (PyTorch's _BatchNorm): parameters weight and bias
/// (ones and zeros) when Affine, buffers running_mean, running_var (zeros and ones) and
/// num_batches_tracked (an int64 0-dim tensor) when TrackRunningStats.
template <class Derived, std::int64_t NumFeatures, bool Affine, bool TrackRunningStats, class T>
class batch_norm_layer : public Module<Derived> {
    static_assert(NumFeatures >= 0,
                  "staticpy: RuntimeError: Trying to create tensor with negative dimension");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: a batch norm's parameters need a floating-point dtype");

public:
    static constexpr std::int64_t num_features = NumFeatures;
    static constexpr bool affine = Affine;
    static constexpr bool track_running_stats = TrackRunningStats;
    using vector_type = decltype(empty<T>(int_<NumFeatures>{}));
    using parameter_type = std::conditional_t<Affine, vector_type, none_t>;
    using statistic_type = std::conditional_t<TrackRunningStats, vector_type, none_t>;
    using count_type = std::conditional_t<TrackRunningStats, Tensor<std::int64_t, shape<>>, none_t>;

    double eps = 1e-5;
    std::optional<double> momentum = 0.1;
    parameter_type weight;
    parameter_type bias;
    statistic_type running_mean;
    statistic_type running_var;
    count_type num_batches_tracked;

    batch_norm_layer() : batch_norm_layer(BatchNormOptions{}) {}
    explicit batch_norm_layer(const BatchNormOptions& options)
        : eps(options.eps), momentum(options.momentum) {
        if constexpr (Affine) {
            weight = empty<T>(int_<NumFeatures>{});
            bias = empty<T>(int_<NumFeatures>{});
        }
        if constexpr (TrackRunningStats) {
            running_mean = empty<T>(int_<NumFeatures>{});
            running_var = empty<T>(int_<NumFeatures>{});
            num_batches_tracked = Tensor<std::int64_t, shape<>>(shape<>{});
        }
        reset_parameters();
    }

    /// PyTorch's reset_running_stats: running_mean 0, running_var 1, num_batches_tracked 0.
    void reset_running_stats() {
        if constexpr (TrackRunningStats) {
            running_mean.fill_(T(0));
            running_var.fill_(T(1));
            num_batches_tracked.fill_(0);
        }
    }
    /// PyTorch's reset_parameters: the running statistics reset, weight 1, bias 0.
    void reset_parameters() {
        reset_running_stats();
        if constexpr (Affine) {
            init::ones_(weight);
            init::zeros_(bias);
        }
    }

    auto own_parameters() const {
        if constexpr (Affine)
            return dict(str<"weight">{} = &weight, str<"bias">{} = &bias);
        else
            return dict();
    }
    auto own_buffers() const {
        if constexpr (TrackRunningStats)
            return dict(str<"running_mean">{} = &running_mean, str<"running_var">{} = &running_var,
                        str<"num_batches_tracked">{} = &num_batches_tracked);
        else
            return dict();
    }

protected:
    /// The forward pass of an input whose rank the layer has checked: PyTorch's _BatchNorm
    /// forward (batch statistics in training, or without running statistics; the running ones
    /// updated, and num_batches_tracked counted, in training).
    template <class Self, class X>
    static auto normalize(const Self& self, const X& x) {
        namespace F = functional::detail;
        const Derived& m = self.module();
        static_assert(std::is_same_v<typename X::value_type, T>,
                      "staticpy: RuntimeError: expected scalar type: a batch norm's input has its "
                      "dtype (PyTorch: expected scalar type Float but found Double)");
        F::check_batch_norm_types<X, statistic_type, parameter_type>();
        const bool batch_statistics = m.training || !TrackRunningStats;
        F::running_stats<T> stats;
        if constexpr (TrackRunningStats) {
            stats.mean = Tensor<T, dynamic_shape<1>>(m.running_mean);
            stats.var = Tensor<T, dynamic_shape<1>>(m.running_var);
            stats.momentum = m.momentum;
            if (m.training)
                stats.num_batches_tracked = m.num_batches_tracked;
        }
        if constexpr (Affine)
            return F::apply_batch_norm(x, self[str<"weight">{}], self[str<"bias">{}],
                                       std::move(stats), batch_statistics, m.eps);
        else
            return F::apply_batch_norm(x, none_t{}, none_t{}, std::move(stats), batch_statistics,
                                       m.eps);
    }
};

} // namespace detail

/// nn.BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)
/// over an input [N, C] or [N, C, L], C = NumFeatures.
///   nn::BatchNorm1d<128> bn;                         // weight 1, bias 0, momentum 0.1
///   nn::BatchNorm1d<128> slow({.momentum = 0.01});
template <std::int64_t NumFeatures, bool Affine = true, bool TrackRunningStats = true,
          class T = default_float_t>
class BatchNorm1d
    : public detail::batch_norm_layer<BatchNorm1d<NumFeatures, Affine, TrackRunningStats, T>,
                                      NumFeatures, Affine, TrackRunningStats, T> {
    using base = detail::batch_norm_layer<BatchNorm1d, NumFeatures, Affine, TrackRunningStats, T>;

public:
    using base::base;

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        static_assert(X::rank == 2 || X::rank == 3,
                      "staticpy: ValueError: expected 2D or 3D input (nn::BatchNorm1d takes [N, C] "
                      "or [N, C, L])");
        if constexpr (X::rank == 2 || X::rank == 3)
            return base::normalize(self, x);
        else
            return x; // (the static_assert's error is the one to show)
    }
};

/// nn.BatchNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)
/// over an input [N, C, H, W], C = NumFeatures.
///   nn::BatchNorm2d<16> bn;
template <std::int64_t NumFeatures, bool Affine = true, bool TrackRunningStats = true,
          class T = default_float_t>
class BatchNorm2d
    : public detail::batch_norm_layer<BatchNorm2d<NumFeatures, Affine, TrackRunningStats, T>,
                                      NumFeatures, Affine, TrackRunningStats, T> {
    using base = detail::batch_norm_layer<BatchNorm2d, NumFeatures, Affine, TrackRunningStats, T>;

public:
    using base::base;

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        static_assert(X::rank == 4,
                      "staticpy: ValueError: expected 4D input (nn::BatchNorm2d takes [N, C, H, "
                      "W])");
        if constexpr (X::rank == 4)
            return base::normalize(self, x);
        else
            return x;
    }
};

// =================================================================================================
// LayerNorm
// =================================================================================================

/// nn.LayerNorm(normalized_shape, eps=1e-05, elementwise_affine=True) over the last dims, of
/// sizes NormalizedShape...; weight (ones) and bias (zeros) of those sizes when
/// ElementwiseAffine. nn::LayerNorm<N...> is the common case (affine, float).
///   nn::basic_layer_norm<double, false, 4, 5> plain;   // no parameters, double
template <class T, bool ElementwiseAffine, std::int64_t... NormalizedShape>
class basic_layer_norm : public Module<basic_layer_norm<T, ElementwiseAffine, NormalizedShape...>> {
    static_assert(sizeof...(NormalizedShape) > 0,
                  "staticpy: TypeError: nn::LayerNorm needs a normalized_shape: LayerNorm<5>");
    static_assert(((NormalizedShape >= 0) && ...),
                  "staticpy: RuntimeError: Trying to create tensor with negative dimension");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: nn::LayerNorm's parameters need a floating-point dtype");

public:
    static constexpr std::array<std::int64_t, sizeof...(NormalizedShape)> normalized_shape{
        NormalizedShape...};
    static constexpr bool elementwise_affine = ElementwiseAffine;
    using parameter_type =
        std::conditional_t<ElementwiseAffine, decltype(empty<T>(int_<NormalizedShape>{}...)),
                           none_t>;

    double eps = 1e-5;
    parameter_type weight;
    parameter_type bias;

    basic_layer_norm() : basic_layer_norm(1e-5) {}
    explicit basic_layer_norm(double epsilon) : eps(epsilon) {
        if constexpr (ElementwiseAffine) {
            weight = empty<T>(int_<NormalizedShape>{}...);
            bias = empty<T>(int_<NormalizedShape>{}...);
        }
        reset_parameters();
    }

    /// PyTorch's reset_parameters: weight 1, bias 0.
    void reset_parameters() {
        if constexpr (ElementwiseAffine) {
            init::ones_(weight);
            init::zeros_(bias);
        }
    }

    auto own_parameters() const {
        if constexpr (ElementwiseAffine)
            return dict(str<"weight">{} = &weight, str<"bias">{} = &bias);
        else
            return dict();
    }

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        const std::tuple normalized{int_<NormalizedShape>{}...};
        if constexpr (ElementwiseAffine)
            return functional::layer_norm(x, normalized, self[str<"weight">{}], self[str<"bias">{}],
                                          eps);
        else
            return functional::layer_norm(x, normalized, none_t{}, none_t{}, eps);
    }
};

/// nn.LayerNorm(normalized_shape) with its defaults (elementwise_affine, float).
///   nn::LayerNorm<5> ln;       nn::LayerNorm<4, 5> ln2(1e-6);   // eps
template <std::int64_t... NormalizedShape>
using LayerNorm = basic_layer_norm<float, true, NormalizedShape...>;

} // namespace nn

} // namespace staticpy
