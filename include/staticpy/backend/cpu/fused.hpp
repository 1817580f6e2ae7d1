#pragma once
// The CPU backend's fused kernels: one kernel evaluates a whole fusion region (every elementwise
// node between an output and the tensors it reads) per element, through the loop that eager ops
// run too (kernels/elementwise.hpp: coalesced loop nests, SIMD batches, threads). No temporary is
// written: intermediate values live in registers. A region either stores its value or accumulates
// it into a reduction, so sum(x * y) reads x and y once and writes only the sum.
//
// region_kernel<region_spec_t<Prog, Root>> is the kernel of region Root: its leaves are the
// stored slots the region reads (each with its own strides over the iteration space), its numbers
// are held as values (as batches, hoisted out of the loop, when it runs on SIMD batches).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/indexed.hpp"
#include "staticpy/core/selection.hpp"
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

// ---- a region as what it computes ------------------------------------------------------------
//
// A kernel is keyed by what its region computes, not by the program it came from: its members in
// order (operands before their users), each a leaf read from memory, a number, or a functor over
// earlier members. Shapes and slots are not part of it. So one computation met in two programs
// (a training step and its forward-backward graph, the speculative and the exact numbering) or
// twice in one (every parameter's SGD update, p - lr * g) is one kernel, compiled once, and its
// functions' names spell a few functors rather than the whole program.

namespace detail {

/// What a member of a region is.
enum class member_role { leaf, number, constant, op };

/// A member read from memory, through its leaf pointer.
template <class V>
struct leaf_member {
    static constexpr member_role role = member_role::leaf;
    using value_type = V;
};
/// A number known at run time (a scalar node): its value is held in the kernel.
template <class V>
struct number_member {
    static constexpr member_role role = member_role::number;
    using value_type = V;
};
/// A number known at compile time: graph::constant<C>'s value.
template <class C>
struct constant_member {
    static constexpr member_role role = member_role::constant;
    using value_type = typename graph::constant<C>::value_type;
    static constexpr auto value = C::value;
};
/// Functor F over the members at positions Operands, computing in Compute, giving V.
template <class F, class V, class Compute, std::size_t... Operands>
struct op_member {
    static constexpr member_role role = member_role::op;
    using functor = F;
    using value_type = V;
    using compute_type = Compute;
    static constexpr std::size_t arity = sizeof...(Operands);
    static constexpr std::array<std::size_t, sizeof...(Operands)> operands{Operands...};
    /// The type operand I is converted to before F::apply.
    template <std::size_t I>
    using operand_compute_t = graph::operand_compute_t<F, Compute, I>;
};

/// The members of a region, in order; the last is its root.
template <class... Members>
struct region_spec {};

/// Slot S of Prog as a member of the region rooted at Root.
template <class Prog, std::size_t Root, std::size_t S,
          class Operands = std::make_index_sequence<Prog::template instr_at<S>::arity>>
struct member_of;
template <class Prog, std::size_t Root, std::size_t S, std::size_t... K>
struct member_of<Prog, Root, S, std::index_sequence<K...>> {
    using region = graph::region<Prog, Root>;
    using node = typename Prog::template node_at<S>;
    static auto pick() {
        if constexpr (region::is_leaf(S))
            return std::type_identity<leaf_member<typename node::value_type>>{};
        else if constexpr (node::kind == graph::node_kind::scalar)
            return std::type_identity<number_member<typename node::value_type>>{};
        else if constexpr (node::kind == graph::node_kind::constant)
            return std::type_identity<constant_member<typename node::constant_type>>{};
        else
            return std::type_identity<op_member<
                typename node::functor, typename node::value_type, typename node::compute_type,
                region::member_index[Prog::template instr_at<S>::operands[K]]...>>{};
    }
    using type = typename decltype(pick())::type;
};

template <class Prog, std::size_t Root, class Seq>
struct region_spec_of;
template <class Prog, std::size_t Root, std::size_t... J>
struct region_spec_of<Prog, Root, std::index_sequence<J...>> {
    using region = graph::region<Prog, Root>;
    using type = region_spec<typename member_of<Prog, Root, region::members[J]>::type...>;
};
/// What the region rooted at slot Root of Prog computes.
template <class Prog, std::size_t Root>
using region_spec_t = typename region_spec_of<
    Prog, Root, std::make_index_sequence<graph::region<Prog, Root>::member_count>>::type;

template <class Spec>
struct region_kernel;

/// The kernel (kernels/elementwise.hpp) of a region: each leaf's base pointer and each run-time
/// number's value, both filled by the evaluator (by leaf and by number position).
template <class... M>
struct region_kernel<region_spec<M...>> {
    static constexpr std::size_t member_count = sizeof...(M);
    using members_t = indexed::pack<M...>;
    template <std::size_t J>
    using member_t = indexed::type_at<J, members_t>;
    template <std::size_t J>
    using member_value_t = typename member_t<J>::value_type;
    static constexpr std::array<bool, member_count> leaf_mask{(M::role == member_role::leaf)...};
    static constexpr std::array<bool, member_count> number_mask{
        (M::role == member_role::number)...};
    static constexpr std::size_t leaves = selection::count(leaf_mask);
    static constexpr std::size_t numbers = selection::count(number_mask);
    /// Member J's position among the leaves, and among the run-time numbers.
    static constexpr auto leaf_index = selection::ranks(leaf_mask);
    static constexpr auto number_index = selection::ranks(number_mask);
    static constexpr auto leaf_members = selection::chosen<leaves>(leaf_mask);
    static constexpr auto number_members = selection::chosen<numbers>(number_mask);
    using value_type = member_value_t<member_count - 1>;
    using member_sequence = std::make_index_sequence<member_count>;
    using offsets_t = std::array<std::int64_t, leaves + 1>;

    template <std::size_t J>
    static constexpr bool is_number_member =
        member_t<J>::role == member_role::number || member_t<J>::role == member_role::constant;

    /// Whether op member J on batches of T reads each operand as it is: the operand's value is
    /// already its computation type (T, or where's bool condition computed in the region as a
    /// batch's mask by a comparison), or it is a number, splat into a batch of T.
    template <std::size_t J, class T, std::size_t K>
    static constexpr bool operand_reads_as_batch() {
        using m = member_t<J>;
        constexpr std::size_t o = m::operands[K];
        using C = typename m::template operand_compute_t<K>;
        if constexpr (is_number_member<o>)
            return std::is_same_v<C, T>;
        else if constexpr (std::is_same_v<C, bool>)
            return std::is_same_v<member_value_t<o>, bool> && member_t<o>::role == member_role::op;
        else
            return std::is_same_v<C, T> && std::is_same_v<member_value_t<o>, T>;
    }
    template <std::size_t J, class T>
    static constexpr bool member_simd_able() {
        using m = member_t<J>;
        using V = typename m::value_type;
        if constexpr (is_number_member<J>)
            return std::is_arithmetic_v<V>;
        else if constexpr (m::role == member_role::leaf)
            return std::is_same_v<V, T>;
        else
            return m::functor::vectorized &&
                   (std::is_same_v<V, T> ||
                    std::is_same_v<V, bool>)&&std::is_same_v<typename m::compute_type,
                                                             T>&&[]<std::size_t... K>(
                       std::index_sequence<K...>) {
                return (operand_reads_as_batch<J, T, K>() && ...);
            }
        (std::make_index_sequence<m::arity>{});
    }
    /// Whether the region runs on SIMD batches of its type: its leaves are of it, its numbers
    /// arithmetic (splat into batches), and each computation is in it, gives it or a bool (a
    /// comparison's mask), and takes batches (operand_reads_as_batch).
    static constexpr bool simd = [] {
        if constexpr (!kernels::simd_type_v<value_type>)
            return false;
        else
            return []<std::size_t... J>(std::index_sequence<J...>) {
                return (member_simd_able<J, value_type>() && ...);
            }
        (member_sequence{});
    }();
    /// The work per element: the sum of its ops' costs (op_base::cost).
    static constexpr int cost = [] {
        int c = 0;
        ((c +=
          [] {
              if constexpr (M::role == member_role::op)
                  return M::functor::cost;
              else
                  return 0;
          }()),
         ...);
        return c;
    }();

    template <class Seq>
    struct pointers_of;
    template <std::size_t... L>
    struct pointers_of<std::index_sequence<L...>> {
        using type = indexed::pack<const member_value_t<leaf_members[L]>*...>;
    };
    using pointers_t = typename pointers_of<std::make_index_sequence<leaves>>::type;
    template <class Seq>
    struct numbers_of;
    template <std::size_t... K>
    struct numbers_of<std::index_sequence<K...>> {
        using type = indexed::pack<member_value_t<number_members[K]>...>;
    };
    using numbers_t = typename numbers_of<std::make_index_sequence<numbers>>::type;

    pointers_t data{};  // leaves' first elements, by leaf position
    numbers_t values{}; // run-time numbers, by number position

    /// Number member J's value.
    template <std::size_t J>
    auto number_value() const {
        using m = member_t<J>;
        if constexpr (m::role == member_role::constant)
            return static_cast<typename m::value_type>(m::value);
        else
            return indexed::get<number_index[J]>(values);
    }

    /// The region's values, member J's of type Value<J> (its own type for one element, a batch
    /// of the root's type on SIMD batches).
    template <template <std::size_t> class Value, class Seq>
    struct values_of;
    template <template <std::size_t> class Value, std::size_t... J>
    struct values_of<Value, std::index_sequence<J...>> {
        using type = indexed::pack<Value<J>...>;
    };

    /// Evaluates the members in order into v: leaves through read(J), numbers through
    /// number(J), and every op by its functor's apply() on its operands' values, each first
    /// passed through convert(J, I, value) (the scalar path converts to the op's computation
    /// type; batches are in it already).
    template <class Values, class Read, class Number, class Convert>
    static void evaluate(Values& v, const Read& read, const Number& number,
                         const Convert& convert) {
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            (evaluate_member<J>(v, read, number, convert), ...);
        }
        (member_sequence{});
    }
    template <std::size_t J, class Values, class Read, class Number, class Convert>
    static void evaluate_member(Values& v, const Read& read, const Number& number,
                                const Convert& convert) {
        using m = member_t<J>;
        using V = std::remove_reference_t<decltype(indexed::get<J>(v))>;
        if constexpr (m::role == member_role::leaf)
            indexed::get<J>(v) = read(std::integral_constant<std::size_t, J>{});
        else if constexpr (is_number_member<J>)
            indexed::get<J>(v) = number(std::integral_constant<std::size_t, J>{});
        else
            indexed::get<J>(v) =
                apply_member<J, V>(v, convert, std::make_index_sequence<m::arity>{});
    }
    template <std::size_t J, class V, class Values, class Convert, std::size_t... I>
    static V apply_member(const Values& v, const Convert& convert, std::index_sequence<I...>) {
        using m = member_t<J>;
        return static_cast<V>(m::functor::apply(convert(std::integral_constant<std::size_t, J>{},
                                                        std::integral_constant<std::size_t, I>{},
                                                        indexed::get<m::operands[I]>(v))...));
    }

    using scalar_values_t = typename values_of<member_value_t, member_sequence>::type;

    /// The region's value at the element whose leaf offsets are off (leaf order).
    value_type at(const offsets_t& off) const {
        scalar_values_t v{};
        evaluate(
            v,
            [&](auto j) {
                constexpr std::size_t l = leaf_index[j()];
                return indexed::get<l>(data)[off[l]];
            },
            [&](auto j) { return number_value<j()>(); },
            [](auto j, auto i, const auto& x) {
                return static_cast<typename member_t<j()>::template operand_compute_t<i()>>(x);
            });
        return indexed::get<member_count - 1>(v);
    }

#if STATICPY_HAS_XSIMD
    using batch = kernels::batch_t<std::conditional_t<simd, value_type, float>>;
    static constexpr std::int64_t width = static_cast<std::int64_t>(batch::size);
    /// A member's batch: of the region's type, or a mask for a comparison's bool. A bool number
    /// (a jit function's `bool` argument in `x + flag`) is splat into a batch of the region's
    /// type like any number (member_simd_able), not into a mask.
    template <std::size_t J>
    using batch_member_t =
        std::conditional_t<std::is_same_v<member_value_t<J>, bool> && !is_number_member<J>,
                           typename batch::batch_bool_type, batch>;
    using batch_values_t = typename values_of<batch_member_t, member_sequence>::type;

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
                [&](auto j) {
                    constexpr std::size_t l = leaf_index[j()];
                    const value_type* p = indexed::get<l>(ptrs) + off[l];
                    if constexpr (AllUnit)
                        return batch::load_unaligned(p);
                    else
                        return kernels::load_strided<batch>(p, inner[l]);
                },
                [&](auto j) { return indexed::get<j()>(hoisted); },
                [](auto, auto, const auto& x) { return x; });
            return indexed::get<member_count - 1>(v);
        }
    };

    batch_reader batches() const {
        batch_reader b{data, {}};
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            (
                [&] {
                    if constexpr (is_number_member<J>)
                        indexed::get<J>(b.hoisted) =
                            batch(static_cast<value_type>(number_value<J>()));
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
