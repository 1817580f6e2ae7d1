#pragma once
// Graph mode against eager mode over the op table (op_table.hpp), in float64: each op's value
// fused and op by op, the gradient of sum(op(x...) * w) with respect to every float64 input fused,
// op by op and on the autodiff tape (and the op-by-op one against central finite differences), and,
// for an elementwise op, its second derivatives: the gradient of its derivative rule, sum(F::vjp(w,
// y, x...) * v), with respect to the inputs again — what grad(grad(f)) differentiates, without the
// compile cost of a traced grad inside a traced grad (docs/autodiff.md, "Higher order"). A graph
// run and an eager run of the same code must agree to 1e-13, relative to the larger magnitude
// (absolute below 1): the modes share the derivative rules, so they differ only in the order of
// their sums (fused reductions), never by a constant rounded to float32 in one of them.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <catch2/catch.hpp>

#include "autodiff_test_support.hpp"
#include "op_table.hpp"

namespace op_table {

inline constexpr double agreement = 1e-13;

/// Restores GRAPH_MODE when a check leaves.
struct graph_mode_restored {
    ~graph_mode_restored() { set_context(GRAPH_MODE); }
};

/// got and want agree elementwise to `agreement`, with equal shapes; returns whether they are
/// bitwise equal.
template <class T, class S, class U, class S2>
bool require_agree(const char* what, const Tensor<T, S>& got, const Tensor<U, S2>& want) {
    INFO(what);
    REQUIRE(got.sizes().size() == want.sizes().size());
    for (std::size_t d = 0; d < got.sizes().size(); ++d)
        REQUIRE(got.sizes()[d] == want.sizes()[d]);
    const auto a = got.contiguous();
    const auto b = want.contiguous();
    bool bitwise = true;
    for (std::int64_t i = 0; i < a.numel(); ++i) {
        const double x = static_cast<double>(a.data()[i]);
        const double y = static_cast<double>(b.data()[i]);
        bitwise = bitwise && (x == y || (std::isnan(x) && std::isnan(y)));
        const double scale = std::max({1.0, std::abs(x), std::abs(y)});
        INFO("element " << i << ": graph " << x << ", eager " << y);
        CHECK((std::abs(x - y) <= agreement * scale || (std::isnan(x) && std::isnan(y))));
    }
    return bitwise;
}

/// The positions of the float64 tensors among an op's inputs: what grad differentiates.
template <class Tuple>
constexpr auto float_positions() {
    constexpr auto mask = []<std::size_t... K>(std::index_sequence<K...>) {
        return std::array<bool, sizeof...(K)>{
            std::is_same_v<typename std::tuple_element_t<K, Tuple>::value_type, double>...};
    }
    (std::make_index_sequence<std::tuple_size_v<Tuple>>{});
    constexpr std::size_t count = [&] {
        std::size_t c = 0;
        for (bool m : mask)
            c += m;
        return c;
    }();
    std::array<std::size_t, count> at{};
    std::size_t j = 0;
    for (std::size_t k = 0; k < mask.size(); ++k)
        if (mask[k])
            at[j++] = k;
    return at;
}

/// grad's argnums for positions P: (int_<P[0]>, int_<P[1]>, ...).
template <auto P, std::size_t... J>
auto argnums(std::index_sequence<J...>) {
    return std::tuple{int_<static_cast<long long>(P[J])>{}...};
}

/// f run in GRAPH_MODE (fused), then in PYNATIVE_MODE (op by op, each node by its eager op).
template <class Run>
auto in_both_modes(const Run& run) {
    set_context(GRAPH_MODE);
    auto graph = run();
    set_context(PYNATIVE_MODE);
    auto eager = run();
    set_context(GRAPH_MODE);
    return std::pair{std::move(graph), std::move(eager)};
}

/// Each of two tuples' tensors agree.
template <class G, class E>
void require_all_agree(const char* what, const G& graph, const E& eager) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
        (require_agree(what, std::get<J>(graph), std::get<J>(eager)), ...);
    }
    (std::make_index_sequence<std::tuple_size_v<G>>{});
}

/// The sum over the float64 operands' positions P of sum(F::vjp<P>(w, y, x...) * v): the
/// derivative rule of functor F in direction w, weighed by v (both of y's shape).
template <class F, auto Positions, class W, class... X>
auto weighted_rule(const W& w, const W& v, const X&... x) {
    const auto y = fn::call<F>(x...);
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return ((F::template vjp<Positions[J]>(w, y, x...) * v).sum() + ...);
    }
    (std::make_index_sequence<Positions.size()>{});
}

/// 0 as a function of a float64 input a (sum(a * 0.0)), 0 of no other input.
template <class A>
auto zero_weighted_sum(const A& a) {
    if constexpr (std::is_same_v<typename A::value_type, double>)
        return (a * 0.0).sum();
    else
        return 0.0;
}

template <class Tuple>
inline constexpr auto float_positions_v = float_positions<Tuple>();

/// The first derivatives of f in both modes at x, the eager ones also against central finite
/// differences (not where `exact_only`: a float32 result's rounding is what they would measure).
/// Returns grad's argnums.
template <auto Positions, class F, class... X>
void check_first_derivatives(const F& f, bool exact_only, const X&... x) {
    const auto nums = argnums<Positions>(std::make_index_sequence<Positions.size()>{});
    const auto g = in_both_modes([&] { return grad(f, nums)(x...); });
    require_all_agree("first derivative", g.first, g.second);
    require_all_agree("first derivative on the tape", g.first,
                      autodiff_test::tape_gradients<Positions>(f, x...));
    if (exact_only)
        return;
    [&]<std::size_t... J>(std::index_sequence<J...>) {
        (autodiff_test::require_close(std::get<J>(g.second),
                                      autodiff_test::numeric_gradient<Positions[J]>(f, x...)),
         ...);
    }
    (std::make_index_sequence<Positions.size()>{});
}

/// The second derivatives of elementwise functor F (with its numbers `params`) in both modes at
/// x: the gradient of its rule, sum(F::vjp(w, y, x...) * v), as a function of x. (+ sum(a * 0.0)
/// for each input: a rule that does not depend on x, as add's, is still a function of x to grad,
/// whose gradient is then zero.)
template <class F, auto Positions, class W, class Params, class... X>
void check_second_derivatives(const W& w, const W& v, const Params& params, const X&... x) {
    const auto h = [w, v, params](const auto&... a) {
        return std::apply(
                   [&](const auto&... p) { return weighted_rule<F, Positions>(w, v, a..., p...); },
                   params) +
               (zero_weighted_sum(a) + ...);
    };
    const auto nums = argnums<Positions>(std::make_index_sequence<Positions.size()>{});
    const auto hs = in_both_modes([&] { return grad(h, nums)(x...); });
    require_all_agree("second derivative", hs.first, hs.second);
    require_all_agree("second derivative on the tape", hs.first,
                      autodiff_test::tape_gradients<Positions>(h, x...));
}

template <class Entry>
void check(const Entry& op) {
    INFO("op " << op.name);
    const graph_mode_restored restore;
    const auto inputs = op.inputs();
    constexpr auto positions = float_positions_v<std::remove_cvref_t<decltype(inputs)>>;
    std::apply(
        [&](const auto&... x) {
            const auto run = jit(op.call);
            const auto y = in_both_modes([&] { return run(x...); });
            require_agree("value", y.first, y.second);
            if constexpr (Entry::status != derivative::not_differentiable) {
                // Of sum(op(x...) * w), w random, so that each element of the result weighs
                // differently.
                using result_t = typename std::remove_cvref_t<decltype(y.second)>::value_type;
                const auto w = random_tensor(7, -1, 1, y.second.shape());
                const auto call = op.call;
                const auto f = [call, w](const auto&... a) { return (call(a...) * w).sum(); };
                check_first_derivatives<positions>(
                    f, !std::is_same_v<result_t, double> || !op.finite_differences, x...);
                using functor = typename Entry::functor;
                if constexpr (!std::is_void_v<functor> && Entry::status == derivative::implemented)
                    check_second_derivatives<functor, positions>(
                        w, random_tensor(8, -1, 1, y.second.shape()), op.call.params, x...);
            }
        },
        inputs);
}

} // namespace op_table
