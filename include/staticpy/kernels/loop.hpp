#pragma once
// Loop nests: how every kernel walks tensors. An iteration space (the output's sizes) and the
// strides of K operands over it; coalesce() drops size-1 dims and merges adjacent dims wherever
// every operand steps through them as one, so a contiguous case becomes one flat run, and
// for_each_run() visits the innermost runs (the vectorised loop) of any slice of the outermost
// dim (a thread's share). Fills, copies, casts, eager elementwise ops and the graph's fused
// kernels all walk memory through these functions.
//
//   auto nest = coalesce(sizes, {in_strides, out_strides});
//   for_each_run(nest, 0, nest.outer(), [&](auto off, std::int64_t len, auto inner) { ... });

#include <array>
#include <cstddef>
#include <cstdint>

namespace staticpy::kernels {

/// An iteration space of rank <= R and the strides of K operands over it.
template <std::size_t R, std::size_t K>
struct loop_nest {
    std::size_t rank = 0;
    std::array<std::int64_t, R> sizes{};
    std::array<std::array<std::int64_t, R>, K> strides{};
    std::array<std::int64_t, K> base{}; // each operand's offset at index 0

    std::int64_t numel() const {
        std::int64_t n = 1;
        for (std::size_t d = 0; d < rank; ++d)
            n *= sizes[d];
        return n;
    }
    /// The extent of the outermost dim, what parallel_chunks splits (1 for a rank-0 nest).
    std::int64_t outer() const { return rank == 0 ? 1 : sizes[0]; }
};

/// Drops size-1 dims and merges dim d into d+1 wherever every operand steps through them as one
/// dim (stride[d] == stride[d+1] * size[d+1]).
template <std::size_t R, std::size_t K>
loop_nest<R, K> coalesce(const std::array<std::int64_t, R>& sizes,
                         const std::array<std::array<std::int64_t, R>, K>& strides) {
    loop_nest<R, K> n;
    for (std::size_t d = 0; d < R; ++d) {
        if (sizes[d] == 1)
            continue;
        if (n.rank > 0) {
            const std::size_t last = n.rank - 1;
            bool mergeable = true;
            for (std::size_t k = 0; k < K; ++k)
                mergeable = mergeable && strides[k][d] * sizes[d] == n.strides[k][last];
            if (mergeable) {
                n.sizes[last] *= sizes[d];
                for (std::size_t k = 0; k < K; ++k)
                    n.strides[k][last] = strides[k][d];
                continue;
            }
        }
        n.sizes[n.rank] = sizes[d];
        for (std::size_t k = 0; k < K; ++k)
            n.strides[k][n.rank] = strides[k][d];
        ++n.rank;
    }
    return n;
}

/// Calls run(offsets, length, inner_strides) for every innermost run of the nest whose outermost
/// index is in [begin, end) (for a rank-1 nest: the elements [begin, end) as one run; for rank 0:
/// the one element). Over rank >= 2 an odometer walks dims [0, last), dim 0 restricted to
/// [begin, end), the last dim one run each. run is called from one place only, so that the
/// compiler inlines a kernel's body once, not once per rank case: each fused region's body is a
/// function of its own, and three copies of each were a fifth of a test file's machine code.
template <std::size_t R, std::size_t K, class Run>
void for_each_run(const loop_nest<R, K>& n, std::int64_t begin, std::int64_t end, Run&& run) {
    if (begin >= end)
        return;
    const std::size_t last = n.rank == 0 ? 0 : n.rank - 1;
    std::array<std::int64_t, K> inner{};
    std::array<std::int64_t, K> off = n.base;
    if (n.rank > 0)
        for (std::size_t k = 0; k < K; ++k) {
            inner[k] = n.strides[k][last];
            off[k] += begin * n.strides[k][0];
        }
    const std::int64_t length = n.rank == 0 ? 1 : n.rank == 1 ? end - begin : n.sizes[last];
    std::array<std::int64_t, (R > 0 ? R : 1)> idx{}; // (R = 0: a scalar's nest)
    idx[0] = begin;
    while (true) {
        run(static_cast<const std::array<std::int64_t, K>&>(off), length,
            static_cast<const std::array<std::int64_t, K>&>(inner));
        if constexpr (R < 2) { // (g++ 12 -O2 warns of the odometer's idx[1] for R = 1)
            return;
        } else {
            if (n.rank <= 1)
                return;
            std::size_t d = last;
            while (true) {
                --d;
                ++idx[d];
                for (std::size_t k = 0; k < K; ++k)
                    off[k] += n.strides[k][d];
                const std::int64_t limit = d == 0 ? end : n.sizes[d];
                if (idx[d] < limit)
                    break;
                if (d == 0)
                    return;
                for (std::size_t k = 0; k < K; ++k)
                    off[k] -= idx[d] * n.strides[k][d];
                idx[d] = 0;
            }
        }
    }
}

/// Calls f(offsets) for every index of `sizes` in row-major order, where offsets[k] is operand k's
/// offset in elements: offsets[k] at index 0 plus the index times its strides. Nothing is called
/// for an empty space.
template <std::size_t R, std::size_t K, class F>
void for_each_offsets(const std::array<std::int64_t, R>& sizes, std::array<std::int64_t, K> offsets,
                      const std::array<std::array<std::int64_t, R>, K>& strides, F&& f) {
    for (std::int64_t e : sizes)
        if (e == 0)
            return;
    auto nest = coalesce(sizes, strides);
    nest.base = offsets;
    for_each_run(nest, 0, nest.outer(),
                 [&](std::array<std::int64_t, K> at, std::int64_t len,
                     const std::array<std::int64_t, K>& inner) {
                     for (std::int64_t j = 0; j < len; ++j) {
                         f(static_cast<const std::array<std::int64_t, K>&>(at));
                         for (std::size_t k = 0; k < K; ++k)
                             at[k] += inner[k];
                     }
                 });
}

/// The strides with which a tensor of `sizes`/`strides` is read over an iteration space `out` of
/// rank R >= its rank: aligned to the right, 0 where it broadcasts (NumPy's rule).
template <std::size_t R, std::size_t r>
std::array<std::int64_t, R> broadcast_strides(const std::array<std::int64_t, r>& sizes,
                                              const std::array<std::int64_t, r>& strides,
                                              const std::array<std::int64_t, R>& out) {
    static_assert(r <= R);
    std::array<std::int64_t, R> s{};
    for (std::size_t d = R - r; d < R; ++d) {
        const std::size_t e = d - (R - r);
        s[d] = (sizes[e] == 1 && out[d] != 1) ? 0 : strides[e];
    }
    return s;
}

} // namespace staticpy::kernels
