#pragma once
// staticpy::jit: one function, two modes, as MindSpore's @jit and set_context(mode=...).
//
//   auto f = staticpy::jit([](auto x, auto w) { return relu(x * w + 1.0f).sum(1_c); });
//   auto y = f(x, w);                        // GRAPH_MODE (default): traced, optimised, fused
//   staticpy::set_context(staticpy::PYNATIVE_MODE);
//   auto z = f(x, w);                        // the same lambda, op by op on Tensors
//
// In graph mode a call traces the function with Tracers in place of its tensor arguments (and of
// its float arguments), which gives the graph as a type; the passes (graph/passes.hpp) rewrite
// that type, the program (graph/program.hpp) numbers it, and the CPU evaluator runs it. Tracing
// builds a few small objects per call; everything else was done by the compiler.
//
// This header joins the graph layer to a backend, so it sits above both.

#include <atomic>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/backend/cpu/evaluate.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/graph/dump.hpp"
#include "staticpy/graph/node.hpp"
#include "staticpy/graph/passes.hpp"
#include "staticpy/graph/program.hpp"

namespace staticpy {

/// The execution modes, MindSpore's values: GRAPH_MODE = 0, PYNATIVE_MODE = 1.
inline constexpr int GRAPH_MODE = 0;
inline constexpr int PYNATIVE_MODE = 1;

namespace detail {
inline std::atomic<int>& context_mode() {
    static std::atomic<int> mode{GRAPH_MODE};
    return mode;
}
} // namespace detail

/// set_context(mode=GRAPH_MODE | PYNATIVE_MODE): how every jit function runs from now on.
///   staticpy::set_context(staticpy::PYNATIVE_MODE);   // debug op by op
inline void set_context(int mode) {
    if (mode != GRAPH_MODE && mode != PYNATIVE_MODE)
        throw ValueError(
            "For 'context.set_context', the argument 'mode' should be context.GRAPH_MODE "
            "(0) or context.PYNATIVE_MODE (1), but got " +
            std::to_string(mode) + ".");
    detail::context_mode().store(mode);
}
/// The current mode.
inline int get_context() {
    return detail::context_mode().load();
}

namespace graph {

// ---- arguments: tensors become inputs, floats scalars, containers are walked
// ---------------------

/// How many leaves (values for which Leaf<X>::value holds) X holds, through std::tuples,
/// staticpy lists and dict values. Arguments count their tensors; results their Tracers.
template <template <class> class Leaf, class X>
struct leaf_count : std::integral_constant<std::size_t, Leaf<X>::value ? 1 : 0> {};
template <template <class> class Leaf, class... Ts>
struct leaf_count<Leaf, std::tuple<Ts...>>
    : std::integral_constant<std::size_t, (leaf_count<Leaf, Ts>::value + ... + 0)> {};
template <template <class> class Leaf, class... Ts>
struct leaf_count<Leaf, list<Ts...>>
    : std::integral_constant<std::size_t, (leaf_count<Leaf, Ts>::value + ... + 0)> {};
template <template <class> class Leaf, class... K, class... V>
struct leaf_count<Leaf, dict_t<pair<K, V>...>>
    : std::integral_constant<std::size_t, (leaf_count<Leaf, V>::value + ... + 0)> {};

template <class X>
struct is_tensor_leaf : std::bool_constant<is_tensor_v<X>> {};
template <class X>
struct is_tracer_leaf : std::bool_constant<is_tracer_v<X>> {};

template <class X>
inline constexpr std::size_t tensor_leaves_v =
    leaf_count<is_tensor_leaf, std::remove_cvref_t<X>>::value;

/// The index of each element's first leaf: an exclusive prefix sum of their leaf counts.
template <template <class> class Leaf, class... Ts>
constexpr std::array<std::size_t, sizeof...(Ts) + 1> leaf_offsets() {
    std::array<std::size_t, sizeof...(Ts) + 1> a{};
    std::size_t n = 0, i = 0;
    ((a[i++] = n, n += leaf_count<Leaf, std::remove_cvref_t<Ts>>::value), ...);
    a[i] = n;
    return a;
}

template <class X>
struct is_std_tuple : std::false_type {};
template <class... Ts>
struct is_std_tuple<std::tuple<Ts...>> : std::true_type {};

/// The traced stand-in for argument x whose first tensor is input I.
template <std::size_t I, class X>
auto symbolic(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tensor_v<U>) {
        return Tracer<input<I, typename U::value_type, typename U::shape_type>>{};
    } else if constexpr (std::is_floating_point_v<U>) {
        return Tracer<scalar<U>>{{x, {}}};
    } else if constexpr (is_std_tuple<U>::value) {
        return [&]<class... Ts>(const std::tuple<Ts...>& t) {
            constexpr auto off = leaf_offsets<is_tensor_leaf, Ts...>();
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
                return std::tuple{symbolic<I + off[K]>(std::get<K>(t))...};
            }
            (std::index_sequence_for<Ts...>{});
        }(x);
    } else if constexpr (requires { x.elements; }) { // staticpy list
        return hana::unpack(x.elements, [&](const auto&... e) {
            constexpr auto off = leaf_offsets<is_tensor_leaf, decltype(e)...>();
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
                return staticpy::list{symbolic<I + off[K]>(e)...};
            }
            (std::make_index_sequence<sizeof...(e)>{});
        });
    } else if constexpr (requires { x.entries; }) { // staticpy dict
        return hana::unpack(x.entries, [&](const auto&... p) {
            constexpr auto off = leaf_offsets<is_tensor_leaf, decltype(p.value)...>();
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
                auto items = hana::make_tuple(pair(p.key, symbolic<I + off[K]>(p.value))...);
                return dict_t<
                    std::remove_cvref_t<decltype(pair(p.key, symbolic<I + off[K]>(p.value)))>...>(
                    items);
            }
            (std::make_index_sequence<sizeof...(p)>{});
        });
    } else {
        return x; // ints, bools, strings, dims: constants of the trace
    }
}

/// The tensors of an argument, in the order symbolic() numbered them (references: the trace
/// lives for one call, inside the arguments' lifetime).
template <class X>
auto tensors_of(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tensor_v<U>)
        return std::tuple<const U&>{x};
    else if constexpr (tensor_leaves_v<U> == 0)
        return std::tuple<>{};
    else if constexpr (requires { x.elements; })
        return hana::unpack(x.elements,
                            [](const auto&... e) { return std::tuple_cat(tensors_of(e)...); });
    else if constexpr (requires { x.entries; })
        return hana::unpack(
            x.entries, [](const auto&... p) { return std::tuple_cat(tensors_of(p.value)...); });
    else
        return std::apply([](const auto&... e) { return std::tuple_cat(tensors_of(e)...); }, x);
}

// ---- results: Tracers become outputs
// -------------------------------------------------------------

/// The output nodes of a traced result, in order (Tracers in tuples, lists and dicts).
template <class X>
auto roots_of(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tracer_v<U>)
        return std::tuple{x.node};
    else if constexpr (requires { x.elements; })
        return hana::unpack(x.elements,
                            [](const auto&... e) { return std::tuple_cat(roots_of(e)...); });
    else if constexpr (requires { x.entries; })
        return hana::unpack(x.entries,
                            [](const auto&... p) { return std::tuple_cat(roots_of(p.value)...); });
    else if constexpr (is_std_tuple<U>::value)
        return std::apply([](const auto&... e) { return std::tuple_cat(roots_of(e)...); }, x);
    else
        return std::tuple<>{};
}

/// The traced result with output K in place of its K-th Tracer.
template <std::size_t K, class X, class Outputs>
auto rebuild(const X& x, Outputs& outs) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tracer_v<U>) {
        return std::move(std::get<K>(outs));
    } else if constexpr (requires { x.elements; }) {
        return hana::unpack(x.elements, [&](const auto&... e) {
            constexpr auto start = leaf_offsets<is_tracer_leaf, decltype(e)...>();
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                return staticpy::list{rebuild<K + start[J]>(e, outs)...};
            }
            (std::make_index_sequence<sizeof...(e)>{});
        });
    } else if constexpr (requires { x.entries; }) {
        return hana::unpack(x.entries, [&](const auto&... p) {
            constexpr auto start = leaf_offsets<is_tracer_leaf, decltype(p.value)...>();
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                auto items = hana::make_tuple(pair(p.key, rebuild<K + start[J]>(p.value, outs))...);
                return dict_t<std::remove_cvref_t<decltype(pair(
                    p.key, rebuild<K + start[J]>(p.value, outs)))>...>(items);
            }
            (std::make_index_sequence<sizeof...(p)>{});
        });
    } else if constexpr (is_std_tuple<U>::value) {
        return [&]<class... Ts>(const std::tuple<Ts...>& t) {
            constexpr auto start = leaf_offsets<is_tracer_leaf, Ts...>();
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                return std::tuple{rebuild<K + start[J]>(std::get<J>(t), outs)...};
            }
            (std::index_sequence_for<Ts...>{});
        }(x);
    } else {
        return x;
    }
}

template <bool Speculative, class Tuple>
struct program_of_tuple;
template <bool Speculative, class... R>
struct program_of_tuple<Speculative, std::tuple<R...>> {
    using type = program_of<Speculative, R...>;
};

/// A traced call: the symbolic arguments, the traced result, its simplified output nodes, the
/// program they number to, and the node pointers for the evaluator. What dump() prints and what
/// a jit call evaluates.
template <class F, class... Args>
struct trace {
    static constexpr auto offsets = leaf_offsets<is_tensor_leaf, Args...>();
    template <std::size_t... K>
    static auto symbolic_args_of(std::index_sequence<K...>, const Args&... args) {
        return std::tuple{symbolic<offsets[K]>(args)...};
    }
    using symbolic_args = decltype(symbolic_args_of(std::index_sequence_for<Args...>{},
                                                    std::declval<const Args&>()...));
    using result_type =
        decltype(std::apply(std::declval<const F&>(), std::declval<symbolic_args>()));
    using roots_type = decltype(roots_of(std::declval<const result_type&>()));
    // No lambda in these unevaluated operands: g++ 12 then drops return statements that name
    // the types (a lambda's closure type is a new type each time it is met).
    template <class... R>
    static auto simplify_all(const std::tuple<R...>& roots) {
        return std::apply([](const auto&... r) { return std::tuple{simplify(r)...}; }, roots);
    }
    using simplified_type = decltype(simplify_all(std::declval<roots_type>()));
    using spec_numbered = typename program_of_tuple<true, simplified_type>::type;
    using exact_numbered = typename program_of_tuple<false, simplified_type>::type;
    /// The program when every merged run-time attribute is equal (the usual case: the same
    /// scalar or dim written in several places), and the exact one otherwise.
    using prog = typename spec_numbered::prog;
    using exact_prog = typename exact_numbered::prog;

    result_type result;
    simplified_type outputs;
    decltype(std::tuple_cat(tensors_of(std::declval<const Args&>())...)) inputs;

    trace(const F& f, const Args&... args)
        : result(std::apply(f, symbolic_args_of(std::index_sequence_for<Args...>{}, args...))),
          outputs(simplify_all(roots_of(result))),
          inputs(std::tuple_cat(tensors_of(args)...)) {}
    trace(const trace&) = delete;

    template <class P, bool Speculative>
    node_pointers_t<P> collect(bool& equal) const {
        return std::apply(
            [&](const auto&... r) { return collect_nodes<P, Speculative>(equal, r...); }, outputs);
    }

    /// Calls run(tag, node pointers) with the program this call's values allow: the speculative
    /// one when the payloads it merged are equal, else the exact one. tag is a
    /// std::type_identity of a program_of (its ::prog, and its output slots ::roots).
    /// R is run's return type (spelt out: g++ 12 cannot deduce it here).
    template <class R, class Run>
    R with_program(Run&& run) const {
        // When both programs are one type, the second call instantiates nothing new.
        bool equal = true;
        const auto spec = collect<prog, true>(equal);
        if (equal)
            return run(std::type_identity<spec_numbered>{}, spec);
        const auto exact = collect<exact_prog, false>(equal);
        return run(std::type_identity<exact_numbered>{}, exact);
    }
};

} // namespace graph

/// A function that runs as a fused static graph (GRAPH_MODE) or op by op (PYNATIVE_MODE).
template <class F>
class jit_function {
public:
    explicit jit_function(F f) : f_(std::move(f)) {}

    /// Calls the function: traced and fused in GRAPH_MODE, eager in PYNATIVE_MODE. Both return
    /// the eager call's type.
    template <class... Args>
    auto operator()(const Args&... args) const {
        using eager_t = decltype(f_(args...));
        if (get_context() == PYNATIVE_MODE)
            return eager_t(f_(args...));
        graph::trace<F, Args...> t(f_, args...);
        return t.template with_program<eager_t>([&](auto tag, const auto& nodes) -> eager_t {
            using numbered = typename decltype(tag)::type;
            using P = typename numbered::prog;
            backend::cpu::evaluator<P, decltype(t.inputs), numbered::roots> ev(nodes, t.inputs);
            ev.materialize_all();
            auto outs = [&]<std::size_t... K>(std::index_sequence<K...>) {
                return std::tuple{ev.template value<numbered::roots[K]>()...};
            }
            (std::make_index_sequence<numbered::roots.size()>{});
            return eager_t(graph::rebuild<0>(t.result, outs));
        });
    }

    /// Evaluates the function's one output into `out` (same sizes; any strides) without
    /// allocating it: f.into(y, x) is y[...] = f(x). `out` may be one of the arguments.
    template <class Out, class... Args>
    void into(Out& out, const Args&... args) const {
        using eager_t = decltype(f_(args...));
        static_assert(is_tensor_v<eager_t>,
                      "staticpy: TypeError: into() takes a function with one output");
        if constexpr (is_tensor_v<eager_t>) {
            if (get_context() == PYNATIVE_MODE) {
                out.copy_(f_(args...));
                return;
            }
            into_graph(out, args...);
        }
    }

private:
    template <class Out, class... Args>
    void into_graph(Out& out, const Args&... args) const {
        graph::trace<F, Args...> t(f_, args...);
        t.template with_program<void>([&](auto tag, const auto& nodes) {
            using numbered = typename decltype(tag)::type;
            static_assert(numbered::roots.size() == 1,
                          "staticpy: TypeError: into() takes a function with one output");
            backend::cpu::evaluator<typename numbered::prog, decltype(t.inputs), numbered::roots>
                ev(nodes, t.inputs);
            ev.materialize_all();
            ev.template value_into<numbered::roots[0]>(out);
        });
    }

public:
    const F& function() const { return f_; }

private:
    F f_;
};

namespace detail {
enum class graph_view { ir, dot };

/// Traces f with args, evaluates it once (for every node's shape: "float32[3, 4]") and writes
/// the program as IR text or DOT.
template <graph_view View, class F, class... Args>
std::string inspect(const jit_function<F>& f, const Args&... args) {
    graph::trace<F, Args...> t(f.function(), args...);
    return t.template with_program<std::string>([&](auto tag, const auto& nodes) -> std::string {
        using P = typename decltype(tag)::type::prog;
        constexpr auto roots = decltype(tag)::type::roots;
        backend::cpu::evaluator<P, decltype(t.inputs), roots> ev(nodes, t.inputs);
        ev.materialize_all();
        ev.materialize_deferred();
        std::array<std::string, P::size> shapes;
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            ((shapes[S] =
                  std::string(dtype_name(dtype_of_v<typename P::template node_at<S>::value_type>)) +
                  sizes_text(ev.template shape_of<S>().sizes())),
             ...);
        }
        (std::make_index_sequence<P::size>{});
        auto shape = [&](std::size_t s) { return shapes[s]; };
        if constexpr (View == graph_view::ir)
            return graph::ir_text<P>(nodes, roots, shape);
        else
            return graph::dot_text<P>(nodes, roots, shape);
    });
}
} // namespace detail

/// The graph f traces to with these arguments, after the passes, as readable IR: one node per
/// line, then the fused kernels (which nodes each loop evaluates).
///   std::cout << staticpy::dump(f, x, w);
template <class F, class... Args>
std::string dump(const jit_function<F>& f, const Args&... args) {
    return detail::inspect<detail::graph_view::ir>(f, args...);
}

/// The same graph as Graphviz DOT (dot -Tsvg): a cluster per fused kernel.
template <class F, class... Args>
std::string to_dot(const jit_function<F>& f, const Args&... args) {
    return detail::inspect<detail::graph_view::dot>(f, args...);
}

/// Standalone C++ source of the graph's fused kernels (see graph::cpp_text for their signature).
template <class F, class... Args>
std::string to_cpp(const jit_function<F>& f, const Args&... args) {
    graph::trace<F, Args...> t(f.function(), args...);
    return t.template with_program<std::string>([&](auto tag, const auto& nodes) -> std::string {
        using numbered = typename decltype(tag)::type;
        return graph::cpp_text<typename numbered::prog>(nodes, numbered::roots);
    });
}

/// staticpy.jit(fn): fn traced into a static graph on each call (GRAPH_MODE), or run eagerly
/// (PYNATIVE_MODE). fn is any callable, usually a generic lambda.
///   auto f = staticpy::jit([](auto x) { return sigmoid(x) * x; });
template <class F>
jit_function<std::decay_t<F>> jit(F&& f) {
    return jit_function<std::decay_t<F>>(std::forward<F>(f));
}

} // namespace staticpy
