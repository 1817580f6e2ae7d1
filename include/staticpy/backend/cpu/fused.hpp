#pragma once
// The CPU backend's fused kernels: one loop nest evaluates a whole fusion region (every
// elementwise node between an output and the tensors it reads) per element, vectorised with xsimd
// and split over cores with OpenMP. No temporary is written: intermediate values live in
// registers. A region either stores its value (store_sink) or accumulates it into a reduction
// (reduce_sink), so sum(x * y) reads x and y once and writes only the sum.
//
// The loop nest: the region's iteration space (the output's shape, or the reduction operand's),
// with each operand's strides over it (0 where it broadcasts). Size-1 dims are dropped and
// adjacent dims merged where every operand allows, so a contiguous case is one flat loop; the
// innermost dim is the vectorised one.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/backend/cpu/simd.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/kernels/config.hpp"

namespace staticpy::backend::cpu {

// ---- loop nests ---------------------------------------------------------------------------------

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
};

/// Drops size-1 dims and merges dim d into d+1 wherever every operand steps through them as one
/// dim (stride[d] == stride[d+1] * size[d+1]).
template <std::size_t R, std::size_t K>
loop_nest<R, K> simplify(const std::array<std::int64_t, R>& sizes,
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
/// index is in [begin, end) (for a rank-1 nest: the elements [begin, end) as one run).
template <std::size_t R, std::size_t K, class Run>
void for_each_run(const loop_nest<R, K>& n, std::int64_t begin, std::int64_t end, Run&& run) {
    std::array<std::int64_t, K> inner{};
    if (n.rank == 0) {
        if (begin < end)
            run(n.base, std::int64_t{1}, inner);
        return;
    }
    const std::size_t last = n.rank - 1;
    for (std::size_t k = 0; k < K; ++k)
        inner[k] = n.strides[k][last];
    if (n.rank == 1) {
        std::array<std::int64_t, K> off = n.base;
        for (std::size_t k = 0; k < K; ++k)
            off[k] += begin * inner[k];
        if (begin < end)
            run(off, end - begin, inner);
        return;
    }
    // An odometer over dims [0, last), dim 0 restricted to [begin, end).
    std::array<std::int64_t, R> idx{};
    std::array<std::int64_t, K> off = n.base;
    idx[0] = begin;
    for (std::size_t k = 0; k < K; ++k)
        off[k] += begin * n.strides[k][0];
    if (begin >= end)
        return;
    while (true) {
        run(off, n.sizes[last], inner);
        std::size_t d = last;
        while (d-- > 0) {
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

/// How many chunks parallel_chunks splits [0, extent) into for `threads` threads: chunks are at
/// least `grain` long, so that small work stays on one thread.
inline int chunk_count(std::int64_t extent, int threads, std::int64_t grain) {
    if (threads <= 1 || extent <= grain)
        return 1;
    return static_cast<int>(std::min<std::int64_t>(threads, (extent + grain - 1) / grain));
}

/// Runs body(begin, end, chunk) for each of `chunks` contiguous pieces of [0, extent), in
/// parallel when there is more than one.
template <class Body>
void parallel_chunks(std::int64_t extent, int chunks, Body&& body) {
    if (chunks <= 1) {
        body(std::int64_t{0}, extent, 0);
        return;
    }
    const std::int64_t per = (extent + chunks - 1) / chunks;
#if STATICPY_HAS_OPENMP
#pragma omp parallel for num_threads(chunks) schedule(static)
#endif
    for (int c = 0; c < chunks; ++c) {
        const std::int64_t b = c * per;
        const std::int64_t e = std::min(extent, b + per);
        if (b < e)
            body(b, e, c);
    }
}

// ---- evaluating a region per element
// --------------------------------------------------------------

namespace detail {

template <class Prog, std::size_t S>
using slot_value_t = typename Prog::template node_at<S>::value_type;

/// Whether a region can run on SIMD batches of T: every value and computation in it is T, and
/// every functor has a simd_op.
template <class Prog, class Region, class T, std::size_t... S>
constexpr bool region_simd_able(std::index_sequence<S...>) {
#if STATICPY_HAS_XSIMD
    if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
        return false;
    } else {
        auto slot_ok = []<std::size_t I>(std::integral_constant<std::size_t, I>) {
            if constexpr (!Region::member[I]) {
                return true;
            } else {
                using node = typename Prog::template node_at<I>;
                if constexpr (!std::is_same_v<typename node::value_type, T>)
                    return false;
                else if constexpr (node::materialized || graph::is_number_node_v<node>)
                    return true;
                else
                    return std::is_same_v<typename node::compute_type, T> &&
                           simd_op<typename node::functor>::available;
            }
        };
        return (slot_ok(std::integral_constant<std::size_t, S>{}) && ...);
    }
#else
    (void)sizeof...(S);
    return false;
#endif
}

/// Per-call state of a region kernel: each leaf's base pointer, each number's value (already in
/// the type its consumers compute in: hoisted out of the loop).
template <class Prog, std::size_t Root>
struct region_kernel {
    using region = graph::region<Prog, Root>;
    static constexpr std::size_t N = Prog::size;
    static constexpr std::size_t leaves = region::leaf_count;
    using root_type = slot_value_t<Prog, Root>;
    static constexpr bool simd =
        region_simd_able<Prog, region, root_type>(std::make_index_sequence<N>{});

    template <std::size_t S>
    using pointer_t =
        std::conditional_t<region::is_leaf(S), const slot_value_t<Prog, S>*, std::nullptr_t>;
    template <class Seq>
    struct pointers_of;
    template <std::size_t... S>
    struct pointers_of<std::index_sequence<S...>> {
        using type = std::tuple<pointer_t<S>...>;
    };
    using pointers_t = typename pointers_of<std::make_index_sequence<N>>::type;

    pointers_t data{};                           // leaves' first elements
    const graph::node_pointers_t<Prog>* nodes{}; // for the numbers' values

    // -- scalar evaluation --
    template <std::size_t S>
    using scalar_value_t = std::conditional_t<region::member[S], slot_value_t<Prog, S>, char>;
    template <class Seq>
    struct values_of;
    template <std::size_t... S>
    struct values_of<std::index_sequence<S...>> {
        using type = std::tuple<scalar_value_t<S>...>;
    };
    using scalar_values_t = typename values_of<std::make_index_sequence<N>>::type;

    template <std::size_t S, class Values>
    static auto apply_scalar(const Values& v) {
        using node = typename Prog::template node_at<S>;
        using F = typename node::functor;
        constexpr auto ops = Prog::template instr_at<S>::operands;
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return static_cast<typename node::value_type>(F::apply(
                static_cast<graph::ew_operand_compute_t<node, I>>(std::get<ops[I]>(v))...));
        }
        (std::make_index_sequence<ops.size()>{});
    }

    /// The region's value at the element whose leaf offsets are off (leaf order).
    root_type at(const std::array<std::int64_t, leaves + 1>& off) const {
        scalar_values_t v{};
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            (
                [&] {
                    if constexpr (region::member[S]) {
                        using node = typename Prog::template node_at<S>;
                        if constexpr (region::is_leaf(S))
                            std::get<S>(v) = std::get<S>(data)[off[region::leaf_index[S]]];
                        else if constexpr (graph::is_number_node_v<node>)
                            std::get<S>(v) = number_value<S>();
                        else
                            std::get<S>(v) = apply_scalar<S>(v);
                    }
                }(),
                ...);
        }
        (std::make_index_sequence<N>{});
        return std::get<Root>(v);
    }

    template <std::size_t S>
    auto number_value() const {
        using node = typename Prog::template node_at<S>;
        if constexpr (requires { typename node::constant_type; })
            return static_cast<typename node::value_type>(node::value);
        else
            return std::get<S>(*nodes)->value;
    }

#if STATICPY_HAS_XSIMD
    // -- SIMD evaluation (only instantiated when simd) --
    using batch = xsimd::batch<std::conditional_t<simd, root_type, float>>;
    static constexpr std::int64_t width = static_cast<std::int64_t>(batch::size);

    template <class Seq>
    struct batches_of;
    template <std::size_t... S>
    struct batches_of<std::index_sequence<S...>> {
        using type = std::tuple<std::conditional_t<region::member[S], batch, char>...>;
    };
    using batch_values_t = typename batches_of<std::make_index_sequence<N>>::type;

    /// The region's value for `width` consecutive elements of a run. Contiguous: every leaf's
    /// inner stride is 1 or 0 as `unit` says (known per run, branch-free inside).
    template <bool AllUnit>
    batch at_batch(const pointers_t& ptrs, const std::array<std::int64_t, leaves + 1>& off,
                   const std::array<std::int64_t, leaves + 1>& inner,
                   const batch_values_t& hoisted) const {
        batch_values_t v = hoisted;
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            (
                [&] {
                    if constexpr (region::member[S]) {
                        using node = typename Prog::template node_at<S>;
                        if constexpr (region::is_leaf(S)) {
                            constexpr std::size_t k = region::leaf_index[S];
                            const root_type* p = std::get<S>(ptrs) + off[k];
                            if constexpr (AllUnit) {
                                std::get<S>(v) = batch::load_unaligned(p);
                            } else {
                                if (inner[k] == 1) {
                                    std::get<S>(v) = batch::load_unaligned(p);
                                } else if (inner[k] == 0) {
                                    std::get<S>(v) = batch(*p);
                                } else {
                                    alignas(64) root_type tmp[batch::size];
                                    for (std::size_t l = 0; l < batch::size; ++l)
                                        tmp[l] = p[static_cast<std::int64_t>(l) * inner[k]];
                                    std::get<S>(v) = batch::load_aligned(tmp);
                                }
                            }
                        } else if constexpr (!graph::is_number_node_v<node>) {
                            using F = typename node::functor;
                            constexpr auto ops = Prog::template instr_at<S>::operands;
                            std::get<S>(v) = [&]<std::size_t... I>(std::index_sequence<I...>) {
                                return simd_op<F>::apply(std::get<ops[I]>(v)...);
                            }
                            (std::make_index_sequence<ops.size()>{});
                        }
                    }
                }(),
                ...);
        }
        (std::make_index_sequence<N>{});
        return std::get<Root>(v);
    }

    /// The numbers as batches, computed once per call.
    batch_values_t hoisted_numbers() const {
        batch_values_t v{};
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            (
                [&] {
                    if constexpr (region::member[S] &&
                                  graph::is_number_node_v<typename Prog::template node_at<S>>)
                        std::get<S>(v) = batch(static_cast<root_type>(number_value<S>()));
                }(),
                ...);
        }
        (std::make_index_sequence<N>{});
        return v;
    }

    /// Folds the values of a run whose leaves are all contiguous (inner stride 1) into `acc`
    /// with `combine`, through four independent accumulators: one would make the loop wait on
    /// the latency of each add. Returns how many elements it consumed (a multiple of 4 batches;
    /// 0 when some leaf is strided or broadcast): the caller finishes the rest with run().
    template <class Combine>
    std::int64_t fold_run(const std::array<std::int64_t, leaves + 1>& off, std::int64_t len,
                          const std::array<std::int64_t, leaves + 1>& inner, batch& acc,
                          const batch& identity, Combine&& combine) const {
        for (std::size_t k = 0; k < leaves; ++k)
            if (inner[k] != 1)
                return 0;
        const batch_values_t hoisted = hoisted_numbers();
        const pointers_t ptrs = data;
        batch a0 = acc, a1 = identity, a2 = identity, a3 = identity;
        std::array<std::int64_t, leaves + 1> o = off;
        auto at = [&](std::int64_t shift) {
            std::array<std::int64_t, leaves + 1> p = o;
            for (std::size_t k = 0; k < leaves; ++k)
                p[k] += shift;
            return at_batch<true>(ptrs, p, inner, hoisted);
        };
        std::int64_t j = 0;
        for (; j + 4 * width <= len; j += 4 * width) {
            a0 = combine(a0, at(0));
            a1 = combine(a1, at(width));
            a2 = combine(a2, at(2 * width));
            a3 = combine(a3, at(3 * width));
            for (std::size_t k = 0; k < leaves; ++k)
                o[k] += 4 * width;
        }
        acc = combine(combine(a0, a1), combine(a2, a3));
        return j;
    }
#endif

    /// Calls sink(off_of_sink, j, value) or sink_batch(...) for every element of a run of length
    /// len: the shared inner loop of store and reduce kernels. `off` holds the leaves' offsets
    /// then the sink's, `inner` their inner strides.
    template <class ScalarSink, class BatchSink>
    void run(std::array<std::int64_t, leaves + 1> off, std::int64_t len,
             const std::array<std::int64_t, leaves + 1>& inner, ScalarSink&& sink,
             [[maybe_unused]] BatchSink&& sink_batch) const {
        std::int64_t j = 0;
#if STATICPY_HAS_XSIMD
        if constexpr (simd) {
            const batch_values_t hoisted = hoisted_numbers();
            // A local copy: SIMD stores may alias anything (the intrinsics' vector types are
            // may_alias), which would make the loop reload every pointer from *this.
            const pointers_t ptrs = data;
            auto store = sink_batch; // a local copy, for the same reason
            bool all_unit = true;
            for (std::size_t k = 0; k < leaves; ++k)
                all_unit = all_unit && inner[k] == 1;
            if (all_unit) {
                // The common case gets a loop over j alone: the leaves' offsets stay constant,
                // so their pointers are loop-invariant and each load is base + j.
                const std::array<std::int64_t, leaves + 1> start = off;
                for (; j + width <= len; j += width) {
                    std::array<std::int64_t, leaves + 1> at_j = start;
                    for (std::size_t k = 0; k < leaves; ++k)
                        at_j[k] += j;
                    store(start[leaves] + j * inner[leaves],
                          at_batch<true>(ptrs, at_j, inner, hoisted));
                }
                for (std::size_t k = 0; k < leaves + 1; ++k)
                    off[k] += j * inner[k];
            } else {
                for (; j + width <= len; j += width) {
                    store(off[leaves], at_batch<false>(ptrs, off, inner, hoisted));
                    for (std::size_t k = 0; k < leaves + 1; ++k)
                        off[k] += width * inner[k];
                }
            }
        }
#endif
        for (; j < len; ++j) {
            sink(off[leaves], at(off));
            for (std::size_t k = 0; k < leaves + 1; ++k)
                off[k] += inner[k];
        }
    }
};

} // namespace detail

} // namespace staticpy::backend::cpu
