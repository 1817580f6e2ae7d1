#pragma once
// The one reduction loop: eager reductions (a tensor read as a kernel) and the graph's fused
// reductions (a fused producer) both fold through reduce(), so both get the same SIMD fold,
// threads and exact accumulation.
//
// A reduction here is anything with the shape of tensor/reductions.hpp's descriptions:
//   Red::accumulator<T>    the type it accumulates T in (double for float sums, as PyTorch);
//   Red::identity<A>()     the accumulator's start;
//   Red::combine(a, b)     one step, for accumulators, values and SIMD batches alike;
//   Red::finish<V>(a, n)   the output from an accumulator that folded n values.
// The accumulators are laid out as the keepdim output (contiguous over the kept dims): the
// layout's `sink` strides are the output's strides over the input's dims, 0 where reduced.
//
//   const auto layout = reduce_layout_of(sizes, mask);
//   const auto nest = coalesce(sizes, {in_strides, layout.sink});
//   reduce<Red>(read_kernel<float>{p}, nest, numel, layout, out.data());

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "staticpy/kernels/elementwise.hpp"

namespace staticpy::kernels {

/// Where the accumulators of a reduction over `mask` of an iteration space `sizes` go.
template <std::size_t R>
struct reduce_layout {
    std::array<std::int64_t, R> kept_sizes{}; // the keepdim output's sizes (1 where reduced)
    std::array<std::int64_t, R> sink{};       // its contiguous strides, 0 where reduced
    std::int64_t out_numel = 1;               // how many accumulators
    std::int64_t count = 1;                   // how many values each folds
};

template <std::size_t R>
reduce_layout<R> reduce_layout_of(const std::array<std::int64_t, R>& sizes,
                                  const std::array<bool, R>& mask) {
    reduce_layout<R> l;
    for (std::size_t d = 0; d < R; ++d) {
        l.kept_sizes[d] = mask[d] ? 1 : sizes[d];
        if (mask[d])
            l.count *= sizes[d];
    }
    std::int64_t stride = 1;
    for (std::size_t d = R; d-- > 0;) {
        l.sink[d] = mask[d] ? 0 : stride;
        stride *= l.kept_sizes[d];
    }
    l.out_numel = stride;
    return l;
}

/// A tensor's elements as a kernel of one leaf: what an eager reduction folds.
template <class T>
struct read_kernel {
    static constexpr std::size_t leaves = 1;
    using value_type = T;
    static constexpr bool simd = simd_type_v<T>;
    using offsets_t = std::array<std::int64_t, 2>;

    const T* p;

    T at(const offsets_t& off) const { return p[off[0]]; }
#if STATICPY_HAS_XSIMD
    struct batch_reader {
        const T* p;
        template <bool AllUnit, class B = batch_t<std::conditional_t<simd, T, float>>>
        B at(const offsets_t& off, const offsets_t& inner) const {
            if constexpr (AllUnit)
                return B::load_unaligned(p + off[0]);
            else
                return load_strided<B>(p + off[0], inner[0]);
        }
    };
    batch_reader batches() const {
        return {p};
    }
#endif
};

#if STATICPY_HAS_XSIMD
/// Folds the values of a run whose leaves are all contiguous (inner stride 1) into `acc` with
/// `combine`, through four independent accumulators: one would make the loop wait on the latency
/// of each add. Returns how many elements it consumed (a multiple of 4 batches; 0 when some leaf
/// is strided or broadcast): the caller finishes the rest with run().
template <class K, class B, class Combine>
std::int64_t fold_run(const K& k, const std::array<std::int64_t, K::leaves + 1>& off,
                      std::int64_t len, const std::array<std::int64_t, K::leaves + 1>& inner,
                      B& acc, const B& identity, Combine&& combine) {
    constexpr std::size_t L = K::leaves;
    constexpr auto width = static_cast<std::int64_t>(B::size);
    for (std::size_t l = 0; l < L; ++l)
        if (inner[l] != 1)
            return 0;
    const auto b = k.batches();
    B a0 = acc, a1 = identity, a2 = identity, a3 = identity;
    auto o = off;
    auto at = [&](std::int64_t shift) {
        auto p = o;
        for (std::size_t l = 0; l < L; ++l)
            p[l] += shift;
        return b.template at<true>(p, inner);
    };
    std::int64_t j = 0;
    for (; j + 4 * width <= len; j += 4 * width) {
        a0 = combine(a0, at(0));
        a1 = combine(a1, at(width));
        a2 = combine(a2, at(2 * width));
        a3 = combine(a3, at(3 * width));
        for (std::size_t l = 0; l < L; ++l)
            o[l] += 4 * width;
    }
    acc = combine(combine(a0, a1), combine(a2, a3));
    return j;
}
#endif

/// Accumulates one run of kernel k into the accumulators a (a[off[L] + i * inner[L]]).
template <class Red, class K, class A>
void reduce_run(const K& k, A* a, std::array<std::int64_t, K::leaves + 1> off, std::int64_t len,
                const std::array<std::int64_t, K::leaves + 1>& inner) {
    constexpr std::size_t L = K::leaves;
    using T = typename K::value_type;
    auto scalar_sink = [&](std::int64_t o, T v) { a[o] = Red::combine(a[o], static_cast<A>(v)); };
    if (inner[L] != 0) { // the inner dim is kept: each element goes to its own accumulator
        run(k, off, len, inner, scalar_sink, [&](std::int64_t o, const auto& batch) {
            alignas(64) T tmp[std::decay_t<decltype(batch)>::size];
            batch.store_aligned(tmp);
            for (std::size_t l = 0; l < std::size(tmp); ++l)
                scalar_sink(o + static_cast<std::int64_t>(l) * inner[L], tmp[l]);
        });
        return;
    }
    // The inner dim is reduced: a vector of partial results per block of the run, folded into the
    // (double, for floats) accumulator after each block, so long runs stay exact.
    constexpr std::int64_t block = 2048;
    for (std::int64_t start = 0; start < len; start += block) {
        const std::int64_t n = std::min(block, len - start);
#if STATICPY_HAS_XSIMD
        if constexpr (K::simd) {
            using B = batch_t<T>;
            const B identity(static_cast<T>(Red::template identity<A>()));
            // The reduction's own combine: its ops' apply() takes batches too.
            auto combine = [](const B& x, const B& y) { return Red::combine(x, y); };
            B part = identity;
            const std::int64_t done = fold_run(k, off, n, inner, part, identity, combine);
            auto rest = off;
            for (std::size_t j = 0; j < L; ++j)
                rest[j] += done * inner[j];
            run(k, rest, n - done, inner, scalar_sink,
                [&](std::int64_t, const B& b) { part = combine(part, b); });
            alignas(64) T tmp[B::size];
            part.store_aligned(tmp);
            for (std::size_t l = 0; l < B::size; ++l)
                scalar_sink(off[L], tmp[l]);
        } else
#endif
        {
            run(k, off, n, inner, scalar_sink, [](std::int64_t, const auto&) {});
        }
        for (std::size_t j = 0; j < L; ++j)
            off[j] += n * inner[j];
    }
}

/// Folds kernel k over `nest` (its leaves' strides, then layout.sink) with reduction Red, split
/// across threads when numel (the input's element count) pays for them, and writes each output,
/// Red::finish of its accumulator, to q (contiguous, the layout's order). An empty input gives
/// every output the finish of the identity.
template <class Red, class K, std::size_t R, class V>
void reduce(const K& k, const loop_nest<R, K::leaves + 1>& nest, std::int64_t numel,
            const reduce_layout<R>& layout, V* q) {
    const std::int64_t out_numel = layout.out_numel;
    using A = typename Red::template accumulator<typename K::value_type>;
    constexpr std::size_t L = K::leaves;
    const std::int64_t outer = nest.outer();
    const bool outer_kept = nest.rank > 0 && nest.strides[L][0] != 0;
    int chunks = chunk_count(outer, threads_for(numel, cost_of<K>()), nest.rank <= 1 ? 4096 : 1);
    // Chunks that reduce into the same outputs get private accumulators, combined after.
    const bool private_acc = chunks > 1 && !outer_kept;
    if (private_acc && out_numel * chunks > (std::int64_t{1} << 22))
        chunks = 1;
    // Accumulators: on the stack when few (a full reduction has one per chunk), so a small sum
    // allocates nothing but its result.
    const auto acc_count = static_cast<std::size_t>(out_numel * (private_acc ? chunks : 1));
    std::array<A, 64> small_acc;
    std::vector<A> large_acc;
    if (acc_count > small_acc.size())
        large_acc.resize(acc_count);
    A* const acc = acc_count > small_acc.size() ? large_acc.data() : small_acc.data();
    std::fill(acc, acc + acc_count, Red::template identity<A>());

    if (numel != 0) {
        parallel_chunks(outer, chunks, [&](std::int64_t b, std::int64_t e, int c) {
            A* a = acc + (private_acc ? c * out_numel : 0);
            // Generic parameters: spelled std::array<std::int64_t, L + 1>, they made g++ 12
            // crash (an internal compiler error in lookup_template_class_1).
            for_each_run(nest, b, e, [&](const auto& off, std::int64_t len, const auto& inner) {
                reduce_run<Red>(k, a, off, len, inner);
            });
        });
    }
    if (private_acc)
        for (int c = 1; c < chunks; ++c)
            for (std::int64_t i = 0; i < out_numel; ++i)
                acc[i] = Red::combine(acc[i], acc[c * out_numel + i]);
    for (std::int64_t i = 0; i < out_numel; ++i)
        q[i] = Red::template finish<V>(acc[i], layout.count);
}

} // namespace staticpy::kernels
