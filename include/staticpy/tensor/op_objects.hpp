#pragma once
// Op objects: an op together with its run-time arguments, as a value that runs on any operands.
// On tensors it runs eagerly; given a traced value it becomes a graph node that runs it later
// (graph::opaque); given a value recorded on the autodiff tape it runs and is recorded. So one
// struct serves eager mode, graph mode and both autodiffs. An op object has
//   name             its name in the graph IR;
//   args             its run-time arguments (a std::tuple; compared when a graph merges nodes);
//   reads            (optional) false for an operand of which only the shape is used: in a graph
//                    that operand is not materialized for it, and the op receives its shape;
//   operator()(x...) the eager op on tensors (and on shapes, for operands it does not read);
//   vjp<I>(g, y, x...)  its derivative for operand I, as the elementwise ops' (functors.hpp);
//                    fn::no_grad{} where the operand has none (an index, an integer result), or
//                    STATICPY_DERIVATIVE_NOT_IMPLEMENTED("name") where it is not implemented:
//                    then differentiating through the op is a compile error naming it.
//
//   detail::apply_op(detail::sum_to_op{}, g, x)   // g summed back to x's shape
//
// This header holds the shape ops that derivative rules are written in: sum_to (a gradient summed
// back over broadcast dims), expand_to (its transpose), unreduce (a reduction's gradient spread
// back over the reduced dims, as a stride-0 view), reshape_as, and count_ratio (how many elements a
// reduction folded into each result, for mean and var).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticpy/core/error.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace detail {

/// An op argument of a structural class type fixed at compile time (as int_<N> fixes an int): an
/// empty type standing for the value V. An op whose arguments are all fixed is itself an empty
/// type, so its graph nodes carry no run-time payload: a graph that names the node twice (a
/// backward graph names the forward nodes it reads) numbers it once, with nothing to compare
/// when it runs. fixed_value(a) reads either kind.
template <auto V>
struct fixed {
    void repr_into(std::string& out) const { V.repr_into(out); }
    friend constexpr bool operator==(fixed, fixed) { return true; }
};
template <class A>
constexpr const A& fixed_value(const A& a) {
    return a;
}
template <auto V>
constexpr const auto& fixed_value(fixed<V>) {
    return V;
}
using namespace staticpy::literals;

/// An op object's vjp where its derivative is not implemented (PyTorch's not_implemented("Name")
/// in derivatives.yaml, raised there when backward runs): the tape, which records a derivative
/// when it records the op, and graph autodiff, when it builds the backward graph through it, are
/// the compile error "staticpy: RuntimeError: the derivative for 'Name' is not implemented.".
/// (A macro: a static_assert's message is a literal, so the name must be one.) It suits an op a
/// function applies, not an op of a derivative rule: the tape records the rules' ops too, so
/// instantiating their derivatives with every backward pass, first-order ones included.
///   struct my_op { static constexpr const char* name = "my_op"; ...
///                  STATICPY_DERIVATIVE_NOT_IMPLEMENTED("my_op") };
#define STATICPY_DERIVATIVE_NOT_IMPLEMENTED(Name)                                                  \
    template <std::size_t I_, class... A_>                                                         \
    auto vjp(const A_&...) const {                                                                 \
        static_assert(::staticpy::detail::always_false<A_...>,                                     \
                      "staticpy: RuntimeError: the derivative for '" Name                          \
                      "' is not implemented.");                                                    \
        return ::staticpy::fn::no_grad{};                                                          \
    }

/// Whether op object Op has a derivative rule for operand I given the operands a... (g, y, x...).
template <std::size_t I, class Op, class... A>
concept has_vjp = requires(const Op& op, const A&... a) {
    op.template vjp<I>(a...);
};

/// Op's derivative for operand I, what the tape and graph autodiff call: its vjp. An op object
/// without one is a compile error here, where the derivative is needed, rather than an overload
/// failure in the autodiff's machinery. (Its name cannot be in a static_assert's message, which
/// must be a literal: the op's type is in the instantiation context that follows; an op that
/// declares STATICPY_DERIVATIVE_NOT_IMPLEMENTED has its name in the first line.)
template <std::size_t I, class Op, class... A>
auto op_vjp(const Op& op, const A&... a) {
    if constexpr (has_vjp<I, Op, A...>) {
        return op.template vjp<I>(a...);
    } else {
        static_assert(always_false<Op>,
                      "staticpy: RuntimeError: the derivative for an op object without a vjp is "
                      "not implemented (give it a vjp<I>(g, y, x...), or "
                      "STATICPY_DERIVATIVE_NOT_IMPLEMENTED(\"name\") to name it here)");
        return fn::no_grad{};
    }
}

/// Runs op on its operands: eagerly on tensors, or through the symbolic family of a traced or
/// recorded operand (symbolic_op<Family>, see ops_elementwise.hpp).
///   apply_op(sum_to_op{}, g, x)
template <class Op, class... X>
auto apply_op(const Op& op, const X&... x) {
    if constexpr ((is_symbolic_arg_v<X> || ...))
        return symbolic_op<first_family_t<X...>>::apply(op, x...);
    else
        return op(x...);
}

/// The shape type of an operand an op reads only the shape of: a tensor's, or the shape itself.
template <class L>
struct like_shape {
    using type = L;
};
template <class T, class S>
struct like_shape<Tensor<T, S>> {
    using type = S;
};
template <class L>
using like_shape_t = typename like_shape<L>::type;

template <class L>
const like_shape_t<L>& shape_of_like(const L& like) {
    if constexpr (is_tensor_v<L>)
        return like.shape();
    else
        return like;
}

/// A contiguous tensor's elements under another shape type of the same element count.
template <class S, class T, class S0>
Tensor<T, S> contiguous_as(const Tensor<T, S0>& t, const S& s) {
    return Tensor<T, S>(t.storage(), t.storage_offset(), s, contiguous_strides(s.sizes()));
}

/// A tensor's elements in order as a flat tensor: itself, seen flat, where it is contiguous (as
/// the device kernels that take their operands flat want them: the class losses, conv2d, the
/// pools).
template <class T, class S>
Tensor<T, dynamic_shape<1>> flat_elements(const Tensor<T, S>& t) {
    return contiguous_as(t.contiguous(), dynamic_shape<1>(std::array<std::int64_t, 1>{t.numel()}));
}

/// g summed back to the shape of `like`, which g's shape is a broadcast of: over the leading dims
/// g has beyond like's rank, and over the dims where like has size 1 and g not (as autograd's
/// sum_to). g itself (no copy) when the shapes are equal.
struct sum_to_op {
    static constexpr const char* name = "sum_to";
    static constexpr std::array<bool, 2> reads{true, false};
    std::tuple<> args;

    template <class T, class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& like) const {
        using S = like_shape_t<L>;
        constexpr std::size_t R = SG::rank;
        constexpr std::size_t RL = S::rank;
        static_assert(RL <= R, "staticpy: internal error: sum_to to a higher rank");
        const S& target = shape_of_like(like);
        const auto& gs = g.sizes();
        std::array<bool, R> mask{};
        bool reduces = false;
        for (std::size_t d = 0; d < R; ++d) {
            if (d < R - RL) {
                mask[d] = true;
            } else {
                const std::int64_t want = target.sizes()[d - (R - RL)];
                if (want == gs[d])
                    continue;
                if (want != 1)
                    throw RuntimeError("sum_to: a gradient of shape " + sizes_text(gs) +
                                       " does not broadcast from shape " +
                                       sizes_text(target.sizes()));
                mask[d] = true;
            }
            reduces = true;
        }
        if constexpr (R == RL && std::is_same_v<S, SG>) {
            if (!reduces)
                return g;
        }
        if (!reduces && g.is_contiguous())
            return contiguous_as(g, target);
        const auto summed =
            reduce_into<T, dynamic_shape<R>>(g, mask, true, described_body<reduction::sum>{});
        return contiguous_as(summed, target);
    }

    template <std::size_t I, class G, class Y, class X, class L>
    auto vjp(const G& g, const Y&, const X& x, const L&) const {
        if constexpr (I == 0)
            return fn::expand_to(g, x);
        else
            return fn::no_grad{};
    }
};

/// x broadcast to the shape of `like` (a view, stride 0 along the broadcast dims).
struct expand_to_op {
    static constexpr const char* name = "expand_to";
    static constexpr std::array<bool, 2> reads{true, false};
    std::tuple<> args;

    template <class T, class SX, class L>
    auto operator()(const Tensor<T, SX>& x, const L& like) const {
        using S = like_shape_t<L>;
        if constexpr (S::rank == 0) // (a zero-dim x: nothing to broadcast)
            return Tensor<T, S>(x);
        else
            return Tensor<T, S>(x.broadcast_to(shape_of_like(like)));
    }

    template <std::size_t I, class G, class Y, class X, class L>
    auto vjp(const G& g, const Y&, const X& x, const L&) const {
        if constexpr (I == 0)
            return fn::sum_to(g, x);
        else
            return fn::no_grad{};
    }
};

/// The whole-tensor reductions' dim spec: every dim (x.sum() rather than x.sum(dim)).
struct all_dims {
    friend constexpr bool operator==(all_dims, all_dims) { return true; }
};

/// g, the result of a reduction of `like` over Dim (keepdim Keep), spread back over the reduced
/// dims: a view of g with stride 0 along them, of like's shape.
template <class Dim, bool Keep>
struct unreduce_op {
    static constexpr const char* name = "unreduce";
    static constexpr std::array<bool, 2> reads{true, false};
    std::tuple<Dim> args;

    template <class T, class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& like) const {
        using S = like_shape_t<L>;
        constexpr std::size_t R = S::rank;
        const S& target = shape_of_like(like);
        std::array<bool, R> mask{};
        if constexpr (std::is_same_v<Dim, all_dims>)
            mask.fill(true);
        else
            mask = reduction_plan<S, Dim, Keep>::mask(std::get<0>(args));
        std::array<std::int64_t, R> strides{};
        std::size_t k = 0;
        for (std::size_t d = 0; d < R; ++d) {
            if (mask[d]) {
                strides[d] = 0;
                k += Keep ? 1 : 0;
            } else {
                strides[d] = g.strides()[k++];
            }
        }
        return Tensor<T, S>(g.storage(), g.storage_offset(), target, strides);
    }

    template <std::size_t I, class G, class Y, class X, class L>
    auto vjp(const G& g, const Y&, const X&, const L&) const {
        if constexpr (I == 0)
            return fn::reduce<reduction::sum, Keep>(g, std::get<0>(args));
        else
            return fn::no_grad{};
    }
};

/// g with the shape of `like` (a view where g's strides allow, else a copy).
struct reshape_as_op {
    static constexpr const char* name = "reshape_as";
    static constexpr std::array<bool, 2> reads{true, false};
    std::tuple<> args;

    template <class T, class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& like) const {
        using S = like_shape_t<L>;
        return Tensor<T, S>(g.reshape(shape_of_like(like)));
    }

    template <std::size_t I, class G, class Y, class X, class L>
    auto vjp(const G& g, const Y&, const X& x, const L&) const {
        if constexpr (I == 0)
            return fn::reshape_as(g, x);
        else
            return fn::no_grad{};
    }
};

/// numel(x) / numel(y) as a zero-dim tensor of T: how many elements a reduction of x to y folded
/// into each result (0 for an empty y).
template <class T>
struct count_ratio_op {
    static constexpr const char* name = "count_ratio";
    static constexpr std::array<bool, 2> reads{false, false};
    std::tuple<> args;

    template <class X, class Y>
    Tensor<T, shape<>> operator()(const X& x, const Y& y) const {
        const std::int64_t nx = shape_of_like(x).numel();
        const std::int64_t ny = shape_of_like(y).numel();
        Tensor<T, shape<>> out{shape<>{}};
        *out.data() = ny == 0 ? T(0) : static_cast<T>(nx / ny);
        return out;
    }

    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

// The derivatives of the eager functions and views below, in the ops themselves.

/// softmax: y * (g - sum(g * y, dim, keepdim)).
template <class G, class Y, class D, class... Rest>
auto softmax_vjp(const G& g, const Y& y, const D& dim, const Rest&...) {
    return y * (g - sum(g * y, dim, True));
}
/// log_softmax: g - exp(y) * sum(g, dim, keepdim).
template <class G, class Y, class D, class... Rest>
auto log_softmax_vjp(const G& g, const Y& y, const D& dim, const Rest&...) {
    return g - exp(y) * sum(g, dim, True);
}
/// var: 2 (x - mean) g / (N - correction), N the count each result reduced.
template <class G, class Y, class X>
auto var_vjp(const G& g, const Y& y, const X& x) {
    using T = typename X::value_type;
    return 2_c * (x - mean(x)) * g / (fn::count_ratio<T>(x, y) - 1_c);
}
template <class G, class Y, class X, class D, class Keep = std::false_type>
auto var_vjp(const G& g, const Y& y, const X& x, const D& dim, Keep = {}, double correction = 1) {
    using T = typename X::value_type;
    constexpr bool keep = staticpy::detail::keepdim_value<Keep>();
    return 2_c * (x - mean(x, dim, True)) * fn::unreduce<keep>(g, x, dim) /
           (fn::count_ratio<T>(x, y) - correction);
}
/// permute: g permuted by the inverse permutation.
template <class G, class... D>
auto permute_vjp(const G& g, const D&... dims) {
    constexpr std::size_t R = sizeof...(D);
    if constexpr ((is_int_constant_v<D> && ...)) {
        constexpr std::array<long long, R> inverse = [] {
            std::array<long long, R> p{static_cast<long long>(D::value)...};
            std::array<long long, R> inv{};
            for (std::size_t i = 0; i < R; ++i)
                inv[static_cast<std::size_t>(p[i] < 0 ? p[i] + static_cast<long long>(R) : p[i])] =
                    static_cast<long long>(i);
            return inv;
        }();
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return g.permute(int_<inverse[I]>{}...);
        }
        (std::make_index_sequence<R>{});
    } else {
        const std::array<std::int64_t, R> p{static_cast<std::int64_t>(dims)...};
        std::array<std::int64_t, R> inv{};
        for (std::size_t i = 0; i < R; ++i)
            inv[static_cast<std::size_t>(staticpy::detail::wrap_dim(p[i], R))] =
                static_cast<std::int64_t>(i);
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return g.permute(inv[I]...);
        }
        (std::make_index_sequence<R>{});
    }
}
/// The derivative of a view that takes some of x's elements (select, slice, narrow, x[...]): g
/// where the view took them from, zeros elsewhere (op_objects_index.hpp).
template <class View, class G, class X>
auto view_backward(const View& view, const G& g, const X& x);
/// x[i], or x[slice(start, stop, step)] from the slice's bounds (a pack cannot be expanded
/// inside [] before C++23).
template <class X, class... A>
auto subscript(const X& x, const A&... a) {
    if constexpr (sizeof...(A) == 1)
        return x[std::get<0>(std::tie(a...))];
    else
        return x[staticpy::slice(a...)];
}
/// An eager function or method applied with stored arguments. Name is its IR name; Vjp its
/// derivative (see op_objects.hpp), in g, y = Name(x), x and the arguments a...
#define STATICPY_FUNCTION_OP(Name, Call, Vjp)                                                      \
    template <class... A>                                                                          \
    struct Name##_op {                                                                             \
        static constexpr const char* name = #Name;                                                 \
        [[no_unique_address]] std::tuple<A...> args;                                               \
        template <class X>                                                                         \
        auto operator()(const X& x) const {                                                        \
            return std::apply([&](const auto&... a) { return Call; }, args);                       \
        }                                                                                          \
        template <std::size_t I, class G, class Y, class X>                                        \
        auto vjp([[maybe_unused]] const G& g, [[maybe_unused]] const Y& y,                         \
                 [[maybe_unused]] const X& x) const {                                              \
            return std::apply([&]([[maybe_unused]] const auto&... a) { return Vjp; }, args);       \
        }                                                                                          \
    };
STATICPY_FUNCTION_OP(softmax, staticpy::softmax(x, a...), softmax_vjp(g, y, a...))
STATICPY_FUNCTION_OP(log_softmax, staticpy::log_softmax(x, a...), log_softmax_vjp(g, y, a...))
STATICPY_FUNCTION_OP(var, staticpy::var(x, a...), var_vjp(g, y, x, a...))
STATICPY_FUNCTION_OP(argmax, staticpy::argmax(x, a...), fn::no_grad{})
STATICPY_FUNCTION_OP(argmin, staticpy::argmin(x, a...), fn::no_grad{})
STATICPY_FUNCTION_OP(transpose, x.transpose(a...), g.transpose(a...))
STATICPY_FUNCTION_OP(permute, x.permute(a...), permute_vjp(g, a...))
STATICPY_FUNCTION_OP(t, x.t(a...), g.t())
STATICPY_FUNCTION_OP(reshape, x.reshape(a...), fn::reshape_as(g, x))
STATICPY_FUNCTION_OP(view, x.view(a...), fn::reshape_as(g, x))
STATICPY_FUNCTION_OP(flatten, x.flatten(a...), fn::reshape_as(g, x))
STATICPY_FUNCTION_OP(expand, x.expand(a...), fn::sum_to(g, x))
STATICPY_FUNCTION_OP(squeeze, x.squeeze(a...), fn::reshape_as(g, x))
STATICPY_FUNCTION_OP(unsqueeze, x.unsqueeze(a...), fn::reshape_as(g, x))
STATICPY_FUNCTION_OP(contiguous, x.contiguous(a...), g)
STATICPY_FUNCTION_OP(select, x.select(a...), view_backward(*this, g, x))
STATICPY_FUNCTION_OP(slice, x.slice(a...), view_backward(*this, g, x))
STATICPY_FUNCTION_OP(narrow, x.narrow(a...), view_backward(*this, g, x))
STATICPY_FUNCTION_OP(subscript, subscript(x, a...), view_backward(*this, g, x))
#undef STATICPY_FUNCTION_OP

} // namespace detail

namespace fn {

template <class G, class L>
auto sum_to(const G& g, const L& like) {
    return staticpy::detail::apply_op(staticpy::detail::sum_to_op{}, g, like);
}
template <class X, class L>
auto expand_to(const X& x, const L& like) {
    return staticpy::detail::apply_op(staticpy::detail::expand_to_op{}, x, like);
}
template <bool Keep, class G, class L, class Dim>
auto unreduce(const G& g, const L& like, const Dim& dim) {
    return staticpy::detail::apply_op(staticpy::detail::unreduce_op<Dim, Keep>{{dim}}, g, like);
}
template <class G, class L>
auto reshape_as(const G& g, const L& like) {
    return staticpy::detail::apply_op(staticpy::detail::reshape_as_op{}, g, like);
}
template <class T, class X, class Y>
auto count_ratio(const X& x, const Y& y) {
    return staticpy::detail::apply_op(staticpy::detail::count_ratio_op<T>{}, x, y);
}

namespace detail {
/// Reduction R of x over dim, every dim for all_dims (then a zero-dim result, which broadcasts
/// as a keepdim one would).
template <class R, bool Keep, class X, class Dim>
auto reduce_by(const X& x, const Dim& dim) {
    if constexpr (std::is_same_v<Dim, staticpy::detail::all_dims>) {
        if constexpr (R::kind == reduce_kind::sum)
            return sum(x);
        else if constexpr (R::kind == reduce_kind::prod)
            return prod(x);
        else if constexpr (R::kind == reduce_kind::mean)
            return mean(x);
        else if constexpr (R::kind == reduce_kind::amax)
            return max(x);
        else
            return min(x);
    } else {
        constexpr std::bool_constant<Keep> keep{};
        if constexpr (R::kind == reduce_kind::sum)
            return sum(x, dim, keep);
        else if constexpr (R::kind == reduce_kind::prod)
            return prod(x, dim, keep);
        else if constexpr (R::kind == reduce_kind::mean)
            return mean(x, dim, keep);
        else if constexpr (R::kind == reduce_kind::amax)
            return amax(x, dim, keep);
        else
            return amin(x, dim, keep);
    }
}
} // namespace detail

template <class R, bool Keep, class X, class Dim>
auto reduce(const X& x, const Dim& dim) {
    return detail::reduce_by<R, Keep>(x, dim);
}

} // namespace fn

} // namespace staticpy
