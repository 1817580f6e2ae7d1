#pragma once
// Tracer: the value a jit function's tensor arguments become while it is traced. Every op applied
// to a Tracer builds a node (node.hpp) instead of computing, so the traced function returns a
// Tracer whose node type is the graph.
//
//   auto f = staticpy::jit([](auto x) { return x.relu().sum(); });   // x is a Tracer while f
//   traces
//
// Elementwise ops and op objects reach Tracers through the tensor layer's hook (symbolic_family,
// symbolic_elementwise and symbolic_op, ops_elementwise.hpp); reductions, matmul, linear, softmax
// and the views are overloads and methods here.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/graph/node.hpp"
#include "staticpy/tensor/op_objects_index.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/reductions.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

template <class Node>
class Tracer;

namespace detail {
/// Tracer's methods call the free functions declared below it (see tensor_methods in tensor.hpp).
template <class Self>
struct tracer_methods;

template <class N>
struct is_tracer : std::false_type {};
template <class N>
struct is_tracer<Tracer<N>> : std::true_type {};
} // namespace detail

/// Whether X is a traced value (an argument of a function being traced, or a result of ops on one).
template <class X>
inline constexpr bool is_tracer_v = detail::is_tracer<std::remove_cvref_t<X>>::value;

namespace graph {

/// The symbolic family of Tracers (see detail::symbolic_family).
struct tracer_family {};

/// The node an argument of a traced op stands for: a Tracer's node, a captured tensor, a number.
template <class X>
auto node_of(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tracer_v<U>)
        return x.node;
    else if constexpr (is_tensor_v<U>)
        return captured<typename U::value_type, typename U::shape_type>{x, {}};
    else if constexpr (staticpy::detail::is_number_constant_v<U>)
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
struct symbolic_family<Tracer<N>> {
    using type = graph::tracer_family;
};

/// Elementwise ops on Tracers (the tensor layer's hook, see ops_elementwise.hpp): a node.
template <class F>
struct symbolic_elementwise<graph::tracer_family, F> {
    template <class... Args>
    static auto apply(const Args&... args) {
        return graph::traced(graph::ew<F, graph::node_of_t<Args>...>{{graph::node_of(args)...}});
    }
};

/// Op objects on Tracers (op_objects.hpp): an opaque node that runs the op on its operands.
template <>
struct symbolic_op<graph::tracer_family> {
    template <class Op, class... Args>
    static auto apply(const Op& op, const Args&... args) {
        return graph::traced(
            graph::opaque<Op, graph::node_of_t<Args>...>{{graph::node_of(args)...}, op});
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
    /// x.where(condition, y): torch.where(condition, x, y).
    template <class C, class O>
    auto where(const C& condition, const O& other) const {
        return detail::where_method<Tracer>::apply(condition, *this, other);
    }

#define STATICPY_TRACER_VIEW(name)                                                                 \
    template <class... Args>                                                                       \
    auto name(const Args&... args) const {                                                         \
        return detail::apply_op(detail::name##_op<Args...>{{args...}}, *this);                     \
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
    STATICPY_TRACER_VIEW(select)
    STATICPY_TRACER_VIEW(slice)
    STATICPY_TRACER_VIEW(narrow)
#undef STATICPY_TRACER_VIEW
    /// x[i], x[slice(a, b, c)] (tensor/op_objects_index.hpp).
    template <class A>
    auto operator[](const A& a) const {
        return detail::apply_op(detail::subscript_op_of(a), *this);
    }

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
            return staticpy::detail::keepdim_value<Keep>();
    }();
    reduction_of_t<K>::template check_dtype<typename N::value_type>();
    return traced(reduce<K, keep, Dim, N>{{x.node}, dim});
}
template <template <class...> class Op, class N, class... A>
auto make_opaque(const Tracer<N>& x, const A&... args) {
    return traced(opaque<Op<A...>, N>{{x.node}, Op<A...>{{args...}}});
}
} // namespace graph

/// Name(x): reduction Kind of every element.
#define STATICPY_TRACED_WHOLE_REDUCTION(Name, Kind)                                                \
    template <class N>                                                                             \
    auto Name(const Tracer<N>& x) {                                                                \
        return graph::make_reduce<graph::reduce_kind::Kind, std::false_type>(x,                    \
                                                                             graph::all_dims{});   \
    }
/// Name(x, dim[, keepdim]): reduction Kind over dims.
#define STATICPY_TRACED_DIMS_REDUCTION(Name, Kind)                                                 \
    template <class N, detail::reduce_dim Dim, class Keep = std::false_type>                       \
    auto Name(const Tracer<N>& x, const Dim& dim, Keep = {}) {                                     \
        return graph::make_reduce<graph::reduce_kind::Kind, Keep>(x, dim);                         \
    }
STATICPY_TRACED_WHOLE_REDUCTION(sum, sum)
STATICPY_TRACED_DIMS_REDUCTION(sum, sum)
STATICPY_TRACED_WHOLE_REDUCTION(prod, prod)
STATICPY_TRACED_DIMS_REDUCTION(prod, prod)
STATICPY_TRACED_WHOLE_REDUCTION(mean, mean)
STATICPY_TRACED_DIMS_REDUCTION(mean, mean)
// amax/amin over dims; max(x)/min(x) of every element (max(x, dim), which also gives indices, is
// op_objects_index.hpp's, for traced and recorded values alike).
STATICPY_TRACED_DIMS_REDUCTION(amax, amax)
STATICPY_TRACED_DIMS_REDUCTION(amin, amin)
STATICPY_TRACED_WHOLE_REDUCTION(max, amax)
STATICPY_TRACED_WHOLE_REDUCTION(min, amin)
#undef STATICPY_TRACED_DIMS_REDUCTION
#undef STATICPY_TRACED_WHOLE_REDUCTION

/// softmax, log_softmax, var, argmax, argmin: their eager kernels, on the operand's tensor.
#define STATICPY_TRACED_OPAQUE(Name)                                                               \
    template <class N, class... A>                                                                 \
    auto Name(const Tracer<N>& x, const A&... args) {                                              \
        return graph::make_opaque<graph::Name##_op>(x, args...);                                   \
    }
STATICPY_TRACED_OPAQUE(softmax)
STATICPY_TRACED_OPAQUE(log_softmax)
STATICPY_TRACED_OPAQUE(var)
STATICPY_TRACED_OPAQUE(argmax)
STATICPY_TRACED_OPAQUE(argmin)
#undef STATICPY_TRACED_OPAQUE

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
/// A traced matrix is stored by columns when its node is the transpose view of another (x.t(), or
/// x.transpose(0, 1) with compile-time dims): matmul_vjp then computes the gradient in that layout
/// (ops_matmul.hpp), decided at compile time, as the two forms are different graphs.
template <class N>
struct stored_by_columns<Tracer<N>> {
    static constexpr auto of(const Tracer<N>&) {
        if constexpr (N::kind == graph::node_kind::opaque && N::shape_type::rank == 2)
            return std::bool_constant<graph::swaps_matrix_dims<typename N::op_type>::value>{};
        else
            return std::false_type{};
    }
};

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
