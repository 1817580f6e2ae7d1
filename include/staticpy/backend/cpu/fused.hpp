#pragma once
// The CPU backend's fused kernels: one kernel evaluates a whole fusion region (every elementwise
// node between an output and the tensors it reads) per element, through the loop that eager ops
// run too (kernels/elementwise.hpp: coalesced loop nests, SIMD batches, threads). No temporary is
// written: intermediate values live in registers. A region either stores its value or accumulates
// it into a reduction, so sum(x * y) reads x and y once and writes only the sum.
//
// region_kernel<Prog, Root> is the kernel of region Root: its leaves are the stored slots
// the region reads (each with its own strides over the iteration space), its numbers are held as
// values (as batches, hoisted out of the loop, when it runs on SIMD batches).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/indexed.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/kernels/elementwise.hpp"

namespace staticpy::backend::cpu {

// The kernels layer's loop machinery, by the names this backend has always used.
using kernels::chunk_count;
using kernels::coalesce;
using kernels::for_each_run;
using kernels::loop_nest;
using kernels::parallel_chunks;
using kernels::threads_for;

// ---- evaluating a region per element -----------------------------------------------------------

namespace detail {

template <class Prog, std::size_t S>
using slot_value_t = typename Prog::template node_at<S>::value_type;

/// Whether a computed slot S of a region on batches of T reads each operand as it is: operand
/// K's value is already its computation type (T, or where's bool condition computed in the
/// region as a batch's mask by a comparison), or it is a number, splat into a batch of T.
template <class Prog, std::size_t S, class T>
constexpr bool operands_read_as_batches() {
    using node = typename Prog::template node_at<S>;
    return []<std::size_t... K>(std::index_sequence<K...>) {
        auto operand_ok = []<std::size_t Op, class C>(std::integral_constant<std::size_t, Op>,
                                                      std::type_identity<C>) {
            using operand = typename Prog::template node_at<Op>;
            if constexpr (graph::is_number_node_v<operand>)
                return std::is_same_v<C, T>;
            else if constexpr (std::is_same_v<C, bool>)
                return std::is_same_v<typename operand::value_type, bool> && !Prog::stored[Op];
            else
                return std::is_same_v<C, T> && std::is_same_v<typename operand::value_type, T>;
        };
        return (operand_ok(
                    std::integral_constant<std::size_t, Prog::template instr_at<S>::operands[K]>{},
                    std::type_identity<graph::ew_operand_compute_t<node, K>>{}) &&
                ...);
    }
    (std::make_index_sequence<Prog::template instr_at<S>::arity>{});
}

/// Whether a region can run on SIMD batches of T: its leaves are T, its numbers arithmetic (splat
/// into batches of T), and each computation is in T, gives T or a bool (a comparison's mask), and
/// takes batches (operands_read_as_batches).
template <class Prog, class Region, class T, std::size_t... J>
constexpr bool region_simd_able(std::index_sequence<J...>) {
    if constexpr (!kernels::simd_type_v<T>) {
        return false;
    } else {
        auto slot_ok = []<std::size_t I>(std::integral_constant<std::size_t, I>) {
            using node = typename Prog::template node_at<I>;
            using V = typename node::value_type;
            if constexpr (graph::is_number_node_v<node>)
                return std::is_arithmetic_v<V>;
            else if constexpr (Region::is_leaf(I))
                return std::is_same_v<V, T>;
            else {
                constexpr bool gives_batch_or_mask =
                    std::is_same_v<V, T> || std::is_same_v<V, bool>;
                return node::functor::vectorized && gives_batch_or_mask &&
                       std::is_same_v<typename node::compute_type, T> &&
                       operands_read_as_batches<Prog, I, T>();
            }
        };
        return (slot_ok(std::integral_constant<std::size_t, Region::members[J]>{}) && ...);
    }
}

/// The work per element of a region: the sum of its ops' costs (op_base::cost).
template <class Prog, class Region, std::size_t... J>
constexpr int region_cost(std::index_sequence<J...>) {
    auto slot_cost = []<std::size_t I>(std::integral_constant<std::size_t, I>) {
        using node = typename Prog::template node_at<I>;
        if constexpr (Region::is_leaf(I) || graph::is_number_node_v<node>)
            return 0;
        else
            return node::functor::cost;
    };
    return (0 + ... + slot_cost(std::integral_constant<std::size_t, Region::members[J]>{}));
}

/// The kernel (kernels/elementwise.hpp) of the region rooted at slot Root: each leaf's base
/// pointer, and the node objects for the numbers' values.
template <class Prog, std::size_t Root>
struct region_kernel {
    using region = graph::region<Prog, Root>;
    static constexpr std::size_t N = Prog::size;
    static constexpr std::size_t leaves = region::leaf_count;
    using value_type = slot_value_t<Prog, Root>;
    /// The region's values are kept by member position (region::member_index), its leaves'
    /// pointers by leaf position: a few each, where the program has a hundred slots.
    using member_sequence = std::make_index_sequence<region::member_count>;
    using leaf_sequence = std::make_index_sequence<leaves>;
    static constexpr bool simd = region_simd_able<Prog, region, value_type>(member_sequence{});
    static constexpr int cost = region_cost<Prog, region>(member_sequence{});
    using offsets_t = std::array<std::int64_t, leaves + 1>;

    template <class Seq>
    struct pointers_of;
    template <std::size_t... J>
    struct pointers_of<std::index_sequence<J...>> {
        using type = indexed::pack<const slot_value_t<Prog, region::leaf_slots[J]>*...>;
    };
    using pointers_t = typename pointers_of<leaf_sequence>::type;

    pointers_t data{};                           // leaves' first elements, by leaf position
    const graph::node_pointers_t<Prog>* nodes{}; // for the numbers' values

    /// The region's values, member J's of type Value<region::members[J]> (the slot's own type
    /// for one element, a batch of the root's type on SIMD batches).
    template <template <std::size_t> class Value, class Seq>
    struct values_of;
    template <template <std::size_t> class Value, std::size_t... J>
    struct values_of<Value, std::index_sequence<J...>> {
        using type = indexed::pack<Value<region::members[J]>...>;
    };
    /// Member slot S's value in v.
    template <std::size_t S, class Values>
    static constexpr auto& value_at(Values& v) {
        return indexed::get<region::member_index[S]>(v);
    }

    template <std::size_t S>
    auto number_value() const {
        using node = typename Prog::template node_at<S>;
        if constexpr (node::kind == graph::node_kind::constant)
            return static_cast<typename node::value_type>(node::value);
        else
            return graph::node_of<Prog, S>(*nodes).value;
    }

    /// Evaluates the region's slots in order into v: leaves through read(S), numbers through
    /// number(S), and every elementwise node by its op's apply() on its operands' values, each
    /// first passed through convert(S, I, value) (the scalar path converts to the node's
    /// computation type; batches are in it already).
    template <class Values, class Read, class Number, class Convert>
    static void evaluate(Values& v, const Read& read, const Number& number,
                         const Convert& convert) {
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            (evaluate_slot<region::members[J]>(v, read, number, convert), ...);
        }
        (member_sequence{});
    }
    template <std::size_t S, class Values, class Read, class Number, class Convert>
    static void evaluate_slot(Values& v, const Read& read, const Number& number,
                              const Convert& convert) {
        using node = typename Prog::template node_at<S>;
        using V = std::remove_reference_t<decltype(value_at<S>(v))>;
        if constexpr (region::is_leaf(S))
            value_at<S>(v) = read(std::integral_constant<std::size_t, S>{});
        else if constexpr (graph::is_number_node_v<node>)
            value_at<S>(v) = number(std::integral_constant<std::size_t, S>{});
        else
            value_at<S>(v) = apply_node<S, V>(
                v, convert, std::make_index_sequence<Prog::template instr_at<S>::arity>{});
    }
    template <std::size_t S, class V, class Values, class Convert, std::size_t... I>
    static V apply_node(const Values& v, const Convert& convert, std::index_sequence<I...>) {
        constexpr auto ops = Prog::template instr_at<S>::operands;
        using F = typename Prog::template node_at<S>::functor;
        return static_cast<V>(
            F::apply(convert(std::integral_constant<std::size_t, S>{},
                             std::integral_constant<std::size_t, I>{}, value_at<ops[I]>(v))...));
    }

    template <std::size_t S>
    using scalar_slot_value_t = slot_value_t<Prog, S>;
    using scalar_values_t = typename values_of<scalar_slot_value_t, member_sequence>::type;

    /// The region's value at the element whose leaf offsets are off (leaf order).
    value_type at(const offsets_t& off) const {
        scalar_values_t v{};
        evaluate(
            v,
            [&](auto s) {
                constexpr std::size_t l = region::leaf_index[s()];
                return indexed::get<l>(data)[off[l]];
            },
            [&](auto s) { return number_value<s()>(); },
            [](auto s, auto i, const auto& x) {
                using node = typename Prog::template node_at<s()>;
                return static_cast<graph::ew_operand_compute_t<node, i()>>(x);
            });
        return value_at<Root>(v);
    }

#if STATICPY_HAS_XSIMD
    using batch = kernels::batch_t<std::conditional_t<simd, value_type, float>>;
    static constexpr std::int64_t width = static_cast<std::int64_t>(batch::size);
    /// A slot's batch: of the region's type, or a mask for a comparison's bool. A bool number
    /// (a jit function's `bool` argument in `x + flag`) is splat into a batch of the region's
    /// type like any number (region_simd_able), not into a mask.
    template <std::size_t S>
    using batch_slot_t =
        std::conditional_t<std::is_same_v<slot_value_t<Prog, S>, bool> &&
                               !graph::is_number_node_v<typename Prog::template node_at<S>>,
                           typename batch::batch_bool_type, batch>;
    using batch_values_t = typename values_of<batch_slot_t, member_sequence>::type;

    /// The batch side (only instantiated when simd): the leaves' pointers, and the numbers as
    /// batches, both copied out of the kernel once per run.
    struct batch_reader {
        pointers_t ptrs;
        batch_values_t hoisted;

        /// The region's value for `width` consecutive elements of a run. AllUnit: every leaf's
        /// inner stride is 1 (known per run, so branch-free inside).
        template <bool AllUnit>
        STATICPY_KERNEL_FLATTEN batch at(const offsets_t& off, const offsets_t& inner) const {
            batch_values_t v = hoisted;
            evaluate(
                v,
                [&](auto s) {
                    constexpr std::size_t l = region::leaf_index[s()];
                    const value_type* p = indexed::get<l>(ptrs) + off[l];
                    if constexpr (AllUnit)
                        return batch::load_unaligned(p);
                    else
                        return kernels::load_strided<batch>(p, inner[l]);
                },
                [&](auto s) { return value_at<s()>(hoisted); },
                [](auto, auto, const auto& x) { return x; });
            return value_at<Root>(v);
        }
    };

    batch_reader batches() const {
        batch_reader b{data, {}};
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            (
                [&] {
                    constexpr std::size_t s = region::members[J];
                    if constexpr (graph::is_number_node_v<typename Prog::template node_at<s>>)
                        value_at<s>(b.hoisted) = batch(static_cast<value_type>(number_value<s>()));
                }(),
                ...);
        }
        (member_sequence{});
        return b;
    }
#endif
};

} // namespace detail

} // namespace staticpy::backend::cpu
