#pragma once
// Eager elementwise ops: every one is the generic loop `elementwise<F>(args...)` applied to a
// functor from functors.hpp, with NumPy broadcasting (broadcast.hpp) and PyTorch's type
// promotion (promote.hpp). Each returns a new contiguous Tensor that owns its elements.
//
//   auto y = relu(x * w + 1.0f);          // Tensor<float, broadcast shape of x and w>
//   auto m = x > 0;                       // Tensor<bool, ...>
//   auto z = where(m, x, 0.0);            // float32: a Python float never widens a float tensor
//
// Arguments: Tensors, and Python-like scalars (C++ arithmetic values, or compile-time 2_c, 2.5_c,
// True) on either side. Shapes broadcast at compile time as far as their static extents allow
// (two static extents that clash are a compile error) and are checked at run time otherwise
// (staticpy::RuntimeError, PyTorch's text).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/promote.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace detail {

template <class X>
inline constexpr bool is_tensor_arg_v = is_tensor_v<std::remove_cvref_t<X>>;

/// A Python number: a C++ arithmetic value or a staticpy compile-time number.
template <class X>
inline constexpr bool is_scalar_arg_v =
    std::is_arithmetic_v<std::remove_cvref_t<X>> || is_number_constant_v<std::remove_cvref_t<X>>;

/// The graph layer's hook: a type that declares itself symbolic (a traced value) takes part in
/// every elementwise op, which then records a node through symbolic_elementwise<F> (defined by the
/// graph layer) instead of computing. The eager ops need nothing from the graph layer.
template <class X>
struct symbolic_arg : std::false_type {};
template <class X>
inline constexpr bool is_symbolic_arg_v = symbolic_arg<std::remove_cvref_t<X>>::value;
template <class F>
struct symbolic_elementwise;

template <class X>
inline constexpr bool is_elementwise_arg_v =
    is_tensor_arg_v<X> || is_scalar_arg_v<X> || is_symbolic_arg_v<X>;

/// The promotion operand that an argument is.
template <class X, bool = is_tensor_arg_v<X>>
struct operand_of {
    using type = scalar_operand<std::remove_cvref_t<X>>;
};
template <class X>
struct operand_of<X, true> {
    using tensor = std::remove_cvref_t<X>;
    using type =
        operand<typename tensor::value_type,
                tensor::rank == 0 ? operand_priority::zero_dim : operand_priority::dimensioned>;
};
template <class X>
using operand_of_t = typename operand_of<X>::type;

/// The shape an argument broadcasts with: a tensor's, or shape<> for a scalar.
template <class X, bool = is_tensor_arg_v<X>>
struct arg_shape {
    using type = shape<>;
};
template <class X>
struct arg_shape<X, true> {
    using type = typename std::remove_cvref_t<X>::shape_type;
};
template <class X>
using arg_shape_t = typename arg_shape<X>::type;

template <class X>
const auto& shape_of_arg(const X& x) {
    if constexpr (is_tensor_arg_v<X>) {
        return x.shape();
    } else {
        static constexpr shape<> empty{};
        return empty;
    }
}

/// A scalar's value as C: compile-time constants through their ::value.
template <class C, class X>
constexpr C scalar_value(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_number_constant_v<U>)
        return static_cast<C>(U::value);
    else
        return static_cast<C>(x);
}

/// One input of the loop: a strided tensor read as C, or a scalar already converted to C.
template <class C, class T, std::size_t R>
struct strided_input {
    const T* base = nullptr;               // first element
    std::array<std::int64_t, R> strides{}; // per output dimension; 0 where broadcast
    bool flat = false;                     // contiguous with the output's numel
    C flat_at(std::int64_t i) const { return static_cast<C>(base[i]); }
    C at(std::int64_t offset) const { return static_cast<C>(base[offset]); }
};
template <class C>
struct scalar_input {
    C value;
    static constexpr bool flat = true;
    C flat_at(std::int64_t) const { return value; }
    C at(std::int64_t) const { return value; }
};

/// An input's strides over the output's index space: a scalar stays where it is.
template <std::size_t R, class In>
std::array<std::int64_t, R> input_strides(const In& in) {
    if constexpr (requires { in.strides; })
        return in.strides;
    else
        return {};
}

/// The input wrapper for argument X, read as C, broadcast into an output of sizes `out`.
template <class C, std::size_t R, class X>
auto make_input(const X& x, const std::array<std::int64_t, R>& out) {
    if constexpr (is_tensor_arg_v<X>) {
        using Tn = std::remove_cvref_t<X>;
        constexpr std::size_t r = Tn::rank;
        static_assert(r <= R);
        strided_input<C, typename Tn::value_type, R> in;
        in.base = x.data();
        constexpr std::size_t offset = R - r;
        for (std::size_t d = 0; d < R; ++d) {
            if (d < offset) {
                in.strides[d] = 0;
            } else {
                const std::size_t e = d - offset;
                in.strides[d] = (x.sizes()[e] == 1 && out[d] != 1) ? 0 : x.strides()[e];
            }
        }
        std::int64_t n = 1;
        for (std::int64_t e : out)
            n *= e;
        in.flat = x.is_contiguous() && x.numel() == n;
        return in;
    } else {
        return scalar_input<C>{scalar_value<C>(x)};
    }
}

/// The type operand I of F is read as: the condition of `where` stays bool, the rest `Compute`.
template <class F, std::size_t I, class Compute>
using operand_compute_t =
    std::conditional_t<F::kind == fn::op_kind::select && I == 0, bool, Compute>;

/// The one loop: out[i] = F::apply(in_0[i], in_1[i], ...), over the output's index space in
/// row-major order. When every tensor input is contiguous and not broadcast it is a flat loop;
/// otherwise the strided walk that Tensor's copies use too (detail::for_each_offsets).
template <class F, class Result, std::size_t R, class... In>
void elementwise_loop(Result* out, const std::array<std::int64_t, R>& sizes, In&... in) {
    std::int64_t n = 1;
    for (std::int64_t e : sizes)
        n *= e;
    if (n == 0)
        return;
    if ((in.flat && ...)) {
        for (std::int64_t i = 0; i < n; ++i)
            out[i] = static_cast<Result>(F::apply(in.flat_at(i)...));
        return;
    }
    // Otherwise the strided walk, with the (contiguous) output as its last operand.
    constexpr std::size_t K = sizeof...(In) + 1;
    const std::array<std::array<std::int64_t, R>, K> strides{input_strides<R>(in)...,
                                                             contiguous_strides(sizes)};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        for_each_offsets<R, K>(sizes, {}, strides, [&](const std::array<std::int64_t, K>& o) {
            out[o[K - 1]] = static_cast<Result>(F::apply(in.at(o[I])...));
        });
    }
    (std::index_sequence_for<In...>{});
}

template <class F, class... Args, std::size_t... I>
auto elementwise_impl(std::index_sequence<I...>, const Args&... args) {
    using types = functor_types<F, operand_of_t<Args>...>;
    using compute = typename types::compute;
    using result = typename types::result;
    using out_shape = broadcast_shape_t<arg_shape_t<Args>...>;
    const out_shape s = broadcast_shapes(shape_of_arg(args)...);
    Tensor<result, out_shape> out(s);
    auto inputs = std::make_tuple(make_input<operand_compute_t<F, I, compute>>(args, s.sizes())...);
    std::apply([&](auto&... in) { elementwise_loop<F>(out.data(), s.sizes(), in...); }, inputs);
    return out;
}

} // namespace detail

/// The arguments an elementwise op takes: tensors and scalars, at least one tensor (or traced
/// value).
template <class... Args>
concept elementwise_args = (detail::is_elementwise_arg_v<Args> && ...) &&
                           ((detail::is_tensor_arg_v<Args> || detail::is_symbolic_arg_v<Args>) ||
                            ...);

/// Applies functor F (fn::add, fn::sigmoid, ...) elementwise, with broadcasting and promotion:
/// the loop behind every eager elementwise op.
///   auto y = elementwise<fn::mul>(x, 2.0f);      // x * 2
template <class F, class... Args>
requires elementwise_args<Args...>
auto elementwise(const Args&... args) {
    static_assert(sizeof...(Args) == F::arity, "staticpy: TypeError: wrong number of arguments");
    if constexpr ((detail::is_symbolic_arg_v<Args> || ...))
        return detail::symbolic_elementwise<F>::apply(args...);
    else
        return detail::elementwise_impl<F>(std::index_sequence_for<Args...>{}, args...);
}

// ---- named functions ------------------------------------------------------------------------

#define STATICPY_UNARY_OP(Name)                                                                    \
    template <class X>                                                                             \
    requires elementwise_args<X>                                                                   \
    auto Name(const X& x) {                                                                        \
        return elementwise<fn::Name>(x);                                                           \
    }
#define STATICPY_BINARY_OP(Name)                                                                   \
    template <class A, class B>                                                                    \
    requires elementwise_args<A, B>                                                                \
    auto Name(const A& a, const B& b) {                                                            \
        return elementwise<fn::Name>(a, b);                                                        \
    }

/// torch.neg, abs, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, gelu (exact erf form).
/// Integer and bool tensors give float32 for the math functions, as PyTorch.
///   auto y = sigmoid(x);
STATICPY_UNARY_OP(neg)
STATICPY_UNARY_OP(abs)
STATICPY_UNARY_OP(exp)
STATICPY_UNARY_OP(log)
STATICPY_UNARY_OP(sqrt)
STATICPY_UNARY_OP(rsqrt)
STATICPY_UNARY_OP(sin)
STATICPY_UNARY_OP(cos)
STATICPY_UNARY_OP(tanh)
STATICPY_UNARY_OP(sigmoid)
STATICPY_UNARY_OP(relu)
STATICPY_UNARY_OP(gelu)

/// torch.add, sub, mul, div (true division), pow, maximum, minimum (NaN propagates), and the
/// comparisons eq, ne, lt, le, gt, ge (bool results). A scalar may stand on either side.
///   auto z = maximum(x, 0.5);   auto p = pow(2, x);
STATICPY_BINARY_OP(add)
STATICPY_BINARY_OP(sub)
STATICPY_BINARY_OP(mul)
STATICPY_BINARY_OP(div)
STATICPY_BINARY_OP(pow)
STATICPY_BINARY_OP(maximum)
STATICPY_BINARY_OP(minimum)
STATICPY_BINARY_OP(eq)
STATICPY_BINARY_OP(ne)
STATICPY_BINARY_OP(lt)
STATICPY_BINARY_OP(le)
STATICPY_BINARY_OP(gt)
STATICPY_BINARY_OP(ge)

#undef STATICPY_UNARY_OP
#undef STATICPY_BINARY_OP

/// torch.where(cond, a, b): a where cond, else b; cond is a bool tensor (or a bool), a and b
/// tensors or scalars, all broadcast together.
///   auto y = where(x > 0, x, 0.0f);
template <class C, class A, class B>
requires elementwise_args<C, A, B>
auto where(const C& cond, const A& a, const B& b) {
    return elementwise<fn::where>(cond, a, b);
}

/// Tensor.to(dtype) as an elementwise op: the elements converted to To (a new tensor, even
/// when To is the element type already).
///   auto i = cast<std::int64_t>(x);
template <class To, class X>
requires elementwise_args<X>
auto cast(const X& x) {
    return elementwise<fn::cast<To>>(x);
}

// ---- operators --------------------------------------------------------------------------------

/// x + y, x - y, x * y, x / y (true division), -x, and the comparisons, elementwise.
template <class A, class B>
requires elementwise_args<A, B>
auto operator+(const A& a, const B& b) {
    return elementwise<fn::add>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator-(const A& a, const B& b) {
    return elementwise<fn::sub>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator*(const A& a, const B& b) {
    return elementwise<fn::mul>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator/(const A& a, const B& b) {
    return elementwise<fn::div>(a, b);
}
template <class X>
requires elementwise_args<X>
auto operator-(const X& x) {
    return elementwise<fn::neg>(x);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator==(const A& a, const B& b) {
    return elementwise<fn::eq>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator!=(const A& a, const B& b) {
    return elementwise<fn::ne>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator<(const A& a, const B& b) {
    return elementwise<fn::lt>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator<=(const A& a, const B& b) {
    return elementwise<fn::le>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator>(const A& a, const B& b) {
    return elementwise<fn::gt>(a, b);
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator>=(const A& a, const B& b) {
    return elementwise<fn::ge>(a, b);
}

} // namespace staticpy
