#pragma once
// The math that op descriptions are written in, for one value or a SIMD batch of them: each
// elementwise op (tensor/functors.hpp) has one apply() that eager mode, the graph's fused kernels
// and both of their scalar and vectorised loops call. A scalar argument takes <cmath>'s function;
// a batch takes batch_math<B>'s, which kernels/simd.hpp defines for xsimd batches (our own
// polynomials where they are faster than xsimd's). This header includes no SIMD library: the
// tensor layer describes its ops with it, and only the kernels that run batches pay for xsimd.
//
//   template <class X> static X apply(X x) { return x / (splat<X>(1) + math::exp(-x)); }

#include <cmath>
#include <type_traits>

/// Forces a kernel helper inline: g++ otherwise keeps some as calls with the SIMD batch passed
/// through memory and the constants reloaded per call, which made a fused tanh kernel ten times
/// slower. For the small functions a kernel's inner loop calls per batch.
#define STATICPY_KERNEL_INLINE [[gnu::always_inline]] inline
/// On a kernel's per-batch evaluation: every call inside it (the ops' apply(), the math they
/// call) is inlined into it, so a fused expression is one straight-line body per batch. g++ left
/// sigmoid's apply() a call per batch, 88% of a sigmoid chain's time.
#define STATICPY_KERNEL_FLATTEN [[gnu::flatten]]

namespace staticpy::kernels {

/// The operations of SIMD batch type B (specialised by kernels/simd.hpp).
template <class B>
struct batch_math;

/// Whether X is one value (an arithmetic type) rather than a SIMD batch.
template <class X>
inline constexpr bool is_scalar_v = std::is_arithmetic_v<X>;

namespace detail {
template <class X, bool = is_scalar_v<X>>
struct element_of {
    using type = X;
};
template <class X>
struct element_of<X, false> {
    using type = typename X::value_type;
};
} // namespace detail

/// The element type of X: X itself, or a batch's value_type.
template <class X>
using element_t = typename detail::element_of<X>::type;

namespace math {

/// The constant c as an X (in every lane of a batch): constants stay in the operand's type, so
/// float kernels compute in float.
template <class X, class C>
constexpr X splat(C c) {
    return X(static_cast<element_t<X>>(c));
}

#define STATICPY_MATH_UNARY(name, scalar)                                                          \
    template <class X>                                                                             \
    STATICPY_KERNEL_INLINE X name(const X& x) {                                                    \
        if constexpr (is_scalar_v<X>)                                                              \
            return scalar;                                                                         \
        else                                                                                       \
            return batch_math<X>::name(x);                                                         \
    }
STATICPY_MATH_UNARY(exp, std::exp(x))
STATICPY_MATH_UNARY(expm1, std::expm1(x))
STATICPY_MATH_UNARY(log, std::log(x))
STATICPY_MATH_UNARY(log1p, std::log1p(x))
STATICPY_MATH_UNARY(sqrt, std::sqrt(x))
STATICPY_MATH_UNARY(sin, std::sin(x))
STATICPY_MATH_UNARY(cos, std::cos(x))
STATICPY_MATH_UNARY(tanh, std::tanh(x))
STATICPY_MATH_UNARY(erf, std::erf(x))
STATICPY_MATH_UNARY(fabs, std::fabs(x))
STATICPY_MATH_UNARY(floor, std::floor(x))
STATICPY_MATH_UNARY(ceil, std::ceil(x))
/// Round half to even (the default rounding mode), as torch.round.
STATICPY_MATH_UNARY(nearbyint, std::nearbyint(x))
#undef STATICPY_MATH_UNARY

#define STATICPY_MATH_BINARY(name, scalar)                                                         \
    template <class X>                                                                             \
    STATICPY_KERNEL_INLINE constexpr X name(const X& a, const X& b) {                              \
        if constexpr (is_scalar_v<X>)                                                              \
            return scalar;                                                                         \
        else                                                                                       \
            return batch_math<X>::name(a, b);                                                      \
    }
STATICPY_MATH_BINARY(pow, std::pow(a, b))
/// a > b ? a : b and a < b ? a : b (x86's maxps/minps: no NaN handling of their own).
STATICPY_MATH_BINARY(max, a > b ? a : b)
STATICPY_MATH_BINARY(min, a < b ? a : b)
#undef STATICPY_MATH_BINARY

/// NaN test: a bool, or a batch's mask.
template <class X>
constexpr auto isnan(const X& x) {
    if constexpr (is_scalar_v<X>)
        return x != x;
    else
        return batch_math<X>::isnan(x);
}

/// a || b for a bool, lane by lane for a batch's masks.
template <class M>
constexpr M either(const M& a, const M& b) {
    if constexpr (std::is_same_v<M, bool>)
        return a || b;
    else
        return a | b;
}

/// m ? a : b, lane by lane for batches.
template <class M, class X>
constexpr X select(const M& m, const X& a, const X& b) {
    if constexpr (is_scalar_v<X>)
        return m ? a : b;
    else
        return batch_math<X>::select(m, a, b);
}

} // namespace math
} // namespace staticpy::kernels
