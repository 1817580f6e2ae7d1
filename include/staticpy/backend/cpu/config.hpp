#pragma once
// What the CPU backend can use, decided once for every header of the backend:
//   STATICPY_HAS_XSIMD   1 when xsimd (Debian libxsimd-dev) is found; define STATICPY_NO_XSIMD
//                        to force the scalar path (tests build both).
//   STATICPY_HAS_OPENMP  1 when compiled with OpenMP (-fopenmp; CMake adds it when found).
// Neither is required: without them the kernels are plain loops, single-threaded.

#if !defined(STATICPY_NO_XSIMD) && __has_include(<xsimd/xsimd.hpp>)
#define STATICPY_HAS_XSIMD 1
#include <xsimd/xsimd.hpp>
#else
#define STATICPY_HAS_XSIMD 0
#endif

#if defined(_OPENMP)
#define STATICPY_HAS_OPENMP 1
#include <omp.h>
#else
#define STATICPY_HAS_OPENMP 0
#endif

#include <atomic>
#include <cstdint>
#include <string>

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

} // namespace staticpy

namespace staticpy::backend::cpu {

/// Below this many elements a kernel runs on one thread: starting a parallel region costs
/// a few microseconds, which is the time a core needs for about this much elementwise work.
inline constexpr std::int64_t parallel_threshold = 1 << 15;

/// The threads a kernel may use: get_num_threads() less the cores DataLoader workers reserved.
inline int available_threads() {
#if STATICPY_HAS_OPENMP
    const int t =
        get_num_threads() - staticpy::detail::reserved_threads().load(std::memory_order_relaxed);
    return t < 1 ? 1 : t;
#else
    return 1;
#endif
}

/// The number of threads a kernel over n elements uses: 1 for small work.
inline int threads_for(std::int64_t n) {
    return n < parallel_threshold ? 1 : available_threads();
}

} // namespace staticpy::backend::cpu
