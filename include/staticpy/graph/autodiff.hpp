#pragma once
// Reverse-mode autodiff of a traced graph, at compile time: the backward graph is a C++ type
// derived from the forward graph's type, built of the same nodes (elementwise, reduce, matmul,
// opaque), so the passes, common-subexpression elimination, fusion and the evaluator treat forward
// and backward as one graph. A backward node that needs a forward value names the forward node
// itself (exp's derivative is g * exp(x): the same exp node), and numbering merges the two.
//
//   graph::backprop<Tag, 2>(loss.node, seed)   // the cotangents of grad_input<Tag, 0> and <Tag, 1>
//
// How: the output is numbered into a program (program.hpp, the exact numbering: two nodes share
// a slot only when they are the same value), so that a value used twice is one slot whose
// cotangent sums both uses. Each slot's cotangent is the sum of what its readers pass it, each
// reader's own cotangent through its op's derivative rule (vjp, written once in the op's
// description: functors.hpp, reductions.hpp, ops_matmul.hpp, op_objects.hpp), in the order a sweep
// from the output back reaches them (reverse_sweep). The rules run on Tracers, so they build
// nodes. The values differentiated against are marked by grad_input<Tag, K> nodes
// (identity functions), which the rules never look through: Tag is the grad function's own type,
// so a grad inside a grad tells its inputs from the outer one's.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/indexed.hpp"
#include "staticpy/graph/node.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/graph/tracer.hpp"
#include "staticpy/tensor/ops.hpp"

namespace staticpy {

namespace fn {

/// The identity on the K-th value a grad function differentiates against (Tag: that function):
/// where backprop stops and reads the gradient. In the graph it costs nothing (it fuses away).
template <class Tag, std::size_t K>
struct grad_input : op_base {
    static constexpr const char* name = "grad_input";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    static constexpr bool tensor_result = true; // a differentiated float is a 0-dim tensor
    template <class T>
    static constexpr T apply(T x) {
        return x;
    }
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, const Y&, const X&) {
        return g;
    }
    static std::string cpp(std::string_view x) { return std::string(x); }
};

} // namespace fn

namespace graph {

/// A slot no cotangent has reached (yet).
struct no_cotangent {};

namespace detail {

template <class N, class Tag>
struct is_grad_input_of : std::false_type {};
template <class Tag, std::size_t K, class C>
struct is_grad_input_of<ew<fn::grad_input<Tag, K>, C>, Tag> : std::true_type {};

template <class N>
struct grad_input_index;
template <class Tag, std::size_t K, class C>
struct grad_input_index<ew<fn::grad_input<Tag, K>, C>> : std::integral_constant<std::size_t, K> {};

/// Whether slot S's value depends on a grad_input<Tag, ...> (only those slots carry cotangents).
template <class Prog, class Tag>
inline constexpr auto depends_on_inputs = [] {
    std::array<bool, Prog::size + 1> d{};
    [&]<std::size_t... S>(std::index_sequence<S...>) {
        indexed::in_order{(
            [&] {
                if constexpr (is_grad_input_of<typename Prog::template node_at<S>, Tag>::value) {
                    d[S] = true;
                } else {
                    for (std::size_t k = 0; k < Prog::arity[S]; ++k)
                        d[S] = d[S] || d[Prog::operand_slots[S][k]];
                }
            }(),
            0)...};
    }
    (std::make_index_sequence<Prog::size>{});
    return d;
}();

/// a + b, where either may be no_cotangent.
template <class A, class B>
auto accumulate(const A& a, const B& b) {
    if constexpr (std::is_same_v<A, no_cotangent>)
        return b;
    else if constexpr (std::is_same_v<B, no_cotangent>)
        return a;
    else
        return ew<fn::add, A, B>{{a, b}};
}

/// x as a node of value type T.
template <class T, class X>
auto cast_node(const X& x) {
    if constexpr (std::is_same_v<typename X::value_type, T>)
        return x;
    else
        return ew<fn::cast<T>, X>{{x}};
}

template <class S, std::size_t I>
inline constexpr bool static_extent_v = is_int_constant_v<shape_extent_t<S, I>>;

template <class S, std::size_t I, long long V>
constexpr bool extent_is() {
    if constexpr (static_extent_v<S, I>)
        return shape_extent_t<S, I>::value == V;
    else
        return false;
}

/// Whether operand K of elementwise node N is known at compile time to have N's own sizes at
/// every dim, so that its gradient needs no summing back: same rank, and at each dim either both
/// extents are the same static value, or the operand's is dynamic and no other operand can
/// broadcast it there (each is absent there or statically 1).
template <class N, std::size_t K>
constexpr bool same_sizes_as_result() {
    using B = typename N::shape_type;
    using OpS = typename child_t<K, N>::shape_type;
    if constexpr (OpS::rank != B::rank) {
        return false;
    } else {
        return [&]<std::size_t... D>(std::index_sequence<D...>) {
            [[maybe_unused]] auto dim_ok =
                [&]<std::size_t Dm>(std::integral_constant<std::size_t, Dm>) {
                    if constexpr (static_extent_v<OpS, Dm>) {
                        if constexpr (static_extent_v<B, Dm>)
                            return shape_extent_t<OpS, Dm>::value == shape_extent_t<B, Dm>::value;
                        else
                            return false;
                    } else {
                        return [&]<std::size_t... J>(std::index_sequence<J...>) {
                            auto other_ok = [&]<std::size_t Jj>(
                                                std::integral_constant<std::size_t, Jj>) {
                                if constexpr (Jj == K) {
                                    return true;
                                } else {
                                    using OS = typename child_t<Jj, N>::shape_type;
                                    constexpr std::size_t lead = B::rank - OS::rank;
                                    if constexpr (OS::rank > B::rank || Dm < lead)
                                        return true;
                                    else
                                        return extent_is<OS, Dm - lead, 1>();
                                }
                            };
                            return (other_ok(std::integral_constant<std::size_t, J>{}) && ...);
                        }
                        (std::make_index_sequence<N::children_type::size>{});
                    }
                };
            return (dim_ok(std::integral_constant<std::size_t, D>{}) && ...);
        }
        (std::make_index_sequence<B::rank>{});
    }
}

/// The cotangent ct of elementwise node N's result, as operand K's: summed back over the dims
/// the operand was broadcast along (nothing to do when its sizes are known to be the result's),
/// in the operand's element type.
template <std::size_t K, class N, class CT>
auto unbroadcast(const N& n, const CT& ct) {
    using operand = child_t<K, N>;
    using T = typename operand::value_type;
    if constexpr (same_sizes_as_result<N, K>()) {
        return cast_node<T>(ct);
    } else {
        const auto& x = child<K>(n);
        return cast_node<T>(opaque<staticpy::detail::sum_to_op, CT, operand>{
            {ct, x}, staticpy::detail::sum_to_op{}});
    }
}

template <class R>
auto node_of_rule(const R& r) {
    if constexpr (std::is_same_v<R, fn::no_grad>)
        return no_cotangent{};
    else
        return r.node;
}

/// The cotangent operand K of node n receives from n's cotangent ct (no_cotangent if none).
template <std::size_t K, class N, class CT>
auto operand_cotangent(const N& n, const CT& ct) {
    const auto g = traced(ct);
    const auto y = traced(n);
    using T = typename child_t<K, N>::value_type;
    if constexpr (N::kind == node_kind::elementwise) {
        using F = typename N::functor;
        const auto rule = apply_children(
            [&](const auto&... x) { return F::template vjp<K>(g, y, traced(x)...); }, n);
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(rule)>, fn::no_grad>)
            return no_cotangent{};
        else
            return unbroadcast<K>(n, rule.node);
    } else if constexpr (N::kind == node_kind::reduce) {
        const auto x = traced(child<0>(n));
        return cast_node<T>(N::reduction::template vjp<N::keepdim>(g, y, x, n.dim).node);
    } else if constexpr (N::kind == node_kind::matmul) {
        return cast_node<T>(
            staticpy::detail::matmul_vjp<K>(g, traced(child<0>(n)), traced(child<1>(n))).node);
    } else {
        static_assert(N::kind == node_kind::opaque);
        // Every op object has a rule (argmax's says no_grad); op_vjp is the compile error for
        // one that has none.
        const auto rule = apply_children(
            [&](const auto&... x) { return staticpy::detail::op_vjp<K>(n.op, g, y, traced(x)...); },
            n);
        using R = std::remove_cvref_t<decltype(rule)>;
        if constexpr (std::is_same_v<R, fn::no_grad>)
            return no_cotangent{};
        else
            return cast_node<T>(rule.node);
    }
}

/// Who reads each slot, in the order a reverse sweep reaches them: for slot o, the pairs (user u,
/// operand k) with Prog::operand_slots[u][k] == o, users from the last slot down, each user's
/// operands in order. Slot o's readers are user[first[o]] ... user[first[o + 1] - 1]. Counted,
/// then placed (a counting sort): linear in the program.
template <class Prog>
struct slot_readers {
    static constexpr std::size_t N = Prog::size;
    static constexpr std::array<std::size_t, N + 1> first = [] {
        std::array<std::size_t, N + 1> f{};
        for (std::size_t u = 0; u < N; ++u)
            for (std::size_t k = 0; k < Prog::arity[u]; ++k)
                ++f[Prog::operand_slots[u][k] + 1];
        for (std::size_t o = 0; o < N; ++o)
            f[o + 1] += f[o];
        return f;
    }();
    static constexpr std::size_t count = first[N];
    struct reader {
        std::size_t user = 0, operand = 0;
    };
    static constexpr std::array<reader, count> readers = [] {
        std::array<reader, count> r{};
        std::array<std::size_t, N + 1> next = first;
        for (std::size_t u = N; u-- > 0;)
            for (std::size_t k = 0; k < Prog::arity[u]; ++k)
                r[next[Prog::operand_slots[u][k]]++] = {u, k};
        return r;
    }();
};

/// The reverse sweep of program Prog from slot Root, whose cotangent is Seed, as a pull: slot S's
/// cotangent is the sum of what each reader passes it (operand_cotangent of the reader's own
/// cotangent), in the order the readers are reached from the output back (slot_readers), so the
/// sum is formed as a push from each slot in turn would form it. Each slot's cotangent is a type
/// computed once (cotangent_type<S>) and a value computed once (cell<S>, in `cotangents`, whose
/// cells are built from the last slot down, so a cell reads the finished cells of its readers).
/// A push carried every slot's cotangent from one step to the next, a pack of the whole program
/// rebuilt at each contribution: quadratic in the slots, in types and in the code that copies
/// them.
template <class Prog, class Tag, std::size_t Root, class Seed>
struct reverse_sweep {
    static constexpr std::size_t N = Prog::size;
    using readers = slot_readers<Prog>;
    using nodes_type = node_pointers_t<Prog>;

    template <std::size_t S>
    struct cotangent_type;
    template <std::size_t S>
    using cotangent_t = typename cotangent_type<S>::type;

    /// Reads the readers' finished cotangents while a cell is built.
    struct finished;

    /// Whether slot U passes its cotangent to its operands: it has one, and it is an op (not a
    /// leaf, not a marked input) whose value depends on a marked input.
    template <std::size_t U>
    static constexpr bool passes() {
        using node = typename Prog::template node_at<U>;
        return !std::is_same_v<cotangent_t<U>, no_cotangent> && !is_leaf_kind(node::kind) &&
               !is_grad_input_of<node, Tag>::value && depends_on_inputs<Prog, Tag>[U];
    }
    /// Whether slot S receives cotangents: it depends on a marked input and holds floats.
    template <std::size_t S>
    static constexpr bool receives = depends_on_inputs<Prog, Tag>[S] &&
                                     std::is_floating_point_v<
                                         typename Prog::template node_at<S>::value_type>;

    /// acc plus what readers J, J + 1, ... of slot S pass it.
    template <std::size_t S, std::size_t J, class Acc>
    static auto gather(const Acc& acc, const finished& done, const nodes_type& nodes) {
        if constexpr (J == readers::first[S + 1]) {
            return acc;
        } else {
            constexpr auto r = readers::readers[J];
            if constexpr (passes<r.user>()) {
                auto c = operand_cotangent<r.operand>(node_of<Prog, r.user>(nodes),
                                                      done.template at<r.user>());
                if constexpr (std::is_same_v<decltype(c), no_cotangent>)
                    return gather<S, J + 1>(acc, done, nodes);
                else
                    return gather<S, J + 1>(accumulate(acc, c), done, nodes);
            } else {
                return gather<S, J + 1>(acc, done, nodes);
            }
        }
    }
    /// Slot S's cotangent: the seed's (at the output) plus its readers'.
    template <std::size_t S>
    static auto cotangent(const Seed& seed, const finished& done, const nodes_type& nodes) {
        if constexpr (!receives<S>) {
            if constexpr (S == Root)
                return seed;
            else
                return no_cotangent{};
        } else if constexpr (S == Root) {
            return gather<S, readers::first[S]>(seed, done, nodes);
        } else {
            return gather<S, readers::first[S]>(no_cotangent{}, done, nodes);
        }
    }
    template <std::size_t S>
    struct cotangent_type {
        using type = decltype(cotangent<S>(std::declval<const Seed&>(),
                                           std::declval<const finished&>(),
                                           std::declval<const nodes_type&>()));
    };

    template <std::size_t S>
    struct cell {
        cotangent_t<S> value;
    };
    /// Every slot's cell, built from the last slot down (bases are built in the order they are
    /// listed).
    template <class Seq>
    struct cells;
    template <std::size_t... I>
    struct cells<std::index_sequence<I...>> : cell<N - 1 - I>... {
        cells(const Seed& seed, const nodes_type& nodes)
            : cell<N - 1 - I>{cotangent<N - 1 - I>(seed, finished{this}, nodes)}... {}
    };
    using cotangents = cells<std::make_index_sequence<N>>;

    struct finished {
        const cotangents* all;
        template <std::size_t U>
        const cotangent_t<U>& at() const {
            return static_cast<const cell<U>&>(*all).value;
        }
    };
};

/// Each slot's K where its node is grad_input<Tag, K>, Prog::size where it is no grad input.
template <class Prog, class Tag>
inline constexpr auto grad_input_slots = []<std::size_t... S>(std::index_sequence<S...>) {
    auto index_of = []<std::size_t I>(std::integral_constant<std::size_t, I>) {
        using node = typename Prog::template node_at<I>;
        if constexpr (is_grad_input_of<node, Tag>::value)
            return grad_input_index<node>::value;
        else
            return Prog::size;
    };
    return std::array<std::size_t, Prog::size>{
        index_of(std::integral_constant<std::size_t, S>{})...};
}(std::make_index_sequence<Prog::size>{});

/// The slots of grad_input<Tag, K> (several where the exact numbering keeps copies apart), in
/// slot order.
template <std::size_t K, class Prog, class Tag>
inline constexpr std::size_t input_slot_count = [] {
    std::size_t n = 0;
    for (std::size_t k : grad_input_slots<Prog, Tag>)
        n += k == K;
    return n;
}();
template <std::size_t K, class Prog, class Tag>
inline constexpr auto input_slots = [] {
    std::array<std::size_t, input_slot_count<K, Prog, Tag>> a{};
    std::size_t n = 0;
    for (std::size_t s = 0; s < Prog::size; ++s)
        if (grad_input_slots<Prog, Tag>[s] == K)
            a[n++] = s;
    return a;
}();

template <class Acc>
auto accumulate_all(const Acc& acc) {
    return acc;
}
template <class Acc, class First, class... Rest>
auto accumulate_all(const Acc& acc, const First& first, const Rest&... rest) {
    return accumulate_all(accumulate(acc, first), rest...);
}

/// The cotangent of grad_input<Tag, K>: the sum of its slots' (visited from the marked slots
/// alone, not from every slot of the program: each slot visited is an instantiation).
template <std::size_t K, class Prog, class Tag, class Sweep>
auto cotangent_of_input(const typename Sweep::cotangents& cts) {
    constexpr auto& slots = input_slots<K, Prog, Tag>;
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
        return accumulate_all(
            no_cotangent{},
            static_cast<const typename Sweep::template cell<slots[J]>&>(cts).value...);
    }
    (std::make_index_sequence<slots.size()>{});
}

} // namespace detail

/// The cotangents of the values marked grad_input<Tag, 0>, ..., <Tag, NumInputs - 1> in the
/// graph `out`, given the cotangent `seed` of out: an indexed::pack of nodes (no std::tuple,
/// whose constructors' constraints check each node type), no_cotangent for a marked value out
/// does not depend on.
///   auto cts = graph::backprop<Tag, 1>(loss.node, graph::scalar<float>{1.0f, {}});
template <class Tag, std::size_t NumInputs, class Out, class Seed>
auto backprop(const Out& out, const Seed& seed) {
    using numbering = program_of<false, Out>;
    using P = typename numbering::prog;
    constexpr std::size_t root = numbering::roots[0];
    bool equal = true;
    const auto nodes = collect_nodes<numbering>(equal, out);
    using sweep = detail::reverse_sweep<P, Tag, root, Seed>;
    const typename sweep::cotangents cts(seed, nodes);
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        using cotangents =
            indexed::pack<decltype(detail::cotangent_of_input<K, P, Tag, sweep>(cts))...>;
        return cotangents{{detail::cotangent_of_input<K, P, Tag, sweep>(cts)}...};
    }
    (std::make_index_sequence<NumInputs>{});
}

} // namespace graph

} // namespace staticpy
