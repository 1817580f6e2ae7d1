#pragma once
// staticpy::jit: one function, two modes, as MindSpore's @jit and set_context(mode=...).
//
//   auto f = staticpy::jit([](auto x, auto w) { return relu(x * w + 1.0f).sum(1_c); });
//   auto y = f(x, w);                        // GRAPH_MODE (default): traced, optimised, fused
//   staticpy::set_context(staticpy::PYNATIVE_MODE);
//   auto z = f(x, w);                        // the same graph, op by op, unfused
//
// A call traces the function with Tracers in place of its tensor arguments (and of
// its float arguments whose parameters are auto; numbers are run-time scalars of the graph,
// docs/graph.md), which gives the graph as a type (graph/trace.hpp); the passes
// (graph/passes.hpp) rewrite that type, the program (graph/program.hpp) numbers it, and the
// evaluator of its tensors' device runs it: the CPU's, or CUDA's where they are on a GPU (found by
// argument-dependent lookup in backend/cuda/evaluate.hpp, which <staticpy/cuda.hpp> includes).
// Tracing builds a few small objects per call; everything else was done by the compiler.
// PYNATIVE_MODE runs the same program node by node, each node by its eager op
// (backend/op_by_op.hpp), as MindSpore's jit_level O0 runs a graph kernel by kernel: the mode
// switches at run time, and this way the function is compiled once, not once per mode.
//
// This header joins the graph layer to a backend, so it sits above both.

#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/backend/cpu/evaluate.hpp"
#include "staticpy/backend/op_by_op.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/graph/dump.hpp"
#include "staticpy/graph/trace.hpp"

namespace staticpy::graph {

/// A numbered program with its inputs' pack type and output slots, as a value: what selects the
/// evaluator of a device other than the CPU by argument-dependent lookup (the CUDA backend,
/// backend/cuda/evaluate.hpp, declares evaluate_on_cuda for it in this namespace).
template <class Prog, class Inputs, auto Roots>
struct program_tag {
    template <std::size_t... K>
    static auto outputs_of(std::index_sequence<K...>)
        -> indexed::pack<Tensor<typename Prog::template node_at<Roots[K]>::value_type,
                                typename Prog::template node_at<Roots[K]>::shape_type>...>;
    /// The outputs, in Roots' order, as the evaluators return them (an indexed::pack).
    using outputs_type = decltype(outputs_of(std::make_index_sequence<Roots.size()>{}));
};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>: its tensors were
/// put on the GPU elsewhere in the program, but this code cannot run them there.
template <class Tag, class Nodes, class Inputs>
typename Tag::outputs_type evaluate_on_cuda(const Tag&, const Nodes&, const Inputs&,
                                            const Device& device) {
    throw RuntimeError("staticpy: CUDA is not available here: a jit function's tensors are on " +
                       device.str() +
                       ", and its translation unit does not include <staticpy/cuda.hpp>");
}

} // namespace staticpy::graph

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

/// A function that runs as a fused static graph (GRAPH_MODE) or op by op (PYNATIVE_MODE).
template <class F>
class jit_function {
public:
    explicit jit_function(F f) : f_(std::move(f)) {}

    /// Calls the function: traces it, then runs its graph fused (GRAPH_MODE) or op by op
    /// (PYNATIVE_MODE). Returns what the function returns on Tensors.
    template <class... Args>
    auto operator()(const Args&... args) const {
        graph::trace<F, Args...> t(f_, args...);
        using result_t = graph::run_result_t<typename decltype(t)::result_type>;
        const Device device = indexed::apply(
            [](const auto&... in) { return staticpy::detail::check_same_device(in...); }, t.inputs);
        return t.template with_program<result_t>(
            [&](auto tag, const auto& nodes) -> result_t {
                using P = decltype(tag); // the program under its short name
                if (get_context() == PYNATIVE_MODE) {
                    auto outs = op_by_op<P>(t, nodes);
                    return result_t(graph::rebuild<0>(t.result, outs));
                }
                if (device.is_cuda()) { // the evaluator of backend/cuda, by argument lookup
                    auto outs =
                        evaluate_on_cuda(graph::program_tag<P, decltype(t.inputs), P::roots>{},
                                         nodes, t.inputs, device);
                    return result_t(graph::rebuild<0>(t.result, outs));
                }
                backend::cpu::evaluator<P, decltype(t.inputs), P::roots> ev(nodes, t.inputs);
                ev.materialize_all();
                auto outs = outputs_of<P>(ev);
                return result_t(graph::rebuild<0>(t.result, outs));
            },
            // Generic (`none` is always empty), so that the function is instantiated on Tensors
            // only where with_program calls this: a lambda that is not a template is compiled
            // with its enclosing function, called or not.
            [&](auto... none) { return result_t(f_(args..., none...)); });
    }

    /// Evaluates the function's one output into `out` (same sizes; any strides) without
    /// allocating it: f.into(y, x) is y[...] = f(x). `out` may be one of the arguments.
    /// Given a structure like the result's (std::tuple, list, dict), writes each output into the
    /// tensor at its place, as one graph: f.into(std::tuple(loss, params), params, x) writes the
    /// new parameters into the parameters, every read of them before the writes.
    template <class Out, class... Args>
    void into(Out& out, const Args&... args) const {
        using result_t = graph::run_result_t<typename graph::trace<F, Args...>::result_type>;
        constexpr bool one_output = is_tensor_v<Out>;
        static_assert(!one_output || is_tensor_v<result_t>,
                      "staticpy: TypeError: into() takes a function with one output");
        static_assert(one_output || graph::tensor_leaves_v<Out> == graph::tensor_leaves_v<result_t>,
                      "staticpy: TypeError: into(): the outputs are not the result's structure");
        if constexpr (one_output ? is_tensor_v<result_t>
                                 : graph::tensor_leaves_v<Out> == graph::tensor_leaves_v<result_t>)
            into_checked(out, args...);
    }

private:
    /// The outputs of program P that an evaluator (fused or op by op) has run, in P::roots'
    /// order.
    template <class P, class Evaluator>
    static auto outputs_of(Evaluator& ev) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            using outputs = indexed::pack<decltype(ev.template value<P::roots[K]>())...>;
            return outputs{{ev.template value<P::roots[K]>()}...};
        }
        (std::make_index_sequence<P::roots.size()>{});
    }

    /// Program P of trace t run op by op (PYNATIVE_MODE): its outputs, in P::roots' order.
    template <class P, class Trace, class Nodes>
    static auto op_by_op(const Trace& t, const Nodes& nodes) {
        backend::op_by_op<P, decltype(t.inputs), P::roots> run(nodes, t.inputs);
        run.run_all();
        return outputs_of<P>(run);
    }

    template <class Out, class... Args>
    void into_checked(Out& out, const Args&... args) const {
        graph::trace<F, Args...> t(f_, args...);
        t.template with_program<void>(
            [&](auto tag, const auto& nodes) {
                using numbered = decltype(tag);       // the program under its short name
                if (get_context() == PYNATIVE_MODE) { // computed whole before any write
                    const auto outs = op_by_op<numbered>(t, nodes);
                    copy_leaves(graph::tensors_of(out), outs);
                    return;
                }
                backend::cpu::evaluator<numbered, decltype(t.inputs), numbered::roots> ev(nodes,
                                                                                          t.inputs);
                ev.materialize_all();
                if constexpr (is_tensor_v<Out>)
                    ev.template value_into<numbered::roots[0]>(out);
                else
                    ev.values_into(graph::tensors_of(out));
            },
            [&](auto... none) {                           // generic: see operator()
                const auto result = f_(args..., none...); // computed whole before any write
                copy_leaves(graph::tensors_of(out), graph::tensors_of(result));
            });
    }

    /// Copies each tensor of `src` into the tensor of `out` at its position (indexed::packs of
    /// tensors or of references to them, one length).
    template <class Out, class Src>
    static void copy_leaves(const Out& out, const Src& src) {
        static_assert(indexed::size_v<Out> == indexed::size_v<Src>);
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            indexed::in_order{(
                [&] {
                    auto handle = indexed::get<I>(out); // writes reach the caller's elements
                    handle.copy_(indexed::get<I>(src));
                }(),
                0)...};
        }
        (std::make_index_sequence<indexed::size_v<Out>>{});
    }

public:
    const F& function() const { return f_; }

private:
    F f_;
};

namespace detail {
enum class graph_view { ir, dot };

/// What dump, to_dot and to_cpp say of a call that runs op by op (trace::with_program).
[[noreturn]] inline void no_graph_to_show(const char* what) {
    throw RuntimeError(std::string(what) +
                       ": this call has no graph: it merges nodes whose run-time values differ "
                       "(x * 2.0f and x * 3.0f), and its graph is too large to number them "
                       "apart, so it runs op by op (as in PYNATIVE_MODE)");
}

/// Traces f with args, evaluates it once (for every node's shape: "float32[3, 4]") and writes
/// the program as IR text or DOT.
template <graph_view View, class F, class... Args>
std::string inspect(const jit_function<F>& f, const Args&... args) {
    graph::trace<F, Args...> t(f.function(), args...);
    return t.template with_program<std::string>(
        [&](auto tag, const auto& nodes) -> std::string {
            using P = decltype(tag); // the program under its short name
            constexpr auto roots = P::roots;
            backend::cpu::evaluator<P, decltype(t.inputs), roots> ev(nodes, t.inputs);
            ev.materialize_all();
            ev.materialize_deferred();
            std::array<std::string, P::size> shapes;
            [&]<std::size_t... S>(std::index_sequence<S...>) {
                indexed::in_order{
                    ((shapes[S] = std::string(dtype_name(
                                      dtype_of_v<typename P::template node_at<S>::value_type>)) +
                                  sizes_text(ev.template shape_of<S>().sizes())),
                     0)...};
            }
            (std::make_index_sequence<P::size>{});
            auto shape = [&](std::size_t s) { return shapes[s]; };
            if constexpr (View == graph_view::ir)
                return graph::ir_text<P>(nodes, roots, shape);
            else
                return graph::dot_text<P>(nodes, roots, shape);
        },
        []() -> std::string { no_graph_to_show(View == graph_view::ir ? "dump" : "to_dot"); });
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
    return t.template with_program<std::string>(
        [&](auto tag, const auto& nodes) -> std::string {
            using numbered = decltype(tag); // the program under its short name
            return graph::cpp_text<numbered>(nodes, numbered::roots);
        },
        []() -> std::string { detail::no_graph_to_show("to_cpp"); });
}

/// staticpy.jit(fn): fn traced into a static graph on each call (GRAPH_MODE), or run eagerly
/// (PYNATIVE_MODE). fn is any callable, usually a generic lambda.
///   auto f = staticpy::jit([](auto x) { return sigmoid(x) * x; });
template <class F>
jit_function<std::decay_t<F>> jit(F&& f) {
    return jit_function<std::decay_t<F>>(std::forward<F>(f));
}

} // namespace staticpy
