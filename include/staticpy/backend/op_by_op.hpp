#pragma once
// A graph program (graph/program.hpp) run op by op: each node by the eager op of its kind, in
// slot order, on its operands' values, with nothing fused: what a jit function runs in
// PYNATIVE_MODE, as MindSpore's jit runs its graph kernel by kernel at jit_level O0.
//
//   op_by_op<Prog, Args, roots> run{nodes, args};  run.run_all();  run.value<roots[0]>()
//
// Why not the function itself on Tensors: a jit function would then be compiled twice, once as a
// graph and once eagerly (with its gradients on the autodiff tape), because the mode switches at
// run time; a program that never leaves GRAPH_MODE paid for both. Here the traced program is the
// only one, and each node calls the eager op shared by every graph and by eager code: code per
// (op, dtype, rank), not per program. The eager ops dispatch on their tensors' device, so a
// program on a GPU runs there op by op too.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "staticpy/core/indexed.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/tensor/ops.hpp"

namespace staticpy::backend {

namespace detail {

/// Whether slot node N's value is a number (a number node, or an elementwise node of numbers
/// only, which computes as Python's arithmetic does): held as its value_type, not as a tensor.
template <class N>
inline constexpr bool number_slot_v = graph::is_number_expression_v<N>;

/// What a slot of node type N holds: a number, or a tensor of the node's dtype and shape.
template <class N>
using slot_value_t = std::conditional_t<number_slot_v<N>, typename N::value_type,
                                        Tensor<typename N::value_type, typename N::shape_type>>;

template <class Prog, class Seq>
struct slot_values_of;
template <class Prog, std::size_t... S>
struct slot_values_of<Prog, std::index_sequence<S...>> {
    using type = indexed::pack<slot_value_t<typename Prog::template node_at<S>>...>;
};

/// x as a value of type Slot: the same type as it is; another tensor type (an eager op's result
/// typed otherwise than the node: a dynamic extent, another dtype) converted, its sizes checked.
template <class Slot, class X>
Slot as_slot(X&& x) {
    using V = std::remove_cvref_t<X>;
    if constexpr (std::is_same_v<V, Slot>)
        return std::forward<X>(x);
    else if constexpr (std::is_same_v<typename V::value_type, typename Slot::value_type>)
        return Slot(std::forward<X>(x));
    else
        return Slot(x.template to<typename Slot::value_type>());
}

} // namespace detail

/// Runs program Prog, whose outputs are the slots Roots, with the node objects `nodes` and the
/// jit arguments `args` (a tuple of Tensors, input<I> being element I), one node at a time.
template <class Prog, class Args, auto Roots>
class op_by_op {
public:
    static constexpr std::size_t N = Prog::size;

    op_by_op(const graph::node_pointers_t<Prog>& nodes, const Args& args)
        : nodes_(nodes), args_(args) {}

    /// Computes every slot, in order.
    void run_all() {
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            indexed::in_order{(run<S>(), 0)...};
        }
        (std::make_index_sequence<N>{});
    }

    /// The value of slot S (after run_all), as a tensor.
    template <std::size_t S>
    auto value() const {
        return tensor_of<S>();
    }

private:
    using values_t = typename detail::slot_values_of<Prog, std::make_index_sequence<N>>::type;
    const graph::node_pointers_t<Prog>& nodes_;
    const Args& args_;
    values_t values_{};

    template <std::size_t S>
    using node_t = typename Prog::template node_at<S>;

    template <std::size_t S>
    decltype(auto) node_object() const {
        return graph::node_of<Prog, S>(nodes_);
    }

    template <std::size_t S>
    const auto& slot() const {
        return indexed::get<S>(values_);
    }

    /// Slot S as a tensor: a number as a 0-dim tensor of its type (what an op that takes tensors
    /// receives for it, as the fused evaluator gives it).
    template <std::size_t S>
    auto tensor_of() const {
        if constexpr (detail::number_slot_v<node_t<S>>) {
            Tensor<typename node_t<S>::value_type, shape<>> t(shape<>{});
            t.fill_(slot<S>());
            return t;
        } else {
            return slot<S>();
        }
    }

    template <std::size_t S>
    void run() {
        using node = node_t<S>;
        using slot_t = detail::slot_value_t<node>;
        constexpr auto ops = Prog::template instr_at<S>::operands;
        auto& out = indexed::get<S>(values_);
        if constexpr (node::kind == graph::node_kind::input) {
            out = indexed::get<node::index>(args_);
        } else if constexpr (node::kind == graph::node_kind::captured) {
            out = node_object<S>().tensor;
        } else if constexpr (node::kind == graph::node_kind::scalar) {
            out = static_cast<slot_t>(node_object<S>().value);
        } else if constexpr (node::kind == graph::node_kind::constant) {
            out = static_cast<slot_t>(node::value);
        } else if constexpr (node::kind == graph::node_kind::elementwise) {
            out = elementwise<S>(std::make_index_sequence<ops.size()>{});
        } else if constexpr (node::kind == graph::node_kind::reduce) {
            out = detail::as_slot<slot_t>(fn::reduce<typename node::reduction, node::keepdim>(
                slot<ops[0]>(), node_object<S>().dim));
        } else if constexpr (node::kind == graph::node_kind::matmul) {
            out = detail::as_slot<slot_t>(staticpy::matmul(slot<ops[0]>(), slot<ops[1]>()));
        } else {
            static_assert(node::kind == graph::node_kind::opaque);
            out = detail::as_slot<slot_t>([&]<std::size_t... I>(std::index_sequence<I...>) {
                return node_object<S>().op(operand_of<ops[I], node::reads[I]>()...);
            }(std::make_index_sequence<ops.size()>{}));
        }
    }

    /// What an opaque op receives for operand slot O: its tensor, or only its shape.
    template <std::size_t O, bool Reads>
    auto operand_of() const {
        if constexpr (Reads)
            return tensor_of<O>();
        else if constexpr (detail::number_slot_v<node_t<O>>)
            return shape<>{};
        else
            return slot<O>().shape();
    }

    /// Elementwise slot S: its functor on its operands' values. Numbers only: Python's
    /// arithmetic on them, each converted to the functor's computation type (as the fused kernel
    /// converts them); with a tensor among them, the eager op (promotion and broadcasting as
    /// eager code has them).
    template <std::size_t S, std::size_t... I>
    auto elementwise(std::index_sequence<I...>) const {
        using node = node_t<S>;
        using slot_t = detail::slot_value_t<node>;
        constexpr auto ops = Prog::template instr_at<S>::operands;
        using F = typename node::functor;
        if constexpr ((detail::number_slot_v<node_t<ops[I]>> && ...)) {
            const auto v = static_cast<typename node::value_type>(
                F::apply(static_cast<graph::ew_operand_compute_t<node, I>>(slot<ops[I]>())...));
            if constexpr (detail::number_slot_v<node>) {
                return v;
            } else { // a tensor of numbers (grad's mark of a differentiated float)
                slot_t t(typename node::shape_type{});
                t.fill_(v);
                return t;
            }
        } else {
            return detail::as_slot<slot_t>(staticpy::elementwise<F>(slot<ops[I]>()...));
        }
    }
};

} // namespace staticpy::backend
