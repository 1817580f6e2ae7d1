#pragma once
// The thread budget of the CPU kernels, as torch.set_num_threads / get_num_threads, and the cores
// other work claims meanwhile (reserve_threads: the DataLoader's workers), and how many threads a
// loop of a given size uses and how it is split into chunks. In core/ so that the data layer can
// claim cores, and split its batch gathers, without including the kernels (and xsimd) above it.

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "staticpy/core/error.hpp"

namespace staticpy {

namespace detail {
/// set_num_threads' value; 0 until it is called (then OpenMP's default applies).
inline std::atomic<int>& kernel_threads() {
    static std::atomic<int> n{0};
    return n;
}
/// Cores other work in this process has claimed while it runs (DataLoader workers): kernels
/// leave them alone. OpenMP's idle threads spin after each parallel region, and on cores the
/// loader's workers need that costs far more than the parallel region gains.
inline std::atomic<int>& reserved_threads() {
    static std::atomic<int> n{0};
    return n;
}
} // namespace detail

/// torch.set_num_threads: how many threads the CPU kernels (fused loops, GEMM) use.
///   staticpy::set_num_threads(1);    // single-threaded kernels
inline void set_num_threads(int n) {
    if (n <= 0)
        throw RuntimeError("set_num_threads expects a positive number of threads");
    detail::kernel_threads().store(n);
}

/// torch.get_num_threads: the kernels' thread count (OpenMP's default until set_num_threads).
inline int get_num_threads() {
    const int n = detail::kernel_threads().load(std::memory_order_relaxed);
#if defined(_OPENMP)
    return n > 0 ? n : omp_get_max_threads();
#else
    return n > 0 ? n : 1;
#endif
}

/// Claims `n` cores for other threads of the process while it lives: the kernels use the rest.
/// The DataLoader holds one per worker thread.
class reserve_threads {
public:
    explicit reserve_threads(int n) : n_(n) { detail::reserved_threads().fetch_add(n_); }
    ~reserve_threads() { detail::reserved_threads().fetch_sub(n_); }
    reserve_threads(const reserve_threads&) = delete;
    reserve_threads& operator=(const reserve_threads&) = delete;

private:
    int n_;
};

namespace detail {

/// Below this many elements a loop runs on one thread: starting a parallel region costs a few
/// microseconds, which is the time a core needs for about this much elementwise work.
inline constexpr std::int64_t parallel_threshold = 1 << 15;

/// The threads a loop may use: get_num_threads() less the cores DataLoader workers reserved.
inline int available_threads() {
#if defined(_OPENMP)
    const int t = get_num_threads() - reserved_threads().load(std::memory_order_relaxed);
    return t < 1 ? 1 : t;
#else
    return 1;
#endif
}

/// The number of threads a loop over n elements, each costing `cost` times an add (a kernel's
/// `cost`: 1 for arithmetic, more for transcendental functions), uses: 1 for small work. A tanh
/// chain over 1e4 elements is worth a second core; a sum over 1e4 is not.
inline int threads_for(std::int64_t n, std::int64_t cost = 1) {
    cost = std::max<std::int64_t>(cost, 1);
    return n < (parallel_threshold + cost - 1) / cost ? 1 : available_threads();
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
#if defined(_OPENMP)
#pragma omp parallel for num_threads(chunks) schedule(static)
#endif
    for (int c = 0; c < chunks; ++c) {
        const std::int64_t b = c * per;
        const std::int64_t e = std::min(extent, b + per);
        if (b < e)
            body(b, e, c);
    }
}

} // namespace detail

} // namespace staticpy
