#pragma once
// The nodes of a static graph, and Tracer: the value a jit function's arguments become while it is
// traced. Every op applied to a Tracer builds a node instead of computing; the graph's structure is
// the node's C++ type, so passes (passes.hpp) rewrite it at compile time and backends evaluate it.
//
//   auto f = staticpy::jit([](auto x, auto w) { return relu(x * w + 1.0f).sum(1_c); });
//   // traced: reduce<sum, dim 1>( ew<relu>( ew<add>( ew<mul>(input<0>, input<1>), scalar ) ) )
//
// A node type has:
//   value_type, shape_type   the element type and (static|dynamic) shape type of its result;
//   children                 a std::tuple of its operand nodes (leaves have none);
//   has_payload              true when it carries run-time attributes (a scalar's value, a run-time
//                            dim): two nodes of the same type are then not known to be equal, and
//                            common-subexpression elimination keeps them apart;
//   materialized             true when its result is a tensor in memory (inputs, reductions,
//                            matmul, opaque ops); false for elementwise nodes, which fuse into the
//                            loops of whatever consumes them.
// Shapes are not stored: they follow from the inputs' at evaluation (evaluate.hpp), and their
// static parts are checked here, by the types, exactly as the eager ops check them.

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

template <class Node>
class Tracer;

namespace detail {
/// Tracer's methods call the free functions declared below it (see tensor_methods in tensor.hpp).
template <class Self>
struct tracer_methods;
} // namespace detail

namespace graph {

// ---- leaves ---------------------------------------------------------------------------------

/// Argument I of the traced function, a Tensor<T, S>.
template <std::size_t I, class T, class S>
struct input {
    using value_type = T;
    using shape_type = S;
    using children_type = std::tuple<>;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = true;
    static constexpr std::size_t index = I;
    children_type children{};
};

/// A tensor the traced function captured (weights in a lambda's capture): a constant of the graph.
template <class T, class S>
struct captured {
    using value_type = T;
    using shape_type = S;
    using children_type = std::tuple<>;
    static constexpr bool has_payload = true;
    static constexpr bool materialized = true;
    Tensor<T, S> tensor;
    children_type children{};
};

/// A number known at run time (a C++ float in the traced code, or a scalar argument of the jit
/// function). It takes part in type promotion as a Python number does.
template <class T>
struct scalar {
    using value_type = T;
    using shape_type = shape<>;
    using children_type = std::tuple<>;
    static constexpr bool has_payload = true;
    static constexpr bool materialized = false;
    T value;
    children_type children{};
};

/// A number known at compile time (2_c, 0.5_c, True): its value is in the type C, so passes can
/// fold it and simplify x * 1_c.
template <class C>
struct constant {
    using value_type = scalar_element_t<C>;
    using shape_type = shape<>;
    using children_type = std::tuple<>;
    using constant_type = C;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = false;
    static constexpr auto value = C::value;
    children_type children{};
};

// ---- elementwise --------------------------------------------------------------------------------

template <class N>
struct is_number_node : std::false_type {};
template <class T>
struct is_number_node<scalar<T>> : std::true_type {};
template <class C>
struct is_number_node<constant<C>> : std::true_type {};
template <class N>
inline constexpr bool is_number_node_v = is_number_node<N>::value;

/// How node N takes part in type promotion: numbers as Python numbers, the rest as tensors.
template <class N>
struct promotion_operand {
    using type =
        operand<typename N::value_type, N::shape_type::rank == 0 ? operand_priority::zero_dim
                                                                 : operand_priority::dimensioned>;
};
template <class T>
struct promotion_operand<scalar<T>> {
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
    using functor = F;
    using types = functor_types<F, promotion_operand_t<Cs>...>;
    using compute_type = typename types::compute;
    using value_type = typename types::result;
    using shape_type = broadcast_shape_t<typename Cs::shape_type...>;
    using children_type = std::tuple<Cs...>;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = false;
    children_type children;
};

/// The type operand I of an ew node is converted to before F::apply.
template <class Node, std::size_t I>
using ew_operand_compute_t =
    std::conditional_t<Node::functor::kind == fn::op_kind::select && I == 0, bool,
                       typename Node::compute_type>;

// ---- reductions ---------------------------------------------------------------------------------

/// The reductions that fuse with their producers: the accumulation each one does.
enum class reduce_kind { sum, prod, mean, amax, amin };

/// Every dim: x.sum() rather than x.sum(dim).
struct all_dims {};

template <reduce_kind K>
struct reduce_traits;
template <>
struct reduce_traits<reduce_kind::sum> {
    static constexpr const char* name = "reduce_sum";
    template <class T>
    using result = detail::sum_result_t<T>;
};
template <>
struct reduce_traits<reduce_kind::prod> {
    static constexpr const char* name = "reduce_prod";
    template <class T>
    using result = detail::sum_result_t<T>;
};
template <>
struct reduce_traits<reduce_kind::mean> {
    static constexpr const char* name = "reduce_mean";
    template <class T>
    using result = T;
};
template <>
struct reduce_traits<reduce_kind::amax> {
    static constexpr const char* name = "reduce_max";
    template <class T>
    using result = T;
};
template <>
struct reduce_traits<reduce_kind::amin> {
    static constexpr const char* name = "reduce_min";
    template <class T>
    using result = T;
};

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

template <reduce_kind K, bool Keep, class Dim, class C>
struct reduce {
    static constexpr reduce_kind kind = K;
    static constexpr bool keepdim = Keep;
    using dim_type = Dim;
    using plan = graph_reduction_plan<typename C::shape_type, Dim, Keep>;
    using value_type = typename reduce_traits<K>::template result<typename C::value_type>;
    using shape_type = typename plan::out_shape;
    using children_type = std::tuple<C>;
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
    using shapes = detail::matmul_shapes<typename A::shape_type, typename B::shape_type>;
    static_assert(std::is_same_v<typename A::value_type, typename B::value_type>,
                  "staticpy: RuntimeError: expected m1 and m2 to have the same dtype");
    static constexpr bool checked =
        (detail::check_inner_static<typename shapes::k_a, typename shapes::k_b>(), true);
    using value_type = typename A::value_type;
    using shape_type = typename shapes::result;
    using children_type = std::tuple<A, B>;
    static constexpr bool has_payload = false;
    static constexpr bool materialized = true;
    children_type children;
};

// ---- opaque ops --------------------------------------------------------------------------------

/// An op evaluated by its eager implementation on its operand's materialized tensor: views
/// (transpose, reshape, ...) cost no copy of an input; softmax, var and argmax run their kernels.
/// Op is a struct with a name, its run-time arguments, and operator()(tensor).
template <class Op, class C>
struct opaque {
    using op_type = Op;
    using operand_tensor = Tensor<typename C::value_type, typename C::shape_type>;
    using result_tensor =
        std::remove_cvref_t<decltype(std::declval<const Op&>()(std::declval<operand_tensor>()))>;
    using value_type = typename result_tensor::value_type;
    using shape_type = typename result_tensor::shape_type;
    using children_type = std::tuple<C>;
    static constexpr bool has_payload = !std::is_empty_v<Op>;
    static constexpr bool materialized = true;
    children_type children;
    Op op;
};

/// An eager function or method applied with stored arguments. Name is its IR name.
#define STATICPY_GRAPH_OPAQUE_OP(Name, Call)                                                       \
    template <class... A>                                                                          \
    struct Name##_op {                                                                             \
        static constexpr const char* name = #Name;                                                 \
        [[no_unique_address]] std::tuple<A...> args;                                               \
        template <class X>                                                                         \
        auto operator()(const X& x) const {                                                        \
            return std::apply([&](const auto&... a) { return Call; }, args);                       \
        }                                                                                          \
    };
STATICPY_GRAPH_OPAQUE_OP(softmax, staticpy::softmax(x, a...))
STATICPY_GRAPH_OPAQUE_OP(log_softmax, staticpy::log_softmax(x, a...))
STATICPY_GRAPH_OPAQUE_OP(var, staticpy::var(x, a...))
STATICPY_GRAPH_OPAQUE_OP(argmax, staticpy::argmax(x, a...))
STATICPY_GRAPH_OPAQUE_OP(argmin, staticpy::argmin(x, a...))
STATICPY_GRAPH_OPAQUE_OP(transpose, x.transpose(a...))
STATICPY_GRAPH_OPAQUE_OP(permute, x.permute(a...))
STATICPY_GRAPH_OPAQUE_OP(t, x.t(a...))
STATICPY_GRAPH_OPAQUE_OP(reshape, x.reshape(a...))
STATICPY_GRAPH_OPAQUE_OP(view, x.view(a...))
STATICPY_GRAPH_OPAQUE_OP(flatten, x.flatten(a...))
STATICPY_GRAPH_OPAQUE_OP(expand, x.expand(a...))
STATICPY_GRAPH_OPAQUE_OP(squeeze, x.squeeze(a...))
STATICPY_GRAPH_OPAQUE_OP(unsqueeze, x.unsqueeze(a...))
STATICPY_GRAPH_OPAQUE_OP(contiguous, x.contiguous(a...))
#undef STATICPY_GRAPH_OPAQUE_OP

// ---- traits -------------------------------------------------------------------------------------

template <class N>
inline constexpr bool is_node_v = requires {
    typename N::children_type;
    N::materialized;
};

/// Whether a node, or any node under it, carries run-time attributes.
template <class N>
struct contains_payload;
template <class N>
inline constexpr bool contains_payload_v = contains_payload<N>::value;
template <class N, class Children = typename N::children_type>
struct contains_payload_impl;
template <class N, class... Cs>
struct contains_payload_impl<N, std::tuple<Cs...>>
    : std::bool_constant<N::has_payload || (contains_payload_v<Cs> || ...)> {};
template <class N>
struct contains_payload : contains_payload_impl<N> {};

} // namespace graph

namespace detail {
template <class N>
struct is_tracer : std::false_type {};
template <class N>
struct is_tracer<Tracer<N>> : std::true_type {};
} // namespace detail

/// Whether X is a traced value (an argument of a function being traced, or a result of ops on one).
template <class X>
inline constexpr bool is_tracer_v = detail::is_tracer<std::remove_cvref_t<X>>::value;

namespace graph {

/// The node an argument of a traced op stands for: a Tracer's node, a captured tensor, a number.
template <class X>
auto node_of(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tracer_v<U>)
        return x.node;
    else if constexpr (is_tensor_v<U>)
        return captured<typename U::value_type, typename U::shape_type>{x, {}};
    else if constexpr (detail::is_number_constant_v<U>)
        return constant<U>{};
    else
        return scalar<U>{x, {}};
}
template <class X>
using node_of_t = decltype(node_of(std::declval<const X&>()));

template <class N>
Tracer<N> traced(N n) {
    return Tracer<N>{std::move(n)};
}

} // namespace graph

namespace detail {

template <class N>
struct symbolic_arg<Tracer<N>> : std::true_type {};

/// Elementwise ops on Tracers (the tensor layer's hook, see ops_elementwise.hpp): a node.
template <class F>
struct symbolic_elementwise {
    template <class... Args>
    static auto apply(const Args&... args) {
        return graph::traced(graph::ew<F, graph::node_of_t<Args>...>{{graph::node_of(args)...}});
    }
};

} // namespace detail

/// A traced value: what a jit function's tensor arguments are while it is traced. It has the
/// Tensor's ops and methods; each records a node instead of computing.
///   auto f = jit([](auto x) { return x.relu().sum(); });   // x is a Tracer while f traces
template <class Node>
class Tracer {
public:
    using node_type = Node;
    using value_type = typename Node::value_type;
    using shape_type = typename Node::shape_type;
    static constexpr std::size_t rank = shape_type::rank;

    Node node;

    /// The dtype of the traced value (known while tracing, as its shape's static part is).
    static constexpr staticpy::dtype dtype() { return dtype_of_v<value_type>; }
    static constexpr std::size_t dim() { return rank; }

#define STATICPY_TRACER_FORWARD(name)                                                              \
    template <class... Args>                                                                       \
    auto name(const Args&... args) const {                                                         \
        return detail::tracer_methods<Tracer>::name(*this, args...);                               \
    }
    STATICPY_TENSOR_OP_METHODS(STATICPY_TRACER_FORWARD)
#undef STATICPY_TRACER_FORWARD

#define STATICPY_TRACER_VIEW(name)                                                                 \
    template <class... Args>                                                                       \
    auto name(const Args&... args) const {                                                         \
        return graph::traced(graph::opaque<graph::name##_op<Args...>, Node>{                       \
            {node}, graph::name##_op<Args...>{{args...}}});                                        \
    }
    STATICPY_TRACER_VIEW(transpose)
    STATICPY_TRACER_VIEW(permute)
    STATICPY_TRACER_VIEW(t)
    STATICPY_TRACER_VIEW(reshape)
    STATICPY_TRACER_VIEW(view)
    STATICPY_TRACER_VIEW(flatten)
    STATICPY_TRACER_VIEW(expand)
    STATICPY_TRACER_VIEW(squeeze)
    STATICPY_TRACER_VIEW(unsqueeze)
    STATICPY_TRACER_VIEW(contiguous)
#undef STATICPY_TRACER_VIEW

    /// x.to<U>(): a cast node.
    template <class U>
    auto to() const {
        return staticpy::cast<U>(*this);
    }
};

// ---- reductions, matmul and opaque ops on Tracers
// ------------------------------------------------

namespace graph {
template <reduce_kind K, class Keep, class N, class Dim>
auto make_reduce(const Tracer<N>& x, const Dim& dim) {
    constexpr bool keep = [] {
        if constexpr (std::is_same_v<Dim, all_dims>)
            return false;
        else
            return detail::keepdim_value<Keep>();
    }();
    if constexpr (K == reduce_kind::mean)
        detail::mean_body::check<typename N::value_type>();
    return traced(reduce<K, keep, Dim, N>{{x.node}, dim});
}
template <template <class...> class Op, class N, class... A>
auto make_opaque(const Tracer<N>& x, const A&... args) {
    return traced(opaque<Op<A...>, N>{{x.node}, Op<A...>{{args...}}});
}
} // namespace graph

#define STATICPY_TRACED_REDUCTION(Name, Kind)                                                      \
    template <class N>                                                                             \
    auto Name(const Tracer<N>& x) {                                                                \
        return graph::make_reduce<graph::reduce_kind::Kind, std::false_type>(x,                    \
                                                                             graph::all_dims{});   \
    }                                                                                              \
    template <class N, detail::reduce_dim Dim, class Keep = std::false_type>                       \
    auto Name(const Tracer<N>& x, const Dim& dim, Keep = {}) {                                     \
        return graph::make_reduce<graph::reduce_kind::Kind, Keep>(x, dim);                         \
    }
STATICPY_TRACED_REDUCTION(sum, sum)
STATICPY_TRACED_REDUCTION(prod, prod)
STATICPY_TRACED_REDUCTION(mean, mean)
#undef STATICPY_TRACED_REDUCTION

/// amax/amin over dims; max(x)/min(x) of every element.
template <class N, detail::reduce_dim Dim, class Keep = std::false_type>
auto amax(const Tracer<N>& x, const Dim& dim, Keep = {}) {
    return graph::make_reduce<graph::reduce_kind::amax, Keep>(x, dim);
}
template <class N, detail::reduce_dim Dim, class Keep = std::false_type>
auto amin(const Tracer<N>& x, const Dim& dim, Keep = {}) {
    return graph::make_reduce<graph::reduce_kind::amin, Keep>(x, dim);
}
template <class N>
auto max(const Tracer<N>& x) {
    return graph::make_reduce<graph::reduce_kind::amax, std::false_type>(x, graph::all_dims{});
}
template <class N>
auto min(const Tracer<N>& x) {
    return graph::make_reduce<graph::reduce_kind::amin, std::false_type>(x, graph::all_dims{});
}

/// softmax, log_softmax, var, argmax, argmin: their eager kernels, on the operand's tensor.
template <class N, class... A>
auto softmax(const Tracer<N>& x, const A&... args) {
    return graph::make_opaque<graph::softmax_op>(x, args...);
}
template <class N, class... A>
auto log_softmax(const Tracer<N>& x, const A&... args) {
    return graph::make_opaque<graph::log_softmax_op>(x, args...);
}
template <class N, class... A>
auto var(const Tracer<N>& x, const A&... args) {
    return graph::make_opaque<graph::var_op>(x, args...);
}
template <class N, class... A>
auto argmax(const Tracer<N>& x, const A&... args) {
    return graph::make_opaque<graph::argmax_op>(x, args...);
}
template <class N, class... A>
auto argmin(const Tracer<N>& x, const A&... args) {
    return graph::make_opaque<graph::argmin_op>(x, args...);
}

/// torch.matmul with a Tracer on either side (a Tensor on the other is captured).
template <class A, class B>
requires(is_tracer_v<A> || is_tracer_v<B>) auto matmul(const A& a, const B& b) {
    return graph::traced(graph::matmul<graph::node_of_t<A>, graph::node_of_t<B>>{
        {graph::node_of(a), graph::node_of(b)}});
}

/// linear(x, w, b) = x · wᵀ + b: a matmul whose bias add runs in its epilogue.
template <class X, class W>
requires(is_tracer_v<X> || is_tracer_v<W>) auto linear(const X& x, const W& w) {
    return matmul(x, graph::traced(graph::node_of(w)).t());
}
template <class X, class W, class B>
requires(is_tracer_v<X> || is_tracer_v<W> || is_tracer_v<B>) auto linear(const X& x, const W& w,
                                                                         const B& b) {
    return linear(x, w) + graph::traced(graph::node_of(b));
}

namespace detail {
template <class Self>
struct tracer_methods {
#define STATICPY_TRACER_FREE_FUNCTION(name)                                                        \
    template <class... Args>                                                                       \
    static auto name(const Self& self, const Args&... args) {                                      \
        return staticpy::name(self, args...);                                                      \
    }
    STATICPY_TENSOR_OP_METHODS(STATICPY_TRACER_FREE_FUNCTION)
#undef STATICPY_TRACER_FREE_FUNCTION
};
} // namespace detail

} // namespace staticpy
