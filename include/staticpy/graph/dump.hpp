#pragma once
// Looking at a graph program: its IR as text (one node per line, like a jaxpr or MindSpore's .ir
// file), as Graphviz DOT, and as standalone C++ source for its fused kernels, which each node
// writes through its functor's cpp() (the basis of source-emitting backends such as CUDA's).
//
// The functions take the program type, its node pointers and each slot's shape text (the caller
// knows the shapes: see staticpy::dump in jit.hpp, which evaluates the graph once for them).
//
//   %2 = mul(%0, %1) : float32[3, 4]      # kernel 0
//   %3 = reduce_sum(%2, dims=[1]) : float32[3]

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/repr.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/tensor/dtype.hpp"

namespace staticpy::graph {

// ---- kernels: which slots each fused loop evaluates
// -----------------------------------------------

/// The fused kernels of a program: one per output that is not materialized by a node, one per
/// reduction (fused with its producers), one per elementwise operand of matmul or an opaque op.
template <class Prog, std::size_t NumRoots>
struct kernel_plan {
    static constexpr std::size_t N = Prog::size;
    struct kernel {
        std::size_t root = 0;      // the slot whose value it computes
        std::size_t reduction = N; // the reduce slot it accumulates into, or N (stores)
    };
    static constexpr auto kernels(const std::array<std::size_t, NumRoots>& roots) {
        std::array<kernel, N + NumRoots> ks{};
        std::size_t n = 0;
        auto add = [&](std::size_t root, std::size_t red) {
            for (std::size_t i = 0; i < n; ++i)
                if (ks[i].root == root && ks[i].reduction == red)
                    return;
            ks[n++] = kernel{root, red};
        };
        auto is_reduce = [](std::size_t s) {
            bool r = false;
            [&]<std::size_t... S>(std::index_sequence<S...>) {
                indexed::in_order{
                    ((S == s ? (r = Prog::template node_at<S>::kind == node_kind::reduce) : false),
                     0)...};
            }
            (std::make_index_sequence<N>{});
            return r;
        };
        for (std::size_t s = 0; s < N; ++s) {
            if (!Prog::materialized[s])
                continue;
            for (std::size_t k = 0; k < Prog::arity[s]; ++k) {
                const std::size_t o = Prog::operand_slots[s][k];
                if (is_reduce(s))
                    add(o, s);
                else if (!Prog::materialized[o])
                    add(o, N);
            }
        }
        for (std::size_t r : roots)
            if (!Prog::materialized[r])
                add(r, N);
        return std::pair{ks, n};
    }
};

namespace detail {

/// prefix followed by n ("%3", "v3"). Built by appending: g++ 12 reports a false -Wrestrict
/// for `"%" + std::to_string(n)` once optimised.
inline std::string tag(const char* prefix, std::size_t n) {
    std::string s(prefix);
    s += std::to_string(n);
    return s;
}

template <class T>
std::string dtype_text() {
    return std::string(dtype_name(dtype_of_v<T>));
}

/// The operands of a node as "%a, %b".
template <class Prog, std::size_t S>
std::string operand_list() {
    std::string s;
    for (std::size_t k = 0; k < Prog::arity[S]; ++k) {
        if (k)
            s += ", ";
        s += tag("%", Prog::operand_slots[S][k]);
    }
    return s;
}

template <class A>
std::string attr_text(const A& a) {
    if constexpr (requires { repr(a); })
        return repr(a);
    else
        return "?";
}

/// One node's right-hand side: "mul(%0, %1)", "reduce_sum(%2, dims=[1], keepdim=False)".
template <class Prog, std::size_t S, class Node>
std::string node_text(const Node& n) {
    if constexpr (Node::kind == node_kind::input) {
        return tag("input ", Node::index);
    } else if constexpr (Node::kind == node_kind::captured) {
        return "captured";
    } else if constexpr (Node::kind == node_kind::constant) {
        return "constant " + repr(Node::value);
    } else if constexpr (Node::kind == node_kind::scalar) {
        return "scalar " + repr(n.value);
    } else if constexpr (Node::kind == node_kind::elementwise) {
        return std::string(Node::functor::name) + "(" + operand_list<Prog, S>() + ")";
    } else if constexpr (Node::kind == node_kind::reduce) {
        std::string s =
            std::string(Node::reduction::ir_name) + "(" + operand_list<Prog, S>() + ", dims=";
        if constexpr (std::is_same_v<typename Node::dim_type, all_dims>) {
            s += "all";
        } else {
            const auto mask = Node::plan::mask(n.dim);
            s += "[";
            bool first = true;
            for (std::size_t d = 0; d < mask.size(); ++d)
                if (mask[d]) {
                    s += first ? "" : ", ";
                    s += std::to_string(d);
                    first = false;
                }
            s += "]";
        }
        s += Node::keepdim ? ", keepdim=True)" : ")";
        return s;
    } else if constexpr (Node::kind == node_kind::matmul) {
        return "matmul(" + operand_list<Prog, S>() + ")";
    } else {
        static_assert(Node::kind == node_kind::opaque);
        std::string s = std::string(Node::op_type::name) + "(" + operand_list<Prog, S>();
        std::apply([&](const auto&... a) { ((s += ", " + attr_text(a)), ...); }, n.op.args);
        return s + ")";
    }
}

} // namespace detail

using detail::tag;

/// What slot S, if it runs an epilogue, is called in the kernels' list: "matmul" or its op's
/// name (conv2d).
template <class Prog, std::size_t S>
constexpr const char* epilogue_host_name() {
    using node = typename Prog::template node_at<S>;
    if constexpr (node::kind == node_kind::opaque)
        return node::op_type::name;
    else
        return "matmul";
}
template <class Prog>
inline constexpr auto epilogue_host_names = []<std::size_t... S>(std::index_sequence<S...>) {
    return std::array<const char*, Prog::size>{epilogue_host_name<Prog, S>()...};
}
(std::make_index_sequence<Prog::size>{});

/// The IR text: a header with the inputs, one line per other node, the outputs, then the fused
/// kernels. shape_text(slot) gives each slot's "float32[3, 4]".
template <class Prog, std::size_t NumRoots, class ShapeText>
std::string ir_text(const node_pointers_t<Prog>& nodes,
                    const std::array<std::size_t, NumRoots>& roots, ShapeText&& shape_text) {
    std::string params, body;
    [&]<std::size_t... S>(std::index_sequence<S...>) {
        indexed::in_order{(
            [&] {
                using node = typename Prog::template node_at<S>;
                if constexpr (node::kind == node_kind::input) {
                    params += params.empty() ? "" : ", ";
                    params += tag("%", S) + ": " + shape_text(S);
                } else {
                    body += tag("  %", S) + " = " +
                            detail::node_text<Prog, S>(node_of<Prog, S>(nodes)) + " : " +
                            shape_text(S) + "\n";
                }
            }(),
            0)...};
    }
    (std::make_index_sequence<Prog::size>{});
    std::string out = "graph(" + params + ") {\n" + body + "  return ";
    for (std::size_t i = 0; i < NumRoots; ++i)
        out += tag(i ? ", %" : "%", roots[i]);
    out += "\n";
    const auto plan = kernel_plan<Prog, NumRoots>::kernels(roots);
    const auto& ks = plan.first;
    const std::size_t n = plan.second;
    const auto epilogues = epilogue_slots<Prog>(roots);
    for (std::size_t k = 0; k < n; ++k) {
        out += tag("  # kernel ", k) + ": ";
        // members of the kernel's region, in slot order
        std::string members;
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            indexed::in_order{(
                [&] {
                    if (ks[k].root == S) {
                        const auto& member = region<Prog, S>::member;
                        const auto& leaf = region<Prog, S>::leaf;
                        for (std::size_t s = 0; s < Prog::size; ++s)
                            if (member[s] && !leaf[s])
                                members += tag(members.empty() ? "%" : " %", s);
                    }
                }(),
                0)...};
        }
        (std::make_index_sequence<Prog::size>{});
        if (members.empty())
            members = tag("%", ks[k].root);
        if (ks[k].reduction < Prog::size) {
            out += "reduce " + members + tag(" into %", ks[k].reduction) + "\n";
        } else {
            out += "fused " + members + tag(" -> %", ks[k].root);
            const std::size_t m = epilogues[ks[k].root];
            if (m < Prog::size)
                out += std::string(" (epilogue of ") + epilogue_host_names<Prog>[m] + tag(" %", m) +
                       ")";
            out += "\n";
        }
    }
    return out + "}\n";
}

/// Graphviz DOT of the program: a box per node, an edge per operand, a cluster per fused kernel.
template <class Prog, std::size_t NumRoots, class ShapeText>
std::string dot_text(const node_pointers_t<Prog>& nodes,
                     const std::array<std::size_t, NumRoots>& roots, ShapeText&& shape_text) {
    std::string out =
        "digraph staticpy {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
    const auto plan = kernel_plan<Prog, NumRoots>::kernels(roots);
    const auto& ks = plan.first;
    const std::size_t n = plan.second;
    std::array<std::size_t, Prog::size + 1> cluster_of{};
    cluster_of.fill(n);
    [&]<std::size_t... S>(std::index_sequence<S...>) {
        indexed::in_order{(
            [&] {
                for (std::size_t k = 0; k < n; ++k)
                    if (ks[k].root == S)
                        for (std::size_t s = 0; s < Prog::size; ++s)
                            if (region<Prog, S>::member[s] && !region<Prog, S>::leaf[s] &&
                                cluster_of[s] == n)
                                cluster_of[s] = k;
            }(),
            0)...};
    }
    (std::make_index_sequence<Prog::size>{});
    auto escape = [](std::string s) {
        std::string r;
        for (char c : s) {
            if (c == '"' || c == '\\')
                r += '\\';
            r += c;
        }
        return r;
    };
    std::vector<std::string> lines(Prog::size);
    [&]<std::size_t... S>(std::index_sequence<S...>) {
        indexed::in_order{
            ((lines[S] = tag("n", S) + " [label=\"" + tag("%", S) + " = " +
                         escape(detail::node_text<Prog, S>(node_of<Prog, S>(nodes))) + "\\n" +
                         escape(shape_text(S)) + "\"" +
                         (Prog::materialized[S] ? ", style=filled, fillcolor=lightgrey" : "") +
                         "];\n"),
             0)...};
    }
    (std::make_index_sequence<Prog::size>{});
    for (std::size_t k = 0; k <= n; ++k) {
        std::string inner;
        for (std::size_t s = 0; s < Prog::size; ++s)
            if (cluster_of[s] == k)
                inner += (k < n ? "    " : "  ") + lines[s];
        if (k < n && !inner.empty())
            out += tag("  subgraph cluster_", k) + " {\n    label=\"kernel " + std::to_string(k) +
                   "\";\n    style=dashed;\n" + inner + "  }\n";
        else
            out += inner;
    }
    for (std::size_t s = 0; s < Prog::size; ++s)
        for (std::size_t k = 0; k < Prog::arity[s]; ++k)
            out += tag("  n", Prog::operand_slots[s][k]) + tag(" -> n", s) + ";\n";
    for (std::size_t i = 0; i < NumRoots; ++i)
        out += tag("  out", i) + " [shape=ellipse, label=\"output " + std::to_string(i) + "\"];\n" +
               tag("  n", roots[i]) + " -> out" + std::to_string(i) + ";\n";
    return out + "}\n";
}

// ---- C++ source of the fused kernels
// --------------------------------------------------------------

namespace detail {

/// The C++ text of region slot S's value, given the names of earlier values (v<slot>).
template <class Prog, std::size_t S>
std::string value_expression(const node_pointers_t<Prog>& nodes) {
    using node = typename Prog::template node_at<S>;
    if constexpr (node::kind == node_kind::constant) {
        return "static_cast<" + std::string(fn::cpp_type_name<typename node::value_type>) + ">(" +
               repr(node::value) + ")";
    } else if constexpr (node::kind == node_kind::scalar) {
        (void)nodes;
        return tag("p", S); // a kernel parameter
    } else {
        constexpr auto ops = Prog::template instr_at<S>::operands;
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            // An operand is converted only where its type is not the one the op computes in.
            auto operand = [](std::size_t slot, auto types) {
                using C = typename decltype(types)::first_type;
                using V = typename decltype(types)::second_type;
                std::string v = tag("v", slot);
                if constexpr (std::is_same_v<C, V>)
                    return v;
                else
                    return "static_cast<" + std::string(fn::cpp_type_name<C>) + ">(" + v + ")";
            };
            return node::functor::cpp(operand(
                ops[I], std::pair<ew_operand_compute_t<node, I>,
                                  typename Prog::template node_at<ops[I]>::value_type>{})...);
        }
        (std::make_index_sequence<ops.size()>{});
    }
}

} // namespace detail

/// One fused kernel's source in parts, which each target formats: cpp_text below, and the CUDA
/// backend's kernels (backend/cuda/codegen.hpp). Its parameters in slot order (the tensors it
/// reads through strides, the run-time scalars), the statements computing the region's values
/// from them, and what it does with the root's value (stores it, or combines it into a
/// reduction's output, which starts at the reduction's identity).
struct kernel_parts {
    struct parameter {
        std::string type; // the element type's C++ spelling
        std::size_t slot;
        bool tensor; // a tensor operand (in<slot>, read at offset o<slot>), else a scalar p<slot>
    };
    std::vector<parameter> parameters;
    std::string body;      // "        const T v<slot> = <expression>;\n" per computed value
    std::size_t root = 0;  // the slot whose value the kernel stores or reduces
    std::size_t reduction; // the reduce slot it combines into, or the program's size (a store)
    std::string out_type;  // the stored type, or the reduction's accumulator type
    std::string combine;   // the statement that takes `value` into out[o_out]
    bool reduces = false;
    std::string result_type; // a reduction: its result's element type
    std::string finish;      // a reduction: its result from `acc` and `count` (cpp_finish)
};

namespace detail {

/// The accumulator type, combine statement, result type and finish of a reduce slot Q.
template <class Prog, class Root, std::size_t Q>
void reduction_text(kernel_parts& parts) {
    using node = typename Prog::template node_at<Q>;
    using reduction = typename node::reduction;
    parts.out_type = fn::cpp_type_name<typename reduction::template accumulator<Root>>;
    parts.combine = reduction::cpp_combine;
    parts.result_type = fn::cpp_type_name<typename node::value_type>;
    parts.finish = reduction::cpp_finish;
}

/// Region R's slot S: a parameter where it is a leaf or a run-time scalar, a statement where it is
/// computed.
template <class Prog, std::size_t R, std::size_t S>
void slot_parts(const node_pointers_t<Prog>& nodes, kernel_parts& parts) {
    using reg = region<Prog, R>;
    if constexpr (reg::member[S]) {
        using node = typename Prog::template node_at<S>;
        const std::string t = fn::cpp_type_name<typename node::value_type>;
        if constexpr (reg::is_leaf(S)) {
            parts.parameters.push_back({t, S, true});
            parts.body +=
                "        const " + t + tag(" v", S) + tag(" = in", S) + tag("[o", S) + "];\n";
        } else {
            if constexpr (node::kind == node_kind::scalar)
                parts.parameters.push_back({t, S, false});
            parts.body += "        const " + t + tag(" v", S) + " = " +
                          value_expression<Prog, S>(nodes) + ";\n";
        }
    }
}

} // namespace detail

/// The parts of the kernel that evaluates region R and stores it or reduces it into slot
/// `reduction` (Prog::size: stores).
template <class Prog, std::size_t R>
kernel_parts region_kernel_parts(std::size_t reduction, const node_pointers_t<Prog>& nodes) {
    using root_t = typename Prog::template node_at<R>::value_type;
    kernel_parts parts;
    parts.root = R;
    parts.reduction = reduction;
    parts.out_type = fn::cpp_type_name<root_t>;
    parts.combine = "out[o_out] = value;";
    [&]<std::size_t... Q>(std::index_sequence<Q...>) {
        indexed::in_order{((Q == reduction ? [&] {
            if constexpr (Prog::template node_at<Q>::kind == node_kind::reduce) {
                detail::reduction_text<Prog, root_t, Q>(parts);
                parts.reduces = true;
            }
        }()
                                           : void()),
                           0)...};
    }
    (std::make_index_sequence<Prog::size>{});
    [&]<std::size_t... S>(std::index_sequence<S...>) {
        indexed::in_order{(detail::slot_parts<Prog, R, S>(nodes, parts), 0)...};
    }
    (std::make_index_sequence<Prog::size>{});
    return parts;
}

/// Calls f(kernel index, its parts) for each fused kernel of the program, in the plan's order.
template <class Prog, std::size_t NumRoots, class F>
void for_each_kernel_parts(const node_pointers_t<Prog>& nodes,
                           const std::array<std::size_t, NumRoots>& roots, F&& f) {
    const auto plan = kernel_plan<Prog, NumRoots>::kernels(roots);
    const auto& ks = plan.first;
    for (std::size_t k = 0; k < plan.second; ++k)
        [&]<std::size_t... R>(std::index_sequence<R...>) {
            indexed::in_order{
                ((ks[k].root == R ? (void)f(k, region_kernel_parts<Prog, R>(ks[k].reduction, nodes))
                                  : void()),
                 0)...};
        }
    (std::make_index_sequence<Prog::size>{});
}

namespace detail {

/// The C++ source of kernel k (cpp_text): one flat loop with each operand's offset from its
/// strides.
inline std::string cpp_kernel_source(std::size_t k, const kernel_parts& parts) {
    std::string params = "std::int64_t numel, int rank, const std::int64_t* sizes";
    std::string offsets, loads;
    for (const auto& p : parts.parameters) {
        if (p.tensor) {
            const std::string in = tag("in", p.slot);
            params += ", const " + p.type + "* " + in + ", const std::int64_t* " + in + "_strides";
            offsets += "            " + tag("o", p.slot) + " += c * " + in + "_strides[d];\n";
            loads += "        std::int64_t " + tag("o", p.slot) + " = 0;\n";
        } else {
            params += ", " + p.type + tag(" p", p.slot);
        }
    }
    params += ", " + parts.out_type + "* out, const std::int64_t* out_strides";
    const std::string what =
        parts.reduces ? tag(" reduced into %", parts.reduction) : std::string(" stored");
    return tag("// kernel ", k) + tag(": %", parts.root) + what + "\nvoid kernel_" +
           std::to_string(k) + "(" + params + ") {\n" +
           "    for (std::int64_t i = 0; i < numel; ++i) {\n" + loads +
           "        std::int64_t o_out = 0;\n" +
           "        for (std::int64_t d = rank - 1, r = i; d >= 0; --d) {\n" +
           "            const std::int64_t c = r % sizes[d];\n" + "            r /= sizes[d];\n" +
           offsets + "            o_out += c * out_strides[d];\n        }\n" + parts.body +
           "        const " + parts.out_type + " value = static_cast<" + parts.out_type +
           tag(">(v", parts.root) + ");\n        " + parts.combine + "\n    }\n}\n\n";
}

} // namespace detail

/// Standalone C++ source (only <cmath> and <cstdint>) with one function per fused kernel:
///   void kernel_K(std::int64_t numel, int rank, const std::int64_t* sizes,
///                 const T* in<slot>, const std::int64_t* in<slot>_strides, ...,
///                 T p<slot> (run-time scalars), R* out, const std::int64_t* out_strides)
/// A store kernel writes out[offset]; a reduction kernel combines into out[offset] (out_strides
/// 0 over reduced dims; out starts at the reduction's identity). One flat loop over the iteration
/// space with each operand's offset from its strides: the shape a CUDA kernel takes, one thread
/// per element.
template <class Prog, std::size_t NumRoots>
std::string cpp_text(const node_pointers_t<Prog>& nodes,
                     const std::array<std::size_t, NumRoots>& roots) {
    std::string out = "// Generated by staticpy: the fused kernels of one graph.\n"
                      "#include <cmath>\n#include <cstdint>\n\n";
    for_each_kernel_parts<Prog>(nodes, roots, [&](std::size_t k, const kernel_parts& parts) {
        out += detail::cpp_kernel_source(k, parts);
    });
    return out;
}

} // namespace staticpy::graph
