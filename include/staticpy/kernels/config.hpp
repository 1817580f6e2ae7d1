#pragma once
// What the CPU kernels can use, decided once for every header of the kernels layer and the CPU
// backend:
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

#include <type_traits>

namespace staticpy::kernels {

#if STATICPY_HAS_XSIMD
/// Whether the SIMD paths compile: xsimd picks no architecture on targets it does not know, and
/// those take the scalar ones.
inline constexpr bool xsimd_usable = !std::is_same_v<xsimd::default_arch, xsimd::unavailable>;
#else
inline constexpr bool xsimd_usable = false;
#endif

/// Whether values of T can be computed in SIMD batches (float and double, with xsimd).
template <class T>
inline constexpr bool simd_type_v = xsimd_usable &&
                                    (std::is_same_v<T, float> || std::is_same_v<T, double>);

} // namespace staticpy::kernels

#if defined(_OPENMP)
#define STATICPY_HAS_OPENMP 1
#else
#define STATICPY_HAS_OPENMP 0
#endif
