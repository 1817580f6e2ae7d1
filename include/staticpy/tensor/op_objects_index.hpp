#pragma once
// The indexing and joining ops as op objects (op_objects.hpp): each runs eagerly on tensors, as an
// opaque node on traced values and as a recorded op on the tape, with PyTorch's derivative
// (derivatives.yaml), written in these same ops:
//
//   op                                       derivative for x (the index never has one)
//   x.select(d, i), x[i], x.slice(...),      g where the view took x's elements from, zeros
//   x.narrow(...), x[slice(...)]             elsewhere (select_backward, slice_backward, ...)
//   index_select(x, d, index)                index_add of g onto zeros of x's shape
//   gather(x, d, index)                      scatter_add of g onto zeros of x's shape
//   scatter_add(x, d, index, src)            x: g; src: gather(g, d, index), zero-padded to src
//   index_add(x, d, index, source, alpha)    x: g; source: alpha * index_select(g, d, index)
//   select_scatter(x, src, d, i),            x: g with the view's elements zeroed; src: the
//   slice_scatter(x, src, d, a, b, c)        view of g
//   cat(xs, d)                               each x: its slab of g along d (a view)
//   stack(xs, d)                             each x: g.select(d, k)
//   one_hot(index, n)                        none (an integer result)
//   max(x, d), min(x, d), topk(x, k, d),     the values are gather(x, d, indices) of indices
//   sort(x, d)                               computed from detach(x): g scattered onto zeros at
//                                            the indices (value_selecting_reduction_backward)
//
// The free functions below take traced or recorded values (the eager ones, on tensors only, are
// in ops_index.hpp and ops_join.hpp); cat and stack take a std::tuple or staticpy list of them,
// each element one operand of the op. The methods x.select, x.slice, x.narrow and x[...] of
// Tracer and Var are the view op objects (their view lists).
//
//   auto picked = gather(log_softmax(logits, 1_c), 1_c, labels);   // traced or recorded alike
//   auto both = cat(std::tuple{x[0], x.slice(0_c, 1, 3)}, 0_c);

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/containers/slice.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/op_objects.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/ops_index.hpp"
#include "staticpy/tensor/ops_join.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/ops_sort.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

template <class... Ts>
class list;

namespace detail {

/// What an op that adds onto its first operand starts from, as a tensor of its own with element
/// type T: a copy of that operand, or zeros of its shape on `device` (FromZeros: a derivative's,
/// which reads only the operand's shape).
template <class T, bool FromZeros, class L>
auto onto_start(const L& self, const Device& device) {
    if constexpr (FromZeros)
        return zeros<T>(shape_of_like(self), device);
    else
        return self.clone();
}

/// View's name followed by Suffix::text, as a static string ("select" + "_backward"): the names
/// of the ops derived from a view.
template <class View, class Suffix>
inline constexpr auto suffixed_name = [] {
    constexpr std::string_view view = View::name, suffix = Suffix::text;
    std::array<char, view.size() + suffix.size() + 1> text{};
    std::copy(view.begin(), view.end(), text.begin());
    std::copy(suffix.begin(), suffix.end(), text.begin() + view.size());
    return text;
}();
struct backward_suffix {
    static constexpr std::string_view text = "_backward";
};
struct scatter_suffix {
    static constexpr std::string_view text = "_scatter";
};

/// The derivative of a view that takes some of x's elements (View: select_op, slice_op, ...): g
/// where the view took its elements from, zeros elsewhere (PyTorch's select_backward,
/// slice_backward). Operand 1 is x, of which only the shape is read.
template <class View>
struct view_backward_op {
    static constexpr const char* name =
        suffixed_name<View, backward_suffix>.data(); // "<view>_backward"
    static constexpr bool eager_on_cuda = true;
    static constexpr std::array<bool, 2> reads{true, false};
    [[no_unique_address]] decltype(View::args) args;

    template <class T, class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& like) const {
        using S = like_shape_t<L>;
        return index_ops::scatter_into_view(
            zeros<T>(shape_of_like(like), g.device()), g,
            [&](const Tensor<T, S>& out) { return View{args}(out); });
    }

    template <std::size_t I, class GG, class Y, class G, class L>
    auto vjp(const GG& gg, const Y&, const G&, const L&) const {
        if constexpr (I == 0)
            return apply_op(View{args}, gg);
        else
            return fn::no_grad{};
    }
};

template <class View, class G, class X>
auto view_backward(const View& view, const G& g, const X& x) {
    return apply_op(view_backward_op<View>{view.args}, g, x);
}

/// select_scatter(x, src, dim, index) and slice_scatter(x, src, dim, start, end, step) (View:
/// select_op, slice_op, whose arguments these take): a copy of x with the view's elements replaced
/// by src's. Their derivatives are PyTorch's: for x, g with the view's elements zeroed (g
/// scattered over by zeros); for src, the view of g.
template <class View>
struct view_scatter_op {
    static constexpr const char* name =
        suffixed_name<View, scatter_suffix>.data(); // "<view>_scatter"
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] decltype(View::args) args;

    template <class T, class S, class U, class S2>
    auto operator()(const Tensor<T, S>& x, const Tensor<U, S2>& src) const {
        return index_ops::scatter_into_view(
            x.clone(), src, [&](const Tensor<T, S>& out) { return View{args}(out); });
    }

    template <std::size_t I, class G, class Y, class X, class Src>
    auto vjp(const G& g, const Y&, const X&, const Src& src) const {
        if constexpr (I == 0)
            return apply_op(view_scatter_op{args}, g, fn::call<fn::zeros_like>(src));
        else
            return fn::sum_to(apply_op(View{args}, g), src);
    }
};

/// The op of x[i] or x[slice(a, b, c)]; a slice is kept as its bounds, which graph nodes compare.
inline subscript_op<std::int64_t> subscript_op_of(std::int64_t index) {
    return {{index}};
}
template <class Start, class Stop, class Step>
subscript_op<Start, Stop, Step> subscript_op_of(const slice_t<Start, Stop, Step>& s) {
    return {{s.start, s.stop, s.step}};
}

/// t's elements at the same positions in a zero tensor of shape s, which t's sizes do not exceed
/// (the ranks may differ by a zero-dim against a one-element dim, as gather's allow); t itself
/// when its sizes are s's.
template <class T, class S0, class S>
Tensor<T, S> padded_to(const Tensor<T, S0>& t, const S& s) {
    if constexpr (S0::rank == S::rank) {
        if (t.sizes() == s.sizes())
            return Tensor<T, S>(t.storage(), t.storage_offset(), s, t.strides());
    }
    Tensor<T, S> out = zeros<T>(s, t.device());
    if constexpr (S0::rank == S::rank) {
        if (t.is_cuda()) { // t's elements into the view of out's leading corner of t's sizes
            Tensor<T, S0>(out.storage(), out.storage_offset(), t.shape(), out.strides()).copy_(t);
            return out;
        }
    }
    const auto from = index_ops::nonempty_layout(t);
    const auto to = index_ops::nonempty_layout(out);
    T* q = out.data();
    const T* p = t.data();
    for_each_offset2(from.sizes, 0, to.strides, 0, from.strides,
                     [&](std::int64_t a, std::int64_t b) { q[a] = p[b]; });
    return out;
}

template <class D, bool FromZeros = false>
struct scatter_add_op;
template <class D, class Alpha, bool FromZeros = false>
struct index_add_op;

/// gather(x, dim, index); Padded: the result zero-padded to the shape of a third operand, of
/// which only the shape is read (scatter_add's derivative for a src larger than its index).
template <class D, bool Padded = false>
struct gather_op {
    static constexpr const char* name = Padded ? "gather_padded" : "gather";
    static constexpr bool eager_on_cuda = true;
    static constexpr auto reads = [] {
        std::array<bool, Padded ? 3 : 2> r{};
        r[0] = r[1] = true;
        return r;
    }();
    [[no_unique_address]] std::tuple<D> args;

    template <class X, class I, class... L>
    auto operator()(const X& x, const I& index, const L&... like) const {
        auto picked = staticpy::gather(x, std::get<0>(args), index);
        if constexpr (Padded)
            return padded_to(picked, shape_of_like(like)...);
        else
            return picked;
    }

    template <std::size_t K, class G, class Y, class X, class I, class... L>
    auto vjp(const G& g, const Y&, const X& x, const I& index, const L&...) const {
        if constexpr (K == 0)
            return apply_op(scatter_add_op<D, true>{args}, x, index, g);
        else
            return fn::no_grad{};
    }
};

/// scatter_add(self, dim, index, src); FromZeros: onto zeros of self's shape, self's values not
/// read (gather's derivative, PyTorch's gather_backward).
template <class D, bool FromZeros>
struct scatter_add_op {
    static constexpr const char* name = FromZeros ? "gather_backward" : "scatter_add";
    static constexpr bool eager_on_cuda = true;
    static constexpr std::array<bool, 3> reads{!FromZeros, true, true};
    [[no_unique_address]] std::tuple<D> args;

    template <class L, class I, class SI, class U, class S2>
    auto operator()(const L& self, const Tensor<I, SI>& index, const Tensor<U, S2>& src) const {
        return index_ops::scatter_add_onto(onto_start<U, FromZeros>(self, index.device()),
                                           std::get<0>(args), index, src);
    }

    template <std::size_t K, class G, class Y, class X, class I, class Src>
    auto vjp(const G& g, const Y&, const X&, const I& index, const Src& src) const {
        if constexpr (K == 0 && !FromZeros)
            return g;
        else if constexpr (K == 2)
            return apply_op(gather_op<D, true>{args}, g, index, src);
        else
            return fn::no_grad{};
    }
};

/// index_select(x, dim, index).
template <class D>
struct index_select_op {
    static constexpr const char* name = "index_select";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] std::tuple<D> args;

    template <class X, class I>
    auto operator()(const X& x, const I& index) const {
        return staticpy::index_select(x, std::get<0>(args), index);
    }

    template <std::size_t K, class G, class Y, class X, class I>
    auto vjp(const G& g, const Y&, const X& x, const I& index) const {
        if constexpr (K == 0)
            return apply_op(index_add_op<D, int_<1>, true>{{std::get<0>(args), {}}}, x, index, g);
        else
            return fn::no_grad{};
    }
};

/// index_add(self, dim, index, source, alpha); FromZeros: onto zeros of self's shape, self's
/// values not read (index_select's derivative, PyTorch's index_select_backward).
template <class D, class Alpha, bool FromZeros>
struct index_add_op {
    static constexpr const char* name = FromZeros ? "index_select_backward" : "index_add";
    static constexpr bool eager_on_cuda = true;
    static constexpr std::array<bool, 3> reads{!FromZeros, true, true};
    [[no_unique_address]] std::tuple<D, Alpha> args;

    template <class L, class I, class SI, class U, class S2>
    auto operator()(const L& self, const Tensor<I, SI>& index, const Tensor<U, S2>& source) const {
        return index_ops::index_add_onto(onto_start<U, FromZeros>(self, index.device()),
                                         std::get<0>(args), index, source, std::get<1>(args));
    }

    template <std::size_t K, class G, class Y, class X, class I, class Src>
    auto vjp(const G& g, const Y&, const X&, const I& index, const Src& source) const {
        if constexpr (K == 0 && !FromZeros) {
            return g;
        } else if constexpr (K == 2) {
            const auto picked = apply_op(index_select_op<D>{{std::get<0>(args)}}, g, index);
            // source may be broadcast along the dims where it has size 1 (or be a zero-dim one
            // against a one-element dim): its gradient is summed, or reshaped, back to it.
            const auto scaled = [&] {
                if constexpr (std::is_same_v<Alpha, int_<1>>)
                    return picked;
                else
                    return picked * std::get<1>(args);
            }();
            if constexpr (G::rank < Src::rank)
                return fn::reshape_as(scaled, source);
            else
                return fn::sum_to(scaled, source);
        } else {
            return fn::no_grad{};
        }
    }
};

template <class D>
struct cat_op;

/// Part K of N of cat's result g: the slab along dim that cat's operand K filled, a view with that
/// operand's shape type. Operands: g, then cat's N operands, of which only the shapes are read.
template <class D, std::size_t K, std::size_t N>
struct cat_part_op {
    static constexpr const char* name = "cat_part";
    static constexpr bool eager_on_cuda = true;
    static constexpr auto reads = [] {
        std::array<bool, N + 1> r{};
        r[0] = true;
        return r;
    }();
    [[no_unique_address]] std::tuple<D> args;

    template <class T, class SG, class... L>
    auto operator()(const Tensor<T, SG>& g, const L&... parts) const {
        const std::size_t d = index_ops::resolve_dim<SG::rank>(std::get<0>(args));
        const std::array<std::int64_t, N> extents{shape_of_like(parts).sizes()[d]...};
        std::int64_t offset = 0;
        for (std::size_t k = 0; k < K; ++k)
            offset += extents[k];
        const auto& s = shape_of_like(std::get<K>(std::tie(parts...)));
        return Tensor<T, std::remove_cvref_t<decltype(s)>>(
            g.storage(), g.storage_offset() + offset * g.strides()[d], s, g.strides());
    }

    template <std::size_t I, class GG, class Y, class G, class... L>
    auto vjp(const GG& gg, const Y&, const G&, const L&... parts) const {
        if constexpr (I == 0) {
            // gg in part K's place, zeros in the others'.
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                return apply_op(cat_op<D>{args}, [&]() {
                    if constexpr (J == K)
                        return gg;
                    else
                        return fn::call<fn::zeros_like>(std::get<J>(std::tie(parts...)));
                }()...);
            }
            (std::index_sequence_for<L...>{});
        } else {
            return fn::no_grad{};
        }
    }
};

/// cat(operands, dim), one operand per tensor.
template <class D>
struct cat_op {
    static constexpr const char* name = "cat";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] std::tuple<D> args;

    template <class... X>
    auto operator()(const X&... xs) const {
        return staticpy::cat(std::forward_as_tuple(xs...), std::get<0>(args));
    }

    template <std::size_t K, class G, class Y, class... X>
    auto vjp(const G& g, const Y&, const X&... xs) const {
        return apply_op(cat_part_op<D, K, sizeof...(X)>{args}, g, xs...);
    }
};

/// stack(operands, dim), one operand per tensor.
template <class D>
struct stack_op {
    static constexpr const char* name = "stack";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] std::tuple<D> args;

    template <class... X>
    auto operator()(const X&... xs) const {
        return staticpy::stack(std::forward_as_tuple(xs...), std::get<0>(args));
    }

    template <std::size_t K, class G, class Y, class... X>
    auto vjp(const G& g, const Y&, const X&...) const {
        return apply_op(select_op<D, std::int64_t>{{std::get<0>(args), std::int64_t{K}}}, g);
    }
};

/// one_hot(index, num_classes): an integer result, so no derivative.
template <class C>
struct one_hot_op {
    static constexpr const char* name = "one_hot";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] std::tuple<C> args;

    template <class I>
    auto operator()(const I& index) const {
        return staticpy::one_hot(index, std::get<0>(args));
    }

    template <std::size_t K, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

/// The indices of topk(x, k, dim, largest, sorted) (ops_sort.hpp): what topk on traced or
/// recorded values gathers its values at. An integer result, so no derivative.
template <class K, class D>
struct topk_indices_op {
    static constexpr const char* name = "topk_indices";
    [[no_unique_address]] std::tuple<K, D, bool, bool> args;

    template <class X>
    auto operator()(const X& x) const {
        return staticpy::topk(x, std::get<0>(args), std::get<1>(args), std::get<2>(args),
                              std::get<3>(args))
            .indices;
    }

    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

/// argsort(x, dim, descending, stable): sort's indices, what sort on traced or recorded values
/// gathers its values at.
template <class D>
struct argsort_op {
    static constexpr const char* name = "argsort";
    [[no_unique_address]] std::tuple<D, bool, bool> args;

    template <class X>
    auto operator()(const X& x) const {
        return staticpy::argsort(x, std::get<0>(args), std::get<1>(args), std::get<2>(args));
    }

    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

/// Whether any argument is a traced or recorded value: then the functions below, not the eager
/// ones, take the arguments.
template <class... X>
concept any_symbolic = (is_symbolic_arg_v<X> || ...);

/// A std::tuple or staticpy list of tensors and traced or recorded values, at least one of the
/// latter: what cat and stack take as operands of their op objects.
template <class Seq>
struct symbolic_sequence : std::false_type {};
template <class... X>
struct symbolic_sequence<std::tuple<X...>>
    : std::bool_constant<any_symbolic<X...> &&
                         ((is_tensor_v<std::remove_cvref_t<X>> || is_symbolic_arg_v<X>)&&...)> {};
template <class... X>
struct symbolic_sequence<list<X...>> : symbolic_sequence<std::tuple<X...>> {};
template <class Seq>
concept symbolic_tensors_argument = symbolic_sequence<Seq>::value;

/// op applied to the elements of a std::tuple or staticpy list.
template <class Op, class... X>
auto apply_op_to_sequence(const Op& op, const std::tuple<X...>& xs) {
    return std::apply([&](const auto&... x) { return apply_op(op, x...); }, xs);
}
template <class Op, class... X>
auto apply_op_to_sequence(const Op& op, const list<X...>& xs) {
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return apply_op(op, xs.template at<K>()...);
    }
    (std::index_sequence_for<X...>{});
}

} // namespace detail

// ---- on traced or recorded values ------------------------------------------------------------

/// index_select, gather, scatter_add, index_add, select_scatter, slice_scatter and one_hot with a
/// traced or recorded operand: their op objects (the eager functions' semantics and errors,
/// ops_index.hpp).
template <class X, detail::dim_argument D, class I>
requires detail::any_symbolic<X, I>
auto index_select(const X& x, D dim, const I& index) {
    return detail::apply_op(detail::index_select_op<D>{{dim}}, x, index);
}
template <class X, detail::dim_argument D, class I>
requires detail::any_symbolic<X, I>
auto gather(const X& x, D dim, const I& index) {
    return detail::apply_op(detail::gather_op<D>{{dim}}, x, index);
}
template <class X, detail::dim_argument D, class I, class Src>
requires detail::any_symbolic<X, I, Src>
auto scatter_add(const X& x, D dim, const I& index, const Src& src) {
    return detail::apply_op(detail::scatter_add_op<D>{{dim}}, x, index, src);
}
template <class X, detail::dim_argument D, class I, class Src, class Alpha = int_<1>>
requires detail::any_symbolic<X, I, Src>
auto index_add(const X& x, D dim, const I& index, const Src& source, Alpha alpha = {}) {
    return detail::apply_op(detail::index_add_op<D, Alpha>{{dim, alpha}}, x, index, source);
}
template <class X, class Src, detail::dim_argument D>
requires detail::any_symbolic<X, Src>
auto select_scatter(const X& x, const Src& src, D dim, std::int64_t index) {
    using view = detail::select_op<D, std::int64_t>;
    return detail::apply_op(detail::view_scatter_op<view>{{dim, index}}, x, src);
}
template <class X, class Src, detail::dim_argument D = int_<0>, class Start = none_t,
          class Stop = none_t, class Step = int_<1>>
requires detail::any_symbolic<X, Src>
auto slice_scatter(const X& x, const Src& src, D dim = {}, Start start = {}, Stop stop = {},
                   Step step = {}) {
    using view = detail::slice_op<D, Start, Stop, Step>;
    return detail::apply_op(detail::view_scatter_op<view>{{dim, start, stop, step}}, x, src);
}
template <class I, class C = int_<-1>>
requires detail::any_symbolic<I> && detail::dim_argument<C>
auto one_hot(const I& index, C num_classes = {}) {
    return detail::apply_op(detail::one_hot_op<C>{{num_classes}}, index);
}

namespace detail {
/// The values of x at `indices` along dim, and the indices: how the ops that select values and
/// give their indices (max and min along a dim, topk, sort) run on traced or recorded values. The
/// indices are computed from x's value outside what is differentiated (detach: on the tape, x's
/// tensor; traced, a stop_gradient node), and the values gathered from x at them, so that the
/// gradient of each value goes to the element it was read from, zeros elsewhere (gather's
/// derivative, a scatter onto zeros: PyTorch's value_selecting_reduction_backward), and the
/// derivative of that is gather again (second derivatives).
template <class X, class D, class I>
auto select_along(const X& x, D dim, const I& indices) {
    auto values = gather(x, dim, indices);
    return values_indices<decltype(values), I>{std::move(values), indices};
}

/// max(x, dim) (Max) or min(x, dim): the indices of the first extremum (the first NaN, as the
/// eager kernel's), kept as a dim of 1 to gather with, then squeezed unless Keep.
template <bool Max, bool Keep, class X, class D>
auto extremum_along(const X& x, D dim) {
    const auto kept = [&] {
        if constexpr (Max)
            return argmax(detach(x), dim, True);
        else
            return argmin(detach(x), dim, True);
    }();
    if constexpr (Keep) {
        return select_along(x, dim, kept);
    } else {
        auto values = gather(x, dim, kept).squeeze(dim);
        auto indices = kept.squeeze(dim);
        return values_indices<decltype(values), decltype(indices)>{std::move(values),
                                                                   std::move(indices)};
    }
}
} // namespace detail

/// torch.max(x, dim, keepdim) / torch.min(x, dim, keepdim) on a traced or recorded x: values and
/// indices (int64: a tensor on the tape, a traced value in a graph), the values differentiable as
/// PyTorch's (the gradient goes to the element at each index).
///   auto [values, indices] = max(x, 1_c);   // x a Var or Tracer
template <class X, detail::dim_argument D, class Keep = std::false_type>
requires detail::any_symbolic<X>
auto max(const X& x, D dim, Keep = {}) {
    return detail::extremum_along<true, detail::keepdim_value<Keep>()>(x, dim);
}
template <class X, detail::dim_argument D, class Keep = std::false_type>
requires detail::any_symbolic<X>
auto min(const X& x, D dim, Keep = {}) {
    return detail::extremum_along<false, detail::keepdim_value<Keep>()>(x, dim);
}

/// topk, sort and argsort of a traced or recorded x: the eager ops' indices (ops_sort.hpp), and
/// for topk and sort the values gathered at them, differentiable as PyTorch's (the gradient of
/// each value goes to the element it came from).
///   auto [top, at] = topk(x, 2_c, 1_c);     auto [sorted, order] = sort(x, -1_c, true);
template <class X, class K, detail::dim_argument D = int_<-1>>
requires detail::any_symbolic<X> && detail::is_extent_argument_v<K>
auto topk(const X& x, K k, D dim = {}, bool largest = true, bool sorted = true) {
    return detail::select_along(
        x, dim,
        detail::apply_op(detail::topk_indices_op<K, D>{{k, dim, largest, sorted}}, detach(x)));
}
template <class X, detail::dim_argument D = int_<-1>>
requires detail::any_symbolic<X>
auto sort(const X& x, D dim = {}, bool descending = false, bool stable = false) {
    return detail::select_along(
        x, dim, detail::apply_op(detail::argsort_op<D>{{dim, descending, stable}}, detach(x)));
}
template <class X, detail::dim_argument D = int_<-1>>
requires detail::any_symbolic<X>
auto argsort(const X& x, D dim = {}, bool descending = false, bool stable = false) {
    return detail::apply_op(detail::argsort_op<D>{{dim, descending, stable}}, detach(x));
}

/// cat and stack of a std::tuple or staticpy list with traced or recorded elements (tensors
/// among them are constants): one op with an operand per element.
///   auto y = cat(std::tuple{x, x * 2.0f}, -1_c);
template <class Seq, detail::dim_argument D>
requires detail::symbolic_tensors_argument<Seq>
auto cat(const Seq& tensors, D dim) {
    return detail::apply_op_to_sequence(detail::cat_op<D>{{dim}}, tensors);
}
template <class Seq, detail::dim_argument D>
requires detail::symbolic_tensors_argument<Seq>
auto stack(const Seq& tensors, D dim) {
    return detail::apply_op_to_sequence(detail::stack_op<D>{{dim}}, tensors);
}

} // namespace staticpy
