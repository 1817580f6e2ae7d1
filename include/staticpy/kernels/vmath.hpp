#pragma once
// Vectorised float32 transcendental functions over xsimd batches, for the fused CPU kernels and
// the softmax row kernel: xsimd 8.1's exp/tanh are what bounded softmax and the tanh chain
// (issue 9), so these trade its generality for short polynomial + FMA sequences.
//
//   template <class B> B exp(const B& x);      // B = xsimd::batch<float, A> (or double)
//   ... log, tanh, sigmoid, expm1, log1p, erf, all the same shape.
//
// Accuracy, float32, against std:: computed in double and rounded to float, over every float
// (tests/kernels/vmath_test.cpp sweeps every 61st bit pattern plus the special values and
// asserts these bounds; the figures are the worst seen, with and without hardware FMA):
//   exp ≤ 1 ulp   log ≤ 1 ulp   expm1 ≤ 2 ulp   log1p ≤ 2 ulp   sigmoid ≤ 2 ulp
//   tanh ≤ 4 ulp  erf ≤ 2 ulp
// tanh's bound is also that of a sweep of every positive float below 10 (tanh is odd to the bit,
// and exactly 1 beyond): with hardware FMA, 3 of those 1.1e9 inputs (near 4.66) reach 4 ulp and
// the rest ≤ 3; without (the SSE2 build's fma is a multiply and an add), 331 reach 4.
// Special values are exact: NaN propagates; exp(+inf) = +inf, exp(-inf) = 0, exp overflows to
// +inf above 88.7228 and underflows through the subnormals to 0 below -103.97; log(0) = -inf,
// log(x < 0) = NaN, log(+inf) = +inf, log of subnormals is correct; tanh and erf saturate to ±1
// exactly (tanh from |x| = 9.01091385, the first float where it rounds to 1) and keep the sign of
// ±0, as do expm1 and log1p; sigmoid is 0 or 1 at ±inf, never NaN.
//
// float64 batches call xsimd's functions (sigmoid is built on xsimd::exp): the targets
// are float32, and a float64 polynomial set needs its own coefficients and thresholds.
//
// The coefficients are minimax fits derived by tests/kernels/vmath_coefficients.py (a Remez
// exchange in plain Python, polynomial or rational); the script prints each set and its error.
// Range reductions are Cody-Waite: ln2 split into a 15-bit high part (n * ln2_hi is exact for
// every |n| < 512, so the reduction is exact with or without hardware FMA, which the SSE2 build
// lacks) and a low part.

#include <cstdint>
#include <limits>
#include <type_traits>

#include "staticpy/kernels/config.hpp"
#include "staticpy/kernels/math.hpp"

#if STATICPY_HAS_XSIMD

namespace staticpy::kernels {

namespace vmath_detail {

// The helpers and the functions themselves are forced inline (STATICPY_KERNEL_INLINE).

template <class B>
using int_batch = xsimd::batch<xsimd::as_integer_t<typename B::value_type>, typename B::arch_type>;

template <class B>
inline constexpr bool is_float = std::is_same_v<typename B::value_type, float>;

/// c0 + x*(c1 + x*(c2 + ...)), one FMA per coefficient (Horner: the loops that call these
/// have independent vectors in flight, so throughput, not latency, is what counts).
template <class B>
STATICPY_KERNEL_INLINE B horner(const B&, float c) {
    return B(c);
}
template <class B, class... C>
STATICPY_KERNEL_INLINE B horner(const B& x, float c0, C... cs) {
    return xsimd::fma(x, horner(x, cs...), B(c0));
}

inline constexpr float log2e = 1.44269504088896341f;
inline constexpr float ln2_hi = 0.693145751953125f; // ln2 rounded to 15 significant bits
inline constexpr float ln2_lo = 1.42860677e-06f;    // ln2 - ln2_hi, rounded
// 1.5 * 2^23: adding it rounds a float below 2^22 in magnitude to an integer, which then sits
// in the low mantissa bits (no float->int conversion needed, and no rounding-mode dependence
// beyond round-to-nearest).
inline constexpr float shifter = 12582912.0f;

/// e^r - 1 - r ≈ r^2 Q(r) for |r| <= ln2/2 (degree 5, error 0.04 x 2^-24 relative to e^r - 1).
template <class B>
STATICPY_KERNEL_INLINE B expm1_reduced(const B& r) {
    const B q = horner(r, 0.5f, 0.1666666567325592f, 0.041666362434625626f, 0.008333389647305012f,
                       0.0013940617209300399f, 0.00019845877250190824f);
    return xsimd::fma(r * r, q, r);
}

/// 2^n for the integer-valued float n = t - shifter, n in [-126, 127]: n sits in t's low
/// mantissa bits, and shifting it into the exponent field drops the shifter's own bits.
template <class B>
STATICPY_KERNEL_INLINE B pow2_from_shifted(const B& t) {
    using I = int_batch<B>;
    const I bits = (xsimd::bitwise_cast<I>(t) << 23) + I(0x3f800000);
    return xsimd::bitwise_cast<B>(bits);
}

/// n and the reduced argument r = x - n ln2, |r| <= ln2/2 (for |x| up to ~2^22 ln2); t is the
/// shifted form of n for pow2_from_shifted.
template <class B>
STATICPY_KERNEL_INLINE void reduce_ln2(const B& x, B& t, B& n, B& r) {
    t = xsimd::fma(x, B(log2e), B(shifter));
    n = t - B(shifter);
    r = xsimd::fnma(n, B(ln2_hi), x);
    r = xsimd::fnma(n, B(ln2_lo), r);
}

/// e^x for |x| <= 87: 2^n is a normal float, one multiply scales.
template <class B>
STATICPY_KERNEL_INLINE B exp_normal(const B& x) {
    B t, n, r;
    reduce_ln2(x, t, n, r);
    return (B(1.0f) + expm1_reduced(r)) * pow2_from_shifted(t);
}

/// log(m) for m = 1 + f in [sqrt(1/2), sqrt(2)), plus k ln2: f - f^2/2 + f^3 Q(f), the leading
/// terms exact so the result is accurate to ~0.6 ulp even where log(m) is tiny.
template <class B>
STATICPY_KERNEL_INLINE B log_reduced(const B& f, const B& k, const B& extra) {
    const B q = horner(f, 0.3333333134651184f, -0.2500081956386566f, 0.20001226663589478f,
                       -0.16623356938362122f, 0.14201757311820984f, -0.13160182535648346f,
                       0.1276157796382904f, -0.07634498924016953f);
    const B s = xsimd::fma(f, q, B(-0.5f));
    B inner = xsimd::fma(f * f, s, f) + extra;
    inner = xsimd::fma(k, B(ln2_lo), inner);
    return xsimd::fma(k, B(ln2_hi), inner); // k * ln2_hi is exact: the one rounding is here
}

/// Splits a positive normal x into 2^k m, m in [sqrt(1/2), sqrt(2)); returns m - 1 (exact).
template <class B>
STATICPY_KERNEL_INLINE B split_log(const B& x, B& k) {
    using I = int_batch<B>;
    // Subtracting sqrt(1/2)'s bits moves the exponent boundary to sqrt(2): the exponent field
    // then reads k, and adding the bits back to the mantissa field gives m.
    const I bits = xsimd::bitwise_cast<I>(x) - I(0x3f3504f3);
    k = xsimd::to_float(bits >> 23);
    const I mbits = (bits & I(0x007fffff)) + I(0x3f3504f3);
    return xsimd::bitwise_cast<B>(mbits) - B(1.0f);
}

inline constexpr float inf = std::numeric_limits<float>::infinity();
// The first float x with tanh(x) rounding to 1 (atanh(1 - 2^-25) = 9.0109133...).
inline constexpr float tanh_saturation = 9.01091385f;
inline constexpr float qnan = std::numeric_limits<float>::quiet_NaN();

// NaN tests go through xsimd::isnan: xsimd 8.1's AVX operator!= is the ordered compare
// (_CMP_NEQ_OQ), false for NaN, so x != x finds no NaN there (it does on SSE2).

template <class B>
STATICPY_KERNEL_INLINE B sign_of(const B& x) {
    return x & B(-0.0f);
}

} // namespace vmath_detail

/// e^x. float32: ≤ 1 ulp, subnormal results, exact overflow/underflow.
template <class B>
STATICPY_KERNEL_INLINE B exp(const B& x) {
    using namespace vmath_detail;
    if constexpr (!is_float<B>) {
        return xsimd::exp(x);
    } else {
        const B ax = xsimd::abs(x);
        if (xsimd::all(ax <= B(87.0f))) // also false for NaN: the general path handles it
            return exp_normal(x);
        // General path: n can reach [-150, 128], outside the normal exponents. 2^n is applied as
        // 2^(n/2) 2^(n - n/2), both normal; the last multiply rounds once into the subnormals
        // or to +inf. Beyond the clamp e^x is 0 or +inf whatever the polynomial says.
        const B xc = xsimd::min(xsimd::max(x, B(-104.0f)), B(89.0f));
        B t, n, r;
        reduce_ln2(xc, t, n, r);
        using I = int_batch<B>;
        const I ni = xsimd::bitwise_cast<I>(t) - xsimd::bitwise_cast<I>(B(shifter));
        const I n1 = ni >> 1;
        const I n2 = ni - n1;
        const B s1 = xsimd::bitwise_cast<B>((n1 << 23) + I(0x3f800000));
        const B s2 = xsimd::bitwise_cast<B>((n2 << 23) + I(0x3f800000));
        const B y = (B(1.0f) + expm1_reduced(r)) * s1 * s2;
        return xsimd::select(xsimd::isnan(x), x, y);
    }
}

/// Natural logarithm. float32: ≤ 1 ulp; log(0) = -inf, log(x < 0) = NaN, subnormals exact.
template <class B>
STATICPY_KERNEL_INLINE B log(const B& x) {
    using namespace vmath_detail;
    if constexpr (!is_float<B>) {
        return xsimd::log(x);
    } else {
        // Subnormals are scaled into the normal range by 2^23 first, and 23 taken off k.
        const auto tiny = x < B(1.17549435e-38f);
        const B xs = xsimd::select(tiny, x * B(8388608.0f), x);
        B k;
        const B f = split_log(xs, k);
        k = k - xsimd::select(tiny, B(23.0f), B(0.0f));
        B y = log_reduced(f, k, B(0.0f));
        y = xsimd::select(x == B(inf), x, y);
        y = xsimd::select(x == B(0.0f), B(-inf), y);
        return xsimd::select(x < B(0.0f), B(qnan), xsimd::select(xsimd::isnan(x), x, y));
    }
}

/// Hyperbolic tangent. float32: ≤ 4 ulp, exactly ±1 from |x| = 9.01091385, keeps the sign of ±0;
/// one division, no exp.
template <class B>
STATICPY_KERNEL_INLINE B tanh(const B& x) {
    using namespace vmath_detail;
    if constexpr (!is_float<B>) {
        return xsimd::tanh(x);
    } else {
        // tanh(x) = 2t / (1 + t^2) with t = tanh(x/2) ≈ n / 2q, a rational function of y = x^2:
        // n = x (1 + y P(y)) and q = 1 + b, b = y Q(y). Then tanh(x) = n q / (q^2 + n^2/4).
        // Why not tanh ≈ x P(y) / Q(y) directly (Eigen's form): near 1, where tanh's ulp is
        // smallest against it, each of that form's dozen roundings costs up to 1 ulp (5 ulp
        // measured with a degree 5 over 4 fit). Here an error in t, relative, reaches tanh(x)
        // scaled by (1 - t^2)/(1 + t^2) = 1/cosh(x): the fit of t may be loose there (degree 2
        // over 3 is enough) and the roundings inside n and q hardly count. Near 0, the 1s are
        // kept out of the rounded sums (n q = n + n b, q^2 + n^2/4 = 1 + (b (b + 2) + n^2/4)),
        // so that the few roundings left are each one of the result's. Subnormal x gives y = 0
        // and returns x exactly.
        const B ax = xsimd::abs(x);
        // From tanh_saturation on (±inf too), tanh rounds to 1: those lanes compute at the
        // threshold, which keeps every intermediate finite, and take exactly 1. min(T, NaN) is
        // NaN with T first on every xsimd arch (x86's minps returns its second operand when
        // either is NaN, NEON's fmin NaN), one instruction where a select took two; NaN then
        // propagates through the arithmetic and fails the >=.
        const B a = xsimd::min(B(tanh_saturation), ax);
        const B y = a * a;
        const B n = xsimd::fma(a * y, horner(y, 0.02977743372321129f, 0.00011432908650022f), a);
        const B b =
            y * horner(y, 0.1131107360124588f, 0.001206924906000495f, 1.2304986967137665e-06f);
        const B den = B(1.0f) + xsimd::fma(b, b + B(2.0f), (B(0.25f) * n) * n);
        const B r = xsimd::fma(n, b, n) / den;
        return xsimd::select(a >= B(tanh_saturation), B(1.0f), r) | sign_of(x);
    }
}

/// The logistic function 1 / (1 + e^-x). float32: ≤ 2 ulp; 0 and 1 at -inf and +inf, subnormal
/// results for x below about -87, never NaN but for NaN.
template <class B>
STATICPY_KERNEL_INLINE B sigmoid(const B& x) {
    using namespace vmath_detail;
    // e = e^-|x| <= 1 never overflows: 1/(1 + e) for x >= 0, e/(1 + e) for x < 0. The common
    // case, |x| <= 87, calls the short form directly (kernels::exp's two paths are too large
    // for g++ to inline here, and the call cost sigmoid half its speed).
    using T = typename B::value_type;
    const B ax = xsimd::abs(x);
    B e;
    if constexpr (is_float<B>)
        e = xsimd::all(ax <= B(87.0f)) ? exp_normal(-ax) : kernels::exp(-ax);
    else
        e = kernels::exp(-ax);
    return xsimd::select(x >= B(T(0)), B(T(1)), e) / (B(T(1)) + e);
}

/// e^x - 1, accurate near 0. float32: ≤ 2 ulp; -1 below -17.4, +inf above 88.7228.
template <class B>
STATICPY_KERNEL_INLINE B expm1(const B& x) {
    using namespace vmath_detail;
    if constexpr (!is_float<B>) {
        return xsimd::expm1(x);
    } else {
        // e^x - 1 = 2^n (e^r - 1) + (2^n - 1): both terms exact to one rounding of the FMA.
        // Below -18, e^x - 1 rounds to -1; above 80, to e^x (taken from exp, which knows where
        // 2^n leaves the normal range).
        const B xc = xsimd::min(xsimd::max(x, B(-18.0f)), B(80.0f));
        B t, n, r;
        reduce_ln2(xc, t, n, r);
        const B scale = pow2_from_shifted(t);
        B y = xsimd::fma(scale, expm1_reduced(r), scale - B(1.0f));
        if (xsimd::any(x > B(80.0f)))
            y = xsimd::select(x > B(80.0f), kernels::exp(x), y);
        return xsimd::select((x == B(0.0f)) | xsimd::isnan(x), x, y); // ±0 keeps its sign; NaN
    }
}

/// log(1 + x), accurate near 0. float32: ≤ 2 ulp; -inf at -1, NaN below.
template <class B>
STATICPY_KERNEL_INLINE B log1p(const B& x) {
    using namespace vmath_detail;
    if constexpr (!is_float<B>) {
        return xsimd::log1p(x);
    } else {
        // u = 1 + x rounds; d = (1 + x) - u exactly (Fast2Sum, the larger operand first), and
        // log(1 + x) = log(u) + log(1 + d/u) ≈ log(u) + d/u.
        const B u = B(1.0f) + x;
        const B d = xsimd::select(x > B(1.0f), B(1.0f) - (u - x), x - (u - B(1.0f)));
        B k;
        const B f = split_log(u, k);
        B y = log_reduced(f, k, d / u);
        y = xsimd::select(x == B(inf), x, y);
        y = xsimd::select(x == B(-1.0f), B(-inf), y);
        y = xsimd::select(x < B(-1.0f), B(qnan), y);
        return xsimd::select((x == B(0.0f)) | xsimd::isnan(x), x, y);
    }
}

/// The error function. float32: ≤ 2 ulp, exactly ±1 from |x| ≈ 3.92, keeps the sign of ±0.
template <class B>
STATICPY_KERNEL_INLINE B erf(const B& x) {
    using namespace vmath_detail;
    if constexpr (!is_float<B>) {
        return xsimd::erf(x);
    } else {
        const B ax = xsimd::abs(x);
        const B y = ax * ax;
        // |x| < 0.875: x (2/sqrt(pi) + x^2 R(x^2)), 2/sqrt(pi) as hi + lo so that x * hi is
        // rounded only once, inside the FMA (hi alone is 0.9 x 2^-24 off).
        const B rr = horner(y, -0.37612637877464294f, 0.11283789575099945f, -0.026865972205996513f,
                            0.00522291986271739f, -0.0008517815731465816f, 0.00011564896703930572f,
                            -1.0708529771363828e-05f);
        const B small = xsimd::fma(ax, B(1.128379225730896f),
                                   ax * xsimd::fma(y, rr, B(-5.8635382771399236e-08f)));
        // 0.875 <= |x| <= 4: 1 - e^(-x^2) G(x - 2.4375), G ≈ erfc(x) e^(x^2), smooth there;
        // erf(4) is 1 in float32, so the clamp changes nothing but keeps G in its fitted range.
        const B z = xsimd::min(ax, B(4.0f));
        const B g =
            horner(z - B(2.4375f), 0.21555235981941223f, -0.0775647684931755f, 0.02648427151143551f,
                   -0.00863898266106844f, 0.002806216711178422f, -0.0006872307858429849f,
                   0.00023945253633428365f, -0.00019915480515919626f, -9.295254858443514e-05f,
                   -3.8067861169110984e-05f);
        const B big = xsimd::fnma(exp_normal(-(z * z)), g, B(1.0f));
        return xsimd::select(ax >= B(0.875f), big, small) | sign_of(x);
    }
}

} // namespace staticpy::kernels

#endif // STATICPY_HAS_XSIMD
