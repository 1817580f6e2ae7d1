#pragma once
// What the CPU kernels can use, decided once for the GEMM and every header of the CPU backend:
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

#include <cstdint>

#include "staticpy/core/threads.hpp"

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
