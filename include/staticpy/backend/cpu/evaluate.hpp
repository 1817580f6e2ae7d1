#pragma once
// The CPU evaluator of a graph program (graph/program.hpp): materialized nodes in slot order
// (inputs are the arguments themselves; reductions run one fused kernel over their producers;
// matmul runs the GEMM; opaque ops run their eager kernels), then one fused kernel per output.
//
//   evaluator<Prog, Args, roots> ev{nodes, args};  ev.materialize_all();  ev.value<roots[0]>()
//
// Matmul epilogues: a 2-D matmul whose only use is inside the fused kernel of an output of its
// own shape is not materialized on its own. The GEMM writes the output buffer, and right after
// each block of it is final (hot in cache) the output's kernel runs over that block, reading the
// matmul's value from the same positions: bias, activation and scaling cost no extra pass.
// Convolution epilogues likewise: conv2d (an opaque op that declares `runs_epilogue`) writes the
// output buffer, and the output's kernel runs over each run of it the convolution has written
// (relu(conv2d(x, w, b)) in one pass).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/backend/cpu/fused.hpp"
#include "staticpy/core/indexed.hpp"
#include "staticpy/core/selection.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/kernels/gemm.hpp"
#include "staticpy/kernels/reduce.hpp"
#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/ops.hpp"

namespace staticpy::backend::cpu {

namespace detail {

/// The slots whose tensors the evaluator keeps (the stored ones, graph/program.hpp, other than
/// inputs: the inputs are the arguments themselves), and each one's position among them. The
/// results are an indexed::pack of those few, not a tuple of every slot of the program: a tuple of
/// a hundred types costs compile time at each std::get.
template <class Prog>
struct kept_slots {
    static constexpr std::array<bool, Prog::size> kept = [] {
        std::array<bool, Prog::size> k{};
        for (std::size_t s = 0; s < Prog::size; ++s)
            k[s] = Prog::stored[s] && !Prog::is_input[s];
        return k;
    }();
    static constexpr std::size_t count = selection::count(kept);
    static constexpr auto slots = selection::chosen<count>(kept);
    static constexpr std::array<std::size_t, Prog::size + 1> index = selection::ranks(kept);
};
template <class Prog, class Seq>
struct results_of;
template <class Prog, std::size_t... J>
struct results_of<Prog, std::index_sequence<J...>> {
    template <std::size_t S>
    using node = typename Prog::template node_at<S>;
    using type = indexed::pack<Tensor<typename node<kept_slots<Prog>::slots[J]>::value_type,
                                      typename node<kept_slots<Prog>::slots[J]>::shape_type>...>;
};

/// 1 for softmax, 2 for log_softmax, 0 for any other opaque op.
template <class Op>
struct softmax_kind : std::integral_constant<int, 0> {};
template <class... A>
struct softmax_kind<graph::softmax_op<A...>> : std::integral_constant<int, 1> {};
template <class... A>
struct softmax_kind<graph::log_softmax_op<A...>> : std::integral_constant<int, 2> {};

/// Opaque slot S of Prog computed by its op's eager implementation, node.op, on its operands:
/// operand(std::bool_constant<Reads>, std::integral_constant<std::size_t, Slot>) gives an
/// operand's tensor where the op reads its values, its shape otherwise (each evaluator knows where
/// its tensors are).
template <class Prog, std::size_t S, class Node, class Operand>
auto run_opaque(const Node& node, Operand&& operand) {
    using node_t = typename Prog::template node_at<S>;
    constexpr auto ops = Prog::template instr_at<S>::operands;
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return node.op(operand(std::bool_constant<node_t::reads[I]>{},
                               std::integral_constant<std::size_t, ops[I]>{})...);
    }
    (std::make_index_sequence<ops.size()>{});
}

/// The shape of slot S that no kernel has computed yet, from its operands': none for a number,
/// their broadcast for a fused value. shape_of(std::integral_constant<std::size_t, O>) gives
/// operand O's (each evaluator knows where its tensors are).
template <class Prog, std::size_t S, class ShapeOf>
auto fused_shape(ShapeOf&& shape_of) {
    using node = typename Prog::template node_at<S>;
    using shape_t = typename node::shape_type;
    if constexpr (graph::is_number_node_v<node>) {
        return shape_t{};
    } else {
        constexpr auto ops = Prog::template instr_at<S>::operands;
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return shape_t(
                broadcast_shapes(shape_of(std::integral_constant<std::size_t, ops[I]>{})...));
        }
        (std::make_index_sequence<ops.size()>{});
    }
}

/// The bytes [first, one past the last) that a view of `rank` dims reaches: a function of no
/// tensor type, so that the many pairs of tensor types the evaluator compares share it.
inline std::pair<std::uintptr_t, std::uintptr_t> byte_range(const void* data,
                                                            const std::int64_t* sizes,
                                                            const std::int64_t* strides,
                                                            std::size_t rank,
                                                            std::size_t element_size) {
    const auto lo = reinterpret_cast<std::uintptr_t>(data);
    auto hi = lo;
    for (std::size_t d = 0; d < rank; ++d) {
        const auto span = static_cast<std::uintptr_t>((sizes[d] - 1) *
                                                      (strides[d] < 0 ? -strides[d] : strides[d]));
        hi += span * element_size;
    }
    return {lo, hi + element_size};
}

/// Whether the memory spans of tensors a and b overlap (an element of one may be one of the other).
template <class A, class B>
bool overlaps(const A& a, const B& b) {
    if (a.numel() == 0 || b.numel() == 0)
        return false;
    const auto [a0, a1] = byte_range(a.data(), a.sizes().data(), a.strides().data(), A::rank,
                                     sizeof(typename A::value_type));
    const auto [b0, b1] = byte_range(b.data(), b.sizes().data(), b.strides().data(), B::rank,
                                     sizeof(typename B::value_type));
    return !(a1 <= b0 || b1 <= a0);
}

/// Whether writing `out` element by element while reading `in` could read an element already
/// written: their memory overlaps and they are not the very same view.
template <class Out, class In>
bool unsafe_alias(const Out& out, const In& in) {
    if (!overlaps(out, in))
        return false;
    // Overlapping: safe only as the very same view (each element read then written in place).
    if constexpr (std::is_same_v<typename Out::value_type, typename In::value_type> &&
                  Out::rank == In::rank) {
        return !(static_cast<const void*>(out.data()) == static_cast<const void*>(in.data()) &&
                 std::equal(out.sizes().begin(), out.sizes().end(), in.sizes().begin()) &&
                 std::equal(out.strides().begin(), out.strides().end(), in.strides().begin()));
    } else {
        return true;
    }
}

} // namespace detail

/// Evaluates program Prog, whose outputs are the slots Roots, with the node objects `nodes` and
/// the jit arguments `args` (a tuple of Tensors, input<I> being element I).
template <class Prog, class Args, auto Roots>
class evaluator {
public:
    static constexpr std::size_t N = Prog::size;

    /// The slot whose epilogue each slot's kernel runs in (graph::epilogue_slots), computed once
    /// per program: every slot asks it, and a constant expression evaluated again at each
    /// question (clang does not keep their results) would cost a pass over the program each.
    static constexpr std::array<std::size_t, N + 1> epilogue_slot =
        graph::epilogue_slots<Prog>(Roots);
    template <std::size_t R>
    static constexpr std::size_t epilogue_of() {
        return epilogue_slot[R];
    }
    /// Whether fused slot S is stored (graph/program.hpp): computed once, with its epilogue if it
    /// has one, when materialize_all reaches it; an output that is one is copied from it.
    template <std::size_t S>
    static constexpr bool kept_fused = Prog::kept_fused(S);
    /// Whether matmul or convolution slot S is computed in the epilogue of a kernel that reads it
    /// rather than on its own: the kernel of an output, or of an operand of a materialized node
    /// (value() runs both; relu(x @ w1) @ w2's first GEMM runs with the ReLU as its epilogue,
    /// once).
    static constexpr std::array<bool, N + 1> deferred = [] {
        std::array<bool, N + 1> d{};
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            indexed::in_order{((d[epilogue_of<Roots[I]>()] = true), 0)...};
        }
        (std::make_index_sequence<Roots.size()>{});
        for (std::size_t s = 0; s < N; ++s)
            for (std::size_t k = 0; k < Prog::arity[s]; ++k)
                if (Prog::materialized[s] && Prog::operand_reads[s][k])
                    d[epilogue_slot[Prog::operand_slots[s][k]]] = true;
        d[N] = false;
        return d;
    }();
    template <std::size_t S>
    static constexpr bool is_direct_output() {
        using node = typename Prog::template node_at<S>;
        if constexpr (node::kind == graph::node_kind::opaque)
            return detail::softmax_kind<typename node::op_type>::value != 0 &&
                   graph::use_count<Prog, S>(Roots) == 1 &&
                   std::find(Roots.begin(), Roots.end(), S) != Roots.end();
        else
            return false;
    }
    /// direct_output of every slot, computed once per program (see epilogue_slot).
    static constexpr std::array<bool, N + 1> direct_outputs =
        []<std::size_t... S>(std::index_sequence<S...>) {
        return std::array<bool, N + 1>{is_direct_output<S>()..., false};
    }
    (std::make_index_sequence<N>{});
    using results_t = typename detail::results_of<
        Prog, std::make_index_sequence<detail::kept_slots<Prog>::count>>::type;
    /// Whether slot S is an output computed straight into the caller's tensor rather than
    /// materialized first: a softmax/log_softmax used only as an output (detail::softmax_into
    /// writes any contiguous buffer, so into() costs no temporary and no copy). Its one use must
    /// be the output itself: one read by another node (softmax(x).sum()) needs the tensor.
    template <std::size_t S>
    static constexpr bool direct_output() {
        return direct_outputs[S];
    }

    evaluator(const graph::node_pointers_t<Prog>& nodes, const Args& args)
        : nodes_(nodes), args_(args) {}

    /// Materializes every materialized slot, in order.
    void materialize_all() {
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            indexed::in_order{(materialize<S>(), 0)...};
        }
        (std::make_index_sequence<N>{});
    }

    /// The value of slot S as a new tensor (stored slots: their tensor, shared).
    template <std::size_t S>
    auto value() {
        if constexpr (direct_output<S>()) {
            return opaque<S>();
        } else if constexpr (Prog::stored[S]) {
            return tensor<S>();
        } else {
            return fresh_value<S>();
        }
    }

    /// The value of fused slot S computed now, in a new tensor.
    template <std::size_t S>
    auto fresh_value() {
        using node = typename Prog::template node_at<S>;
        if constexpr (epilogue_of<S>() != N) {
            return with_epilogue<S>();
        } else {
            Tensor<typename node::value_type, typename node::shape_type> out(shape_of<S>());
            store<S>(out);
            return out;
        }
    }

    /// Writes the value of slot S into `out` (same sizes; any strides).
    template <std::size_t S, class Out>
    void value_into(Out& out) {
        using node = typename Prog::template node_at<S>;
        static_assert(Out::rank == node::shape_type::rank,
                      "staticpy: RuntimeError: into(): the output's rank is not the result's");
        if constexpr (epilogue_of<S>() != N && !kept_fused<S>) {
            epilogue_into<S>(epilogue_operands<S>(), out);
            return;
        }
        const auto s = shape_of<S>();
        if (!std::equal(s.sizes().begin(), s.sizes().end(), out.sizes().begin(), out.sizes().end()))
            throw RuntimeError("jit into(): the output has shape " + repr(out.shape()) +
                               " but the result has shape " + repr(s));
        if constexpr (direct_output<S>()) {
            const auto in = operand_tensor<Prog::template instr_at<S>::operands[0]>();
            using op_t = typename node::op_type;
            if constexpr (std::is_same_v<typename Out::value_type,
                                         typename decltype(in)::value_type>) {
                if (out.is_contiguous() && !detail::unsafe_alias(out, in)) {
                    staticpy::detail::softmax_into<detail::softmax_kind<op_t>::value == 2>(
                        in, std::get<0>(this->template node<S>().op.args), out.data());
                    return;
                }
            }
            out.copy_(this->template node<S>().op(in));
        } else if constexpr (Prog::stored[S]) {
            out.copy_(tensor<S>()); // copy_ snapshots an overlapping source itself
        } else {
            // A leaf that overlaps out other than as the same view would be read after parts of
            // out were written: then the value goes through a temporary.
            bool overlap = false;
            for_each_leaf<S>([&](auto leaf) {
                overlap = overlap || detail::unsafe_alias(out, tensor<leaf()>());
            });
            if (overlap)
                out.copy_(value<S>());
            else
                store<S>(out);
        }
    }

    /// Writes output K into indexed::get<K>(outs) for every output (tensor handles, in the order of
    /// Roots; same sizes, any strides): jit's into() with several outputs, which may write a new
    /// value over an argument (a parameter updated in place). Every read comes before the write
    /// it could see: the GEMM or convolution operands of the outputs computed in an epilogue are
    /// computed first, and an output whose destination another output reads (a leaf of its
    /// kernel, the tensor it copies, an epilogue's operand), or that its own epilogue's producer
    /// reads, is computed into a temporary before any destination is written and copied last.
    template <class Outs>
    void values_into(const Outs& outs) {
        static_assert(indexed::size_v<Outs> == Roots.size());
        values_into(outs, std::make_index_sequence<Roots.size()>{});
    }

    /// The run-time shape of slot S.
    template <std::size_t S>
    auto shape_of() const {
        using node = typename Prog::template node_at<S>;
        using shape_t = typename node::shape_type;
        if constexpr (direct_output<S>()) {
            return shape_t(shape_of<Prog::template instr_at<S>::operands[0]>());
        } else if constexpr (node::kind == graph::node_kind::matmul && deferred[S]) {
            // Not computed yet (it runs in an output's epilogue): a 2-D product's [m, n].
            constexpr auto ops = Prog::template instr_at<S>::operands;
            return shape_t(typename shape_t::sizes_type{shape_of<ops[0]>().sizes()[0],
                                                        shape_of<ops[1]>().sizes()[1]});
        } else if constexpr (node::kind == graph::node_kind::opaque && deferred[S]) {
            // Not computed yet: a convolution's result shape, from its operands' (checked).
            constexpr auto ops = Prog::template instr_at<S>::operands;
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return this->template node<S>().op.plan(shape_of<ops[I]>()...).second;
            }
            (std::make_index_sequence<ops.size()>{});
        } else if constexpr (node::materialized) {
            return tensor<S>().shape();
        } else {
            return detail::fused_shape<Prog, S>([&](auto o) { return shape_of<o()>(); });
        }
    }

    /// The tensor of materialized slot S: an argument itself for an input (no copy of its
    /// handle: each copy is an atomic reference count), the computed tensor otherwise.
    template <std::size_t S>
    const auto& tensor() const {
        using node_t = typename Prog::template node_at<S>;
        if constexpr (node_t::kind == graph::node_kind::input)
            return indexed::get<node_t::index>(args_);
        else
            return result<S>();
    }

    /// Also the matmuls and convolutions that outputs would compute in their epilogues (for
    /// inspection, which wants every node's shape).
    void materialize_deferred() {
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            indexed::in_order{(
                [&] {
                    if constexpr (deferred[S])
                        compute_alone<S>();
                }(),
                0)...};
        }
        (std::make_index_sequence<N>{});
    }

private:
    const graph::node_pointers_t<Prog>& nodes_;
    const Args& args_;
    results_t results_{};

    /// The tensor kept for materialized slot S (not an input).
    template <std::size_t S>
    auto& result() {
        return indexed::get<detail::kept_slots<Prog>::index[S]>(results_);
    }
    template <std::size_t S>
    const auto& result() const {
        return indexed::get<detail::kept_slots<Prog>::index[S]>(results_);
    }

    template <std::size_t S>
    decltype(auto) node() const {
        return graph::node_of<Prog, S>(nodes_);
    }

    /// The tensor of an operand slot of a matmul or opaque op (stored: computed once).
    template <std::size_t S>
    auto operand_tensor() {
        return value<S>();
    }

    template <std::size_t S>
    void materialize() {
        using node_t = typename Prog::template node_at<S>;
        // (An input is read in place, through tensor<S>().)
        if constexpr (node_t::materialized && !direct_output<S>() &&
                      node_t::kind != graph::node_kind::input) {
            constexpr auto ops = Prog::template instr_at<S>::operands;
            if constexpr (node_t::kind == graph::node_kind::captured) {
                result<S>() = node<S>().tensor;
            } else if constexpr (node_t::kind == graph::node_kind::reduce) {
                result<S>() = reduce<S, ops[0]>();
            } else if constexpr (!deferred[S]) {
                compute_alone<S>();
            }
        } else if constexpr (kept_fused<S>) {
            result<S>() = fresh_value<S>();
        }
    }

    /// An opaque op: its eager implementation, on its operands' tensors (or, for an operand whose
    /// values it does not read, the operand's shape).
    template <std::size_t S>
    auto opaque() {
        return detail::run_opaque<Prog, S>(node<S>(), [&](auto reads, auto slot) {
            if constexpr (reads())
                return operand_tensor<slot()>();
            else
                return shape_of<slot()>();
        });
    }

    /// Matmul or opaque slot S computed on its own, not in an epilogue.
    template <std::size_t S>
    void compute_alone() {
        using node_t = typename Prog::template node_at<S>;
        if constexpr (node_t::kind == graph::node_kind::matmul) {
            constexpr auto ops = Prog::template instr_at<S>::operands;
            result<S>() = staticpy::matmul(operand_tensor<ops[0]>(), operand_tensor<ops[1]>());
        } else {
            static_assert(node_t::kind == graph::node_kind::opaque);
            result<S>() = opaque<S>();
        }
    }

    // ---- values_into: outputs written into the caller's tensors -------------------------------

    template <class Outs, std::size_t... I>
    void values_into(const Outs& outs, std::index_sequence<I...>) {
        auto operands = std::tuple{output_epilogue_operands<Roots[I]>()...};
        const std::array<bool, sizeof...(I)> via_temporary{
            needs_temporary<I>(outs, operands, std::index_sequence<I...>{})...};
        auto temporaries =
            std::tuple{temporary_of<Roots[I]>(via_temporary[I], std::get<I>(operands))...};
        indexed::in_order{(
            write_output<Roots[I]>(!via_temporary[I], std::get<I>(operands), indexed::get<I>(outs)),
            0)...};
        indexed::in_order{(copy_temporary(std::get<I>(temporaries), indexed::get<I>(outs)), 0)...};
    }

    /// Whether output I goes through a temporary: its destination is read by another output
    /// (or by its own GEMM or convolution), or it is a direct softmax output (which computes its
    /// operand as it writes).
    template <std::size_t I, class Outs, class Operands, std::size_t... J>
    bool needs_temporary(const Outs& outs, const Operands& operands, std::index_sequence<J...>) {
        const auto& out = indexed::get<I>(outs);
        return direct_output<Roots[I]>() || reads_in_epilogue(std::get<I>(operands), out) ||
               ((J != I && (reads_at_write<Roots[J]>(out) ||
                            reads_in_epilogue(std::get<J>(operands), out))) ||
                ...);
    }

    template <class Temporary, class Out>
    static void copy_temporary(const Temporary& temporary, const Out& out_handle) {
        if (temporary) {
            Out out = out_handle; // a handle: writes reach the caller's elements
            out.copy_(*temporary);
        }
    }

    /// The operands' tensors of the GEMM or convolution whose epilogue computes output R, or
    /// nothing.
    template <std::size_t R>
    auto epilogue_operands() {
        if constexpr (epilogue_of<R>() != N && !direct_output<R>()) {
            constexpr auto ops = Prog::template instr_at<epilogue_of<R>()>::operands;
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return std::tuple{operand_tensor<ops[I]>()...};
            }
            (std::make_index_sequence<ops.size()>{});
        } else {
            return std::tuple{};
        }
    }

    /// epilogue_operands for writing output R: nothing when R is stored (it is copied).
    template <std::size_t R>
    auto output_epilogue_operands() {
        if constexpr (kept_fused<R>)
            return std::tuple{};
        else
            return epilogue_operands<R>();
    }

    /// Whether tensors `read` (GEMM or convolution operands) overlap `out` in memory.
    template <class... Read, class Out>
    static bool reads_in_epilogue(const std::tuple<Read...>& read, const Out& out) {
        return std::apply([&](const auto&... r) { return (detail::overlaps(out, r) || ...); },
                          read);
    }

    /// Whether writing output S reads memory that overlaps `out`, apart from its epilogue's
    /// operands: its kernel's leaves, or the tensor it copies.
    template <std::size_t S, class Out>
    bool reads_at_write(const Out& out) const {
        using node = typename Prog::template node_at<S>;
        if constexpr (direct_output<S>()) {
            return false; // computed into a temporary, before any output is written
        } else if constexpr (Prog::stored[S]) {
            return detail::overlaps(out, tensor<S>());
        } else if constexpr (graph::is_number_node_v<node>) {
            return false;
        } else {
            bool read = false;
            for_each_leaf<S>([&](auto leaf) {
                if constexpr (leaf() != epilogue_of<S>())
                    read = read || detail::overlaps(out, tensor<leaf()>());
            });
            return read;
        }
    }

    /// Output S in a new tensor when `needed`, from its epilogue's prepared operands if it has
    /// them.
    template <std::size_t S, class Operands>
    auto temporary_of(bool needed, const Operands& operands) {
        using node = typename Prog::template node_at<S>;
        std::optional<Tensor<typename node::value_type, typename node::shape_type>> t;
        if (needed) {
            if constexpr (std::tuple_size_v<Operands> != 0) {
                t.emplace(shape_of<S>());
                epilogue_into<S>(operands, *t);
            } else {
                t.emplace(value<S>());
            }
        }
        return t;
    }

    /// Output S straight into `out`, when `wanted`.
    template <std::size_t S, class Operands, class Out>
    void write_output(bool wanted, const Operands& operands, const Out& out_handle) {
        if (!wanted)
            return;
        Out out = out_handle; // a handle: writes reach the caller's elements
        if constexpr (std::tuple_size_v<Operands> != 0)
            epilogue_into<S>(operands, out);
        else
            value_into<S>(out);
    }

    /// Output R, computed in the epilogue of the GEMM or convolution at slot epilogue_of<R>()
    /// from its operands' tensors `operands`, into `out` (any strides).
    template <std::size_t R, class Operands, class Out>
    void epilogue_into(const Operands& operands, Out& out) {
        using node = typename Prog::template node_at<R>;
        static_assert(Out::rank == node::shape_type::rank,
                      "staticpy: RuntimeError: into(): the output's rank is not the result's");
        const auto s = shape_of<R>();
        if (!std::equal(s.sizes().begin(), s.sizes().end(), out.sizes().begin(), out.sizes().end()))
            throw RuntimeError("jit into(): the output has shape " + repr(out.shape()) +
                               " but the result has shape " + repr(s));
        std::apply(
            [&](const auto&... o) {
                if constexpr (Prog::template node_at<epilogue_of<R>()>::kind ==
                              graph::node_kind::matmul)
                    gemm_epilogue_into<R>(out, s, o...);
                else
                    conv_epilogue_into<R>(out, s, o...);
            },
            operands);
    }

    /// Whether `out` is a view of a leaf of R's kernel other than the epilogue's slot that is
    /// not the same view (first), and whether it shares memory with any such leaf (second).
    template <std::size_t R, class Out>
    std::pair<bool, bool> epilogue_aliases(const Out& out) const {
        bool own_alias = false, shares_memory = false;
        for_each_leaf<R>([&](auto leaf) {
            if constexpr (leaf() != epilogue_of<R>()) {
                own_alias = own_alias || detail::unsafe_alias(out, tensor<leaf()>());
                shares_memory = shares_memory || detail::overlaps(out, tensor<leaf()>());
            }
        });
        return {own_alias, shares_memory};
    }

    /// Output R without an epilogue: its kernel over the epilogue slot's value, computed before
    /// (through a temporary when `own_alias`: out is a view of one of its other leaves).
    template <std::size_t R, class Out>
    void store_after(Out& out, bool own_alias) {
        using node = typename Prog::template node_at<R>;
        if (own_alias) {
            Tensor<typename node::value_type, typename node::shape_type> full(shape_of<R>());
            store<R>(full);
            out.copy_(full);
        } else {
            store<R>(out);
        }
    }

    /// The epilogue slot's tensor where its producer writes it: `out` itself when `out` is
    /// row-major and none of R's other leaves is in its memory (a new tensor, value()), a new
    /// tensor otherwise (values_into: `out` may be a leaf of R's kernel read as the same view).
    template <std::size_t R, class Out, class Shape>
    void place_epilogue_slot(const Out& out, const Shape& shape, bool shares_memory) {
        using m_tensor = std::remove_cvref_t<decltype(result<epilogue_of<R>()>())>;
        if (!shares_memory && out.is_contiguous())
            result<epilogue_of<R>()>() =
                m_tensor(out.storage(), out.storage_offset(), shape, out.strides());
        else
            result<epilogue_of<R>()>() = m_tensor(shape);
    }

    /// Output R, which the GEMM a @ b at slot M = epilogue_of<R>() feeds, into `out` (of R's
    /// shape s): R's kernel runs over each finished block of the product, while it is in cache.
    /// Without an epilogue (operands that do not multiply, an empty product, leaves that
    /// broadcast beyond it): the eager matmul, its checks and messages, then R's kernel.
    template <std::size_t R, class Out, class Shape, class A, class B>
    void gemm_epilogue_into(Out& out, const Shape& s, const A& a, const B& b) {
        constexpr std::size_t M = epilogue_of<R>();
        using T = typename Prog::template node_at<R>::value_type;
        using m_tensor = std::remove_cvref_t<decltype(result<M>())>;
        const auto [own_alias, shares_memory] = epilogue_aliases<R>(out);
        const std::int64_t m = a.sizes()[0], k = a.sizes()[1], n = b.sizes()[1];
        if (k != b.sizes()[0] || m == 0 || n == 0 || k == 0 || s.sizes()[0] != m ||
            s.sizes()[1] != n || own_alias) {
            result<M>() = staticpy::matmul(a, b);
            store_after<R>(out, own_alias);
            return;
        }
        place_epilogue_slot<R>(
            out, typename m_tensor::shape_type(typename m_tensor::shape_type::sizes_type{m, n}),
            shares_memory);
        auto& c = result<M>();
        kernel_t<R> kern;
        // Each leaf's strides over the whole output; a block starts at its (i0, j0).
        const auto strides =
            leaf_strides<R>(kern, std::array<std::int64_t, 2>{m, n},
                            std::array<std::int64_t, 2>{out.strides()[0], out.strides()[1]});
        T* q = out.data();
        kernels::gemm(m, n, k, a.data(), a.strides()[0], a.strides()[1], b.data(), b.strides()[0],
                      b.strides()[1], c.data(), c.strides()[0],
                      [&](std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
                          kernels::store_block(kern, strides, q, i0, i1, j0, j1);
                      });
    }

    /// Output R, which the convolution at slot M = epilogue_of<R>() feeds, into `out` (of R's
    /// shape s): R's kernel runs over each run of the convolution's result as soon as the
    /// convolution has written it (kernels::conv2d_forward). Without an epilogue (leaves that
    /// broadcast beyond the result, `out` a view of another leaf): the convolution, then R's
    /// kernel.
    template <std::size_t R, class Out, class Shape, class... Operands>
    void conv_epilogue_into(Out& out, const Shape& s, const Operands&... operands) {
        constexpr std::size_t M = epilogue_of<R>();
        constexpr std::size_t rank = Shape::rank;
        using T = typename Prog::template node_at<R>::value_type;
        const auto& op = node<M>().op;
        // (Not a structured binding: clang 14 cannot capture one in the epilogue's lambda.)
        const auto planned = op.plan(operands.shape()...);
        const auto& geo = planned.first;
        const auto& product_shape = planned.second;
        const auto [own_alias, shares_memory] = epilogue_aliases<R>(out);
        if (!std::equal(s.sizes().begin(), s.sizes().end(), product_shape.sizes().begin()) ||
            own_alias) {
            result<M>() = op(operands...);
            store_after<R>(out, own_alias);
            return;
        }
        place_epilogue_slot<R>(out, product_shape, shares_memory);
        T* y = result<M>().data();
        kernel_t<R> kern;
        std::array<std::int64_t, rank> out_strides{};
        std::copy(out.strides().begin(), out.strides().end(), out_strides.begin());
        // Each leaf's strides over the result [(n,) o, h, w], the output's last.
        const auto strides = leaf_strides<R>(kern, s.sizes(), out_strides);
        constexpr std::size_t L = kernel_t<R>::leaves;
        constexpr std::size_t first = rank == 4 ? 1 : 0; // the channel's dim
        // A run of positions [q0, q1) of one plane is one run of the kernel when every operand
        // steps through a plane's rows as through one row; else one run per row.
        bool flat = true;
        for (std::size_t l = 0; l < L + 1; ++l)
            flat = flat && strides[l][first + 1] == geo.out_w * strides[l][first + 2];
        std::array<std::int64_t, L + 1> inner{};
        for (std::size_t l = 0; l < L + 1; ++l)
            inner[l] = strides[l][first + 2];
        T* q = out.data();
        op.forward_into(
            geo, y,
            [&](std::int64_t image, std::int64_t channel, std::int64_t q0, std::int64_t q1) {
                for (std::int64_t p = q0; p < q1;) {
                    const std::int64_t row = p / geo.out_w, col = p % geo.out_w;
                    const std::int64_t len = flat ? q1 - p : std::min(q1 - p, geo.out_w - col);
                    std::array<std::int64_t, L + 1> off{};
                    for (std::size_t l = 0; l < L + 1; ++l) {
                        off[l] = channel * strides[l][first] + row * strides[l][first + 1] +
                                 col * strides[l][first + 2];
                        if constexpr (rank == 4)
                            off[l] += image * strides[l][0];
                    }
                    kernels::store_run(kern, off, len, inner, q);
                    p += len;
                }
            },
            operands...);
    }

    /// Output R, computed in the epilogue of the GEMM or convolution that feeds it, as a new
    /// tensor.
    template <std::size_t R>
    auto with_epilogue() {
        using node = typename Prog::template node_at<R>;
        Tensor<typename node::value_type, typename node::shape_type> out(shape_of<R>());
        epilogue_into<R>(epilogue_operands<R>(), out);
        return out;
    }

    // ---- fused elementwise: store ------------------------------------------------------------

    template <std::size_t Root>
    using kernel_t = detail::region_kernel<detail::region_spec_t<Prog, Root>>;

    /// Calls f(std::integral_constant<std::size_t, L>) for each leaf slot L of region Root.
    template <std::size_t Root, class F>
    static void for_each_leaf(F&& f) {
        using region = graph::region<Prog, Root>;
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            (f(std::integral_constant<std::size_t, region::leaf_slots[J]>{}), ...);
        }
        (std::make_index_sequence<region::leaf_count>{});
    }

    /// Fills the kernel of region Root with the values of its run-time numbers.
    template <std::size_t Root>
    void fill_numbers(kernel_t<Root>& k) const {
        using region = graph::region<Prog, Root>;
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            ((indexed::get<K>(k.values) =
                  node<region::members[kernel_t<Root>::number_members[K]]>().value),
             ...);
        }
        (std::make_index_sequence<kernel_t<Root>::numbers>{});
    }

    /// The loop nest of region Root over the iteration space `sizes`, its sink having `sink`
    /// strides; fills the kernel's leaf pointers.
    /// Fills the kernel of region Root with its leaves' pointers, and returns each leaf's strides
    /// over the iteration space `sizes` (0 where it broadcasts), the sink's (`sink`) last.
    template <std::size_t Root, std::size_t R>
    auto leaf_strides(kernel_t<Root>& k, const std::array<std::int64_t, R>& sizes,
                      const std::array<std::int64_t, R>& sink) const {
        constexpr std::size_t L = kernel_t<Root>::leaves;
        std::array<std::array<std::int64_t, R>, L + 1> strides{};
        strides[L] = sink;
        fill_numbers<Root>(k);
        for_each_leaf<Root>([&](auto leaf) {
            constexpr std::size_t l = graph::region<Prog, Root>::leaf_index[leaf()];
            const auto& t = tensor<leaf()>();
            indexed::get<l>(k.data) = t.data();
            strides[l] = kernels::broadcast_strides(t.sizes(), t.strides(), sizes);
        });
        return strides;
    }

    /// The loop nest of region Root over the iteration space `sizes`, its sink having `sink`
    /// strides (dims merged where every operand allows).
    template <std::size_t Root, std::size_t R>
    auto prepare(kernel_t<Root>& k, const std::array<std::int64_t, R>& sizes,
                 const std::array<std::int64_t, R>& sink) const {
        return coalesce(sizes, leaf_strides<Root>(k, sizes, sink));
    }

    template <std::size_t Root, class Out>
    void store(Out& out) {
        using T = typename Out::value_type;
        static_assert(std::is_same_v<T, typename Prog::template node_at<Root>::value_type>);
        kernel_t<Root> k;
        const auto nest = prepare<Root>(k, out.sizes(), out.strides());
        kernels::store(k, nest, out.data(), out.numel());
    }

    // ---- fused reductions ----------------------------------------------------------------------

    template <std::size_t S, std::size_t Operand>
    auto reduce() {
        using node_t = typename Prog::template node_at<S>;
        using Reduction = typename node_t::reduction;
        using out_shape_t = typename node_t::shape_type;
        using V = typename node_t::value_type;

        const auto in_shape = shape_of<Operand>();
        const auto& in_sizes = in_shape.sizes();
        const auto mask = node_t::plan::mask(node<S>().dim);
        Reduction::check_input(in_sizes, mask,
                               std::is_same_v<typename node_t::dim_type, graph::all_dims>);

        const auto layout = kernels::reduce_layout_of(in_sizes, mask);
        kernel_t<Operand> k;
        const auto nest = prepare<Operand>(k, in_sizes, layout.sink);

        Tensor<V, out_shape_t> out{out_shape_t(
            staticpy::detail::reduced_sizes<out_shape_t::rank>(in_sizes, mask, node_t::keepdim))};
        kernels::reduce<Reduction>(k, nest, in_shape.numel(), layout, out.data());
        return out;
    }
};

} // namespace staticpy::backend::cpu
