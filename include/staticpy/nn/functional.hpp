#pragma once
// staticpy::nn::functional: the losses of torch.nn.functional, with PyTorch 1.13's formulas,
// defaults and error texts, on tensors (eager), traced values (jit and grad) and the tape's
// values (autograd::leaf), so that grad(loss) gives the same numbers on the graph and the tape.
//
//   auto loss = nn::functional::cross_entropy(logits, labels);               // mean over rows
//   auto rows = nn::functional::cross_entropy(logits, labels, "none"_s, {.label_smoothing = 0.1});
//   auto err = nn::functional::mse_loss(prediction, target, "sum"_s);
//
// The reduction sets the result's shape (a loss per element, or one number), so it is a
// compile-time str, "none"_s, "mean"_s (the default) or "sum"_s, given after the target as
// PyTorch's reduction= keyword; the other keyword arguments follow as an options struct with
// designated initialisers (CrossEntropyOptions, ...), or stand in the reduction's place when it is
// the default.
//
// How each loss is computed:
//   cross_entropy, nll_loss   one op object each (class_loss_op): a pass over each row of C
//                             logits computes its log-sum-exp and the target's terms together,
//                             with no probability or log-probability tensor; its derivative is a
//                             second op object (class_loss_backward_op) that writes
//                             (softmax - smoothed one-hot) x weight x g / denominator in a pass.
//                             Traced, each is one opaque node.
//   mse_loss, l1_loss         compositions of the elementwise ops, whose derivative rules are
//                             PyTorch's at every point (l1 at 0).
//   huber_loss, smooth_l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits
//                             elementwise functors, as those of tensor/functors.hpp: a
//                             composition's derivative is not PyTorch's at their edges (smooth_l1
//                             at d == 0 with beta == 0; bce at an input of 0 or 1, where PyTorch
//                             divides by max(x (1 - x), 1e-12)), or costs the compiler minutes
//                             and gigabytes to derive (huber's where of abs, the logits' form).
// weight= and pos_weight= are constant tensors (PyTorch has no derivative for them).

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/fixed_string.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/class_loss_device.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/op_objects.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::nn::functional {

namespace detail {
using namespace staticpy::literals;

// ---- reductions ---------------------------------------------------------------------------------

enum class reduction_kind { none, mean, sum };

template <class R>
struct reduction_text {
    static constexpr bool is_str = false;
};
template <fixed_string S>
struct reduction_text<str<S>> {
    static constexpr bool is_str = true;
    static constexpr std::string_view value = S.view();
};

/// The reduction a reduction= argument names: a compile-time str, one of PyTorch's three.
template <class R>
constexpr reduction_kind reduction_of() {
    using text = reduction_text<std::remove_cvref_t<R>>;
    static_assert(text::is_str,
                  "staticpy: TypeError: reduction is a compile-time str, \"none\"_s, \"mean\"_s "
                  "or \"sum\"_s (it sets the result's shape)");
    if constexpr (text::is_str) {
        static_assert(text::value == "none" || text::value == "mean" || text::value == "sum",
                      "staticpy: ValueError: reduction is not a valid value for reduction: "
                      "\"none\"_s, \"mean\"_s or \"sum\"_s");
        if constexpr (text::value == "none")
            return reduction_kind::none;
        else if constexpr (text::value == "sum")
            return reduction_kind::sum;
    }
    return reduction_kind::mean;
}

/// An elementwise loss reduced: itself, its sum or its mean.
template <reduction_kind Reduction, class L>
auto reduce_loss(const L& loss) {
    if constexpr (Reduction == reduction_kind::none)
        return loss;
    else if constexpr (Reduction == reduction_kind::sum)
        return loss.sum();
    else
        return loss.mean();
}

/// What the losses take as input and target: a tensor, a traced value or a recorded one.
template <class X>
concept loss_operand = requires {
    typename X::value_type;
    typename X::shape_type;
    X::rank;
};

template <class X>
inline constexpr bool always_false_v = false;

// ---- tensor keyword arguments -------------------------------------------------------------------

/// A tensor keyword argument that may be None (weight=, pos_weight=): a constant Tensor of the
/// input's element type T, of rank R (Broadcasts: of rank at most R, held with leading dims of
/// size 1, which broadcast as the tensor did).
template <class T, std::size_t R, bool Broadcasts>
class optional_tensor {
public:
    using tensor_type = Tensor<T, dynamic_shape<R>>;

    optional_tensor() = default;
    optional_tensor(none_t) {} // NOLINT: implicit, as Python's weight=None
    template <class U, class S>
    optional_tensor(const Tensor<U, S>& t) : tensor_(held(t)) {} // NOLINT: implicit on purpose
    template <class X>
    requires(!is_tensor_v<X> && !std::is_same_v<X, none_t>) optional_tensor(const X&) {
        static_assert(always_false_v<X>,
                      "staticpy: TypeError: weight= and pos_weight= take a Tensor or None (a "
                      "constant: capture it rather than pass it traced; PyTorch has no derivative "
                      "for it)");
    }

    [[nodiscard]] bool has_value() const noexcept { return tensor_.has_value(); }
    [[nodiscard]] const tensor_type& operator*() const { return *tensor_; }

private:
    template <class U, class S>
    static tensor_type held(const Tensor<U, S>& t) {
        static_assert(std::is_same_v<U, T>,
                      "staticpy: RuntimeError: expected scalar type of the input: a weight has the "
                      "input's dtype (PyTorch: expected scalar type Double but found Float)");
        if constexpr (Broadcasts)
            static_assert(S::rank <= R, "staticpy: RuntimeError: a weight broadcasts to the "
                                        "input's shape, so its rank is at most the input's");
        else
            static_assert(S::rank == R, "staticpy: RuntimeError: weight tensor should be defined "
                                        "either for all classes or no classes (a 1-D tensor of C "
                                        "elements)");
        std::array<std::int64_t, R> sizes{};
        std::array<std::int64_t, R> strides{};
        constexpr std::size_t lead = R - S::rank;
        for (std::size_t d = 0; d < R; ++d) {
            sizes[d] = d < lead ? 1 : t.sizes()[d - lead];
            strides[d] = d < lead ? 0 : t.strides()[d - lead];
        }
        return tensor_type(t.storage(), t.storage_offset(), dynamic_shape<R>(sizes), strides);
    }

    std::optional<tensor_type> tensor_;
};

/// cross_entropy's and nll_loss's weight=: C numbers, one per class.
template <class T>
using class_weight = optional_tensor<T, 1, false>;
/// binary_cross_entropy's weight= and pos_weight=: broadcast to the input's shape.
template <class T, std::size_t R>
using elementwise_weight = optional_tensor<T, R, true>;

} // namespace detail

// ---- options ------------------------------------------------------------------------------------

/// cross_entropy's keyword arguments (other than reduction), PyTorch's defaults.
template <class T>
struct CrossEntropyOptions {
    detail::class_weight<T> weight{};
    std::int64_t ignore_index = -100;
    double label_smoothing = 0.0;
};

/// nll_loss's keyword arguments (other than reduction).
template <class T>
struct NLLLossOptions {
    detail::class_weight<T> weight{};
    std::int64_t ignore_index = -100;
};

/// smooth_l1_loss's beta=.
struct SmoothL1LossOptions {
    double beta = 1.0;
};

/// huber_loss's delta=.
struct HuberLossOptions {
    double delta = 1.0;
};

/// binary_cross_entropy's weight=, broadcast to the input's shape.
template <class T, std::size_t R>
struct BinaryCrossEntropyOptions {
    detail::elementwise_weight<T, R> weight{};
};

/// binary_cross_entropy_with_logits' weight= and pos_weight=, broadcast to the input's shape.
template <class T, std::size_t R>
struct BinaryCrossEntropyWithLogitsOptions {
    detail::elementwise_weight<T, R> weight{};
    detail::elementwise_weight<T, R> pos_weight{};
};

namespace detail {

// ---- cross_entropy and nll_loss -----------------------------------------------------------------

enum class class_input { logits, log_probabilities }; // cross_entropy, nll_loss
enum class class_target { indices, probabilities };

/// The input [N, C, d1, ...] as [outer, classes, inner] = [N, C, d1 * ...] ([1, C, 1] for an
/// input [C]): rows = outer * inner rows of C elements, `inner` apart.
struct class_layout {
    std::int64_t outer = 1;
    std::int64_t classes = 0;
    std::int64_t inner = 1;

    template <std::size_t R>
    explicit class_layout(const std::array<std::int64_t, R>& sizes) {
        if constexpr (R == 1) {
            classes = sizes[0];
        } else {
            outer = sizes[0];
            classes = sizes[1];
            for (std::size_t d = 2; d < R; ++d)
                inner *= sizes[d];
        }
    }
    [[nodiscard]] std::int64_t rows() const { return outer * inner; }
    /// Where row r's first element is.
    [[nodiscard]] std::int64_t row_offset(std::int64_t r) const {
        return (r / inner) * classes * inner + r % inner;
    }
};

/// A row's log-sum-exp, with the sum of a class coefficient q(c) and of q(c) x_c.
struct row_sums {
    double logsumexp;
    double mass;
    double weighted;
};
/// No class coefficients: row_pass then only computes the log-sum-exp.
struct no_mass {};

/// One pass over a row of `classes` values `stride` apart: the log-sum-exp (the running maximum
/// rescales the running sum when it grows), and the sums of q(c) and q(c) x_c.
template <class T, class Q>
row_sums row_pass(const T* row, std::int64_t stride, std::int64_t classes, const Q& q) {
    double top = -std::numeric_limits<double>::infinity();
    double scaled = 0;
    double mass = 0;
    double weighted = 0;
    for (std::int64_t c = 0; c < classes; ++c) {
        const double v = static_cast<double>(row[c * stride]);
        if (v > top) {
            scaled = scaled * std::exp(top - v) + 1;
            top = v;
        } else {
            scaled += std::exp(v - top);
        }
        if constexpr (!std::is_same_v<Q, no_mass>) {
            const double qc = q(c);
            mass += qc;
            weighted += qc * v;
        }
    }
    return {top + std::log(scaled), mass, weighted};
}

/// PyTorch's text for a number in a message (C++ streams, as its TORCH_CHECK): "1.5", "2".
inline std::string number_text(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

/// label_smoothing as PyTorch applies it: ignored unless above 0, at most 1.
inline double effective_smoothing(double label_smoothing) {
    if (!(label_smoothing > 0.0))
        return 0.0;
    if (!(label_smoothing <= 1.0))
        throw RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: " +
                           number_text(label_smoothing));
    return label_smoothing;
}

/// The batch-size check PyTorch's nll_loss_nd makes first, for a target [N, ...].
template <std::size_t R, std::size_t RT>
void check_batch_size(const std::array<std::int64_t, R>& input,
                      const std::array<std::int64_t, RT>& target) {
    if constexpr (R >= 2) {
        if (input[0] != target[0])
            throw ValueError("Expected input batch_size (" + std::to_string(input[0]) +
                             ") to match target batch_size (" + std::to_string(target[0]) + ").");
    }
}

/// "Expected target size [N, d1, ...], got [...]" (PyTorch's nll_loss_nd, inputs of rank >= 3).
template <std::size_t R, std::size_t RT>
[[noreturn]] void throw_target_size(const std::array<std::int64_t, R>& input,
                                    const std::array<std::int64_t, RT>& target) {
    std::array<std::int64_t, R - 1> expected{};
    expected[0] = input[0];
    for (std::size_t d = 2; d < R; ++d)
        expected[d - 1] = input[d];
    throw RuntimeError("Expected target size " + staticpy::detail::sizes_text(expected) + ", got " +
                       staticpy::detail::sizes_text(target));
}

/// A class-index target's sizes: [N, d1, ...] for an input [N, C, d1, ...].
template <std::size_t R, std::size_t RT>
void check_index_target(const std::array<std::int64_t, R>& input,
                        const std::array<std::int64_t, RT>& target) {
    check_batch_size(input, target);
    if constexpr (R >= 3) {
        for (std::size_t d = 2; d < R; ++d)
            if (input[d] != target[d - 1])
                throw_target_size(input, target);
    }
}

/// A class-probability target's sizes: the input's (else what PyTorch, then taking the target
/// for class indices, says).
template <std::size_t R>
void check_probability_target(const std::array<std::int64_t, R>& input,
                              const std::array<std::int64_t, R>& target) {
    if (input == target)
        return;
    if constexpr (R == 1) {
        throw RuntimeError("size mismatch (got input: " + staticpy::detail::sizes_text(input) +
                           ", target: " + staticpy::detail::sizes_text(target) + ")");
    } else {
        check_batch_size(input, target);
        if constexpr (R == 2)
            throw RuntimeError("0D or 1D target tensor expected, multi-target not supported");
        else
            throw_target_size(input, target);
    }
}

/// A loss's weight as an argument of its ops: weight= (or pos_weight=), a constant tensor of rank
/// R, or an undefined tensor without it. (An argument, not an operand: traced, it needs no node,
/// and it stays on whatever device it is on, where a captured node would have to be on the
/// graph's; the class losses' backward op keeps within a graph node's three operands.) Two are
/// equal when they are the same tensor, as graph::captured nodes compare, which is what merging
/// traced nodes asks.
template <class T, std::size_t R>
struct weight_arg {
    Tensor<T, dynamic_shape<R>> tensor;

    friend bool operator==(const weight_arg& a, const weight_arg& b) {
        if (!a.tensor.defined() || !b.tensor.defined())
            return a.tensor.defined() == b.tensor.defined();
        return a.tensor.data_ptr() == b.tensor.data_ptr() && a.tensor.sizes() == b.tensor.sizes() &&
               a.tensor.strides() == b.tensor.strides();
    }
    /// As the IR dump shows it: "weight=[5]" or "weight=None".
    void repr_into(std::string& out) const {
        out += "weight=";
        out += tensor.defined() ? staticpy::detail::sizes_text(tensor.sizes()) : "None";
    }
};

/// cross_entropy's and nll_loss's class weights: C numbers, one per class.
template <class T>
using class_weight_arg = weight_arg<T, 1>;

/// The run-time arguments of the class-loss ops: ignore_index, label_smoothing, weight.
template <class T>
using class_loss_args = std::tuple<std::int64_t, double, class_weight_arg<T>>;
/// The class-loss ops' arguments when all are PyTorch's defaults (ignore_index -100, no label
/// smoothing, no weight): an empty type, so that the op's graph nodes carry no payload (a
/// backward graph names the loss node once per parameter: with a payload, the exact numbering
/// would give each mention its own slot).
using class_loss_defaults = std::tuple<>;
template <class T>
class_loss_args<T> class_loss_args_of(const class_loss_args<T>& args) {
    return args;
}
template <class T>
class_loss_args<T> class_loss_args_of(const class_loss_defaults&) {
    return {-100, 0.0, {}};
}

/// The checks a class loss makes of its operands' sizes and arguments, in PyTorch's order (the
/// CPU's rows and the GPU's kernels alike); the effective label smoothing.
template <class_target Target, class T, std::size_t R, std::size_t RT>
double checked_smoothing(const std::array<std::int64_t, R>& input,
                         const std::array<std::int64_t, RT>& target,
                         const class_loss_args<T>& args) {
    constexpr bool indices = Target == class_target::indices;
    const double label_smoothing = std::get<1>(args);
    const auto& weight = std::get<2>(args).tensor;
    double smoothing = 0;
    if constexpr (indices) {
        smoothing = effective_smoothing(label_smoothing);
        check_index_target(input, target);
    } else {
        if (std::get<0>(args) >= 0)
            throw RuntimeError("ignore_index is not supported for floating point target");
        check_probability_target(input, target);
    }
    const std::int64_t classes = class_layout(input).classes;
    if (weight.defined() && weight.numel() != classes)
        throw RuntimeError(std::string(indices ? "" : "cross_entropy: ") +
                           "weight tensor should be defined either for all " +
                           std::to_string(classes) +
                           " classes or no classes but got weight tensor of shape: " +
                           staticpy::detail::sizes_text(weight.sizes()));
    if constexpr (!indices)
        smoothing = effective_smoothing(label_smoothing);
    return smoothing;
}

/// A class loss's operands, checked, as contiguous arrays: what the forward and backward loops
/// read. T is the input's element type, U the target's.
template <class_input Input, class_target Target, class T, class S, class U, class ST>
struct class_rows {
    static constexpr bool logits = Input == class_input::logits;
    static constexpr bool indices = Target == class_target::indices;

    Tensor<T, S> input;
    Tensor<U, ST> target;
    Tensor<T, dynamic_shape<1>> weight_tensor;
    class_layout layout;
    const T* x;
    const U* t;
    const T* weight; // null without weight=
    std::int64_t ignore_index;
    double smoothing;    // the effective label smoothing, in [0, 1]
    double spread;       // smoothing / C: each class's share of it
    double weight_total; // the sum of the class weights (C without weight=)

    class_rows(const Tensor<T, S>& in, const Tensor<U, ST>& tg, const class_loss_args<T>& args)
        : input(in.contiguous()),
          target(tg.contiguous()),
          weight_tensor(std::get<2>(args).tensor.defined() ? std::get<2>(args).tensor.contiguous()
                                                           : Tensor<T, dynamic_shape<1>>()),
          layout(in.sizes()),
          x(input.data()),
          t(target.data()),
          weight(weight_tensor.defined() ? weight_tensor.data() : nullptr),
          ignore_index(std::get<0>(args)),
          smoothing(checked_smoothing<Target>(in.sizes(), tg.sizes(), args)) {
        spread = layout.classes > 0 ? smoothing / static_cast<double>(layout.classes) : 0.0;
        weight_total = 0;
        for (std::int64_t c = 0; c < layout.classes; ++c)
            weight_total += weight_of(c);
    }

    [[nodiscard]] std::int64_t stride() const { return layout.inner; }
    [[nodiscard]] const T* row(std::int64_t r) const { return x + layout.row_offset(r); }
    [[nodiscard]] double weight_of(std::int64_t c) const {
        return weight != nullptr ? static_cast<double>(weight[c]) : 1.0;
    }
    /// Row r's class, negative when it is ignore_index (PyTorch's IndexError when out of range).
    [[nodiscard]] std::int64_t class_of(std::int64_t r) const {
        const auto c = static_cast<std::int64_t>(t[r]);
        if (c == ignore_index)
            return -1;
        if (c < 0 || c >= layout.classes)
            throw IndexError("Target " + std::to_string(c) + " is out of bounds.");
        return c;
    }
    /// The coefficient of class c in row r's loss, a probability target's: w_c ((1 - e) t_c + e/C).
    [[nodiscard]] auto probability_mass(std::int64_t r) const {
        const U* target_row = t + layout.row_offset(r);
        return [this, target_row](std::int64_t c) {
            return weight_of(c) *
                   ((1 - smoothing) * static_cast<double>(target_row[c * stride()]) + spread);
        };
    }
    /// What a 'mean' divides by: the target classes' weights (class indices, ignored rows left
    /// out), or the row count (probabilities; NaN for an empty input, as PyTorch's).
    [[nodiscard]] double denominator() const {
        double total = 0;
        if constexpr (indices) {
            for (std::int64_t r = 0; r < layout.rows(); ++r) {
                const std::int64_t c = class_of(r);
                if (c >= 0)
                    total += weight_of(c);
            }
        } else {
            total = input.numel() == 0 ? 0.0 : static_cast<double>(layout.rows());
        }
        return total;
    }

    /// Row r's loss and its weight in a 'mean':
    ///   class index t:  (1 - e) w_t (lse - x_t) + e/C sum_c w_c (lse - x_c)  (logits; w_t, e = 0
    ///                   and no lse for log-probabilities), weight w_t; 0 and 0 when ignored;
    ///   probabilities:  sum_c q_c (lse - x_c), q_c = w_c ((1 - e) t_c + e/C), weight 1.
    [[nodiscard]] std::pair<double, double> row_loss(std::int64_t r) const {
        const T* xr = row(r);
        if constexpr (indices) {
            const std::int64_t c = class_of(r);
            if (c < 0)
                return {0.0, 0.0};
            const double wt = weight_of(c);
            const double xt = static_cast<double>(xr[c * stride()]);
            if constexpr (!logits) {
                return {-wt * xt, wt};
            } else if (smoothing == 0.0) {
                return {wt * (row_pass(xr, stride(), layout.classes, no_mass{}).logsumexp - xt),
                        wt};
            } else {
                const row_sums s = row_pass(xr, stride(), layout.classes,
                                            [this](std::int64_t k) { return weight_of(k); });
                return {(1 - smoothing) * wt * (s.logsumexp - xt) +
                            spread * (s.mass * s.logsumexp - s.weighted),
                        wt};
            }
        } else {
            if (layout.classes == 0)
                return {0.0, 1.0};
            const row_sums s = row_pass(xr, stride(), layout.classes, probability_mass(r));
            return {s.mass * s.logsumexp - s.weighted, 1.0};
        }
    }

    /// Writes row r's gradient with respect to the input, `scale` times d loss_r / d x:
    ///   logits:             scale (Q p_c - q_c), p = softmax(row), q_c the coefficient of x_c
    ///                       in the loss and Q their sum;
    ///   log-probabilities:  -scale w_t at the target class, 0 elsewhere.
    void input_gradient_row(std::int64_t r, double scale, T* out) const {
        const T* xr = row(r);
        T* gr = out + layout.row_offset(r);
        const std::int64_t n = layout.classes;
        auto fill = [&](double v) {
            for (std::int64_t c = 0; c < n; ++c)
                gr[c * stride()] = static_cast<T>(v);
        };
        if constexpr (indices) {
            const std::int64_t target_class = class_of(r);
            if (target_class < 0)
                return fill(0.0);
            const double wt = weight_of(target_class);
            if constexpr (!logits) {
                fill(0.0);
                gr[target_class * stride()] = static_cast<T>(-scale * wt);
            } else {
                const double lse = row_pass(xr, stride(), n, no_mass{}).logsumexp;
                const double mass = (1 - smoothing) * wt + spread * weight_total;
                for (std::int64_t c = 0; c < n; ++c) {
                    const double p = std::exp(static_cast<double>(xr[c * stride()]) - lse);
                    gr[c * stride()] = static_cast<T>(scale * (mass * p - spread * weight_of(c)));
                }
                gr[target_class * stride()] =
                    static_cast<T>(static_cast<double>(gr[target_class * stride()]) -
                                   scale * (1 - smoothing) * wt);
            }
        } else {
            const auto q = probability_mass(r);
            const row_sums s = row_pass(xr, stride(), n, q);
            for (std::int64_t c = 0; c < n; ++c) {
                const double p = std::exp(static_cast<double>(xr[c * stride()]) - s.logsumexp);
                gr[c * stride()] = static_cast<T>(scale * (s.mass * p - q(c)));
            }
        }
    }

    /// Writes row r's gradient with respect to a probability target: scale (1 - e) w_c
    /// (lse - x_c).
    template <class V>
    void target_gradient_row(std::int64_t r, double scale, V* out) const {
        const T* xr = row(r);
        V* gr = out + layout.row_offset(r);
        const double lse = row_pass(xr, stride(), layout.classes, no_mass{}).logsumexp;
        for (std::int64_t c = 0; c < layout.classes; ++c)
            gr[c * stride()] = static_cast<V>(scale * (1 - smoothing) * weight_of(c) *
                                              (lse - static_cast<double>(xr[c * stride()])));
    }
};

template <class_input Input, class_target Target, class T, class S, class U, class ST>
auto make_class_rows(const Tensor<T, S>& input, const Tensor<U, ST>& target,
                     const class_loss_args<T>& args) {
    return class_rows<Input, Target, T, S, U, ST>(input, target, args);
}

/// The result shape of a class loss with reduction 'none': the input's without its class dim.
template <class S, bool Batched = (S::rank > 1)>
struct class_loss_rows_shape {
    using type = shape<>;
};
template <class S>
struct class_loss_rows_shape<S, true> {
    using type = shape_erase_t<S, 1>;
};
template <class S>
using class_loss_rows_shape_t = typename class_loss_rows_shape<S>::type;

using staticpy::detail::class_loss_device_call;
using staticpy::detail::class_loss_device_tag;

using staticpy::detail::flat_elements;

/// A class loss (Result loss) or its derivative (input_gradient, target_gradient) on GPU tensors:
/// the operands checked as on the CPU, then handed to the CUDA backend's row kernels, flat and
/// contiguous. The cotangent is undefined for the loss.
template <class_input Input, class_target Target, reduction_kind Reduction,
          class_loss_device_call::result Result, class Out, class T, class S, class U, class ST,
          class G, class GS>
Out class_loss_on_device(const class_loss_args<T>& args, const Tensor<T, S>& input,
                         const Tensor<U, ST>& target, const Tensor<G, GS>& cotangent,
                         const typename Out::shape_type& out_shape) {
    const auto& weight = std::get<2>(args).tensor;
    const Device device = staticpy::detail::check_same_device(input, target);
    if (weight.defined())
        staticpy::detail::check_same_device(input, weight);
    if (cotangent.defined())
        staticpy::detail::check_same_device(input, cotangent);
    class_loss_device_call call;
    call.what = Result;
    call.reduction = Reduction == reduction_kind::none   ? class_loss_device_call::reduce::none
                     : Reduction == reduction_kind::mean ? class_loss_device_call::reduce::mean
                                                         : class_loss_device_call::reduce::sum;
    call.logits = Input == class_input::logits;
    call.indices = Target == class_target::indices;
    call.smoothing = checked_smoothing<Target>(input.sizes(), target.sizes(), args);
    const class_layout layout(input.sizes());
    call.outer = layout.outer;
    call.classes = layout.classes;
    call.inner = layout.inner;
    call.ignore_index = std::get<0>(args);
    Out out(out_shape, device);
    class_loss_on_cuda(class_loss_device_tag{}, call, flat_elements(input), flat_elements(target),
                       weight.defined() ? flat_elements(weight) : Tensor<T, dynamic_shape<1>>(),
                       cotangent.defined() ? flat_elements(cotangent)
                                           : Tensor<G, dynamic_shape<1>>(),
                       flat_elements(out));
    return out;
}

template <class_input Input, class_target Target, reduction_kind Reduction, class T,
          std::size_t Wrt, class Args>
struct class_loss_backward_op;

/// cross_entropy (Input logits) and nll_loss (log_probabilities) of an input [N, C, d1, ...] or
/// [C] and a target of class indices (int64 [N, d1, ...] or []) or of class probabilities (the
/// input's shape), with PyTorch's weight, ignore_index, label_smoothing and reduction. Its
/// operands are the input and the target; T is the input's element type.
template <class_input Input, class_target Target, reduction_kind Reduction, class T,
          class Args = class_loss_args<T>>
struct class_loss_op {
    static constexpr const char* name = Input == class_input::logits ? "cross_entropy" : "nll_loss";
    /// Its eager form runs on GPU tensors too, so a device graph runs it as it is.
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] Args args;

    /// Its result's shape: the input's without its class dim (reduction 'none'), or [].
    template <class S>
    static auto result_shape(const S& input) {
        if constexpr (Reduction == reduction_kind::none) {
            using out_shape = class_loss_rows_shape_t<S>;
            std::array<std::int64_t, out_shape::rank> sizes{};
            if constexpr (S::rank > 1) {
                sizes[0] = input.sizes()[0];
                for (std::size_t d = 2; d < S::rank; ++d)
                    sizes[d - 1] = input.sizes()[d];
            }
            return out_shape(sizes);
        } else {
            return shape<>{};
        }
    }

    template <class S, class U, class ST>
    auto operator()(const Tensor<T, S>& input, const Tensor<U, ST>& target) const {
        using out_shape = decltype(result_shape(input.shape()));
        if (input.is_cuda() || target.is_cuda())
            return class_loss_on_device<Input, Target, Reduction,
                                        class_loss_device_call::result::loss, Tensor<T, out_shape>>(
                class_loss_args_of<T>(args), input, target, Tensor<T, shape<>>(),
                result_shape(input.shape()));
        const auto rows =
            make_class_rows<Input, Target>(input, target, class_loss_args_of<T>(args));
        const std::int64_t n = rows.layout.rows();
        if constexpr (Reduction == reduction_kind::none) {
            Tensor<T, out_shape> out{result_shape(input.shape())};
            for (std::int64_t r = 0; r < n; ++r)
                out.data()[r] = static_cast<T>(rows.row_loss(r).first);
            return out;
        } else {
            double total = 0;
            double denominator = 0;
            for (std::int64_t r = 0; r < n; ++r) {
                const auto [loss, share] = rows.row_loss(r);
                total += loss;
                denominator += share;
            }
            if constexpr (Reduction == reduction_kind::mean) {
                if constexpr (Target == class_target::probabilities)
                    denominator = rows.denominator();
                total /= denominator;
            }
            Tensor<T, shape<>> out{shape<>{}};
            *out.data() = static_cast<T>(total);
            return out;
        }
    }

    /// The input's gradient, and a probability target's; none for class indices.
    template <std::size_t I, class G, class Y, class X, class Tg>
    auto vjp(const G& g, const Y&, const X& input, const Tg& target) const {
        if constexpr (I == 0 || (I == 1 && Target == class_target::probabilities))
            return staticpy::detail::apply_op(
                class_loss_backward_op<Input, Target, Reduction, T, I, Args>{args}, g, input,
                target);
        else
            return fn::no_grad{};
    }
};

/// class_loss_op's derivative with respect to its input (Wrt 0) or its probability target
/// (Wrt 1), given the cotangent g of its result: operands g, input, target.
template <class_input Input, class_target Target, reduction_kind Reduction, class T,
          std::size_t Wrt, class Args>
struct class_loss_backward_op {
    static constexpr const char* name =
        Input == class_input::logits ? "cross_entropy_backward" : "nll_loss_backward";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] Args args;

    template <class G, class GS, class S, class U, class ST>
    auto operator()(const Tensor<G, GS>& g, const Tensor<T, S>& input,
                    const Tensor<U, ST>& target) const {
        if (g.is_cuda() || input.is_cuda() || target.is_cuda()) {
            using result = class_loss_device_call::result;
            if constexpr (Wrt == 0)
                return class_loss_on_device<Input, Target, Reduction, result::input_gradient,
                                            Tensor<T, S>>(class_loss_args_of<T>(args), input,
                                                          target, g, input.shape());
            else
                return class_loss_on_device<Input, Target, Reduction, result::target_gradient,
                                            Tensor<U, ST>>(class_loss_args_of<T>(args), input,
                                                           target, g, target.shape());
        }
        const auto rows =
            make_class_rows<Input, Target>(input, target, class_loss_args_of<T>(args));
        const auto cotangent = g.contiguous();
        const G* gd = cotangent.data();
        double divisor = 1;
        if constexpr (Reduction == reduction_kind::mean)
            divisor = rows.denominator();
        auto scale = [&](std::int64_t r) {
            if constexpr (Reduction == reduction_kind::none)
                return static_cast<double>(gd[r]);
            else
                return static_cast<double>(*gd) / divisor;
        };
        const std::int64_t n = rows.layout.rows();
        if constexpr (Wrt == 0) {
            Tensor<T, S> out{input.shape()};
            for (std::int64_t r = 0; r < n; ++r)
                rows.input_gradient_row(r, scale(r), out.data());
            return out;
        } else {
            Tensor<U, ST> out{target.shape()};
            for (std::int64_t r = 0; r < n; ++r)
                rows.template target_gradient_row<U>(r, scale(r), out.data());
            return out;
        }
    }

    /// First-order only, as grad is (docs/autodiff.md).
    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

/// Whether no two static extents of SA's dims [a0, a0 + n) and SB's [b0, b0 + n) differ.
template <class SA, class SB>
constexpr bool static_extents_may_match(std::size_t a0, std::size_t b0, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t a = SA::static_extents[a0 + i];
        const std::int64_t b = SB::static_extents[b0 + i];
        if (a >= 0 && b >= 0 && a != b)
            return false;
    }
    return true;
}

/// What the types of a class loss's input X and target Y show: the target's kind, or a compile
/// error for what PyTorch would refuse at run time.
template <class_input Input, class X, class Y>
constexpr class_target class_target_of() {
    using T = typename X::value_type;
    using U = typename Y::value_type;
    using SX = typename X::shape_type;
    using SY = typename Y::shape_type;
    constexpr std::size_t R = SX::rank;
    constexpr std::size_t RT = SY::rank;
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: RuntimeError: cross_entropy and nll_loss take a floating-point input "
                  "(PyTorch: \"log_softmax_lastdim_kernel_impl\" not implemented for 'Long')");
    static_assert(R >= 1, "staticpy: ValueError: Expected 1 or more dimensions (got 0)");
    if constexpr (Input == class_input::logits && std::is_floating_point_v<U>) {
        static_assert(RT == R,
                      "staticpy: RuntimeError: expected scalar type Long but found a floating "
                      "type (class indices are int64; a floating target holds class "
                      "probabilities, in the input's shape)");
        if constexpr (RT == R)
            static_assert(static_extents_may_match<SX, SY>(0, 0, R),
                          "staticpy: RuntimeError: a class-probability target has the input's "
                          "shape");
        return class_target::probabilities;
    } else {
        static_assert(std::is_same_v<U, std::int64_t>,
                      "staticpy: RuntimeError: expected scalar type Long: class indices are an "
                      "int64 tensor");
        if constexpr (Input == class_input::logits)
            static_assert(RT != R, "staticpy: RuntimeError: Expected floating point type for "
                                   "target with class probabilities, got Long");
        static_assert(RT == (R == 1 ? 0 : R - 1),
                      "staticpy: RuntimeError: 0D or 1D target tensor expected, multi-target not "
                      "supported (class indices have the input's shape without its class dim: "
                      "[N, d1, ...] for an input [N, C, d1, ...], [] for an input [C])");
        if constexpr (R >= 2 && RT == R - 1) {
            static_assert(static_extents_may_match<SX, SY>(0, 0, 1),
                          "staticpy: ValueError: Expected input batch_size to match target "
                          "batch_size");
            static_assert(static_extents_may_match<SX, SY>(2, 1, R - 2),
                          "staticpy: RuntimeError: Expected target size [N, d1, ...] for an input "
                          "[N, C, d1, ...]");
        }
        return class_target::indices;
    }
}

template <class_input Input, class R, class X, class Y, class T>
auto class_loss(const X& input, const Y& target, const class_weight<T>& weight,
                std::int64_t ignore_index, double label_smoothing) {
    constexpr reduction_kind reduction = reduction_of<R>();
    constexpr class_target kind = class_target_of<Input, X, Y>();
    const class_loss_op<Input, kind, reduction, T> op{
        {ignore_index, label_smoothing,
         class_weight_arg<T>{weight.has_value() ? *weight : Tensor<T, dynamic_shape<1>>()}}};
    return staticpy::detail::apply_op(op, input, target);
}
/// With every argument at PyTorch's default.
template <class_input Input, class R, class X, class Y>
auto class_loss(const X& input, const Y& target) {
    constexpr reduction_kind reduction = reduction_of<R>();
    constexpr class_target kind = class_target_of<Input, X, Y>();
    using T = typename X::value_type;
    return staticpy::detail::apply_op(
        class_loss_op<Input, kind, reduction, T, class_loss_defaults>{}, input, target);
}

// ---- the elementwise losses ---------------------------------------------------------------------

/// The source form of a loss functor's formula (its C++ form for to_cpp and the CUDA kernels,
/// where the functor's own functions are not there): `body`, written over x, y, z and their type
/// T with std:: math and T(c) for constants, as a lambda called on the three operands, each
/// taken as T (the first one's type), as the functor's apply<T>(T, T, T) takes them. (Its
/// parameters are typed: NVRTC takes a generic lambda in a kernel for a host function.)
inline std::string loss_source(std::string_view body, std::string_view x, std::string_view y,
                               std::string_view z) {
    const std::string type = "decltype(+(" + std::string(x) + "))";
    return "[](" + type + " x, " + type + " y, " + type + " z) { using T = decltype(x); " +
           std::string(body) + " }(" + std::string(x) + ", " + std::string(y) + ", " +
           std::string(z) + ")";
}

/// The derivative of elementwise loss Loss with respect to its operand I, per element (the
/// cotangent multiplies it): Loss::slope<I>. First-order only, as grad is (docs/autodiff.md).
template <class Loss, std::size_t I>
struct loss_slope : fn::op_base {
    static constexpr const char* name = Loss::slope_name;
    static constexpr int arity = 3;
    static constexpr fn::op_kind kind = fn::op_kind::same;
    static constexpr int cost = Loss::cost;
    template <class T>
    static T apply(T x, T y, T z) {
        return Loss::template slope<I>(x, y, z);
    }
    template <std::size_t J, class... A>
    static auto vjp(const A&...) {
        return fn::no_grad{};
    }
    static std::string cpp(std::string_view x, std::string_view y, std::string_view z) {
        return loss_source(Loss::slope_source[I], x, y, z);
    }
};

/// What the losses' elementwise functors share: three operands (input, target, and a parameter
/// or weight), computed in their promoted type (a Python float parameter does not widen it), for
/// floating types only (PyTorch implements the losses for those); the derivatives of the input
/// and the target are each one elementwise op, Loss::slope<I> times the cotangent (the rules'
/// compositions of where, log, ... made the traced backward graphs a minute's compile each).
/// Their source form is each functor's `source` (and `slope_source`): its formula again, as
/// text over std:: math, beside the C++ it mirrors.
template <class Loss>
struct loss_functor : fn::op_base {
    static constexpr int arity = 3;
    static constexpr fn::op_kind kind = fn::op_kind::same;
    template <class T>
    static constexpr bool check() {
        static_assert(std::is_floating_point_v<T>,
                      "staticpy: RuntimeError: the loss is implemented for floating-point tensors "
                      "only (PyTorch: \"mse_cpu\" not implemented for 'Long')");
        return true;
    }
    template <std::size_t I, class G, class Y, class X, class Tg, class Z>
    static auto vjp(const G& g, const Y&, const X& x, const Tg& t, const Z& z) {
        if constexpr (I < 2)
            return g * fn::call<loss_slope<Loss, I>>(x, t, z);
        else
            return fn::no_grad{}; // beta, weight, pos_weight (PyTorch has none)
    }
    static std::string cpp(std::string_view x, std::string_view y, std::string_view z) {
        return loss_source(Loss::source, x, y, z);
    }
};

/// The floating result the composed losses need, as the functors' check.
template <class D>
constexpr void require_floating() {
    static_assert(loss_functor<void>::check<typename D::value_type>());
}

/// smooth_l1_loss of input x and target y: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta
/// (d = x - y). Its derivative is PyTorch's kernel's: -1 where d <= -beta, 1 where d >= beta,
/// d / beta between (so -1 at d == 0 when beta == 0, where |d|'s would give 0), for the input and
/// for the target alike.
struct smooth_l1 : loss_functor<smooth_l1> {
    static constexpr const char* name = "smooth_l1_loss";
    static constexpr const char* slope_name = "smooth_l1_loss_slope";
    static constexpr const char* source = "const T d = x - y; const T a = std::abs(d); "
                                          "return a < z ? T(0.5) * d * d / z : a - T(0.5) * z;";
    static constexpr std::array<const char*, 2> slope_source{
        "const T d = x - y; return d <= -z ? T(-1) : d >= z ? T(1) : d / z;",
        "const T d = y - x; return d <= -z ? T(-1) : d >= z ? T(1) : d / z;"};
    template <class T>
    static T apply(T x, T y, T beta) {
        namespace math = kernels::math;
        const T d = x - y;
        const T a = math::fabs(d);
        const T half = math::splat<T>(0.5);
        return math::select(a < beta, half * d * d / beta, a - half * beta);
    }
    /// The target's is the input's with the two swapped (PyTorch's derivatives.yaml), not its
    /// negation: they differ at d == 0 with beta == 0, where both are -1.
    template <std::size_t I, class T>
    static T slope(T x, T y, T beta) {
        namespace math = kernels::math;
        const T d = I == 0 ? x - y : y - x;
        const T one = math::splat<T>(1);
        return math::select(d <= -beta, -one, math::select(d >= beta, one, d / beta));
    }
};

/// huber_loss of input x and target y: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)
/// (d = x - y). Its derivative is PyTorch's kernel's: -delta where d < -delta, delta where
/// d > delta, d between. (Composed of abs and where, its traced backward graph took gigabytes to
/// compile.)
struct huber : loss_functor<huber> {
    static constexpr const char* name = "huber_loss";
    static constexpr const char* slope_name = "huber_loss_slope";
    static constexpr const char* source = "const T d = x - y; const T a = std::abs(d); "
                                          "return a < z ? T(0.5) * d * d : z * (a - T(0.5) * z);";
    static constexpr std::array<const char*, 2> slope_source{
        "const T d = x - y; return d < -z ? -z : d > z ? z : d;",
        "const T d = y - x; return d < -z ? -z : d > z ? z : d;"};
    template <class T>
    static T apply(T x, T y, T delta) {
        namespace math = kernels::math;
        const T d = x - y;
        const T a = math::fabs(d);
        const T half = math::splat<T>(0.5);
        return math::select(a < delta, half * d * d, delta * (a - half * delta));
    }
    /// The target's is the input's with the two swapped, as PyTorch's (smooth_l1 above).
    template <std::size_t I, class T>
    static T slope(T x, T y, T delta) {
        namespace math = kernels::math;
        const T d = I == 0 ? x - y : y - x;
        return math::select(d < -delta, -delta, math::select(d > delta, delta, d));
    }
};

/// binary_cross_entropy of probabilities x and target t, weighted by w: PyTorch's kernel,
/// w ((t - 1) max(log(1 - x), -100) - t max(log(x), -100)). Its derivatives are PyTorch's:
/// w (x - t) / max(x (1 - x), 1e-12) for x (finite at 0 and 1), w log((1 - x) / x) for t.
struct binary_cross_entropy_fn : loss_functor<binary_cross_entropy_fn> {
    static constexpr const char* name = "binary_cross_entropy";
    static constexpr const char* slope_name = "binary_cross_entropy_slope";
    // (kernels::math::max(a, b) is a > b ? a : b: a NaN log gives -100, as there.)
    static constexpr const char* source =
        "const T low = std::log1p(-x), high = std::log(x); "
        "return z * ((y - T(1)) * (low > T(-100) ? low : T(-100)) - "
        "y * (high > T(-100) ? high : T(-100)));";
    static constexpr std::array<const char*, 2> slope_source{
        "const T q = (T(1) - x) * x; return z * (x - y) / (q > T(1e-12) ? q : T(1e-12));",
        "return z * (std::log1p(-x) - std::log(x));"};
    static constexpr int cost = fn::transcendental_cost;
    template <class T>
    static T apply(T x, T t, T w) {
        namespace math = kernels::math;
        const T floor = math::splat<T>(-100);
        const T one = math::splat<T>(1);
        return w *
               ((t - one) * math::max(math::log1p(-x), floor) - t * math::max(math::log(x), floor));
    }
    template <std::size_t I, class T>
    static T slope(T x, T t, T w) {
        namespace math = kernels::math;
        if constexpr (I == 0)
            return w * (x - t) / math::max((math::splat<T>(1) - x) * x, math::splat<T>(1e-12));
        else
            return w * (math::log1p(-x) - math::log(x));
    }
};

/// binary_cross_entropy_with_logits of logits x and target t, pos_weight p (the weight
/// multiplies it after): PyTorch's formula, (1 - t) x + (1 + (p - 1) t) softplus(-x), where
/// softplus(-x) = log(exp(-m) + exp(-x - m)) + m, m = max(-x, 0), does not overflow. Its
/// derivatives are PyTorch's: (p t + 1 - t) sigmoid(x) - p t for x, p softplus(-x) -
/// softplus(x) for t.
struct logit_cross_entropy : loss_functor<logit_cross_entropy> {
    static constexpr const char* name = "binary_cross_entropy_with_logits";
    static constexpr const char* slope_name = "binary_cross_entropy_with_logits_slope";
// softplus_of_negative(x) below, as source text.
#define STATICPY_SOFTPLUS_OF_NEGATIVE                                                              \
    "const T m = -x > T(0) ? -x : T(0); "                                                          \
    "const T softplus = std::log(std::exp(-m) + std::exp(-x - m)) + m; "
    static constexpr const char* source =
        STATICPY_SOFTPLUS_OF_NEGATIVE "return (T(1) - y) * x + (T(1) + (z - T(1)) * y) * softplus;";
    static constexpr std::array<const char*, 2> slope_source{
        "return (z * y + T(1) - y) / (T(1) + std::exp(-x)) - z * y;",
        STATICPY_SOFTPLUS_OF_NEGATIVE "return (z - T(1)) * softplus - x;"};
#undef STATICPY_SOFTPLUS_OF_NEGATIVE
    static constexpr int cost = fn::transcendental_cost;
    template <class T>
    static T softplus_of_negative(T x) {
        namespace math = kernels::math;
        const T m = math::max(-x, math::splat<T>(0));
        return math::log(math::exp(-m) + math::exp(-x - m)) + m;
    }
    template <class T>
    static T apply(T x, T t, T p) {
        const T one = kernels::math::splat<T>(1);
        return (one - t) * x + (one + (p - one) * t) * softplus_of_negative(x);
    }
    template <std::size_t I, class T>
    static T slope(T x, T t, T p) {
        namespace math = kernels::math;
        const T one = math::splat<T>(1);
        if constexpr (I == 0)
            return (p * t + one - t) / (one + math::exp(-x)) - p * t;
        else // softplus(x) = softplus(-x) + x
            return (p - one) * softplus_of_negative(x) - x;
    }
};

/// The input of binary_cross_entropy (Probabilities) or binary_cross_entropy_with_logits, as
/// it is (no copy), once its target is checked to have its size (PyTorch's ValueErrors) and, for
/// probabilities, its elements to lie in [0, 1].
template <bool Probabilities>
struct binary_input_check_op {
    static constexpr const char* name = Probabilities ? "check_probabilities" : "check_target_size";
    /// Its eager form runs on GPU tensors too (the probabilities' range read back as their min
    /// and max, two reductions there), so a device graph runs it as it is.
    static constexpr bool eager_on_cuda = true;
    static constexpr std::array<bool, 2> reads{true, false};
    std::tuple<> args;

    template <class T, class S, class L>
    Tensor<T, S> operator()(const Tensor<T, S>& input, const L& target) const {
        const auto& input_sizes = input.sizes();
        const auto& target_sizes = staticpy::detail::shape_of_like(target).sizes();
        if (input_sizes != target_sizes) {
            const std::string target_text =
                "torch.Size(" + staticpy::detail::sizes_text(target_sizes) + ")";
            const std::string input_text =
                "torch.Size(" + staticpy::detail::sizes_text(input_sizes) + ")";
            if constexpr (Probabilities)
                throw ValueError("Using a target size (" + target_text +
                                 ") that is different to the input size (" + input_text +
                                 ") is deprecated. Please ensure they have the same size.");
            else
                throw ValueError("Target size (" + target_text +
                                 ") must be the same as input size (" + input_text + ")");
        }
        if constexpr (Probabilities) {
            const char* outside = "all elements of input should be between 0 and 1";
            if (input.is_cuda()) { // a NaN makes the min and the max NaN
                if (input.numel() != 0 &&
                    !(staticpy::min(input).item() >= T(0) && staticpy::max(input).item() <= T(1)))
                    throw RuntimeError(outside);
            } else {
                const auto values = input.contiguous();
                for (std::int64_t i = 0; i < values.numel(); ++i) {
                    const T v = values.data()[i];
                    if (!(v >= T(0) && v <= T(1)))
                        throw RuntimeError(outside);
                }
            }
        }
        return input;
    }

    template <std::size_t I, class G, class Y, class X, class L>
    auto vjp(const G& g, const Y&, const X&, const L&) const {
        if constexpr (I == 0)
            return g;
        else
            return fn::no_grad{};
    }
};

/// Which tensor PyTorch names `a` in the broadcast error of a weight: the target and weight= for
/// binary_cross_entropy (its _infer_size), the loss and weight= for
/// binary_cross_entropy_with_logits (its mul_), pos_weight= and the target for pos_weight.
enum class weight_role { weight_second, weight_first };

/// weight= or pos_weight= (its argument: ones of one element where there is none, on the
/// input's device) broadcast to the shape of the input (its operand, only its shape read): a
/// view, with PyTorch's broadcast error when the weight does not broadcast, and its in-place one
/// when it would enlarge the result. In a GPU graph, where the input is a shape, the ones are the
/// host's, and the graph copies the view to the device.
template <class T, std::size_t R>
struct expand_weight_op {
    static constexpr const char* name = "expand_weight";
    static constexpr bool eager_on_cuda = true;
    static constexpr std::array<bool, 1> reads{false};
    std::tuple<weight_role, weight_arg<T, R>> args;

    template <class L>
    auto operator()(const L& input) const {
        const Device device = [&] {
            if constexpr (is_tensor_v<L>)
                return input.device();
            else
                return Device{};
        }();
        Tensor<T, dynamic_shape<R>> weight = std::get<1>(args).tensor;
        if (!weight.defined()) {
            std::array<std::int64_t, R> ones{};
            ones.fill(1);
            weight = full<T>(dynamic_shape<R>(ones), T(1), device);
        } else if constexpr (is_tensor_v<L>) {
            staticpy::detail::check_same_device(input, weight);
        }
        const auto& input_sizes = staticpy::detail::shape_of_like(input).sizes();
        const auto& weight_sizes = weight.sizes();
        std::array<std::int64_t, R> broadcast{};
        const std::span<const std::int64_t> w(weight_sizes.data(), weight_sizes.size());
        const std::span<const std::int64_t> x(input_sizes.data(), input_sizes.size());
        if (std::get<0>(args) == weight_role::weight_first)
            broadcast_sizes_into(w, x, broadcast);
        else
            broadcast_sizes_into(x, w, broadcast);
        if (!std::equal(broadcast.begin(), broadcast.end(), input_sizes.begin()))
            throw RuntimeError("output with shape " + staticpy::detail::sizes_text(input_sizes) +
                               " doesn't match the broadcast shape " +
                               staticpy::detail::sizes_text(broadcast));
        return staticpy::detail::expand_to_op{}(weight, input);
    }

    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

/// A weight of the input's shape: weight= broadcast, or ones without it.
template <class X, class T, std::size_t R>
auto expanded_weight(const elementwise_weight<T, R>& weight, const X& input, weight_role role) {
    const expand_weight_op<T, R> op{
        {role, {weight.has_value() ? *weight : Tensor<T, dynamic_shape<R>>()}}};
    return staticpy::detail::apply_op(op, input);
}

/// The binary losses' static checks: a floating input, and a target of its size.
template <bool Probabilities, class X, class Y>
constexpr void check_binary_operands() {
    using SX = typename X::shape_type;
    using SY = typename Y::shape_type;
    static_assert(std::is_floating_point_v<typename X::value_type>,
                  "staticpy: RuntimeError: binary_cross_entropy takes a floating-point input "
                  "(PyTorch: \"binary_cross_entropy\" not implemented for 'Long')");
    constexpr bool same_size = [] {
        if constexpr (SX::rank != SY::rank)
            return false;
        else
            return static_extents_may_match<SX, SY>(0, 0, SX::rank);
    }();
    if constexpr (Probabilities)
        static_assert(same_size, "staticpy: ValueError: Using a target size that is different to "
                                 "the input size is deprecated. Please ensure they have the same "
                                 "size.");
    else
        static_assert(same_size,
                      "staticpy: ValueError: Target size must be the same as input size");
}

} // namespace detail

// ---- the losses ---------------------------------------------------------------------------------

/// torch.nn.functional.cross_entropy(input, target, weight=None, ignore_index=-100,
/// reduction='mean', label_smoothing=0.0): input [N, C, d1, ...] (or [C]) of logits; target the
/// class indices, int64 [N, d1, ...] (or []), or class probabilities of the input's shape.
///   auto loss = nn::functional::cross_entropy(logits, labels);
///   auto rows = nn::functional::cross_entropy(logits, labels, "none"_s, {.weight = w});
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto cross_entropy(const X& input, const Y& target, R reduction = {}) {
    (void)reduction;
    return detail::class_loss<detail::class_input::logits, R>(input, target);
}
template <detail::loss_operand X, detail::loss_operand Y, class R>
auto cross_entropy(const X& input, const Y& target, R reduction,
                   const CrossEntropyOptions<typename X::value_type>& options) {
    (void)reduction;
    return detail::class_loss<detail::class_input::logits, R>(
        input, target, options.weight, options.ignore_index, options.label_smoothing);
}
template <detail::loss_operand X, detail::loss_operand Y>
auto cross_entropy(const X& input, const Y& target,
                   const CrossEntropyOptions<typename X::value_type>& options) {
    return cross_entropy(input, target, str<"mean">{}, options);
}

/// torch.nn.functional.nll_loss(input, target, weight=None, ignore_index=-100,
/// reduction='mean'): input [N, C, d1, ...] (or [C]) of log-probabilities, target int64
/// [N, d1, ...] (or []).
///   auto loss = nn::functional::nll_loss(log_softmax(logits, 1_c), labels);
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto nll_loss(const X& input, const Y& target, R reduction = {}) {
    (void)reduction;
    return detail::class_loss<detail::class_input::log_probabilities, R>(input, target);
}
template <detail::loss_operand X, detail::loss_operand Y, class R>
auto nll_loss(const X& input, const Y& target, R reduction,
              const NLLLossOptions<typename X::value_type>& options) {
    (void)reduction;
    return detail::class_loss<detail::class_input::log_probabilities, R>(
        input, target, options.weight, options.ignore_index, 0.0);
}
template <detail::loss_operand X, detail::loss_operand Y>
auto nll_loss(const X& input, const Y& target,
              const NLLLossOptions<typename X::value_type>& options) {
    return nll_loss(input, target, str<"mean">{}, options);
}

/// torch.nn.functional.mse_loss(input, target, reduction='mean'): (input - target)^2, the two
/// broadcast together.
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto mse_loss(const X& input, const Y& target, R reduction = {}) {
    (void)reduction;
    const auto difference = input - target;
    detail::require_floating<decltype(difference)>();
    return detail::reduce_loss<detail::reduction_of<R>()>(square(difference));
}

/// torch.nn.functional.l1_loss(input, target, reduction='mean'): |input - target|.
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto l1_loss(const X& input, const Y& target, R reduction = {}) {
    (void)reduction;
    const auto difference = input - target;
    detail::require_floating<decltype(difference)>();
    return detail::reduce_loss<detail::reduction_of<R>()>(abs(difference));
}

/// torch.nn.functional.huber_loss(input, target, reduction='mean', delta=1.0):
/// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = input - target.
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto huber_loss(const X& input, const Y& target, R reduction = {},
                const HuberLossOptions& options = {}) {
    (void)reduction;
    const double delta = options.delta;
    if (!(delta > 0))
        throw RuntimeError("huber_loss does not support non-positive values for delta.");
    const auto loss = elementwise<detail::huber>(input, target, delta);
    detail::require_floating<decltype(loss)>();
    return detail::reduce_loss<detail::reduction_of<R>()>(loss);
}
template <detail::loss_operand X, detail::loss_operand Y>
auto huber_loss(const X& input, const Y& target, const HuberLossOptions& options) {
    return huber_loss(input, target, str<"mean">{}, options);
}

/// torch.nn.functional.smooth_l1_loss(input, target, reduction='mean', beta=1.0):
/// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta, d = input - target.
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto smooth_l1_loss(const X& input, const Y& target, R reduction = {},
                    const SmoothL1LossOptions& options = {}) {
    (void)reduction;
    if (options.beta < 0)
        throw RuntimeError("smooth_l1_loss does not support negative values for beta.");
    const auto loss = elementwise<detail::smooth_l1>(input, target, options.beta);
    detail::require_floating<decltype(loss)>();
    return detail::reduce_loss<detail::reduction_of<R>()>(loss);
}
template <detail::loss_operand X, detail::loss_operand Y>
auto smooth_l1_loss(const X& input, const Y& target, const SmoothL1LossOptions& options) {
    return smooth_l1_loss(input, target, str<"mean">{}, options);
}

/// torch.nn.functional.binary_cross_entropy(input, target, weight=None, reduction='mean'):
/// -w (t log(x) + (1 - t) log(1 - x)), each log at least -100; input probabilities in [0, 1],
/// target of the input's size, weight broadcast to it.
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto binary_cross_entropy(
    const X& input, const Y& target, R reduction = {},
    const BinaryCrossEntropyOptions<typename X::value_type, X::rank>& options = {}) {
    (void)reduction;
    detail::check_binary_operands<true, X, Y>();
    const auto checked =
        staticpy::detail::apply_op(detail::binary_input_check_op<true>{}, input, target);
    const auto weight =
        detail::expanded_weight(options.weight, input, detail::weight_role::weight_second);
    return detail::reduce_loss<detail::reduction_of<R>()>(
        elementwise<detail::binary_cross_entropy_fn>(checked, target, weight));
}
template <detail::loss_operand X, detail::loss_operand Y>
auto binary_cross_entropy(
    const X& input, const Y& target,
    const BinaryCrossEntropyOptions<typename X::value_type, X::rank>& options) {
    return binary_cross_entropy(input, target, str<"mean">{}, options);
}

/// torch.nn.functional.binary_cross_entropy_with_logits(input, target, weight=None,
/// reduction='mean', pos_weight=None): w ((1 - t) x + (1 + (p - 1) t) softplus(-x)), the
/// stable form of -w (p t log(sigmoid(x)) + (1 - t) log(1 - sigmoid(x))); target of the input's
/// size, weight and pos_weight broadcast to it.
template <detail::loss_operand X, detail::loss_operand Y, class R = str<"mean">>
auto binary_cross_entropy_with_logits(
    const X& input, const Y& target, R reduction = {},
    const BinaryCrossEntropyWithLogitsOptions<typename X::value_type, X::rank>& options = {}) {
    (void)reduction;
    detail::check_binary_operands<false, X, Y>();
    using SX = typename X::shape_type;
    // Sizes the types show to be equal need no check (the check would materialise the input).
    const auto checked = [&] {
        if constexpr (SX::is_static && std::is_same_v<SX, typename Y::shape_type>)
            return input;
        else
            return staticpy::detail::apply_op(detail::binary_input_check_op<false>{}, input,
                                              target);
    }();
    const auto weight =
        detail::expanded_weight(options.weight, input, detail::weight_role::weight_second);
    const auto pos_weight =
        detail::expanded_weight(options.pos_weight, input, detail::weight_role::weight_first);
    return detail::reduce_loss<detail::reduction_of<R>()>(
        elementwise<detail::logit_cross_entropy>(checked, target, pos_weight) * weight);
}
template <detail::loss_operand X, detail::loss_operand Y>
auto binary_cross_entropy_with_logits(
    const X& input, const Y& target,
    const BinaryCrossEntropyWithLogitsOptions<typename X::value_type, X::rank>& options) {
    return binary_cross_entropy_with_logits(input, target, str<"mean">{}, options);
}

} // namespace staticpy::nn::functional
