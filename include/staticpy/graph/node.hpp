#pragma once
// The nodes of a static graph. Tracing (tracer.hpp) builds them; the graph's structure is the
// root node's C++ type, so passes (passes.hpp) rewrite it at compile time and backends evaluate it.
//
//   auto f = staticpy::jit([](auto x, auto w) { return relu(x * w + 1.0f).sum(1_c); });
//   // traced: reduce<sum, dim 1>( ew<relu>( ew<add>( ew<mul>(input<0>, input<1>), scalar ) ) )
//
// A node type has:
//   kind                     its node_kind: what it is, for every consumer to switch on;
//   value_type, shape_type   the element type and (static|dynamic) shape type of its result;
//   children                 its operand nodes (operands; leaves have none), of which only those
//                            that hold data are stored (holds_data_v): child<I>(n), child_t<I, N>;
//   has_payload              true when it carries run-time attributes (a scalar's value, a run-time
//                            dim): two nodes of the same type are then not known to be equal, and
//                            common-subexpression elimination keeps them apart;
//   materialized             true when its result is a tensor in memory (inputs, reductions,
//                            matmul, opaque ops); false for elementwise nodes, which fuse into the
//                            loops of whatever consumes them.
// Shapes are not stored: they follow from the inputs' at evaluation (evaluate.hpp), and their
// static parts are checked here, by the types, exactly as the eager ops check them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/indexed.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/reductions.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::graph {

template <class N, class Children = typename N::children_type>
struct holds_data;
/// Whether a node object of type N holds anything at run time (a scalar's value, a captured
/// tensor, a run-time dim, an op's arguments), in it or under it. A node that holds nothing is
/// its type: any object of it is the same node.
template <class N>
inline constexpr bool holds_data_v = holds_data<N>::value;

/// An operand that holds no data (holds_data_v false), kept as its type only.
template <class N>
struct unstored {
    constexpr unstored() noexcept = default;
    constexpr unstored(const N&) noexcept {}
};
template <class N>
using stored_operand_t = std::conditional_t<holds_data_v<N>, N, unstored<N>>;
template <class S>
struct operand_of_stored {
    using type = S;
};
template <class N>
struct operand_of_stored<unstored<N>> {
    using type = N;
};

/// A node's operand nodes: a plain aggregate, one element per operand. Not a std::tuple, whose
/// constrained constructors check every operand type each time a node is built: a traced
/// training step builds thousands of nodes, each holding the nodes under it, and those checks
/// were a third of the compiler's time for its trace. Only the operands that hold data are
/// stored (stored_operand_t); the others are their types, and child() makes them again. A graph's
/// type is a tree (a backward graph names each forward node once per use: an L-layer MLP's
/// training step is a tree of some L^3 nodes over some 17 L distinct ones), so a node that held
/// every node under it was an object as large as that tree, copied at each node built, and its
/// copies were most of the compiler's work on a deep model's trace.
template <class... Cs>
struct operands : indexed::pack<stored_operand_t<Cs>...> {
    static constexpr std::size_t size = sizeof...(Cs);
    // Not explicit: a node is built as ew<F, A, B>{{a, b}}.
    constexpr operands(const Cs&... cs)
        : indexed::pack<stored_operand_t<Cs>...>{{stored_operand_t<Cs>(cs)}...} {}
    // (Without operands, the constructor above is the default one.)
    constexpr operands() requires(sizeof...(Cs) > 0) : indexed::pack<stored_operand_t<Cs>...>{} {}
};
/// The type of node N's operand I, and node n's operand I: a reference to it where it is stored,
/// else a new one.
template <std::size_t I, class N>
using child_t = typename operand_of_stored<indexed::type_at<I, typename N::children_type>>::type;
template <std::size_t I, class N>
constexpr decltype(auto) child(const N& n) {
    if constexpr (holds_data_v<child_t<I, N>>)
        return indexed::get<I>(n.children);
    else
        return child_t<I, N>{};
}
/// f(operands of n...), as child() gives them.
template <class F, class N>
constexpr decltype(auto) apply_children(F&& f, const N& n) {
    return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
        return static_cast<F&&>(f)(child<I>(n)...);
    }
    (std::make_index_sequence<N::children_type::size>{});
}

/// What a node is. Each node type names its kind (`static constexpr node_kind kind`), and the
/// passes, the program, the dumps and the evaluator switch on it.
enum class node_kind {
    input,       // argument I of the traced function
    captured,    // a tensor the function captured
    scalar,      // a number known at run time
    constant,    // a number known at compile time
    elementwise, // ew: a functor over its operands, fused into its consumers' loops
    reduce,      // a described reduction (tensor/reductions.hpp) over dims
    matmul,      // torch.matmul, run by the GEMM
    opaque       // an eager op run on its operand's tensor
};

/// Kinds without operands.
constexpr bool is_leaf_kind(node_kind k) {
    return k == node_kind::input || k == node_kind::captured || k == node_kind::scalar ||
           k == node_kind::constant;
}

// ---- leaves ---------------------------------------------------------------------------------

/// Argument I of the traced function, a Tensor<T, S>.
template <std::size_t I, class T, class S>
struct input {
    static constexpr node_kind kind = node_kind::input;
    using value_type = T;
    using shape_type = S;
    using children_type = operands<>;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = true;
    static constexpr std::size_t index = I;
    children_type children{};
};

/// A tensor the traced function captured (weights in a lambda's capture): a constant of the graph.
template <class T, class S>
struct captured {
    static constexpr node_kind kind = node_kind::captured;
    using value_type = T;
    using shape_type = S;
    using children_type = operands<>;
    static constexpr bool has_payload = true;
    static constexpr bool materialized = true;
    Tensor<T, S> tensor;
    children_type children{};
};

/// Argument of scalar<T, Argument> for a number that is not a float argument of the traced
/// function.
inline constexpr std::size_t not_an_argument = static_cast<std::size_t>(-1);

/// A number known at run time: a C++ float in the traced code, or float argument Argument of the
/// jit function. It takes part in type promotion as a Python number does. An argument's value is
/// the argument's wherever the graph names it, so it carries no payload to compare (nothing to
/// tell apart when a graph names it from many places: a learning rate in every update).
template <class T, std::size_t Argument = not_an_argument>
struct scalar {
    static constexpr node_kind kind = node_kind::scalar;
    using value_type = T;
    using shape_type = shape<>;
    using children_type = operands<>;
    static constexpr bool has_payload = Argument == not_an_argument;
    static constexpr bool materialized = false;
    T value;
    children_type children{};
};

/// The type a number of C++ type T is held in while it is a number: a Python number's own
/// precision (bool, int64, double). An op converts it to its computation type where it reads it,
/// as PyTorch converts a wrapped number to the tensor's dtype: 1.1283791670955126_c times a
/// float64 tensor multiplies by the double, never by its float32 rounding first.
template <class T>
using number_precision_t =
    std::conditional_t<std::is_same_v<T, bool>, bool,
                       std::conditional_t<std::is_integral_v<T>, std::int64_t, double>>;

/// A number known at compile time (2_c, 0.5_c, True): its value is in the type C, so passes can
/// fold it and simplify x * 1_c. It promotes as a Python number (scalar_element_t: float32 for a
/// float) and is held in its own precision (number_precision_t: a double for a float).
template <class C>
struct constant {
    static constexpr node_kind kind = node_kind::constant;
    using value_type = number_precision_t<scalar_element_t<C>>;
    using shape_type = shape<>;
    using children_type = operands<>;
    using constant_type = C;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = false;
    static constexpr auto value = C::value;
    children_type children{};
};

// ---- elementwise --------------------------------------------------------------------------------

/// A number, known at run time (scalar) or at compile time (constant).
template <class N>
inline constexpr bool is_number_node_v =
    N::kind == node_kind::scalar || N::kind == node_kind::constant;

/// Whether node N's value is a number: a number node, or an elementwise node of numbers only
/// (2.0_c * lr, exp(2.0_c)), which computes as Python's arithmetic on its numbers does: in their
/// own precision (a double), and promotes with tensors as a Python number.
template <class N>
constexpr bool is_number_expression() {
    if constexpr (is_number_node_v<N>)
        return true;
    else if constexpr (N::kind == node_kind::elementwise)
        return N::number_expression;
    else
        return false;
}
template <class N>
inline constexpr bool is_number_expression_v = is_number_expression<N>();

/// How node N takes part in type promotion: numbers (and elementwise nodes of numbers only) as
/// Python numbers, the rest as tensors.
template <class N>
struct promotion_operand {
    using type = std::conditional_t<
        N::kind == node_kind::elementwise && is_number_expression_v<N>,
        scalar_operand<typename N::value_type>,
        operand<typename N::value_type, N::shape_type::rank == 0 ? operand_priority::zero_dim
                                                                 : operand_priority::dimensioned>>;
};
template <class T, std::size_t A>
struct promotion_operand<scalar<T, A>> {
    using type = scalar_operand<T>;
};
template <class C>
struct promotion_operand<constant<C>> {
    using type = scalar_operand<C>;
};
template <class N>
using promotion_operand_t = typename promotion_operand<N>::type;

/// F (a functor of fn::) applied elementwise to its operands, with broadcasting and promotion.
template <class F, class... Cs>
struct ew {
    static constexpr node_kind kind = node_kind::elementwise;
    using functor = F;
    /// Numbers only: Python's arithmetic, in the numbers' own precision (a cast keeps its type).
    static constexpr bool number_expression =
        !F::tensor_result && (is_number_expression_v<Cs> && ...);
    using types = functor_types<F, promotion_operand_t<Cs>...>;
    template <class T>
    using precision_t =
        std::conditional_t<number_expression && F::kind != fn::op_kind::cast,
                           number_precision_t<T>, T>;
    using compute_type = precision_t<typename types::compute>;
    using value_type = precision_t<typename types::result>;
    using shape_type = broadcast_shape_t<typename Cs::shape_type...>;
    using children_type = operands<Cs...>;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = false;
    children_type children;
};

/// The type operand I of functor F computing in Compute is converted to before F::apply: where's
/// condition stays bool.
template <class F, class Compute, std::size_t I>
using operand_compute_t =
    std::conditional_t<F::kind == fn::op_kind::select && I == 0, bool, Compute>;
/// The type operand I of an ew node is converted to before F::apply.
template <class Node, std::size_t I>
using ew_operand_compute_t =
    operand_compute_t<typename Node::functor, typename Node::compute_type, I>;

// ---- reductions ---------------------------------------------------------------------------------

/// The reduce node's tag, also spelt graph::reduce_kind where the evaluator switches on it.
using staticpy::reduce_kind;

/// Every dim: x.sum() rather than x.sum(dim).
using all_dims = staticpy::detail::all_dims;

/// The eager reduction's plan (output shape, reduced dims) for a dim spec, or for all dims.
template <class S, class Dim, bool Keep>
struct graph_reduction_plan : detail::reduction_plan<S, Dim, Keep> {};
template <class S, bool Keep>
struct graph_reduction_plan<S, all_dims, Keep> {
    using out_shape = shape<>;
    static std::array<bool, S::rank> mask(const all_dims&) {
        std::array<bool, S::rank> m{};
        m.fill(true);
        return m;
    }
};

/// Reduction K (its description: reduction_of_t<K>, tensor/reductions.hpp) of C over Dim.
template <reduce_kind K, bool Keep, class Dim, class C>
struct reduce {
    static constexpr node_kind kind = node_kind::reduce;
    static constexpr reduce_kind reduce_op = K;
    using reduction = reduction_of_t<K>;
    static constexpr bool keepdim = Keep;
    using dim_type = Dim;
    using plan = graph_reduction_plan<typename C::shape_type, Dim, Keep>;
    using value_type = typename reduction::template result<typename C::value_type>;
    using shape_type = typename plan::out_shape;
    using children_type = operands<C>;
    static constexpr bool has_payload = [] {
        if constexpr (std::is_same_v<Dim, all_dims>)
            return false;
        else
            return !detail::dim_spec<Dim>::is_static;
    }();
    static constexpr bool materialized = true;
    children_type children;
    Dim dim;
};

// ---- matmul ------------------------------------------------------------------------------------

/// torch.matmul of two nodes; bias and activation that follow it run in its epilogue.
template <class A, class B>
struct matmul {
    static constexpr node_kind kind = node_kind::matmul;
    using shapes = detail::matmul_shapes<typename A::shape_type, typename B::shape_type>;
    static_assert(std::is_same_v<typename A::value_type, typename B::value_type>,
                  "staticpy: RuntimeError: expected m1 and m2 to have the same dtype");
    static constexpr bool checked =
        (detail::check_inner_static<typename shapes::k_a, typename shapes::k_b>(), true);
    using value_type = typename A::value_type;
    using shape_type = typename shapes::result;
    using children_type = operands<A, B>;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = true;
    children_type children;
};

// ---- opaque ops --------------------------------------------------------------------------------

/// An op evaluated by its eager implementation on its operands' materialized tensors: views
/// (transpose, reshape, ...) cost no copy of an input; softmax, var and argmax run their kernels;
/// the derivatives' helpers (sum_to, unreduce, ...) run theirs. Op is a struct with a name, its
/// run-time arguments (`args`), operator()(operands...) and, optionally, `reads`: false for an
/// operand of which only the shape is used (the op then receives its shape, and the operand is
/// not materialized for it).
template <class Op, class... Cs>
struct opaque {
    static constexpr node_kind kind = node_kind::opaque;
    using op_type = Op;
    /// What the op receives for operand I: its tensor, or only its shape.
    static constexpr std::array<bool, sizeof...(Cs)> reads = [] {
        if constexpr (requires { Op::reads; })
            return Op::reads;
        else
            return std::array<bool, sizeof...(Cs)>{((void)sizeof(Cs), true)...};
    }();
    template <class C, std::size_t I>
    using operand_t =
        std::conditional_t<reads[I], Tensor<typename C::value_type, typename C::shape_type>,
                           typename C::shape_type>;
    template <class Seq>
    struct result_of;
    template <std::size_t... I>
    struct result_of<std::index_sequence<I...>> {
        using type = std::remove_cvref_t<decltype(std::declval<const Op&>()(
            std::declval<operand_t<std::tuple_element_t<I, std::tuple<Cs...>>, I>>()...))>;
    };
    using result_tensor = typename result_of<std::index_sequence_for<Cs...>>::type;
    using value_type = typename result_tensor::value_type;
    using shape_type = typename result_tensor::shape_type;
    using children_type = operands<Cs...>;
    // The op's arguments are its payload (ops without arguments declare an empty std::tuple<>,
    // and ops whose arguments are compile-time hold them as empty types: detail::fixed).
    static constexpr bool has_payload = [] {
        if constexpr (requires { std::declval<const Op&>().args; })
            return !std::is_empty_v<std::remove_cvref_t<decltype(std::declval<const Op&>().args)>>;
        else
            return !std::is_empty_v<Op>;
    }();
    static constexpr bool materialized = true;
    children_type children;
    Op op;
};

/// Whether node N uses operand I's values (false: only its shape, see opaque::reads).
template <class N>
constexpr bool reads_operand(std::size_t i) {
    if constexpr (N::kind == node_kind::opaque)
        return N::reads[i];
    else
        return true;
}

// The opaque ops of traced code: op objects of the tensor layer (tensor/op_objects.hpp), which
// run eagerly, here in a graph, and on the autodiff tape alike.
#define STATICPY_GRAPH_OPAQUE_OP(Name)                                                             \
    template <class... A>                                                                          \
    using Name##_op = staticpy::detail::Name##_op<A...>;
STATICPY_GRAPH_OPAQUE_OP(softmax)
STATICPY_GRAPH_OPAQUE_OP(log_softmax)
STATICPY_GRAPH_OPAQUE_OP(var)
STATICPY_GRAPH_OPAQUE_OP(argmax)
STATICPY_GRAPH_OPAQUE_OP(argmin)
STATICPY_GRAPH_OPAQUE_OP(transpose)
STATICPY_GRAPH_OPAQUE_OP(permute)
STATICPY_GRAPH_OPAQUE_OP(t)
STATICPY_GRAPH_OPAQUE_OP(reshape)
STATICPY_GRAPH_OPAQUE_OP(view)
STATICPY_GRAPH_OPAQUE_OP(flatten)
STATICPY_GRAPH_OPAQUE_OP(expand)
STATICPY_GRAPH_OPAQUE_OP(squeeze)
STATICPY_GRAPH_OPAQUE_OP(unsqueeze)
STATICPY_GRAPH_OPAQUE_OP(contiguous)
#undef STATICPY_GRAPH_OPAQUE_OP

/// Whether view op Op swaps the two dims of a matrix: t(), or transpose with compile-time dims.
template <class Op>
struct swaps_matrix_dims : std::false_type {};
template <class... A>
struct swaps_matrix_dims<t_op<A...>> : std::true_type {};
template <class D0, class D1>
struct swaps_matrix_dims<transpose_op<D0, D1>> : std::bool_constant<[] {
    if constexpr (is_int_constant_v<D0> && is_int_constant_v<D1>)
        return (D0::value + 2) % 2 != (D1::value + 2) % 2;
    else
        return false; // dims known at run time only
}()> {};

// ---- traits -------------------------------------------------------------------------------------

/// Whether a node, or any node under it, carries run-time attributes.
template <class N>
struct contains_payload;
template <class N>
inline constexpr bool contains_payload_v = contains_payload<N>::value;
template <class N, class Children = typename N::children_type>
struct contains_payload_impl;
template <class N, class... Cs>
struct contains_payload_impl<N, operands<Cs...>>
    : std::bool_constant<N::has_payload || (contains_payload_v<Cs> || ...)> {};
template <class N>
struct contains_payload : contains_payload_impl<N> {};

/// Whether a node object of type N holds data of its own (holds_data).
template <class N>
constexpr bool holds_own_data() {
    if constexpr (N::kind == node_kind::scalar || N::kind == node_kind::captured)
        return true;
    else if constexpr (N::kind == node_kind::reduce)
        return !std::is_empty_v<typename N::dim_type>;
    else if constexpr (N::kind == node_kind::opaque)
        return !std::is_empty_v<typename N::op_type>;
    else
        return false;
}
template <class N, class... Cs>
struct holds_data<N, operands<Cs...>>
    : std::bool_constant<holds_own_data<N>() || (holds_data_v<Cs> || ...)> {};

} // namespace staticpy::graph
