#pragma once
// kernels::math on xsimd batches: what lets one apply() per op (tensor/functors.hpp) run on a
// whole SIMD register. Included by the kernels that run batches (kernels/elementwise.hpp, the
// CPU backend); the tensor layer's op descriptions never name xsimd.
//
// Every member is forced inline (STATICPY_KERNEL_INLINE): a call per batch cost a fused kernel
// its registers. Semantics are the scalar forms': max/min are maxps/minps (the second operand when
// either is NaN, as a > b ? a : b), nearbyint rounds half to even. exp, expm1, log, log1p, tanh and
// erf are kernels/vmath.hpp's (within 4 ulps of <cmath>'s for float32); sqrt is exact; sin, cos and
// pow are xsimd's.

#include "staticpy/kernels/config.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/kernels/vmath.hpp"

namespace staticpy::kernels {

#if STATICPY_HAS_XSIMD

template <class T, class A>
struct batch_math<xsimd::batch<T, A>> {
    using B = xsimd::batch<T, A>;
    STATICPY_KERNEL_INLINE static B exp(const B& x) { return kernels::exp(x); }
    STATICPY_KERNEL_INLINE static B expm1(const B& x) { return kernels::expm1(x); }
    STATICPY_KERNEL_INLINE static B log(const B& x) { return kernels::log(x); }
    STATICPY_KERNEL_INLINE static B log1p(const B& x) { return kernels::log1p(x); }
    STATICPY_KERNEL_INLINE static B sqrt(const B& x) { return xsimd::sqrt(x); }
    STATICPY_KERNEL_INLINE static B sin(const B& x) { return xsimd::sin(x); }
    STATICPY_KERNEL_INLINE static B cos(const B& x) { return xsimd::cos(x); }
    STATICPY_KERNEL_INLINE static B tanh(const B& x) { return kernels::tanh(x); }
    STATICPY_KERNEL_INLINE static B erf(const B& x) { return kernels::erf(x); }
    STATICPY_KERNEL_INLINE static B fabs(const B& x) { return xsimd::abs(x); }
    STATICPY_KERNEL_INLINE static B floor(const B& x) { return xsimd::floor(x); }
    STATICPY_KERNEL_INLINE static B ceil(const B& x) { return xsimd::ceil(x); }
    STATICPY_KERNEL_INLINE static B nearbyint(const B& x) { return xsimd::nearbyint(x); }
    STATICPY_KERNEL_INLINE static B pow(const B& a, const B& b) { return xsimd::pow(a, b); }
    STATICPY_KERNEL_INLINE static auto isnan(const B& x) { return xsimd::isnan(x); }
    template <class M>
    STATICPY_KERNEL_INLINE static B select(const M& m, const B& a, const B& b) {
        return xsimd::select(m, a, b);
    }
    STATICPY_KERNEL_INLINE static B max(const B& a, const B& b) { return xsimd::max(a, b); }
    STATICPY_KERNEL_INLINE static B min(const B& a, const B& b) { return xsimd::min(a, b); }
};

#endif

} // namespace staticpy::kernels
