#pragma once
// staticpy::grad, value_and_grad and vjp: JAX's and MindSpore's functional autodiff.
//
//   auto loss = [](auto w, auto x) { return (matmul(x, w) - 1.0f).square().mean(); };
//   auto dw = staticpy::grad(loss)(w, x);                          // d loss / d w, w's shape
//   auto [value, grads] = staticpy::value_and_grad(loss, std::tuple{0_c, 1_c})(w, x);
//   auto step = staticpy::jit(staticpy::value_and_grad(loss));    // forward + backward, one graph
//
// In GRAPH_MODE (the default) a call traces the function, derives the backward graph from the
// forward graph's type at compile time (graph/autodiff.hpp), and evaluates both as one fused
// graph. Inside a traced function (jit(grad(f)), grad(grad(f))) it differentiates the trace
// itself. argnums (0_c by default, or a std::tuple of them) picks the arguments; a gradient has
// the structure of its argument: a tensor, a std::tuple, a staticpy list, or a staticpy dict of
// tensors giving a dict with the same keys.
//
// This header joins autodiff to jit, so it sits with jit.hpp, above the graph and backend layers.

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/indexed.hpp"
#include "staticpy/graph/autodiff.hpp"
#include "staticpy/graph/trace.hpp"
#include "staticpy/jit.hpp"
#include "staticpy/tensor/autograd.hpp"

namespace staticpy {

namespace detail {

/// argnums: one compile-time int (the gradient alone) or a std::tuple of them (a tuple of
/// gradients).
template <class A>
struct argnums_spec {
    static_assert(
        always_false<A>,
        "staticpy: TypeError: argnums must be a compile-time int (0_c) or a std::tuple of "
        "them (std::tuple{0_c, 1_c})");
};
template <long long N>
struct argnums_spec<int_<N>> {
    static constexpr bool single = true;
    static constexpr std::array<std::size_t, 1> values{static_cast<std::size_t>(N)};
    static_assert(N >= 0, "staticpy: ValueError: argnums must be non-negative");
};
template <long long... N>
struct argnums_spec<std::tuple<int_<N>...>> {
    static constexpr bool single = false;
    static constexpr std::array<std::size_t, sizeof...(N)> values{static_cast<std::size_t>(N)...};
    static_assert(((N >= 0) && ...), "staticpy: ValueError: argnums must be non-negative");
};

template <class X>
struct is_var_leaf : std::bool_constant<is_var_v<X>> {};
/// What a grad on the tape differentiates against: tensors, C++ floats, or an outer grad's Vars.
template <class X>
struct is_eager_leaf
    : std::bool_constant<is_tensor_v<X> || is_var_v<X> || std::is_floating_point_v<X>> {};

/// The dtype a C++ float F takes in a graph (a Python float's: the default dtype), and so
/// the 0-dim tensor it is differentiated as in both modes, and its gradient's.
template <class F>
using float_argument_t = typename graph::ew<fn::grad_input<void, 0>, graph::scalar<F>>::value_type;

/// The tape's rule of an identity: the cotangent passes on as it is.
struct identity_rule {
    template <class I, class G, class Out, class X>
    G operator()(I, const G& g, const Out&, const X&) const {
        return g;
    }
};

/// A tape grad's input made of an outer grad's Var x (grad(grad(f))): a recorded
/// identity of x, through which the outer grad's cotangents pass on, or a leaf of its own when x
/// is not recorded.
template <class T, class S>
Var<T, S> nested_input(const Var<T, S>& x) {
    if (x.node) {
        auto identity = record(Tensor<T, S>(x.value), identity_rule{}, x);
        if (identity.node)
            return identity;
    }
    return autograd::leaf(x.value);
}

template <class X>
inline constexpr std::size_t tracer_leaves_v =
    graph::leaf_count<graph::is_tracer_leaf, std::remove_cvref_t<X>>::value;

/// A Tensor<T, S> of node C's value, for results whose shape type must be S (a gradient has its
/// argument's): a view, no copy.
template <class S>
struct retype_op {
    static constexpr const char* name = "as_shape";
    /// A view: it runs as it is on a GPU's tensors too (the CUDA evaluator).
    static constexpr bool eager_on_cuda = true;
    std::tuple<> args;
    template <class T, class S0>
    Tensor<T, S> operator()(const Tensor<T, S0>& x) const {
        return Tensor<T, S>(x);
    }
    template <std::size_t I, class G, class Y, class X>
    auto vjp(const G& g, const Y&, const X& x) const {
        return fn::reshape_as(g, x);
    }
};

/// The argnums of every argument: 0_c for one, std::tuple{0_c, 1_c, ...} for more.
template <std::size_t... I>
auto every_argnum(std::index_sequence<I...>) {
    if constexpr (sizeof...(I) == 1)
        return int_<0>{};
    else
        return std::tuple{int_<static_cast<long long>(I)>{}...};
}

/// vjp's pullback: the cotangent given for an output must have its sizes (PyTorch's text).
template <class CS, class OS>
void check_cotangent_shape(const CS& cotangent, const OS& output) {
    if constexpr (CS::rank != OS::rank) {
        static_assert(CS::rank == OS::rank, "staticpy: RuntimeError: Mismatch in shape: the "
                                            "cotangent must have the output's shape");
    } else if (!(cotangent == output)) {
        std::string text = "Mismatch in shape: grad_output[0] has a shape of torch.";
        cotangent.repr_into(text);
        text += " and output[0] has a shape of torch.";
        output.repr_into(text);
        text += ".";
        throw RuntimeError(text);
    }
}

/// The seed of vjp's backward graph: the cotangent (operand 0) checked against the output's
/// shape (operand 1, of which only the shape is read) and cast to the output's dtype T.
template <class T, class S>
struct cotangent_seed_op {
    static constexpr const char* name = "cotangent";
    static constexpr std::array<bool, 2> reads{true, false};
    std::tuple<> args;
    template <class U, class SC>
    Tensor<T, S> operator()(const Tensor<U, SC>& cotangent, const S& output) const {
        check_cotangent_shape(cotangent.shape(), output);
        if constexpr (SC::rank != S::rank)
            return Tensor<T, S>(); // not compiled: check_cotangent_shape's static_assert fails
        else if constexpr (std::is_same_v<U, T>)
            return Tensor<T, S>(cotangent);
        else
            return Tensor<T, S>(cast<T>(cotangent));
    }
    template <std::size_t I, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

} // namespace detail

/// What grad, value_and_grad and vjp return: a function of the same arguments as f that returns
/// the gradients (and f's value when WithValue). Seeded (vjp's pullback) takes one argument more,
/// last: the cotangent of f's output, which then need not be a scalar.
template <class F, class Argnums, bool HasAux, bool WithValue, bool Seeded = false>
class grad_function {
    using spec = detail::argnums_spec<Argnums>;

public:
    explicit grad_function(F f) : f_(std::move(f)) {}

    template <class... Args>
    auto operator()(const Args&... args) const {
        static_assert(argnums_in_range<sizeof...(Args) - Seeded>(),
                      "staticpy: IndexError: argnums refers to an argument the function is not "
                      "given");
        if constexpr (((detail::tracer_leaves_v<Args> != 0) || ...))
            return traced_call(args...);
        else if constexpr (nested_call<Args...>) // an outer grad's Vars: the tape
            return eager_call(args...);
        else
            return jit([this](const auto&... a) { return this->dispatch(a...); })(args...);
    }

    const F& function() const { return f_; }

private:
    F f_;

    template <class... Args>
    auto dispatch(const Args&... args) const {
        if constexpr (((detail::tracer_leaves_v<Args> != 0) || ...))
            return traced_call(args...);
        else
            return eager_call(args...);
    }

    template <std::size_t NumArgs>
    static constexpr bool argnums_in_range() {
        for (std::size_t a : spec::values)
            if (a >= NumArgs)
                return false;
        return true;
    }

    /// What is differentiated of f's result: the result, or with has_aux its first element.
    template <class Out>
    static const auto& output_of(const Out& out) {
        if constexpr (HasAux) {
            static_assert(traits::is_std_tuple_v<Out>,
                          "staticpy: TypeError: with has_aux, the function must return a "
                          "std::tuple (output, aux)");
            return std::get<0>(out);
        } else {
            return out;
        }
    }

    /// The first differentiated leaf of each selected argument.
    template <class... Args>
    static constexpr std::array<std::size_t, spec::values.size() + 1> leaf_bases() {
        constexpr std::array<std::size_t, sizeof...(Args)> counts{detail::tracer_leaves_v<Args>...};
        std::array<std::size_t, spec::values.size() + 1> b{};
        for (std::size_t p = 0; p < spec::values.size(); ++p)
            b[p + 1] = b[p] + counts[spec::values[p]];
        return b;
    }

    template <class... Args>
    auto traced_call(const Args&... args) const {
        static_assert(argnums_in_range<sizeof...(Args) - Seeded>(),
                      "staticpy: IndexError: argnums refers to an argument the function is not "
                      "given");
        constexpr auto bases = leaf_bases<Args...>();
        // The selected arguments, their tensors marked as what backprop differentiates against.
        const auto marked = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::tuple{mark<I>(args...)...};
        }
        (std::index_sequence_for<Args...>{});
        const auto out = call_f(marked);
        const auto& loss = output_of(out);
        using loss_t = std::remove_cvref_t<decltype(loss)>;
        static_assert(is_tracer_v<loss_t>,
                      "staticpy: TypeError: grad: the function must return a tensor computed from "
                      "its differentiated arguments");
        using T = typename loss_t::value_type;
        static_assert(std::is_floating_point_v<T>,
                      "staticpy: RuntimeError: grad requires a floating-point output (the "
                      "function returned an integer or bool tensor)");
        static_assert(Seeded || loss_t::rank == 0,
                      "staticpy: RuntimeError: grad can be implicitly created only for scalar "
                      "outputs");
        const auto cts =
            graph::backprop<grad_function, bases.back()>(loss.node, seed_of(loss, args...));
        auto grads = [&]<std::size_t... P>(std::index_sequence<P...>) {
            return std::tuple{gradients_of<bases[P]>(
                std::get<spec::values[P]>(std::tuple<const Args&...>(args...)), cts)...};
        }
        (std::make_index_sequence<spec::values.size()>{});
        auto result = [&] {
            if constexpr (spec::single)
                return std::get<0>(std::move(grads));
            else
                return grads;
        }();
        if constexpr (WithValue)
            return std::tuple{out, std::move(result)};
        else
            return result;
    }

    /// f applied to the arguments (without vjp's cotangent, the last); a float that is not
    /// differentiated is given as its value where f's parameter is a number (`double lr`), as
    /// jit gives it (graph::call_traced).
    template <class Tuple>
    auto call_f(const Tuple& args) const {
        constexpr std::size_t n = std::tuple_size_v<Tuple> - Seeded;
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return graph::call_traced(
                f_, std::tuple<const std::tuple_element_t<I, Tuple>&...>(std::get<I>(args)...));
        }
        (std::make_index_sequence<n>{});
    }

    /// The backward graph's seed: d loss / d loss = 1, as a compile-time constant (a node without
    /// run-time attributes, so the forward nodes the backward graph names merge with the
    /// forward's); or vjp's cotangent, the last argument.
    template <class Loss, class... Args>
    static auto seed_of(const Loss& loss, const Args&... args) {
        using T = typename Loss::value_type;
        if constexpr (Seeded) {
            const auto& ct = std::get<sizeof...(Args) - 1>(std::tuple<const Args&...>(args...));
            static_assert(is_tracer_v<std::remove_cvref_t<decltype(ct)>>,
                          "staticpy: TypeError: vjp: the cotangent must be a tensor");
            using op = detail::cotangent_seed_op<T, typename Loss::shape_type>;
            return graph::opaque<op, typename std::remove_cvref_t<decltype(ct)>::node_type,
                                 typename Loss::node_type>{{ct.node, loss.node}, op{}};
        } else {
            return graph::ew<fn::cast<T>, graph::constant<int_<1>>>{{graph::constant<int_<1>>{}}};
        }
    }

    /// Argument I: its tensors wrapped in grad_input markers when it is selected.
    template <std::size_t I, class... Args>
    auto mark(const Args&... args) const {
        const auto& arg = std::get<I>(std::tuple<const Args&...>(args...));
        constexpr std::size_t p = [] {
            for (std::size_t q = 0; q < spec::values.size(); ++q)
                if (spec::values[q] == I)
                    return q;
            return spec::values.size();
        }();
        if constexpr (p == spec::values.size()) {
            return arg;
        } else {
            using A = std::remove_cvref_t<decltype(arg)>;
            static_assert(detail::tracer_leaves_v<A> != 0,
                          "staticpy: TypeError: grad: a differentiated argument must be a tensor, "
                          "a float or a container of them");
            constexpr std::size_t base = leaf_bases<Args...>()[p];
            return detail::map_leaves<graph::is_tracer_leaf, base>(arg, [](auto k, const auto& t) {
                using N = typename std::remove_cvref_t<decltype(t)>::node_type;
                static_assert(std::is_floating_point_v<typename N::value_type>,
                              "staticpy: RuntimeError: only Tensors of floating point dtype can "
                              "require gradients");
                return graph::traced(graph::ew<fn::grad_input<grad_function, k()>, N>{{t.node}});
            });
        }
    }

    /// The gradients of an argument (first leaf Base), in its structure: each tensor's
    /// cotangent, zeros where the output does not depend on it.
    template <std::size_t Base, class A, class CTs>
    static auto gradients_of(const A& arg, const CTs& cts) {
        return detail::map_leaves<graph::is_tracer_leaf, Base>(arg, [&](auto k, const auto& t) {
            using N = typename std::remove_cvref_t<decltype(t)>::node_type;
            const auto& ct = indexed::get<k()>(cts);
            using CT = std::remove_cvref_t<decltype(ct)>;
            if constexpr (std::is_same_v<CT, graph::no_cotangent>) {
                return graph::traced(graph::ew<fn::zeros_like, N>{{t.node}});
            } else if constexpr (std::is_same_v<typename CT::shape_type, typename N::shape_type>) {
                return graph::traced(ct);
            } else {
                using S = typename N::shape_type;
                return graph::traced(
                    graph::opaque<detail::retype_op<S>, CT>{{ct}, detail::retype_op<S>{}});
            }
        });
    }

    /// On the tape (given Vars, or as jit's eager form where the graph is too large to number):
    /// the function runs on Vars (the differentiated tensors) and tensors, op by op, recording a
    /// tape (tensor/autograd.hpp), and the tape runs back from the output. Given Vars (a grad
    /// inside a grad on the tape: grad(grad(f))), the backward pass records too, so the gradients
    /// it returns are Vars the outer grad differentiates again.
    template <class... Args>
    auto eager_call(const Args&... args) const {
        constexpr bool nested = nested_call<Args...>;
        constexpr auto bases = eager_leaf_bases<Args...>();
        const auto marked = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return std::tuple{eager_mark<I, bases>(args...)...};
        }
        (std::index_sequence_for<Args...>{});
        const auto out = call_f(marked);
        const auto& loss = output_of(out);
        using loss_t = std::remove_cvref_t<decltype(loss)>;
        std::vector<autograd::node*> visited;
        if constexpr (Seeded) {
            const auto& ct = std::get<sizeof...(Args) - 1>(std::tuple<const Args&...>(args...));
            using CT = std::remove_cvref_t<decltype(ct)>;
            static_assert(is_tensor_v<CT> || is_var_v<CT>,
                          "staticpy: TypeError: vjp: the cotangent must be a tensor");
            const auto& value = detail::eager_value(loss);
            using V = std::remove_cvref_t<decltype(value)>;
            detail::check_cotangent_shape(ct.shape(), value.shape());
            // (of another rank, check_cotangent_shape's compile error is the one to show)
            if constexpr (is_var_v<loss_t> && CT::rank == V::rank)
                visited = autograd::detail::backward_pass(
                    loss.node,
                    detail::as_dynamic_var(ct.template to<typename V::value_type>().contiguous()),
                    nested);
        } else if constexpr (is_var_v<loss_t>) {
            if (loss.numel() != 1)
                throw RuntimeError("grad can be implicitly created only for scalar outputs");
            visited = autograd::detail::backward_pass(
                loss.node, detail::as_dynamic_var(ones_like(loss.value)), nested);
        }
        auto grads = [&]<std::size_t... P>(std::index_sequence<P...>) {
            return std::tuple{detail::map_leaves<detail::is_var_leaf, bases[P]>(
                std::get<spec::values[P]>(marked), [](auto, const auto& v) {
                    if constexpr (nested_call<Args...>)
                        return autograd::recorded_gradient(v);
                    else
                        return autograd::gradient(v);
                })...};
        }
        (std::make_index_sequence<spec::values.size()>{});
        autograd::detail::clear_cotangents(visited);
        auto result = [&] {
            if constexpr (spec::single)
                return std::get<0>(std::move(grads));
            else
                return grads;
        }();
        if constexpr (WithValue) {
            if constexpr (nested) {
                return std::tuple{out, std::move(result)};
            } else {
                auto value = detail::map_leaves<detail::is_var_leaf, 0>(
                    out, [](auto, const auto& v) { return v.value; });
                return std::tuple{std::move(value), std::move(result)};
            }
        } else {
            return result;
        }
    }

    /// Whether a call on the tape is inside another grad's (given its Vars).
    template <class... Args>
    static constexpr bool nested_call =
        ((graph::leaf_count<detail::is_var_leaf, std::remove_cvref_t<Args>>::value != 0) || ...);

    template <class... Args>
    static constexpr std::array<std::size_t, spec::values.size() + 1> eager_leaf_bases() {
        constexpr std::array<std::size_t, sizeof...(Args)> counts{
            graph::leaf_count<detail::is_eager_leaf, std::remove_cvref_t<Args>>::value...};
        std::array<std::size_t, spec::values.size() + 1> b{};
        for (std::size_t p = 0; p < spec::values.size(); ++p)
            b[p + 1] = b[p] + counts[spec::values[p]];
        return b;
    }

    /// Argument I, its tensors made leaves of the tape when it is selected. A Var (an outer
    /// grad's) becomes a recorded identity of itself: this grad's own input, through which the
    /// outer grad's cotangents pass on.
    template <std::size_t I, auto Bases, class... Args>
    static auto eager_mark(const Args&... args) {
        const auto& arg = std::get<I>(std::tuple<const Args&...>(args...));
        constexpr std::size_t p = position_of<I>();
        if constexpr (p == spec::values.size())
            return arg;
        else
            return detail::map_leaves<detail::is_eager_leaf, Bases[p]>(
                arg, [](auto, const auto& t) {
                    using X = std::remove_cvref_t<decltype(t)>;
                    if constexpr (is_var_v<X>)
                        return detail::nested_input(t);
                    else if constexpr (std::is_floating_point_v<X>) // a 0-dim tensor, as traced
                        return autograd::leaf(
                            full(shape<>{}, static_cast<detail::float_argument_t<X>>(t)));
                    else
                        return autograd::leaf(t);
                });
    }

    /// Where argument I is among argnums (argnums' size if it is not).
    template <std::size_t I>
    static constexpr std::size_t position_of() {
        for (std::size_t q = 0; q < spec::values.size(); ++q)
            if (spec::values[q] == I)
                return q;
        return spec::values.size();
    }
};

/// grad(f, argnums=0_c): the function that returns the gradient of f's (scalar) output with
/// respect to argument argnums (a std::tuple of indices gives a tuple of gradients).
///   auto dw = staticpy::grad(loss)(w, x);
template <class F, class Argnums = int_<0>>
auto grad(F&& f, Argnums = {}) {
    return grad_function<std::decay_t<F>, Argnums, false, false>(std::forward<F>(f));
}

/// value_and_grad(f, argnums=0_c, has_aux=False): the function that returns (f's output,
/// gradients); with has_aux, f returns (output, aux) and the result is ((output, aux), gradients).
///   auto [loss, dw] = staticpy::value_and_grad(loss_fn)(w, x);
template <class F, class Argnums = int_<0>, class HasAux = std::false_type>
auto value_and_grad(F&& f, Argnums = {}, HasAux = {}) {
    return grad_function<std::decay_t<F>, Argnums, static_cast<bool>(HasAux::value), true>(
        std::forward<F>(f));
}

/// vjp(f, args...) (JAX's jax.vjp, MindSpore's ops.vjp): f's output at args and its pullback,
/// the function that maps a cotangent v of the output (its shape) to the vector-Jacobian products
/// v^T df/dx for every argument x (the gradient alone for one argument, else a std::tuple), each
/// in its argument's structure. The output need not be a scalar.
///   auto [y, pullback] = staticpy::vjp([](auto x) { return x.sin(); }, x);
///   auto dx = pullback(ones_like(y));   // cos(x)
/// In GRAPH_MODE a pullback call is one graph that computes the forward again beside the backward
/// (what it needs of the forward is recomputed, not kept); in PYNATIVE_MODE that graph runs op by
/// op. The pullback reads the arguments' tensors when it is called (tensors are handles).
template <class F, class... Args>
auto vjp(F f, const Args&... args) {
    static_assert(sizeof...(Args) != 0, "staticpy: TypeError: vjp needs at least one argument");
    using argnums = decltype(detail::every_argnum(std::index_sequence_for<Args...>{}));
    auto value = [&] {
        if constexpr (((detail::tracer_leaves_v<Args> != 0) || ...))
            return f(args...);
        else
            return jit(f)(args...);
    }();
    auto pullback = [backward = grad_function<F, argnums, false, false, true>(f),
                     primals = std::tuple<Args...>(args...)](const auto& cotangent) {
        return std::apply([&](const auto&... a) { return backward(a..., cotangent); }, primals);
    };
    return std::tuple{std::move(value), std::move(pullback)};
}

} // namespace staticpy
