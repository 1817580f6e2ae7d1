#pragma once
// Tracing a call: the function runs once on symbolic arguments (Tracers for tensors and floats,
// walked through std::tuples, staticpy lists and dicts; ints, bools and strings stay values: an
// int meeting a tensor is a scalar node holding this call's value, a dim is a run-time dim; a
// float whose parameter is a number, `double lr`, is given its value, see call_traced), and
// its traced result gives the output nodes, simplified (passes.hpp) and numbered into programs
// (program.hpp). graph::trace holds all of that for one call; jit.hpp evaluates it.
//
//   graph::trace<F, Args...> t(f, args...);   // t.outputs, t.inputs, T::prog, T::exact_prog
//   t.with_program<R>([&](auto prog, const auto& nodes) { ... }, [&] { /* op by op */ });

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/containers/detail/leaves.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/indexed.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/graph/passes.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/graph/tracer.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::graph {

// ---- arguments: tensors become inputs, floats scalars, containers are walked --------------------

// How many leaves of a kind a value holds, and where each element's first is
// (containers/detail/leaves.hpp). Arguments count their tensors; results their Tracers.
using staticpy::detail::leaf_count;
using staticpy::detail::leaf_offsets;

template <class X>
struct is_tensor_leaf : std::bool_constant<is_tensor_v<X>> {};
template <class X>
struct is_tracer_leaf : std::bool_constant<is_tracer_v<X>> {};
template <class X>
struct is_float_leaf : std::bool_constant<std::is_floating_point_v<X>> {};

template <class X>
inline constexpr std::size_t tensor_leaves_v =
    leaf_count<is_tensor_leaf, std::remove_cvref_t<X>>::value;

/// The traced stand-in for argument x whose first tensor is input I and whose first float is the
/// function's float argument J (a scalar node that names it: the same J is the same value).
template <std::size_t I, std::size_t J, class X>
auto symbolic(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tensor_v<U>) {
        return Tracer<input<I, typename U::value_type, typename U::shape_type>>{};
    } else if constexpr (std::is_floating_point_v<U>) {
        return Tracer<scalar<U, J>>{{x, {}}};
    } else if constexpr (traits::is_std_tuple_v<U>) {
        return [&]<class... Ts>(const std::tuple<Ts...>& t) {
            constexpr auto off = leaf_offsets<is_tensor_leaf, Ts...>();
            constexpr auto foff = leaf_offsets<is_float_leaf, Ts...>();
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
                return std::tuple{symbolic<I + off[K], J + foff[K]>(std::get<K>(t))...};
            }
            (std::index_sequence_for<Ts...>{});
        }(x);
    } else if constexpr (is_list_v<U>) {
        return hana::unpack(x.elements, [&](const auto&... e) {
            constexpr auto off = leaf_offsets<is_tensor_leaf, decltype(e)...>();
            constexpr auto foff = leaf_offsets<is_float_leaf, decltype(e)...>();
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
                return staticpy::list{symbolic<I + off[K], J + foff[K]>(e)...};
            }
            (std::make_index_sequence<sizeof...(e)>{});
        });
    } else if constexpr (is_dict_v<U>) {
        return hana::unpack(x.entries, [&](const auto&... p) {
            constexpr auto off = leaf_offsets<is_tensor_leaf, decltype(p.value)...>();
            constexpr auto foff = leaf_offsets<is_float_leaf, decltype(p.value)...>();
            return [&]<std::size_t... K>(std::index_sequence<K...>) {
                auto items =
                    hana::make_tuple(pair(p.key, symbolic<I + off[K], J + foff[K]>(p.value))...);
                return dict_t<std::remove_cvref_t<decltype(pair(
                    p.key, symbolic<I + off[K], J + foff[K]>(p.value)))>...>(items);
            }
            (std::make_index_sequence<sizeof...(p)>{});
        });
    } else {
        return x; // ints, bools, strings: values (meeting a Tracer, a number is a scalar node)
    }
}

// ---- calling the function: a float argument's Tracer, or its value where it must be a number ---

/// Whether X is the stand-in of a float argument of the traced function (symbolic()).
template <class X>
struct is_scalar_argument : std::false_type {};
template <class T, std::size_t J>
struct is_scalar_argument<Tracer<scalar<T, J>>> : std::bool_constant<J != not_an_argument> {};

/// Argument A as the function is given it: the float's value where Plain, else A itself.
template <class A, bool Plain>
struct passed_argument {
    using type = const A&;
};
template <class T, std::size_t J>
struct passed_argument<Tracer<scalar<T, J>>, true> {
    using type = T;
};

/// Which float arguments the function is given as values (bit K: argument K). A parameter
/// declared as a number (`double lr`, `float alpha`) cannot take a Tracer, while `auto lr` takes
/// either; the Tracer is preferred, a scalar node naming the argument (nothing to compare between
/// calls, and differentiable). Checked only where the Tracers do not fit, one float at a time
/// from the left, the later ones given as values meanwhile: generic parameters are instantiated
/// no more than that. Either way the number is this call's, in a scalar node of the graph.
template <class F, class... A>
struct float_parameters {
    static_assert(sizeof...(A) <= 64, "staticpy: TypeError: a jit function takes at most 64 "
                                      "arguments");
    template <std::uint64_t Plain, std::size_t... I>
    static constexpr bool invocable_with(std::index_sequence<I...>) {
        return std::is_invocable_v<const F&,
                                   typename passed_argument<A, ((Plain >> I) & 1U) != 0>::type...>;
    }
    template <std::uint64_t Plain>
    static constexpr bool invocable = invocable_with<Plain>(std::index_sequence_for<A...>{});

    static constexpr std::uint64_t floats = [] {
        std::uint64_t mask = 0, bit = 1;
        ((mask |= is_scalar_argument<A>::value ? bit : 0, bit <<= 1), ...);
        return mask;
    }();
    template <std::size_t K, std::uint64_t Plain>
    static constexpr std::uint64_t choose() {
        if constexpr (K == sizeof...(A)) {
            return Plain;
        } else if constexpr (((floats >> K) & 1U) == 0) {
            return choose<K + 1, Plain>();
        } else {
            constexpr std::uint64_t later = floats & ~((std::uint64_t{2} << K) - 1);
            if constexpr (invocable<Plain | later>)
                return choose<K + 1, Plain>();
            else
                return choose<K + 1, Plain | (std::uint64_t{1} << K)>();
        }
    }
    static constexpr std::uint64_t pick() {
        if constexpr (invocable<0>)
            return 0;
        else
            return choose<0, 0>();
    }
    /// The float arguments given as values.
    static constexpr std::uint64_t plain = pick();
    static constexpr bool viable = invocable<plain>;
};

/// What call_traced returns where the function cannot take its arguments (after the error).
struct not_callable {};

template <bool Plain, class X>
decltype(auto) pass_argument(const X& x) {
    if constexpr (Plain)
        return x.node.value;
    else
        return (x);
}

/// f applied to the symbolic arguments: each float argument as its Tracer, or as its value
/// where f's parameter is a number (float_parameters).
template <class F, class... A>
auto call_traced(const F& f, const std::tuple<A...>& args) {
    using P = float_parameters<F, std::remove_cvref_t<A>...>;
    static_assert(P::viable,
                  "staticpy: TypeError: the function cannot take its traced arguments: while it "
                  "is traced (jit) or differentiated (grad), its tensors and the floats it is "
                  "differentiated by are Tracers (or Vars), so declare their parameters auto "
                  "(auto x, const auto& w); a number parameter (double lr, std::int64_t n) "
                  "takes the number");
    if constexpr (P::viable)
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return f(pass_argument<((P::plain >> I) & 1U) != 0>(std::get<I>(args))...);
        }
    (std::index_sequence_for<A...>{});
    else return not_callable{};
}

/// The tensors of an argument, in the order symbolic() numbered them, as an indexed::pack of
/// references (the trace lives for one call, inside the arguments' lifetime). Not a std::tuple:
/// std::tuple_cat of a model's parameters (a hundred one-tensor tuples) instantiates a tuple type
/// per step, each naming the rest, and every std::tuple constructor checks each element type.
template <class X>
auto tensors_of(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tensor_v<U>)
        return indexed::pack<const U&>{{x}};
    else if constexpr (tensor_leaves_v<U> == 0)
        return indexed::pack<>{};
    else if constexpr (is_list_v<U>)
        return hana::unpack(x.elements,
                            [](const auto&... e) { return indexed::cat(tensors_of(e)...); });
    else if constexpr (is_dict_v<U>)
        return hana::unpack(x.entries,
                            [](const auto&... p) { return indexed::cat(tensors_of(p.value)...); });
    else
        return std::apply([](const auto&... e) { return indexed::cat(tensors_of(e)...); }, x);
}

// ---- results: Tracers become outputs ------------------------------------------------------------

/// The output nodes of a traced result, in order (Tracers in tuples, lists and dicts), as an
/// indexed::pack: a std::tuple of nodes checks every node type in its constructors' constraints,
/// and a node's type spells its whole subgraph.
template <class X>
auto roots_of(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_tracer_v<U>)
        return indexed::pack<typename U::node_type>{{x.node}};
    else if constexpr (is_list_v<U>)
        return hana::unpack(x.elements,
                            [](const auto&... e) { return indexed::cat(roots_of(e)...); });
    else if constexpr (is_dict_v<U>)
        return hana::unpack(x.entries,
                            [](const auto&... p) { return indexed::cat(roots_of(p.value)...); });
    else if constexpr (traits::is_std_tuple_v<U>)
        return std::apply([](const auto&... e) { return indexed::cat(roots_of(e)...); }, x);
    else
        return indexed::pack<>{};
}

/// The traced result with output K in place of its K-th Tracer.
template <std::size_t K, class X, class Outputs>
auto rebuild(const X& x, Outputs& outs) {
    return staticpy::detail::map_leaves<is_tracer_leaf, K>(
        x, [&](auto k, const auto&) { return std::move(indexed::get<k()>(outs)); });
}

/// What a traced result stands for when it runs: each Tracer as a Tensor of its node's dtype and
/// shape, the rest as it is (what rebuild gives back, and what the function returns on Tensors).
struct tracer_as_tensor {
    template <class K, class X>
    Tensor<typename X::node_type::value_type, typename X::node_type::shape_type>
    operator()(K, const X&) const {
        return {};
    }
};
template <class Result>
using run_result_t = decltype(staticpy::detail::map_leaves<is_tracer_leaf, 0>(
    std::declval<const Result&>(), tracer_as_tensor{}));

template <bool Speculative, class Roots>
struct program_of_roots;
template <bool Speculative, std::size_t... I, class... R>
struct program_of_roots<Speculative, indexed::pack_of<std::index_sequence<I...>, R...>> {
    using type = program_of<Speculative, R...>;
};

/// A program under a short name: the speculative (Speculative) or exact program of the trace
/// Trace, as a class derived from it, with its output slots (`roots`). It is a program wherever
/// one is asked for (its node_at, size, stored, ...), and the evaluator's functions, hundreds per
/// program, are named by it: the program's own type spells every node of the graph, some ten
/// kilobytes per function name, which the compiler builds, hashes and writes for each.
template <class Trace, bool Speculative>
struct program_key;
template <class Trace>
struct program_key<Trace, true> : Trace::prog {
    static constexpr auto roots = Trace::spec_numbered::roots;
};
template <class Trace>
struct program_key<Trace, false> : Trace::exact_prog {
    static constexpr auto roots = Trace::exact_numbered::roots;
};

/// A traced call: the symbolic arguments, the traced result, its simplified output nodes, the
/// program they number to, and the node pointers for the evaluator. What dump() prints and what
/// a jit call evaluates.
template <class F, class... Args>
struct trace {
    static constexpr auto offsets = leaf_offsets<is_tensor_leaf, Args...>();
    static constexpr auto float_offsets = leaf_offsets<is_float_leaf, Args...>();
    template <std::size_t... K>
    static auto symbolic_args_of(std::index_sequence<K...>, const Args&... args) {
        return std::tuple{symbolic<offsets[K], float_offsets[K]>(args)...};
    }
    using symbolic_args = decltype(symbolic_args_of(std::index_sequence_for<Args...>{},
                                                    std::declval<const Args&>()...));
    using result_type =
        decltype(call_traced(std::declval<const F&>(), std::declval<const symbolic_args&>()));
    using roots_type = decltype(roots_of(std::declval<const result_type&>()));
    // No lambda in these unevaluated operands: g++ 12 then drops return statements that name
    // the types (a lambda's closure type is a new type each time it is met).
    template <std::size_t... I, class... R>
    static auto simplify_all(const indexed::pack_of<std::index_sequence<I...>, R...>& roots) {
        using simplified = indexed::pack<decltype(simplify(std::declval<const R&>()))...>;
        return simplified{{simplify(indexed::get<I>(roots))}...};
    }
    using simplified_type = decltype(simplify_all(std::declval<roots_type>()));
    using spec_numbered = typename program_of_roots<true, simplified_type>::type;
    /// The program when every merged run-time attribute is equal (the usual case: the same
    /// scalar or dim written in several places).
    using prog = typename spec_numbered::prog;

    template <std::size_t... I, class... R>
    static constexpr std::size_t
    visits_of(std::type_identity<indexed::pack_of<std::index_sequence<I...>, R...>>) {
        return std::min(detail::exact_visits_limit,
                        (std::size_t{0} + ... + detail::exact_visits<R>::value));
    }
    /// Whether the exact program, where nodes with run-time attributes stay apart, is numbered:
    /// when its walk is at most exact_visits_budget nodes or exact_visits_per_slot times the
    /// speculative program's size. A backward graph names each forward node once per use, so
    /// the exact walk grows with the product of the uses along a path (a deep network's
    /// gradient: minutes and gigabytes of compilation, for a program that runs only when the
    /// merged values differ). Where it is not numbered, such a call runs op by op instead.
    static constexpr std::size_t exact_visits_budget = 1024;
    static constexpr std::size_t exact_visits_per_slot = 4;
    static constexpr std::size_t exact_visits_allowed =
        std::max(exact_visits_budget, std::size_t{prog::size} * exact_visits_per_slot);
    static constexpr bool exact_numbered_too =
        visits_of(std::type_identity<simplified_type>{}) <= exact_visits_allowed;
    struct not_numbered {
        using prog = void;
    };
    using exact_numbered =
        typename std::conditional_t<exact_numbered_too, program_of_roots<false, simplified_type>,
                                    std::type_identity<not_numbered>>::type;
    /// The exact program (void where exact_numbered_too is false).
    using exact_prog = typename exact_numbered::prog;

    /// The Generators the traced function drew from, as they were before. Declared first: it
    /// logs from its construction until the constructor's body stops it, so while `result` is
    /// computed (and, should f throw, its destructor stops it).
    staticpy::detail::generator_draws draws;
    result_type result;
    simplified_type outputs;
    decltype(indexed::cat(tensors_of(std::declval<const Args&>())...)) inputs;

    trace(const F& f, const Args&... args)
        : result(call_traced(f, symbolic_args_of(std::index_sequence_for<Args...>{}, args...))),
          outputs(simplify_all(roots_of(result))),
          inputs(indexed::cat(tensors_of(args)...)) {
        draws.stop();
    }
    trace(const trace&) = delete;

    template <class Numbering>
    node_pointers_t<typename Numbering::prog> collect(bool& equal) const {
        return indexed::apply(
            [&](const auto&... r) { return collect_nodes<Numbering>(equal, r...); }, outputs);
    }

    /// Calls run(tag, node pointers) with the program this call's values allow: the speculative
    /// one when the payloads it merged are equal, else the exact one; without an exact program
    /// (exact_numbered_too), calls without_program() instead, the Generators the function drew
    /// from back in their states before the trace. tag is a program_key: the program itself
    /// under a short name, with its output slots ::roots (::prog, the program's own type).
    /// R is run's return type (spelt out: g++ 12 cannot deduce it here).
    template <class R, class Run, class WithoutProgram>
    R with_program(Run&& run, WithoutProgram&& without_program) const {
        bool equal = true;
        const auto spec = collect<spec_numbered>(equal);
        if (equal)
            return run(program_key<trace, true>{}, spec);
        if constexpr (exact_numbered_too) {
            // When both programs are one, this instantiates nothing new.
            const auto exact = collect<exact_numbered>(equal);
            using exact_key =
                std::conditional_t<std::is_same_v<prog, exact_prog> &&
                                       spec_numbered::roots == exact_numbered::roots,
                                   program_key<trace, true>, program_key<trace, false>>;
            return run(exact_key{}, exact);
        } else {
            draws.restore();
            return without_program();
        }
    }
};

} // namespace staticpy::graph
