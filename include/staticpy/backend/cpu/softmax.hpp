#pragma once
// Row softmax and log_softmax over the last dim of contiguous rows, vectorised and threaded:
// the graph evaluator's kernel for softmax(x, -1), the case every classifier head has.
// Three passes over each row (max, exp and sum, scale), all while the row is in cache; the max
// is subtracted first so that exp never overflows (softmax(x) == softmax(x - max)).
//
//   softmax_rows<false>(in, out, rows, cols);   // out[r, :] = softmax(in[r, :])

#include <cmath>
#include <cstdint>
#include <limits>

#include "staticpy/backend/cpu/fused.hpp"
#include "staticpy/backend/cpu/simd.hpp"
#include "staticpy/kernels/config.hpp"

namespace staticpy::backend::cpu {

template <bool Log, class T>
void softmax_row(const T* x, T* y, std::int64_t n) {
    std::int64_t j = 0;
    T m = -std::numeric_limits<T>::infinity();
    bool nan = false;
#if STATICPY_HAS_XSIMD
    using B = xsimd::batch<T>;
    constexpr auto W = static_cast<std::int64_t>(B::size);
    if (n >= W) {
        B vm(m);
        for (; j + W <= n; j += W)
            vm = simd_op<fn::maximum>::apply(vm, B::load_unaligned(x + j));
        alignas(64) T tmp[B::size];
        vm.store_aligned(tmp);
        for (T v : tmp)
            m = fn::maximum::apply(m, v);
    }
#endif
    for (; j < n; ++j)
        m = fn::maximum::apply(m, x[j]);
    nan = m != m;
    if (nan || m == -std::numeric_limits<T>::infinity()) {
        // NaN anywhere, or every element -inf: what the eager kernel gives, element by element.
        double total = 0;
        for (std::int64_t i = 0; i < n; ++i)
            total += static_cast<double>(std::exp(x[i] - m));
        for (std::int64_t i = 0; i < n; ++i)
            y[i] = Log ? static_cast<T>(x[i] - m - static_cast<T>(std::log(total)))
                       : static_cast<T>(std::exp(x[i] - m) / static_cast<T>(total));
        return;
    }
    double total = 0;
    j = 0;
#if STATICPY_HAS_XSIMD
    {
        const B bm(m);
        B vs(T(0));
        for (; j + W <= n; j += W) {
            const B e = xsimd::exp(B::load_unaligned(x + j) - bm);
            if constexpr (!Log)
                e.store_unaligned(y + j);
            vs = vs + e;
        }
        total = static_cast<double>(xsimd::hadd(vs));
    }
#endif
    for (; j < n; ++j) {
        const T e = std::exp(x[j] - m);
        if constexpr (!Log)
            y[j] = e;
        total += static_cast<double>(e);
    }
    j = 0;
    if constexpr (Log) {
        const T shift = static_cast<T>(m + static_cast<T>(std::log(total)));
#if STATICPY_HAS_XSIMD
        for (const B bs(shift); j + W <= n; j += W)
            (B::load_unaligned(x + j) - bs).store_unaligned(y + j);
#endif
        for (; j < n; ++j)
            y[j] = x[j] - shift;
    } else {
        const T inv = static_cast<T>(1.0 / total);
#if STATICPY_HAS_XSIMD
        for (const B bi(inv); j + W <= n; j += W)
            (B::load_unaligned(y + j) * bi).store_unaligned(y + j);
#endif
        for (; j < n; ++j)
            y[j] = y[j] * inv;
    }
}

/// softmax (or log_softmax) of each of `rows` contiguous rows of `cols` elements.
template <bool Log, class T>
void softmax_rows(const T* in, T* out, std::int64_t rows, std::int64_t cols) {
    const int chunks =
        chunk_count(rows, threads_for(rows * cols), std::max<std::int64_t>(1, 4096 / (cols + 1)));
    parallel_chunks(rows, chunks, [&](std::int64_t b, std::int64_t e, int) {
        for (std::int64_t r = b; r < e; ++r)
            softmax_row<Log>(in + r * cols, out + r * cols, cols);
    });
}

} // namespace staticpy::backend::cpu
