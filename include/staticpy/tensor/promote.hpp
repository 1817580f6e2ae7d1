#pragma once
// PyTorch's type promotion, at compile time (element types are template parameters).
//
//   promote_types_t<std::uint8_t, std::int32_t>  is std::int32_t     torch.promote_types
//   result_type_t<tensor_operand<std::int32_t>, scalar_operand<double>>  is float torch.result_type
//   functor_result_t<fn::div, tensor_operand<std::int64_t>, tensor_operand<std::int64_t>>  is float
// (float: the default dtype's default_float_t, dtype.hpp)
//
// The rules (https://pytorch.org/docs/stable/tensor_attributes.html#type-promotion-doc):
// - Types are ordered bool < uint8 < int32 < int64 < float32 < float64; with only these six, the
//   promoted type of two is simply the larger (uint8 + int32 -> int32, int64 + float32 -> float32).
// - Categories are bool < integer < floating. Operands come in three priorities: tensors with
//   dimensions, zero-dim tensors, and Python scalars ("wrapped numbers"). A lower-priority operand
//   changes the result only when its category is higher than all the higher-priority ones:
//   int32 tensor + 2.5 -> float32, float32 tensor + 2.0 -> float32, uint8 tensor + 300 -> uint8,
//   bool tensor + 1 -> int64, int32 tensor + float64 zero-dim tensor -> float64.
// - A Python int is int64, a Python float the default dtype (float32 unless the program sets
//   STATICPY_DEFAULT_DTYPE, dtype.hpp), a Python bool bool.
// - Comparisons give bool; true division and unary math (exp, log, ...) of integers give the
//   default dtype.

#include <cstdint>
#include <type_traits>

#include "staticpy/core/constant.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/functors.hpp"

namespace staticpy {

namespace detail {

/// bool < uint8 < int32 < int64 < float32 < float64.
template <class T>
inline constexpr int promotion_rank = -1;
template <>
inline constexpr int promotion_rank<bool> = 0;
template <>
inline constexpr int promotion_rank<std::uint8_t> = 1;
template <>
inline constexpr int promotion_rank<std::int32_t> = 2;
template <>
inline constexpr int promotion_rank<std::int64_t> = 3;
template <>
inline constexpr int promotion_rank<float> = 4;
template <>
inline constexpr int promotion_rank<double> = 5;

/// 0 bool, 1 integer, 2 floating.
template <class T>
inline constexpr int category = std::is_same_v<T, bool> ? 0 : (std::is_floating_point_v<T> ? 2 : 1);

/// No operand of a priority: the identity of promotion.
struct undefined_type {};

template <class A, class B>
struct promote_skip_undefined {
    static_assert(promotion_rank<A> >= 0 && promotion_rank<B> >= 0,
                  "staticpy: TypeError: a tensor element type is bool, uint8, int32, int64, "
                  "float32 or float64");
    using type = std::conditional_t<(promotion_rank<A> >= promotion_rank<B>), A, B>;
};
template <class B>
struct promote_skip_undefined<undefined_type, B> {
    using type = B;
};
template <class A>
struct promote_skip_undefined<A, undefined_type> {
    using type = A;
};
template <>
struct promote_skip_undefined<undefined_type, undefined_type> {
    using type = undefined_type;
};

/// Combine the promoted type of a higher priority with that of a lower one: the lower one only
/// counts when it is of a higher category (or the higher one is bool).
template <class Higher, class Lower>
struct combine_categories {
    using type = typename promote_skip_undefined<Higher, Lower>::type;
};
template <class Higher, class Lower>
requires(!std::is_same_v<Higher, undefined_type> &&
         !std::is_same_v<Lower, undefined_type>) struct combine_categories<Higher, Lower> {
    using type = std::conditional_t<(category<Higher> >= category<Lower>), Higher,
                                    typename promote_skip_undefined<Higher, Lower>::type>;
};

} // namespace detail

/// torch.promote_types(a, b): the smallest type of at least both sizes and categories.
template <class A, class B>
using promote_types_t = typename detail::promote_skip_undefined<A, B>::type;

/// How an operand takes part in promotion.
enum class operand_priority { scalar = 0, zero_dim = 1, dimensioned = 2 };

/// An operand of element type T and a priority. Ops describe their arguments with these.
template <class T, operand_priority P>
struct operand {
    using element_type = T;
    static constexpr operand_priority priority = P;
};
/// A tensor with at least one dimension.
template <class T>
using tensor_operand = operand<T, operand_priority::dimensioned>;
/// A zero-dim tensor.
template <class T>
using zero_dim_operand = operand<T, operand_priority::zero_dim>;

namespace detail {
template <class S>
struct scalar_element {
    static_assert(std::is_arithmetic_v<S> || is_number_constant_v<S>,
                  "staticpy: TypeError: a scalar operand is a number");
    static constexpr auto pick() {
        if constexpr (std::is_same_v<S, bool> || is_bool_constant_v<S>)
            return static_cast<bool*>(nullptr);
        else if constexpr (std::is_floating_point_v<S> || is_float_constant_v<S>)
            return static_cast<default_float_t*>(nullptr);
        else
            return static_cast<std::int64_t*>(nullptr);
    }
    using type = std::remove_pointer_t<decltype(pick())>;
};
} // namespace detail

/// The element type a Python scalar takes part in promotion with: bool, int64 for integers,
/// the default dtype's float (default_float_t) for floats — whatever its C++ type (int, long,
/// double, 2_c, 2.5_c).
template <class S>
using scalar_element_t = typename detail::scalar_element<std::remove_cvref_t<S>>::type;

/// A Python number (a "wrapped number" in PyTorch): a C++ arithmetic value or a staticpy constant.
template <class S>
using scalar_operand = operand<scalar_element_t<S>, operand_priority::scalar>;

namespace detail {
template <operand_priority P, class... Ops>
struct promote_priority {
    using type = undefined_type;
};
template <operand_priority P, class Op, class... Ops>
struct promote_priority<P, Op, Ops...> {
    using rest = typename promote_priority<P, Ops...>::type;
    using type =
        std::conditional_t<Op::priority == P,
                           typename promote_skip_undefined<typename Op::element_type, rest>::type,
                           rest>;
};
} // namespace detail

/// torch.result_type over any number of operands (operand<T, priority>).
template <class... Ops>
using result_type_t = typename detail::combine_categories<
    typename detail::promote_priority<operand_priority::dimensioned, Ops...>::type,
    typename detail::combine_categories<
        typename detail::promote_priority<operand_priority::zero_dim, Ops...>::type,
        typename detail::promote_priority<operand_priority::scalar, Ops...>::type>::type>::type;

namespace detail {
template <class T>
using to_floating_t = std::conditional_t<std::is_floating_point_v<T>, T, default_float_t>;

template <class F, fn::op_kind K, class... Ops>
struct functor_types_impl {
    using common = result_type_t<Ops...>;
    using checked = common;
    using compute = common;
    using result = common;
};
template <class F, class... Ops>
struct functor_types_impl<F, fn::op_kind::true_divide, Ops...> {
    using common = result_type_t<Ops...>;
    using checked = common;
    using compute = to_floating_t<common>;
    using result = compute;
};
template <class F, class... Ops>
struct functor_types_impl<F, fn::op_kind::floating, Ops...> {
    using common = result_type_t<Ops...>;
    using checked = common;
    using compute = to_floating_t<common>;
    using result = compute;
};
template <class F, class... Ops>
struct functor_types_impl<F, fn::op_kind::compare, Ops...> {
    using common = result_type_t<Ops...>;
    using checked = common;
    using compute = common;
    using result = bool;
};
template <class F, class Cond, class... Ops>
struct functor_types_impl<F, fn::op_kind::select, Cond, Ops...> {
    static_assert(std::is_same_v<typename Cond::element_type, bool>,
                  "staticpy: RuntimeError: where expected condition to be a boolean tensor");
    using common = result_type_t<Ops...>;
    using checked = common;
    using compute = common;
    using result = common;
};
template <class F, class Op, class... Params>
struct functor_types_impl<F, fn::op_kind::parametric, Op, Params...> {
    using checked = typename Op::element_type;
    using compute = checked;
    using result = checked;
};
template <class F, class Op>
struct functor_types_impl<F, fn::op_kind::cast, Op> {
    using checked = typename Op::element_type;
    using compute = checked;
    using result = typename F::result_type;
};
} // namespace detail

/// For functor F applied to operands Ops...: `compute`, the type each operand is converted to
/// before F::apply (for where, the type of the two values; the condition stays bool), and
/// `result`, the element type of the result. F's own restrictions (no bool subtraction, no integer
/// gelu) are checked here, as a compile error with PyTorch's message.
template <class F, class... Ops>
struct functor_types : detail::functor_types_impl<F, F::kind, Ops...> {
    static_assert(sizeof...(Ops) == F::arity, "staticpy: TypeError: wrong number of operands");
    // Checked on the promoted operand type, before any conversion to float: gelu of an int
    // tensor is an error (as in PyTorch), not gelu of its float32 copy.
    static_assert(
        F::template check<typename detail::functor_types_impl<F, F::kind, Ops...>::checked>());
};

template <class F, class... Ops>
using functor_compute_t = typename functor_types<F, Ops...>::compute;
template <class F, class... Ops>
using functor_result_t = typename functor_types<F, Ops...>::result;

} // namespace staticpy
