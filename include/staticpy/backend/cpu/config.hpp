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

#include <cstdint>

namespace staticpy::backend::cpu {

/// Below this many elements a kernel runs on one thread: starting a parallel region costs
/// a few microseconds, which is the time a core needs for about this much elementwise work.
inline constexpr std::int64_t parallel_threshold = 1 << 15;

/// The number of threads a kernel over n elements uses.
inline int threads_for(std::int64_t n) {
#if STATICPY_HAS_OPENMP
    return n < parallel_threshold ? 1 : omp_get_max_threads();
#else
    (void)n;
    return 1;
#endif
}

} // namespace staticpy::backend::cpu
