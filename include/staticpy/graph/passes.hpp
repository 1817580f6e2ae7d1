#pragma once
// Compile-time passes over a traced graph: simplify(node) returns the rewritten node, whose type
// is the rewritten graph. Every rule keeps the node's value_type and shape_type (a rule that would
// change the dtype inserts a cast), so eager and graph mode return the same types.
//
//   constant folding   ops over numbers only: compile-time constants fold into a constant
//                      (2_c * 3_c -> 6; other ops over constants stay nodes without run-time
//                      attributes, folded by the C++ compiler); run-time numbers into one scalar,
//                      computed once per call instead of once per element.
//   simplification     x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, pow(x, 1) -> x;
//                      pow(x, 2) -> x * x;  -(-x) -> x;  x - x -> zeros_like(x) (x finite);
//                      relu(relu(x)), abs(abs(x)), abs(-x) -> one op;  a cast to x's own type -> x.
//                      The constants must be compile-time ones (1_c, 0_c, 1.0_c): a run-time
//                      1.0f is a value, not a type, so no pass can see it.
// Common-subexpression elimination is the numbering of program.hpp; fusion is the evaluator's
// regions (program.hpp, backend/cpu/fused.hpp).

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/graph/node.hpp"

namespace staticpy::fn {
template <class Tag, std::size_t K>
struct grad_input;
} // namespace staticpy::fn

namespace staticpy::graph {

template <class N>
auto simplify(const N& n);

namespace detail {

/// Whether node N is the compile-time constant V (0 or 1, of any number type).
template <class N, int V>
constexpr bool is_constant_value() {
    if constexpr (N::kind == node_kind::constant)
        return static_cast<double>(N::value) == V;
    else
        return false;
}

/// Whether node N applies functor F.
template <class N, class F>
constexpr bool is_ew_of() {
    if constexpr (N::kind == node_kind::elementwise)
        return std::is_same_v<typename N::functor, F>;
    else
        return false;
}

/// Whether functor F is a grad's mark of what it differentiates against (graph/autodiff.hpp).
template <class F>
struct is_grad_input : std::false_type {};
template <class Tag, std::size_t K>
struct is_grad_input<fn::grad_input<Tag, K>> : std::true_type {};

/// x as a node of type Want: x itself when it is one, a cast otherwise. Shape types must agree.
template <class Want, class X>
auto as_value_of(const X& x) {
    if constexpr (std::is_same_v<typename X::value_type, typename Want::value_type>)
        return x;
    else
        return ew<fn::cast<typename Want::value_type>, X>{{x}};
}

/// The node a rule may replace `orig` by: only when its types are orig's (value and shape).
template <class Orig, class New>
inline constexpr bool keeps_types_v =
    std::is_same_v<typename Orig::shape_type, typename New::shape_type>;

template <class T, std::size_t A>
T number_of(const scalar<T, A>& s) {
    return s.value;
}
template <class C>
auto number_of(const constant<C>&) {
    return constant<C>::value;
}

/// F on compile-time constants, in staticpy's constant arithmetic (Python's: int op int stays an
/// int, / is true division): the type of the result is the folded constant.
template <class F, class A>
constexpr auto fold_constants(A a) {
    return -a;
}
template <class F, class A, class B>
constexpr auto fold_constants(A a, B b) {
    if constexpr (std::is_same_v<F, fn::add>)
        return a + b;
    else if constexpr (std::is_same_v<F, fn::sub>)
        return a - b;
    else if constexpr (std::is_same_v<F, fn::mul>)
        return a * b;
    else
        return a / b;
}

template <class F, class... Cs>
auto simplify_ew(const ew<F, Cs...>& n) {
    using self = ew<F, Cs...>;
    constexpr bool all_numbers = (is_number_node_v<Cs> && ...);
    constexpr bool all_constants = ((Cs::kind == node_kind::constant) && ...);
    constexpr bool foldable_at_compile_time =
        all_constants &&
        (std::is_same_v<F, fn::add> || std::is_same_v<F, fn::sub> || std::is_same_v<F, fn::mul> ||
         std::is_same_v<F, fn::div> || std::is_same_v<F, fn::neg>);
    if constexpr (foldable_at_compile_time) {
        // staticpy's constant arithmetic is Python's: int op int stays int, / is true division.
        using folded = decltype(fold_constants<F>(typename Cs::constant_type{}...));
        if constexpr (std::is_same_v<typename constant<folded>::value_type,
                                     typename self::value_type>)
            return constant<folded>{};
        else
            return n;
    } else if constexpr (all_constants) {
        // Constants only, but not foldable in constant arithmetic (a cast, a math function): kept
        // as a node without run-time attributes, which the C++ compiler folds in the kernel.
        return n;
    } else if constexpr (all_numbers) {
        // Numbers known at run time: computed now, once, as the op would per element.
        using V = typename self::value_type;
        const V v = apply_children(
            [](const auto&... c) {
                return [&]<std::size_t... I>(std::index_sequence<I...>) {
                    return static_cast<V>(F::apply(static_cast<ew_operand_compute_t<self, I>>(
                        number_of(std::get<I>(std::tie(c...))))...));
                }
                (std::index_sequence_for<Cs...>{});
            },
            n);
        return scalar<V>{v, {}};
    } else if constexpr (sizeof...(Cs) == 2) {
        using A = std::tuple_element_t<0, std::tuple<Cs...>>;
        using B = std::tuple_element_t<1, std::tuple<Cs...>>;
        const A& a = child<0>(n);
        const B& b = child<1>(n);
        constexpr bool add_zero_right =
            (std::is_same_v<F, fn::add> || std::is_same_v<F, fn::sub>)&&is_constant_value<B, 0>();
        constexpr bool add_zero_left = std::is_same_v<F, fn::add> && is_constant_value<A, 0>();
        constexpr bool mul_one_right = (std::is_same_v<F, fn::mul> || std::is_same_v<F, fn::div> ||
                                        std::is_same_v<F, fn::pow>)&&is_constant_value<B, 1>();
        constexpr bool mul_one_left = std::is_same_v<F, fn::mul> && is_constant_value<A, 1>();
        if constexpr (add_zero_right || mul_one_right) {
            if constexpr (keeps_types_v<self, A>)
                return as_value_of<self>(a);
            else
                return n;
        } else if constexpr (add_zero_left || mul_one_left) {
            if constexpr (keeps_types_v<self, B>)
                return as_value_of<self>(b);
            else
                return n;
        } else if constexpr (std::is_same_v<F, fn::sub> && std::is_same_v<A, B> &&
                             !contains_payload_v<A>) {
            // The same type without run-time attributes: the same value (x - x).
            return ew<fn::zeros_like, A>{{a}};
        } else if constexpr (std::is_same_v<F, fn::pow> && is_constant_value<B, 2>() &&
                             std::is_same_v<typename A::value_type, typename self::value_type> &&
                             std::is_floating_point_v<typename self::value_type>) {
            return ew<fn::mul, A, A>{{a, a}};
        } else {
            return n;
        }
    } else if constexpr (sizeof...(Cs) == 1) {
        using X = std::tuple_element_t<0, std::tuple<Cs...>>;
        const X& x = child<0>(n);
        if constexpr (is_grad_input<F>::value) {
            // The mark of what a grad differentiates against: its backward graph is built by
            // now (simplify runs on a finished trace), and the identity would cost a copy where
            // a view or a GEMM reads it.
            return x;
        } else if constexpr (std::is_same_v<F, fn::neg> && is_ew_of<X, fn::neg>()) {
            return child<0>(x); // -(-y) == y, same type and shape
        } else if constexpr ((std::is_same_v<F, fn::relu> ||
                              std::is_same_v<F, fn::abs>)&&is_ew_of<X, F>()) {
            return x; // idempotent
        } else if constexpr (std::is_same_v<F, fn::abs> && is_ew_of<X, fn::neg>()) {
            return ew<fn::abs, child_t<0, X>>{{child<0>(x)}};
        } else if constexpr (F::kind == fn::op_kind::cast &&
                             std::is_same_v<typename X::value_type, typename self::value_type>) {
            return x;
        } else {
            return n;
        }
    } else {
        return n;
    }
}

/// x.t().t() -> x (and transposes of a matrix's two dims, any pair of them): the gradient of
/// linear's weight is the transposed product seen through the transpose of w.t() (ops_matmul.hpp's
/// matmul_vjp_2d); without the two views, the product feeds the weight's update directly, and
/// nothing reads it through a view.
template <class N>
auto simplify_view(const N& n) {
    if constexpr (N::kind != node_kind::opaque) {
        return n;
    } else if constexpr (N::shape_type::rank != 2 ||
                         !swaps_matrix_dims<typename N::op_type>::value) {
        return n;
    } else {
        using X = child_t<0, N>;
        if constexpr (X::kind != node_kind::opaque) {
            return n;
        } else if constexpr (swaps_matrix_dims<typename X::op_type>::value) {
            return child<0>(child<0>(n));
        } else {
            return n;
        }
    }
}

} // namespace detail

template <class N>
auto simplify(const N& n);

namespace detail {
/// simplify's rewrite of n, walking its operands.
template <class N>
auto simplify_walk(const N& n) {
    if constexpr (is_leaf_kind(N::kind)) {
        return n;
    } else if constexpr (N::kind == node_kind::elementwise) {
        const auto rebuilt = apply_children(
            [](const auto&... c) {
                return ew<typename N::functor, decltype(simplify(c))...>{{simplify(c)...}};
            },
            n);
        using rebuilt_t = std::remove_cvref_t<decltype(rebuilt)>;
        auto out = detail::simplify_ew(rebuilt);
        static_assert(std::is_same_v<typename decltype(out)::value_type, typename N::value_type>,
                      "staticpy: internal error: a rewrite changed a dtype");
        if constexpr (std::is_same_v<decltype(out), rebuilt_t>)
            return out;
        else
            return simplify(out);
    } else {
        // reduce, matmul, opaque: simplify the operands, keep the node's own attributes.
        return detail::simplify_view(
            apply_children([&](const auto&... c) { return rebuild_with(n, simplify(c)...); }, n));
    }
}
} // namespace detail

/// The rewritten graph: operands first, then the rules on the node itself (repeated until no
/// rule applies, as a rewrite may enable another: -(-(x + 0_c)) -> x). A graph that holds no data
/// (holds_data_v) is rewritten in its type alone: the walk of its operands is never run, so it is
/// never compiled. A walk at run time follows the graph's type, a tree: a backward graph names
/// each forward node once per use, and an L-layer MLP's training step is a tree of some L^3 nodes
/// over some 17 L slots, each a call for the compiler to inline.
template <class N>
auto simplify(const N& n) {
    if constexpr (!holds_data_v<N>)
        return decltype(detail::simplify_walk(n)){};
    else
        return detail::simplify_walk(n);
}

template <reduce_kind K, bool Keep, class Dim, class C, class C2>
auto rebuild_with(const reduce<K, Keep, Dim, C>& n, const C2& c) {
    return reduce<K, Keep, Dim, C2>{{c}, n.dim};
}
template <class A, class B, class A2, class B2>
auto rebuild_with(const matmul<A, B>&, const A2& a, const B2& b) {
    return matmul<A2, B2>{{a, b}};
}
template <class Op, class... Cs, class... C2>
auto rebuild_with(const opaque<Op, Cs...>& n, const C2&... c) {
    return opaque<Op, C2...>{{c...}, n.op};
}

} // namespace staticpy::graph
