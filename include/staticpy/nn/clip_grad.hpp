#pragma once
// staticpy::nn::utils: PyTorch's gradient clipping (torch.nn.utils.clip_grad_norm_ and
// clip_grad_value_, 1.13), in place, on gradients held as optimisers take them: one Tensor, or a
// std::tuple, list or dict of them (None, or an undefined Tensor, for a parameter without one).
//
//   auto grads = dict("fc.weight"_s = grad_w, "fc.bias"_s = grad_b);
//   auto total_norm = nn::utils::clip_grad_norm_(grads, 1.0);   // grads scaled in place
//   opt.step(grads);
//
// PyTorch's functions take the parameters and clip each one's .grad; staticpy's gradients are
// values, so these take the gradients themselves. A Tensor is a handle: clipping writes the
// elements the caller's gradients share.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/nn/optim.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::nn::utils {

namespace detail {

using nn::detail::leaf_path;

template <class L>
inline constexpr bool is_gradient_leaf_v = std::is_same_v<L, none_t> || is_tensor_v<L>;

template <class L>
constexpr bool floating_leaf() {
    if constexpr (is_tensor_v<L>)
        return std::is_floating_point_v<typename L::value_type>;
    else
        return true;
}

/// The compile errors of a gradient container of the wrong kind.
template <class Grads>
constexpr bool check_gradients() {
    return []<class... L>(std::type_identity<std::tuple<L...>>) {
        static_assert((is_gradient_leaf_v<L> && ...),
                      "staticpy: TypeError: gradients are a Tensor, or a std::tuple, list or dict "
                      "of them (None for a parameter without one)");
        static_assert((floating_leaf<L>() && ...),
                      "staticpy: RuntimeError: norm(): input dtype should be either floating point "
                      "or complex dtypes (a gradient is a float or double Tensor)");
        return true;
    }(std::type_identity<nn::detail::leaf_types_t<Grads>>{});
}

template <class L>
inline constexpr bool is_double_tensor_v = false;
template <class S>
inline constexpr bool is_double_tensor_v<Tensor<double, S>> = true;

/// The element type of the total norm: double when a gradient is double, float otherwise (as
/// torch.stack promotes the gradients' norms; the default dtype when there is none, as PyTorch's
/// torch.tensor(0.)).
template <class Leaves>
struct total_norm_element;
template <class... L>
struct total_norm_element<std::tuple<L...>> {
    using type = std::conditional_t<(is_double_tensor_v<L> || ...), double,
                                    std::conditional_t<sizeof...(L) == 0, default_float_t, float>>;
};
template <class Grads>
using total_norm_element_t = typename total_norm_element<nn::detail::leaf_types_t<Grads>>::type;

/// torch.norm(x, p) of the values `each` visits (each(f) calls f(value) for each), accumulated in
/// double: the inf and -inf norms are the largest and smallest |x|, the 0 "norm" counts the
/// nonzero values, any other p is (sum |x|^p)^(1/p).
template <class Each>
double vector_norm(double p, Each&& each) {
    if (p == std::numeric_limits<double>::infinity()) {
        double m = 0;
        each([&](double x) { m = (std::abs(x) > m || x != x) ? std::abs(x) : m; });
        return m;
    }
    if (p == -std::numeric_limits<double>::infinity()) {
        double m = std::numeric_limits<double>::infinity();
        each([&](double x) { m = (std::abs(x) < m || x != x) ? std::abs(x) : m; });
        return m;
    }
    double sum = 0;
    if (p == 0)
        each([&](double x) { sum += x != 0 ? 1 : 0; });
    else if (p == 1)
        each([&](double x) { sum += std::abs(x); });
    else if (p == 2)
        each([&](double x) { sum += x * x; });
    else
        each([&](double x) { sum += std::pow(std::abs(x), p); });
    if (p == 0 || p == 1)
        return sum;
    return p == 2 ? std::sqrt(sum) : std::pow(sum, 1 / p);
}

/// One gradient's norm, in its own element type (as torch.norm returns it).
template <class T, class S>
T gradient_norm(const Tensor<T, S>& grad, double p) {
    return static_cast<T>(vector_norm(p, [&](auto&& f) {
        nn::detail::for_each_element<nn::detail::sequential>(
            [&](T x) { f(static_cast<double>(x)); }, grad);
    }));
}

} // namespace detail

/// torch.nn.utils.clip_grad_norm_: scales the gradients in place so that their total norm (the
/// norm_type-norm of all of them as one vector; inf for the largest |g|) is at most about
/// max_norm: each is multiplied by min(max_norm / (total_norm + 1e-6), 1). Returns the total norm
/// before clipping, as a 0-dim tensor (double if a gradient is double, float otherwise). A
/// non-finite total norm is RuntimeError with error_if_nonfinite, PyTorch's text; otherwise the
/// gradients are scaled by it (NaN), as PyTorch does.
///   auto norm = nn::utils::clip_grad_norm_(grads, 1.0);
///   auto largest = nn::utils::clip_grad_norm_(grads, 0.5, INFINITY);
template <class Grads>
Tensor<detail::total_norm_element_t<Grads>, shape<>>
clip_grad_norm_(const Grads& grads, double max_norm, double norm_type = 2.0,
                bool error_if_nonfinite = false) {
    static_assert(detail::check_gradients<Grads>());
    using R = detail::total_norm_element_t<Grads>;
    Tensor<R, shape<>> total_norm{shape<>{}};
    total_norm.data()[0] = 0;
    std::vector<double> norms; // each gradient's norm, as torch.stack holds them (in R)
    nn::detail::zip_leaves(
        [&](const detail::leaf_path&, const auto& grad) {
            if constexpr (is_tensor_v<std::remove_cvref_t<decltype(grad)>>)
                if (grad.defined())
                    norms.push_back(static_cast<R>(detail::gradient_norm(grad, norm_type)));
        },
        grads);
    if (norms.empty())
        return total_norm;
    const R total = static_cast<R>(detail::vector_norm(norm_type, [&](auto&& f) {
        for (double n : norms)
            f(n);
    }));
    total_norm.data()[0] = total;
    if (error_if_nonfinite && !std::isfinite(total))
        throw RuntimeError("The total norm of order " + repr(norm_type) +
                           " for gradients from `parameters` is non-finite, so it cannot be "
                           "clipped. To disable this error and scale the gradients by the "
                           "non-finite norm anyway, set `error_if_nonfinite=False`");
    const R clip_coef = static_cast<R>(max_norm) / (total + static_cast<R>(1e-6));
    const R clamped = clip_coef > R(1) ? R(1) : clip_coef; // torch.clamp(max=1.0): NaN stays NaN
    nn::detail::zip_leaves(
        [&](const detail::leaf_path&, const auto& grad) {
            if constexpr (is_tensor_v<std::remove_cvref_t<decltype(grad)>>) {
                if (!grad.defined())
                    return;
                using T = typename std::remove_cvref_t<decltype(grad)>::value_type;
                auto written = grad; // the handle: its elements are the caller's
                const T coef = static_cast<T>(clamped);
                nn::detail::for_each_element<1>([=](auto& g) { g = g * coef; }, written);
            }
        },
        grads);
    return total_norm;
}

/// torch.nn.utils.clip_grad_value_: clamps every gradient element into [-clip_value,
/// clip_value], in place (NaN stays NaN, as torch.clamp).
///   nn::utils::clip_grad_value_(grads, 0.5);
///   opt.step(grads);
template <class Grads>
void clip_grad_value_(const Grads& grads, double clip_value) {
    static_assert(detail::check_gradients<Grads>());
    nn::detail::zip_leaves(
        [&](const detail::leaf_path&, const auto& grad) {
            if constexpr (is_tensor_v<std::remove_cvref_t<decltype(grad)>>) {
                if (!grad.defined())
                    return;
                using T = typename std::remove_cvref_t<decltype(grad)>::value_type;
                auto written = grad;
                const T low = static_cast<T>(-clip_value);
                const T high = static_cast<T>(clip_value);
                nn::detail::for_each_element<1>(
                    [=](auto& g) {
                        using X = std::remove_cvref_t<decltype(g)>;
                        namespace math = kernels::math;
                        g = math::select(math::isnan(g), g,
                                         math::min(math::max(g, X(low)), X(high)));
                    },
                    written);
            }
        },
        grads);
}

} // namespace staticpy::nn::utils
