#pragma once
// The reductions that fold their inputs one element at a time (sum, prod, mean, amax, amin), each
// described once: its names, result and accumulator types, identity, combine, finalisation, the
// dtype it refuses and the empty input it refuses, with PyTorch's error texts. Eager mode
// (ops_reduce.hpp), the graph's reduce node (graph/node.hpp), the CPU evaluator
// (backend/cpu/evaluate.hpp) and the graph dumps (graph/dump.hpp) all read these structs, so a
// reduction's semantics live here only.
//
//   using R = reduction::sum;
//   using A = R::accumulator<float>;                    // double: PyTorch's accumulate type
//   A acc = R::identity<A>();
//   for (float v : values) acc = R::combine(acc, static_cast<A>(v));
//   float total = R::finish<R::result<float>>(acc, n);  // mean divides by n here
//
// var (two passes), argmax and argmin (an index beside the value) do not fold this way and keep
// their own bodies in ops_reduce.hpp; argmax and argmin share check_nonempty's texts.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticpy/core/error.hpp"
#include "staticpy/tensor/functors.hpp"

namespace staticpy {

/// The described reductions, as a value: the graph's reduce node takes one as a template argument.
enum class reduce_kind { sum, prod, mean, amax, amin };

namespace reduction {
struct sum;
} // namespace reduction

namespace detail {

/// PyTorch's CPU accumulate type of sums and products: double for floats, int64 otherwise.
template <class T>
using sum_acc_t = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
/// PyTorch's result type of sums and products: integers and bool give int64.
template <class T>
using sum_result_t = std::conditional_t<std::is_floating_point_v<T>, T, std::int64_t>;

/// The index of the first reduced dim of size 0 (for PyTorch's max()/argmax() messages), -1 if
/// none.
template <std::size_t R>
std::int64_t first_empty_dim(const std::array<std::int64_t, R>& sizes,
                             const std::array<bool, R>& mask) {
    for (std::size_t d = 0; d < R; ++d)
        if (mask[d] && sizes[d] == 0)
            return static_cast<std::int64_t>(d);
    return -1;
}

/// PyTorch's refusal to reduce nothing where a reduction has no identity (max, min, argmax,
/// argmin): over every element (`full`) an empty input is a RuntimeError, over dims (`mask`) a
/// reduced dim of size 0 is an IndexError. `name` is the function the user called.
template <std::size_t R>
void check_nonempty(const char* name, const std::array<std::int64_t, R>& sizes,
                    const std::array<bool, R>& mask, bool full) {
    std::int64_t numel = 1;
    for (std::int64_t s : sizes)
        numel *= s;
    if (numel != 0)
        return;
    if (full)
        throw RuntimeError(
            std::string(name) +
            "(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            "the reduction dim with the 'dim' argument.");
    const std::int64_t d = first_empty_dim(sizes, mask);
    if (d >= 0)
        throw IndexError(std::string(name) + "(): Expected reduction dim " + std::to_string(d) +
                         " to have non-zero size.");
}

/// What a reduction does unless its description says otherwise: any dtype, any input (empty
/// ones give the identity), the accumulator converted to the result.
struct reduction_defaults {
    template <class T>
    static constexpr void check_dtype() {}
    template <std::size_t R>
    static void check_input(const std::array<std::int64_t, R>&, const std::array<bool, R>&, bool) {}
    template <class Out, class A>
    static constexpr Out finish(A acc, std::int64_t) {
        return static_cast<Out>(acc);
    }
    /// finish as C++ source: an expression of the accumulator `acc` and `count` (long long), of
    /// result type OUT (a generated kernel's finishing step).
    static constexpr const char* cpp_finish = "static_cast<OUT>(acc)";
};

/// sum and prod: integers and bool give int64, accumulated in PyTorch's accumulate type.
struct widening_reduction : reduction_defaults {
    template <class T>
    using result = sum_result_t<T>;
    template <class T>
    using accumulator = sum_acc_t<T>;
};

/// amax and amin: values of the input's type, and no identity in PyTorch, which therefore refuses
/// an empty input. Self names the function: Self::name over dims, Self::whole_name over every
/// element.
template <class Self>
struct extremum_reduction : reduction_defaults {
    /// PyTorch's rule: the gradient is shared evenly among the elements equal to the result.
    template <bool Keep, class G, class Y, class X, class Dim>
    static auto vjp(const G& g, const Y& y, const X& x, const Dim& dim) {
        using T = typename X::value_type;
        const auto hits = fn::call<fn::cast<T>>(x == fn::unreduce<Keep>(y, x, dim));
        const auto count = fn::unreduce<true>(fn::reduce<reduction::sum, true>(hits, dim), x, dim);
        return fn::unreduce<Keep>(g, x, dim) / count * hits;
    }
    template <class T>
    using result = T;
    template <class T>
    using accumulator = T;
    template <std::size_t R>
    static void check_input(const std::array<std::int64_t, R>& sizes,
                            const std::array<bool, R>& mask, bool full) {
        check_nonempty(full ? Self::whole_name : Self::name, sizes, mask, full);
    }
};

} // namespace detail

/// One struct per reduction. Members:
///   kind          its reduce_kind;
///   name          the PyTorch function ("sum", "amax"), as error texts name it;
///   ir_name       its name in the graph IR ("reduce_sum");
///   result<T>     the result's element type for input T;
///   accumulator<T>  the type it folds in;
///   identity<A>() the accumulator's start;
///   combine(acc, v) one fold step, a template over the value type (scalars; SIMD batches where
///                 fn::'s apply takes them);
///   finish<Out>(acc, count)  the result from the accumulator of `count` elements;
///   check_dtype<T>()  a compile error for a dtype PyTorch refuses, with its text;
///   check_input(sizes, mask, full)  the run-time error for an input PyTorch refuses;
///   cpp_combine   the fold step as C++ source over `out[o_out]` and `value` (graph::cpp_text);
///   cpp_finish    finish as a C++ expression of `acc` and `count`, of type OUT (the CUDA
///                 backend's finishing kernel);
///   vjp<Keep>(g, y, x, dim)  its derivative: x's gradient from the cotangent g of the result y of
///                 reducing x over dim (detail::all_dims: every dim) with keepdim Keep, written
///                 in the ops (see functors.hpp), so eager, traced and recorded values all run it.
namespace reduction {

struct sum : detail::widening_reduction {
    static constexpr reduce_kind kind = reduce_kind::sum;
    static constexpr const char* name = "sum";
    static constexpr const char* ir_name = "reduce_sum";
    static constexpr const char* cpp_combine = "out[o_out] += value;";
    template <class A>
    static constexpr A identity() {
        return A(0);
    }
    template <class V>
    static V combine(V acc, V v) {
        return fn::add::apply(acc, v);
    }
    template <bool Keep, class G, class Y, class X, class Dim>
    static auto vjp(const G& g, const Y&, const X& x, const Dim& dim) {
        return fn::unreduce<Keep>(g, x, dim);
    }
};

struct prod : detail::widening_reduction {
    static constexpr reduce_kind kind = reduce_kind::prod;
    static constexpr const char* name = "prod";
    static constexpr const char* ir_name = "reduce_prod";
    static constexpr const char* cpp_combine = "out[o_out] *= value;";
    template <class A>
    static constexpr A identity() {
        return A(1);
    }
    template <class V>
    static V combine(V acc, V v) {
        return fn::mul::apply(acc, v);
    }
    /// PyTorch's prod_backward, zeros included: the product of the others is y / x without a
    /// zero, the product of the nonzero others at a lone zero, and 0 everywhere else.
    template <bool Keep, class G, class Y, class X, class Dim>
    static auto vjp(const G& g, const Y& y, const X& x, const Dim& dim) {
        using namespace staticpy::literals;
        const auto is_zero = x == 0_c;
        const auto zeros = fn::unreduce<true>(fn::reduce<sum, true>(is_zero, dim), x, dim);
        const auto nonzero_product = fn::unreduce<true>(
            fn::reduce<prod, true>(fn::call<fn::where>(is_zero, 1_c, x), dim), x, dim);
        const auto others = fn::call<fn::where>(
            zeros == 0_c, fn::unreduce<Keep>(y, x, dim) / x,
            fn::call<fn::where>((zeros == 1_c) * is_zero, nonzero_product, 0_c));
        return fn::unreduce<Keep>(g, x, dim) * others;
    }
};

/// The sum divided by the count at the end. Floating inputs only (PyTorch cannot infer an integer
/// mean's dtype); an empty mean is NaN.
struct mean : sum {
    static constexpr reduce_kind kind = reduce_kind::mean;
    static constexpr const char* name = "mean";
    static constexpr const char* ir_name = "reduce_mean";
    template <class T>
    using result = T;
    template <class T>
    static constexpr void check_dtype() {
        static_assert(
            std::is_floating_point_v<T>,
            "staticpy: RuntimeError: mean(): could not infer output dtype. Input dtype must "
            "be either a floating point or complex dtype");
    }
    template <class Out, class A>
    static constexpr Out finish(A acc, std::int64_t count) {
        if (count == 0)
            return std::numeric_limits<Out>::quiet_NaN();
        return static_cast<Out>(static_cast<double>(acc) / static_cast<double>(count));
    }
    // 0.0 / 0.0 is NaN: the empty mean, as above.
    static constexpr const char* cpp_finish =
        "static_cast<OUT>(static_cast<double>(acc) / static_cast<double>(count))";
    template <bool Keep, class G, class Y, class X, class Dim>
    static auto vjp(const G& g, const Y& y, const X& x, const Dim& dim) {
        return fn::unreduce<Keep>(g, x, dim) / fn::count_ratio<typename X::value_type>(x, y);
    }
};

/// torch.amax over dims, torch.max(x) over every element. NaN propagates; of equal values (0.0
/// and -0.0) the first is kept.
struct amax : detail::extremum_reduction<amax> {
    static constexpr reduce_kind kind = reduce_kind::amax;
    static constexpr const char* name = "amax";
    static constexpr const char* whole_name = "max";
    static constexpr const char* ir_name = "reduce_max";
    static constexpr const char* cpp_combine =
        "out[o_out] = (value != value || value > out[o_out]) ? value : out[o_out];";
    template <class A>
    static constexpr A identity() {
        return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                    : std::numeric_limits<A>::lowest();
    }
    template <class V>
    static V combine(V acc, V v) {
        return fn::maximum::apply(v, acc); // v first: a tie returns the second, the earlier one
    }
};

/// torch.amin over dims, torch.min(x) over every element; as amax.
struct amin : detail::extremum_reduction<amin> {
    static constexpr reduce_kind kind = reduce_kind::amin;
    static constexpr const char* name = "amin";
    static constexpr const char* whole_name = "min";
    static constexpr const char* ir_name = "reduce_min";
    static constexpr const char* cpp_combine =
        "out[o_out] = (value != value || value < out[o_out]) ? value : out[o_out];";
    template <class A>
    static constexpr A identity() {
        return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                    : std::numeric_limits<A>::max();
    }
    template <class V>
    static V combine(V acc, V v) {
        return fn::minimum::apply(v, acc); // v first: a tie returns the second, the earlier one
    }
};

} // namespace reduction

/// The description of reduce_kind K.
template <reduce_kind K>
using reduction_of_t = std::tuple_element_t<
    static_cast<std::size_t>(K),
    std::tuple<reduction::sum, reduction::prod, reduction::mean, reduction::amax, reduction::amin>>;
static_assert(reduction_of_t<reduce_kind::sum>::kind == reduce_kind::sum &&
                  reduction_of_t<reduce_kind::prod>::kind == reduce_kind::prod &&
                  reduction_of_t<reduce_kind::mean>::kind == reduce_kind::mean &&
                  reduction_of_t<reduce_kind::amax>::kind == reduce_kind::amax &&
                  reduction_of_t<reduce_kind::amin>::kind == reduce_kind::amin,
              "reduction_of_t's list follows reduce_kind's order");

} // namespace staticpy
