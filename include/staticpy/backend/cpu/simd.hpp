#pragma once
// The functors of fn:: on SIMD batches (xsimd): simd_op<F>::apply(batch...) computes what
// F::apply computes on each lane. A fused kernel takes its SIMD path only when every functor in it
// has a simd_op (available == true) and every value in it has one floating type; otherwise it
// runs F::apply on scalars. Semantics follow F::apply: NaN propagates through maximum/minimum and
// relu, as PyTorch's do; exp, log, tanh, ... are xsimd's (within a few ulps of <cmath>'s).

#include "staticpy/kernels/config.hpp"
#include "staticpy/tensor/functors.hpp"

namespace staticpy::backend::cpu {

template <class F>
struct simd_op {
    static constexpr bool available = false;
};

#if STATICPY_HAS_XSIMD

#define STATICPY_SIMD_UNARY(F, expr)                                                               \
    template <>                                                                                    \
    struct simd_op<fn::F> {                                                                        \
        static constexpr bool available = true;                                                    \
        template <class B>                                                                         \
        static B apply(const B& a) {                                                               \
            using T = typename B::value_type;                                                      \
            (void)sizeof(T);                                                                       \
            return expr;                                                                           \
        }                                                                                          \
    };
#define STATICPY_SIMD_BINARY(F, expr)                                                              \
    template <>                                                                                    \
    struct simd_op<fn::F> {                                                                        \
        static constexpr bool available = true;                                                    \
        template <class B>                                                                         \
        static B apply(const B& a, const B& b) {                                                   \
            return expr;                                                                           \
        }                                                                                          \
    };

STATICPY_SIMD_BINARY(add, a + b)
STATICPY_SIMD_BINARY(sub, a - b)
STATICPY_SIMD_BINARY(mul, a* b)
STATICPY_SIMD_BINARY(div, a / b)
STATICPY_SIMD_BINARY(pow, xsimd::pow(a, b))
// A NaN on either side wins, as in torch.maximum; xsimd::max alone would return the other lane.
STATICPY_SIMD_BINARY(maximum,
                     xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, xsimd::max(a, b)))
STATICPY_SIMD_BINARY(minimum,
                     xsimd::select(xsimd::isnan(a) || xsimd::isnan(b), a + b, xsimd::min(a, b)))
STATICPY_SIMD_UNARY(neg, -a)
STATICPY_SIMD_UNARY(zeros_like, ((void)a, B(T(0))))
STATICPY_SIMD_UNARY(abs, xsimd::abs(a))
STATICPY_SIMD_UNARY(exp, xsimd::exp(a))
STATICPY_SIMD_UNARY(log, xsimd::log(a))
STATICPY_SIMD_UNARY(sqrt, xsimd::sqrt(a))
STATICPY_SIMD_UNARY(rsqrt, B(T(1)) / xsimd::sqrt(a))
STATICPY_SIMD_UNARY(sin, xsimd::sin(a))
STATICPY_SIMD_UNARY(cos, xsimd::cos(a))
STATICPY_SIMD_UNARY(tanh, xsimd::tanh(a))
STATICPY_SIMD_UNARY(sigmoid, B(T(1)) / (B(T(1)) + xsimd::exp(-a)))
// x < 0 ? 0 : x keeps a NaN a NaN (a NaN is not < 0), as torch.relu.
STATICPY_SIMD_UNARY(relu, xsimd::select(a < B(T(0)), B(T(0)), a))
STATICPY_SIMD_UNARY(gelu, a* B(T(0.5)) * (B(T(1)) + xsimd::erf(a * B(T(0.70710678118654752440)))))

#undef STATICPY_SIMD_UNARY
#undef STATICPY_SIMD_BINARY

#endif

} // namespace staticpy::backend::cpu
