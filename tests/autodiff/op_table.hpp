#pragma once
// The op table: every op a user calls, by family, each with its derivative status, float64 inputs
// inside its domain and the call that runs it. It is what
//   * tests/autodiff/op_table_*_test.cpp run: each op's value and its first and second
//     derivatives in float64, graph mode against eager, over every entry (op_table_check.hpp);
//   * docs/autodiff.md's "Derivative status" table is generated from (op_table_doc_test.cpp,
//     which also fails when a header defines an op this table does not list).
// Adding an op is adding its entry here; its tests and its line in the docs follow.
//
//   visit(differentiable("exp", unit_inputs, [](auto x) { return exp(x); }));

#include <cstdint>
#include <string_view>
#include <tuple>
#include <utility>

#include <staticpy/grad.hpp>
#include <staticpy/nn.hpp>
#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

namespace op_table {

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

/// What grad gives for an op.
enum class derivative {
    implemented,       // PyTorch's derivative, in both modes
    zero,              // zero wherever it exists (floor, sign, detach), as PyTorch's
    not_differentiable // an integer or bool result (comparisons, argmax): nothing to differentiate
};

/// One op: its name (PyTorch's), its derivative status, a note for the docs, the inputs it is
/// tested on (a function giving a tuple of tensors: the float64 ones are differentiated) and the
/// call. An elementwise op also names its functor (tensor/functors.hpp; void otherwise), whose
/// derivative rule the tests differentiate once more for its second derivatives.
template <derivative Status, class Inputs, class Call, class Functor = void>
struct entry {
    static constexpr derivative status = Status;
    using functor = Functor;
    std::string_view name;
    std::string_view note;
    Inputs inputs;
    Call call;
    /// Whether its gradient is the function's, as finite differences measure it (not detach's).
    bool finite_differences = true;
};

template <class Inputs, class Call>
constexpr auto differentiable(std::string_view name, Inputs inputs, Call call,
                              std::string_view note = "") {
    return entry<derivative::implemented, Inputs, Call>{name, note, inputs, call};
}
template <class Inputs, class Call>
constexpr auto zero_derivative(std::string_view name, Inputs inputs, Call call,
                               std::string_view note = "") {
    return entry<derivative::zero, Inputs, Call>{name, note, inputs, call};
}
template <class Inputs, class Call>
constexpr auto without_derivative(std::string_view name, Inputs inputs, Call call,
                                  std::string_view note = "") {
    return entry<derivative::not_differentiable, Inputs, Call>{name, note, inputs, call};
}
/// The elementwise op of functor F on the inputs, then the numbers `params` (clamp's bounds,
/// leaky_relu's slope): fn::call<F>(x..., params...).
template <class F, class... P>
struct functor_call {
    std::tuple<P...> params;
    template <class... X>
    auto operator()(const X&... x) const {
        return std::apply([&](const P&... p) { return fn::call<F>(x..., p...); }, params);
    }
};
template <class F, derivative Status = derivative::implemented, class Inputs, class... P>
constexpr auto elementwise(std::string_view name, Inputs inputs, P... params) {
    return entry<Status, Inputs, functor_call<F, P...>, F>{name, "", inputs, {{params...}}};
}

/// A float64 tensor of the given extents, uniform in [lo, hi), from a fixed seed.
using autodiff_test::random_tensor;

// ---- inputs -------------------------------------------------------------------------------------

/// One [2, 5] operand in [0.2, 2): where log, sqrt, rsqrt and the rest are defined.
inline auto positive_input() {
    return std::tuple{random_tensor(11, 0.2, 2.0, 2_c, 5_c)};
}
/// One [2, 5] operand in [-2, 2) (kinks at 0 are met with probability 0).
inline auto signed_input() {
    return std::tuple{random_tensor(12, -2.0, 2.0, 2_c, 5_c)};
}
/// Two [2, 5] operands in [-2, 2).
inline auto signed_pair() {
    return std::tuple{random_tensor(13, -2.0, 2.0, 2_c, 5_c),
                      random_tensor(14, -2.0, 2.0, 2_c, 5_c)};
}
/// A [2, 5] operand and a broadcast [5] one, both in [0.2, 2).
inline auto broadcast_pair() {
    return std::tuple{random_tensor(15, 0.2, 2.0, 2_c, 5_c), random_tensor(16, 0.2, 2.0, 5_c)};
}
/// A [3, 4] operand in [-2, 2) for the reductions.
inline auto matrix_input() {
    return std::tuple{random_tensor(17, -2.0, 2.0, 3_c, 4_c)};
}
/// Probabilities in (0.05, 0.95) and targets in [0, 1).
inline auto probability_pair() {
    return std::tuple{random_tensor(18, 0.05, 0.95, 2_c, 5_c),
                      random_tensor(19, 0.0, 1.0, 2_c, 5_c)};
}
/// An image batch [2, 3, 6, 6].
inline auto image_input() {
    return std::tuple{random_tensor(20, -2.0, 2.0, 2_c, 3_c, 6_c, 6_c)};
}
/// A bool condition, then two operands.
inline auto condition_pair() {
    const auto a = random_tensor(21, -2.0, 2.0, 2_c, 5_c);
    return std::tuple{a > 0.0, a, random_tensor(22, -2.0, 2.0, 2_c, 5_c)};
}
/// A [3, 4] operand and an int64 [3, 2] index of its columns.
inline auto gather_inputs() {
    return std::tuple{random_tensor(23, -2.0, 2.0, 3_c, 4_c),
                      tensor<std::int64_t>({{0, 3}, {2, 2}, {1, 0}})};
}
/// Logits [4, 5] and class targets.
inline auto class_inputs() {
    return std::tuple{random_tensor(24, -2.0, 2.0, 4_c, 5_c), tensor<std::int64_t>({0, 4, 2, 2})};
}

// ---- the families -------------------------------------------------------------------------------

/// The exponentials, logarithms and roots (tensor/functors.hpp).
template <class Visit>
void math_ops(Visit&& visit) {
    visit(elementwise<fn::exp>("exp", positive_input));
    visit(elementwise<fn::expm1>("expm1", positive_input));
    visit(elementwise<fn::log>("log", positive_input));
    visit(elementwise<fn::log1p>("log1p", positive_input));
    visit(elementwise<fn::sqrt>("sqrt", positive_input));
    visit(elementwise<fn::rsqrt>("rsqrt", positive_input));
    visit(elementwise<fn::reciprocal>("reciprocal", positive_input));
}

/// The trigonometric and sigmoid-shaped functions.
template <class Visit>
void trig_ops(Visit&& visit) {
    visit(elementwise<fn::sin>("sin", signed_input));
    visit(elementwise<fn::cos>("cos", signed_input));
    visit(elementwise<fn::tanh>("tanh", signed_input));
    visit(elementwise<fn::erf>("erf", signed_input));
    visit(elementwise<fn::sigmoid>("sigmoid", signed_input));
}

/// The activations and the sign-sensitive ops.
template <class Visit>
void activation_ops(Visit&& visit) {
    visit(elementwise<fn::square>("square", signed_input));
    visit(elementwise<fn::neg>("neg", signed_input));
    visit(elementwise<fn::abs>("abs", signed_input));
    visit(elementwise<fn::relu>("relu", signed_input));
    visit(elementwise<fn::gelu>("gelu", signed_input));
    visit(elementwise<fn::silu>("silu", signed_input));
    visit(elementwise<fn::softplus>("softplus", signed_input, 2.0, 1.5));
    visit(elementwise<fn::leaky_relu>("leaky_relu", signed_input, 0.1));
}

/// Casts, signs and rounding.
template <class Visit>
void rounding_ops(Visit&& visit) {
    visit(differentiable(
        "cast (x.to<T>())", signed_input, [](auto x) { return cast<float>(x); },
        "the gradient is cast back to the input's dtype"));
    visit(elementwise<fn::sign, derivative::zero>("sign", signed_input));
    visit(elementwise<fn::floor, derivative::zero>("floor", signed_input));
    visit(elementwise<fn::ceil, derivative::zero>("ceil", signed_input));
    visit(elementwise<fn::round, derivative::zero>("round", signed_input));
    auto detached = zero_derivative(
        "detach", signed_input, [](auto x) { return x.detach() * x; },
        "no gradient flows through the detached factor");
    detached.finite_differences = false;
    visit(detached);
}

/// The elementwise ops of two or more operands.
template <class Visit>
void binary_ops(Visit&& visit) {
    visit(elementwise<fn::add>("add", broadcast_pair));
    visit(elementwise<fn::sub>("sub", broadcast_pair));
    visit(elementwise<fn::mul>("mul", broadcast_pair));
    visit(elementwise<fn::div>("div", broadcast_pair));
    visit(elementwise<fn::pow>("pow", broadcast_pair));
    visit(elementwise<fn::maximum>("maximum", signed_pair));
    visit(elementwise<fn::minimum>("minimum", signed_pair));
    visit(elementwise<fn::clamp>("clamp", signed_input, -0.5, 1.0));
    visit(elementwise<fn::where>("where", condition_pair));
}

/// Numbers as operands (PyTorch's wrapped numbers: a double keeps its value in float64, known
/// at compile time or at run time) and the comparisons.
template <class Visit>
void number_ops(Visit&& visit) {
    visit(elementwise<fn::mul>("mul (a compile-time number)", signed_input, 1.1283791670955126_c));
    visit(elementwise<fn::mul>("mul (a run-time number)", signed_input, 1.1283791670955126));
    visit(elementwise<fn::pow>("pow (a number exponent)", positive_input, 2.5));
    visit(differentiable("pow (a number base)", signed_input, [](auto x) { return pow(2.5, x); }));
    visit(differentiable(
        "sub (numbers)", signed_input, [](auto x) { return x * (0.1_c * 3.0) - 0.1_c; },
        "numbers combined before they meet a tensor compute in double"));
    visit(elementwise<fn::eq, derivative::not_differentiable>("eq", signed_pair));
    visit(elementwise<fn::ne, derivative::not_differentiable>("ne", signed_pair));
    visit(elementwise<fn::lt, derivative::not_differentiable>("lt", signed_pair));
    visit(elementwise<fn::le, derivative::not_differentiable>("le", signed_pair));
    visit(elementwise<fn::gt, derivative::not_differentiable>("gt", signed_pair));
    visit(elementwise<fn::ge, derivative::not_differentiable>("ge", signed_pair));
}

/// The reductions and the ops along a dim.
template <class Visit>
void reduction_ops(Visit&& visit) {
    visit(differentiable("sum", matrix_input, [](auto x) { return sum(x); }));
    visit(differentiable("sum (dim)", matrix_input, [](auto x) { return sum(x, 1_c); }));
    visit(differentiable("prod", positive_input, [](auto x) { return prod(x, 0_c); }));
    visit(differentiable("mean", matrix_input, [](auto x) { return mean(x, 0_c, True); }));
    visit(differentiable("var", matrix_input, [](auto x) { return var(x, 1_c); }));
    visit(differentiable("amax", matrix_input, [](auto x) { return amax(x, 1_c); }));
    visit(differentiable("amin", matrix_input, [](auto x) { return amin(x, 0_c); }));
    visit(differentiable("max", matrix_input, [](auto x) { return max(x); }));
    visit(differentiable("min", matrix_input, [](auto x) { return min(x); }));
    visit(differentiable("softmax", matrix_input, [](auto x) { return softmax(x, 1_c); }));
    visit(differentiable("log_softmax", matrix_input, [](auto x) { return log_softmax(x, 0_c); }));
    visit(differentiable(
        "max (dim)", matrix_input, [](auto x) { return max(x, 1_c).values; },
        "the values; the gradient goes to the element at the index"));
    visit(
        differentiable("min (dim)", matrix_input, [](auto x) { return min(x, 0_c, True).values; }));
    visit(differentiable("topk", matrix_input, [](auto x) { return topk(x, 2_c, 1_c).values; }));
    visit(differentiable("sort", matrix_input, [](auto x) { return sort(x, 0_c, true).values; }));
    visit(without_derivative("argsort", matrix_input, [](auto x) { return argsort(x, 1_c); }));
    visit(without_derivative("argmax", matrix_input, [](auto x) { return argmax(x, 1_c); }));
    visit(without_derivative("argmin", matrix_input, [](auto x) { return argmin(x, 0_c); }));
}

/// Products and views.
template <class Visit>
void view_ops(Visit&& visit) {
    visit(differentiable(
        "matmul",
        [] {
            return std::tuple{random_tensor(30, -1, 1, 3_c, 4_c),
                              random_tensor(31, -1, 1, 4_c, 2_c)};
        },
        [](auto a, auto b) { return matmul(a, b); }));
    visit(differentiable(
        "linear",
        [] {
            return std::tuple{random_tensor(32, -1, 1, 3_c, 4_c),
                              random_tensor(33, -1, 1, 2_c, 4_c), random_tensor(34, -1, 1, 2_c)};
        },
        [](auto x, auto w, auto b) { return linear(x, w, b); }));
    visit(differentiable("transpose", matrix_input, [](auto x) { return x.transpose(0_c, 1_c); }));
    visit(differentiable("permute", matrix_input, [](auto x) { return x.permute(1_c, 0_c); }));
    visit(differentiable("reshape", matrix_input, [](auto x) { return x.reshape(2_c, 6_c); }));
    visit(differentiable("view", matrix_input, [](auto x) { return x.view(12_c); }));
    visit(differentiable("flatten", matrix_input, [](auto x) { return x.flatten(); }));
    visit(differentiable("unsqueeze", matrix_input, [](auto x) { return x.unsqueeze(1_c); }));
    visit(differentiable(
        "squeeze", [] { return std::tuple{random_tensor(35, -1, 1, 3_c, 1_c)}; },
        [](auto x) { return x.squeeze(1_c); }));
    visit(differentiable(
        "expand", [] { return std::tuple{random_tensor(36, -1, 1, 3_c, 1_c)}; },
        [](auto x) { return x.expand(3_c, 4_c); }));
    visit(differentiable("select", matrix_input, [](auto x) { return x.select(0_c, 1); }));
    visit(differentiable("narrow", matrix_input, [](auto x) { return x.narrow(1_c, 1, 2); }));
    visit(differentiable("contiguous", matrix_input, [](auto x) { return x.t().contiguous(); }));
}

/// Indexing and joining.
template <class Visit>
void index_ops(Visit&& visit) {
    visit(
        differentiable("gather", gather_inputs, [](auto x, auto i) { return gather(x, 1_c, i); }));
    visit(differentiable("scatter_add", gather_inputs, [](auto x, auto i) {
        return scatter_add(x, 1_c, i, gather(x, 1_c, i) * 2.0);
    }));
    visit(differentiable("index_select", matrix_input, [](auto x) {
        return index_select(x, 0_c, tensor<std::int64_t>({2, 0, 2}));
    }));
    visit(differentiable("index_add", matrix_input, [](auto x) {
        return index_add(x, 1_c, tensor<std::int64_t>({3, 0}), x.narrow(1_c, 0, 2) * 0.5);
    }));
    visit(differentiable(
        "select_scatter",
        [] {
            return std::tuple{random_tensor(37, -2, 2, 3_c, 4_c), random_tensor(38, -2, 2, 4_c)};
        },
        [](auto x, auto src) { return select_scatter(x, src, 0_c, 1); }));
    visit(differentiable(
        "slice_scatter",
        [] {
            return std::tuple{random_tensor(39, -2, 2, 3_c, 4_c),
                              random_tensor(50, -2, 2, 3_c, 2_c)};
        },
        [](auto x, auto src) { return slice_scatter(x, src, 1_c, 0, None, 2); }));
    visit(differentiable(
        "masked_fill",
        [] {
            const auto a = random_tensor(51, -2.0, 2.0, 2_c, 5_c);
            return std::tuple{a > 0.5, a};
        },
        [](auto mask, auto x) { return masked_fill(x, mask, 0.25); }));
    visit(differentiable("cat", signed_pair, [](auto a, auto b) {
        return cat(std::tuple{a, b}, 1_c);
    }));
    visit(differentiable("stack", signed_pair, [](auto a, auto b) {
        return stack(std::tuple{a, b}, 0_c);
    }));
}

/// torch.nn.functional's layers.
template <class Visit>
void nn_ops(Visit&& visit) {
    visit(differentiable(
        "conv2d",
        [] {
            return std::tuple{random_tensor(40, -1, 1, 2_c, 3_c, 6_c, 6_c),
                              random_tensor(41, -1, 1, 4_c, 3_c, 3_c, 3_c),
                              random_tensor(42, -1, 1, 4_c)};
        },
        [](auto x, auto w, auto b) { return conv2d(x, w, b, 2_c, 1_c); }));
    visit(differentiable("max_pool2d", image_input, [](auto x) { return max_pool2d(x, 2_c); }));
    visit(differentiable("avg_pool2d", image_input,
                         [](auto x) { return avg_pool2d(x, 3_c, 2_c, 1_c); }));
    visit(differentiable("adaptive_avg_pool2d", image_input,
                         [](auto x) { return adaptive_avg_pool2d(x, 4_c); }));
    visit(differentiable(
        "layer_norm",
        [] {
            return std::tuple{random_tensor(43, -2, 2, 3_c, 4_c), random_tensor(44, 0.5, 1.5, 4_c),
                              random_tensor(45, -1, 1, 4_c)};
        },
        [](auto x, auto w, auto b) { return F::layer_norm(x, 4_c, w, b); },
        "second derivatives zero (first-order only, not PyTorch's)"));
    visit(differentiable(
        "batch_norm",
        [] {
            return std::tuple{random_tensor(46, -2, 2, 4_c, 3_c), random_tensor(47, 0.5, 1.5, 3_c),
                              random_tensor(48, -1, 1, 3_c)};
        },
        [](auto x, auto w, auto b) { return F::batch_norm(x, None, None, w, b, true); },
        "training: the batch's statistics; second derivatives zero (first-order only, not "
        "PyTorch's)"));
    visit(differentiable(
        "embedding",
        [] {
            return std::tuple{tensor<std::int64_t>({{1, 3}, {3, 0}}),
                              random_tensor(49, -1, 1, 4_c, 3_c)};
        },
        [](auto i, auto w) { return F::embedding(i, w); }));
    visit(differentiable(
        "dropout", signed_input, [](auto x) { return F::dropout(x, 0.5, false); },
        "graph and eager compared in evaluation (no random mask)"));
}

/// torch.nn.functional's losses.
template <class Visit>
void loss_ops(Visit&& visit) {
    visit(differentiable(
        "cross_entropy", class_inputs, [](auto x, auto t) { return F::cross_entropy(x, t); },
        "second derivatives zero (first-order only, not PyTorch's)"));
    visit(differentiable("nll_loss", class_inputs,
                         [](auto x, auto t) { return F::nll_loss(log_softmax(x, 1_c), t); }));
    visit(
        differentiable("mse_loss", signed_pair, [](auto a, auto b) { return F::mse_loss(a, b); }));
    visit(differentiable("l1_loss", signed_pair, [](auto a, auto b) { return F::l1_loss(a, b); }));
    visit(differentiable("smooth_l1_loss", signed_pair,
                         [](auto a, auto b) { return F::smooth_l1_loss(a, b); }));
    visit(differentiable("huber_loss", signed_pair,
                         [](auto a, auto b) { return F::huber_loss(a, b); }));
    visit(differentiable("binary_cross_entropy", probability_pair,
                         [](auto p, auto t) { return F::binary_cross_entropy(p, t); }));
    visit(differentiable("binary_cross_entropy_with_logits", signed_pair,
                         [](auto x, auto t) { return F::binary_cross_entropy_with_logits(x, t); }));
    visit(without_derivative(
        "one_hot",
        [] {
            return std::tuple{tensor<std::int64_t>({0, 3, 1})};
        },
        [](auto i) { return one_hot(i, 4_c); }));
}

/// The graph nodes that only derivative rules create: each is differentiated where the second
/// derivatives of the op it serves are (above), so it has no entry of its own.
inline constexpr std::pair<std::string_view, std::string_view> internal_ops[] = {
    {"sum_to", "a gradient summed back over broadcast dims"},
    {"expand_to", "sum_to's transpose"},
    {"unreduce", "a reduction's gradient spread over the reduced dims"},
    {"reshape_as", "a view's gradient"},
    {"count_ratio", "mean's and var's element counts"},
    {"zeros_like", "a zero gradient"},
    {"stop_gradient", "detach's node"},
    {"grad_input", "grad's mark of what it differentiates"},
    {"conv2d_input_backward", "conv2d's input gradient"},
    {"conv2d_weight_backward", "conv2d's weight gradient"},
    {"max_pool2d_backward", "max_pool2d's gradient"},
    {"max_pool2d_at_argmax", "max_pool2d_backward's gradient"},
    {"cat_part", "cat's gradient"},
    {"embedding_backward", "embedding's weight gradient"},
    {"expand_weight", "a loss's weight broadcast to its input"},
    {"topk_indices", "topk's and sort's indices, from which their values are gathered"},
};

/// Every family, in the docs' order.
template <class Visit>
void for_each_family(Visit&& visit) {
    visit("exponentials, logarithms, roots", [](auto&& v) { math_ops(v); });
    visit("trigonometric, sigmoid", [](auto&& v) { trig_ops(v); });
    visit("activations", [](auto&& v) { activation_ops(v); });
    visit("casts, signs, rounding", [](auto&& v) { rounding_ops(v); });
    visit("elementwise, two or more operands", [](auto&& v) { binary_ops(v); });
    visit("numbers as operands, comparisons", [](auto&& v) { number_ops(v); });
    visit("reductions", [](auto&& v) { reduction_ops(v); });
    visit("products and views", [](auto&& v) { view_ops(v); });
    visit("indexing and joining", [](auto&& v) { index_ops(v); });
    visit("torch.nn.functional layers", [](auto&& v) { nn_ops(v); });
    visit("torch.nn.functional losses", [](auto&& v) { loss_ops(v); });
}

} // namespace op_table
