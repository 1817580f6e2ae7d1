#pragma once
// The thread budget of the CPU kernels, as torch.set_num_threads / get_num_threads, and the cores
// other work claims meanwhile (reserve_threads: the DataLoader's workers). In core/ so that the
// data layer can claim cores without including the kernels (and xsimd) above it.

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <atomic>

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
