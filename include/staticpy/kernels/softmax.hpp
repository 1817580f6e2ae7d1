#pragma once
// Row softmax and log_softmax over the last dim of contiguous rows, vectorised and threaded:
// the kernel of eager softmax(x, -1) and of the graph evaluator's, the case every classifier
// head has.
// Three passes over each row (max, exp and sum, scale), all while the row is in cache; the max
// is subtracted first so that exp never overflows (softmax(x) == softmax(x - max)). exp is
// kernels::exp (kernels/vmath.hpp, ≤ 1 ulp in float32): xsimd's exp was what bounded this kernel.
//
//   softmax_rows<false>(in, out, rows, cols);   // out[r, :] = softmax(in[r, :])

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "staticpy/kernels/config.hpp"
#include "staticpy/kernels/parallel.hpp"
#include "staticpy/kernels/vmath.hpp"

namespace staticpy::kernels {

namespace softmax_detail {

/// The row kernel's first choice failed (a NaN or +inf somewhere, or every element -inf): what
/// the eager kernel gives, element by element, with NaN-propagating max and a double sum.
template <bool Log, class T>
void softmax_row_scalar(const T* x, T* y, std::int64_t n) {
    T m = -std::numeric_limits<T>::infinity();
    for (std::int64_t j = 0; j < n; ++j)
        m = (x[j] > m || x[j] != x[j]) ? x[j] : m; // torch.maximum's: a NaN wins and stays
    double total = 0;
    for (std::int64_t i = 0; i < n; ++i)
        total += static_cast<double>(std::exp(x[i] - m));
    for (std::int64_t i = 0; i < n; ++i)
        y[i] = Log ? static_cast<T>(x[i] - m - static_cast<T>(std::log(total)))
                   : static_cast<T>(std::exp(x[i] - m) / static_cast<T>(total));
}

} // namespace softmax_detail

template <bool Log, class T>
void softmax_row(const T* x, T* y, std::int64_t n) {
#if STATICPY_HAS_XSIMD
    using B = xsimd::batch<T>;
    constexpr auto W = static_cast<std::int64_t>(B::size);
    constexpr T ninf = -std::numeric_limits<T>::infinity();
    // Loop bounds fixed up front (whole pairs of batches, one more batch, the tail): with a
    // constant n, g++ 12 -O3 misreads `j + W <= n` loops that leave j behind for the tail and
    // warns of undefined behaviour (-Waggressive-loop-optimizations).
    const std::int64_t pairs = n - n % (2 * W);
    const std::int64_t whole = n - n % W;
    // Pass 1, the max: plain max (maxps), two accumulators. It may drop a NaN, but a NaN or +inf
    // anywhere makes pass 2's sum NaN, and that row is redone by the scalar kernel.
    B m0(ninf), m1(ninf);
    for (std::int64_t j = 0; j < pairs; j += 2 * W) {
        m0 = xsimd::max(m0, B::load_unaligned(x + j));
        m1 = xsimd::max(m1, B::load_unaligned(x + j + W));
    }
    if (whole > pairs)
        m0 = xsimd::max(m0, B::load_unaligned(x + pairs));
    alignas(64) T lanes[B::size];
    xsimd::max(m0, m1).store_aligned(lanes);
    T m = ninf;
    for (T v : lanes)
        m = v > m ? v : m;
    for (std::int64_t j = whole; j < n; ++j)
        m = x[j] > m ? x[j] : m;
    if (m == ninf)
        return softmax_detail::softmax_row_scalar<Log>(x, y, n);
    // Pass 2: e^(x - m) <= 1 by kernels::exp, summed in two float accumulators (a row's lanes
    // add ~n/W terms each, all <= 1), stored for softmax. The tail runs as one padded batch
    // (x - m = 0 in the padding), so every element goes through the same function.
    const B bm(m);
    B s0(T(0)), s1(T(0));
    for (std::int64_t j = 0; j < pairs; j += 2 * W) {
        const B e0 = kernels::exp(B::load_unaligned(x + j) - bm);
        const B e1 = kernels::exp(B::load_unaligned(x + j + W) - bm);
        if constexpr (!Log) {
            e0.store_unaligned(y + j);
            e1.store_unaligned(y + j + W);
        }
        s0 = s0 + e0;
        s1 = s1 + e1;
    }
    if (whole > pairs) {
        const B e0 = kernels::exp(B::load_unaligned(x + pairs) - bm);
        if constexpr (!Log)
            e0.store_unaligned(y + pairs);
        s0 = s0 + e0;
    }
    double total = static_cast<double>(xsimd::hadd(s0 + s1));
    if (n > whole) {
        alignas(64) T tmp[B::size];
        for (std::int64_t i = 0; i < W; ++i)
            tmp[i] = whole + i < n ? x[whole + i] : m;
        kernels::exp(B::load_aligned(tmp) - bm).store_aligned(tmp);
        for (std::int64_t i = 0; i < n - whole; ++i) {
            if constexpr (!Log)
                y[whole + i] = tmp[i];
            total += static_cast<double>(tmp[i]);
        }
    }
    if (total != total) // NaN or +inf in the row: the scalar kernel's NaNs
        return softmax_detail::softmax_row_scalar<Log>(x, y, n);
    // Pass 3: scale (softmax) or shift (log_softmax); the row is still in L1.
    if constexpr (Log) {
        // (x - m) - log(total), as PyTorch: folding m + log(total) into one shift first would
        // round it to m's precision (x = 1000, 1001 lost 4 digits of the result).
        const T log_total = static_cast<T>(std::log(total));
        const B bl(log_total);
        for (std::int64_t j = 0; j < whole; j += W)
            ((B::load_unaligned(x + j) - bm) - bl).store_unaligned(y + j);
        for (std::int64_t j = whole; j < n; ++j)
            y[j] = (x[j] - m) - log_total;
    } else {
        const T inv = static_cast<T>(1.0 / total);
        const B bi(inv);
        for (std::int64_t j = 0; j < whole; j += W)
            (B::load_unaligned(y + j) * bi).store_unaligned(y + j);
        for (std::int64_t j = whole; j < n; ++j)
            y[j] = y[j] * inv;
    }
#else
    softmax_detail::softmax_row_scalar<Log>(x, y, n);
#endif
}

/// softmax (or log_softmax) of each of `rows` contiguous rows of `cols` elements.
template <bool Log, class T, unsigned Build = kernel_build>
void softmax_rows(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    const int chunks =
        chunk_count(rows, threads_for(rows * cols), std::max<std::int64_t>(1, 4096 / (cols + 1)));
    parallel_chunks(rows, chunks, [&](std::int64_t b, std::int64_t e, int) {
        for (std::int64_t r = b; r < e; ++r)
            softmax_row<Log>(in + r * cols, out + r * cols, cols);
    });
}

#define STATICPY_SOFTMAX_INSTANCE(Log, T)                                                          \
    STATICPY_KERNEL_INSTANCE(template void softmax_rows<Log, T, kernel_build>(                     \
        const T*, T*, std::int64_t, std::int64_t))
STATICPY_SOFTMAX_INSTANCE(false, float)
STATICPY_SOFTMAX_INSTANCE(true, float)
STATICPY_SOFTMAX_INSTANCE(false, double)
STATICPY_SOFTMAX_INSTANCE(true, double)
#undef STATICPY_SOFTMAX_INSTANCE

} // namespace staticpy::kernels
