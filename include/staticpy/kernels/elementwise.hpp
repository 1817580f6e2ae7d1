#pragma once
// The one elementwise loop: eager ops and the graph's fused kernels both evaluate through it, so
// both get the same contiguous fast path, SIMD batches and threads.
//
// A kernel K describes what to compute at one element; this header decides how to walk memory:
//   K::leaves             how many operands it reads from memory (each has its own strides);
//   K::value_type         the type of the value it computes;
//   K::simd               whether it can compute kernels::batch_t<value_type> at once;
//   k.at(off)             its value at the element whose operands sit at offsets off[0..leaves);
//   k.batches()           an object b with b.template at<AllUnit>(off, inner): the next `width`
//                         values of a run (AllUnit: every operand's inner stride is 1), built
//                         once per run with what can be hoisted out of the loop.
// run() walks one innermost run, handing each value or batch to a sink; store() fills an output
// tensor's memory over a loop nest, split across threads; store_block() fills one block of a
// matrix (a GEMM epilogue), store_run() one run (a convolution's epilogue).
//
//   store(kernel, coalesce(sizes, strides), out.data(), out.numel());

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "staticpy/kernels/loop.hpp"
#include "staticpy/kernels/parallel.hpp"
#include "staticpy/kernels/simd.hpp"

namespace staticpy::kernels {

#if STATICPY_HAS_XSIMD
/// The SIMD batch of T (the widest the build targets).
template <class T>
using batch_t = xsimd::batch<T>;
#endif

/// Where a kernel's values go when it stores them: q[o], or `width` elements from o with stride
/// `step` (one vector store when contiguous). Held by value: the SIMD stores may alias anything,
/// so a pointer reached through a reference would be reloaded at every store.
template <class T>
struct store_sink {
    T* q;
    std::int64_t step;
    void operator()(std::int64_t o, T v) const { q[o] = v; }
    template <class Batch>
    void operator()(std::int64_t o, const Batch& batch) const {
        if (step == 1) {
            batch.store_unaligned(q + o);
        } else {
            alignas(64) T tmp[Batch::size];
            batch.store_aligned(tmp);
            for (std::size_t l = 0; l < Batch::size; ++l)
                q[o + static_cast<std::int64_t>(l) * step] = tmp[l];
        }
    }
};

/// Reads `width` values from p with stride `step` (1: one vector load; 0: one value in every
/// lane) as a batch.
template <class Batch, class T>
Batch load_strided(const T* p, std::int64_t step) {
    if (step == 1)
        return Batch::load_unaligned(p);
    if (step == 0)
        return Batch(*p);
    alignas(64) T tmp[Batch::size];
    for (std::size_t l = 0; l < Batch::size; ++l)
        tmp[l] = p[static_cast<std::int64_t>(l) * step];
    return Batch::load_aligned(tmp);
}

/// Calls sink(offset, value) or sink_batch(offset, batch) for every element of a run of length
/// len: the shared inner loop of every store and reduce kernel. `off` holds the operands' offsets
/// then the sink's, `inner` their inner strides. Both are taken by value: the SIMD stores may
/// alias anything, so strides read through a reference were reloaded after every store (a third
/// of a short kernel's time).
template <class K, class ScalarSink, class BatchSink>
void run(const K& k, std::array<std::int64_t, K::leaves + 1> off, std::int64_t len,
         const std::array<std::int64_t, K::leaves + 1> inner, ScalarSink&& sink,
         [[maybe_unused]] BatchSink&& sink_batch) {
    constexpr std::size_t L = K::leaves;
    std::int64_t j = 0;
#if STATICPY_HAS_XSIMD
    if constexpr (K::simd) {
        constexpr auto width = static_cast<std::int64_t>(batch_t<typename K::value_type>::size);
        // Local copies: SIMD stores may alias anything (the intrinsics' vector types are
        // may_alias), which would make the loop reload every pointer from memory.
        const auto b = k.batches();
        auto store = sink_batch;
        bool all_unit = true;
        for (std::size_t l = 0; l < L; ++l)
            all_unit = all_unit && inner[l] == 1;
        if (all_unit) {
            // The common case gets a loop over j alone: the operands' offsets stay constant, so
            // their pointers are loop-invariant and each load is base + j.
            const std::array<std::int64_t, L + 1> start = off;
            for (; j + width <= len; j += width) {
                std::array<std::int64_t, L + 1> at_j = start;
                for (std::size_t l = 0; l < L; ++l)
                    at_j[l] += j;
                store(start[L] + j * inner[L], b.template at<true>(at_j, inner));
            }
            for (std::size_t l = 0; l < L + 1; ++l)
                off[l] += j * inner[l];
        } else {
            for (; j + width <= len; j += width) {
                store(off[L], b.template at<false>(off, inner));
                for (std::size_t l = 0; l < L + 1; ++l)
                    off[l] += width * inner[l];
            }
        }
    }
#endif
    for (; j < len; ++j) {
        sink(off[L], k.at(off));
        for (std::size_t l = 0; l < L + 1; ++l)
            off[l] += inner[l];
    }
}

/// Evaluates kernel k over one run of len elements into q, on the calling thread: the operands'
/// offsets then the output's in `off`, their steps in `inner`.
template <class K>
void store_run(const K& k, const std::array<std::int64_t, K::leaves + 1>& off, std::int64_t len,
               const std::array<std::int64_t, K::leaves + 1>& inner, typename K::value_type* q) {
    using T = typename K::value_type;
    run(k, off, len, inner, store_sink<T>{q, inner[K::leaves]}, store_sink<T>{q, inner[K::leaves]});
}

/// Evaluates kernel k over the slice [begin, end) of the outermost dim of `nest` (its operands'
/// strides, then the output's) into q, on the calling thread.
template <class K, std::size_t R>
void store_range(const K& k, const loop_nest<R, K::leaves + 1>& nest, typename K::value_type* q,
                 std::int64_t begin, std::int64_t end) {
    constexpr std::size_t L = K::leaves;
    for_each_run(
        nest, begin, end,
        [&](const std::array<std::int64_t, L + 1>& off, std::int64_t len,
            const std::array<std::int64_t, L + 1>& inner) { store_run(k, off, len, inner, q); });
}

/// Evaluates kernel k at every element of `nest` into q, split across threads when numel is
/// large enough to pay for them.
template <class K, std::size_t R>
void store(const K& k, const loop_nest<R, K::leaves + 1>& nest, typename K::value_type* q,
           std::int64_t numel) {
    if (numel == 0)
        return;
    const std::int64_t outer = nest.outer();
    const int chunks =
        chunk_count(outer, threads_for(numel, cost_of<K>()), nest.rank <= 1 ? 4096 : 1);
    parallel_chunks(outer, chunks, [&](std::int64_t begin, std::int64_t end, int) {
        store_range(k, nest, q, begin, end);
    });
}

/// Evaluates kernel k over the block [i0, i1) x [j0, j1) of a 2-D iteration space whose operands
/// (then the output) step through it with `strides`, into q, on the calling thread: a GEMM's
/// epilogue, run on each block of the product as soon as it is final (still in cache).
template <class K>
void store_block(const K& k, const std::array<std::array<std::int64_t, 2>, K::leaves + 1>& strides,
                 typename K::value_type* q, std::int64_t i0, std::int64_t i1, std::int64_t j0,
                 std::int64_t j1) {
    auto nest = coalesce(std::array<std::int64_t, 2>{i1 - i0, j1 - j0}, strides);
    for (std::size_t l = 0; l < K::leaves + 1; ++l)
        nest.base[l] = i0 * strides[l][0] + j0 * strides[l][1];
    store_range(k, nest, q, 0, nest.outer());
}

} // namespace staticpy::kernels
