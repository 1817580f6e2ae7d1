#pragma once
// What the CPU kernels can use, decided once for every header of the kernels layer and the CPU
// backend:
//   STATICPY_HAS_XSIMD   1 when xsimd (Debian libxsimd-dev) is found; define STATICPY_NO_XSIMD
//                        to force the scalar path (tests build both).
//   STATICPY_HAS_OPENMP  1 when compiled with OpenMP (-fopenmp; CMake adds it when found).
// Neither is required: without them the kernels are plain loops, single-threaded.
//
// And where the generic kernels (GEMM, convolution, pooling, softmax rows: functions of pointers,
// sizes and an element type, the same for every graph) are compiled:
//   header-only (the default)     in each translation unit that calls them, as every template;
//   STATICPY_COMPILED_KERNELS     once, in the library staticpy::kernels (src/compiled_kernels.cpp,
//                                 CMake option STATICPY_COMPILED_KERNELS=ON): each header declares
//                                 its float and double instances `extern template`
//                                 (STATICPY_KERNEL_INSTANCE), so a user's translation unit
//                                 compiles none of them, as {fmt}'s and Asio's compiled modes do.
// Each instance carries kernel_build (below) as a template argument: a translation unit built for
// another SIMD architecture, without xsimd, OpenMP or with CBLAS never shares one with the
// library; in compiled mode it fails to link (an undefined `gemm_any<float, N>`) instead of
// running code built for another configuration. Such a unit defines STATICPY_HEADER_ONLY_KERNELS.

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

namespace staticpy::kernels {

/// What a generic kernel's machine code depends on besides its source: the SIMD architecture
/// xsimd targets (its version number; 0 without xsimd), OpenMP and CBLAS. A template argument of
/// each compiled instance (see the opening comment).
inline constexpr unsigned kernel_build =
#if STATICPY_HAS_XSIMD
    xsimd::default_arch::version() * 4 +
#endif
#if defined(STATICPY_HAS_CBLAS)
    2 +
#endif
    STATICPY_HAS_OPENMP;

} // namespace staticpy::kernels

// STATICPY_KERNEL_INSTANCE(template void f<float, kernel_build>(...)): one instance of a generic
// kernel, written once beside the kernel: its explicit instantiation in the library's own
// translation unit (STATICPY_KERNELS_INSTANTIATE), its `extern template` declaration in a user's
// translation unit in compiled mode, nothing in header-only mode.
#if defined(STATICPY_KERNELS_INSTANTIATE)
#define STATICPY_KERNEL_INSTANCE(...) __VA_ARGS__;
#elif defined(STATICPY_COMPILED_KERNELS) && !defined(STATICPY_HEADER_ONLY_KERNELS)
#define STATICPY_KERNEL_INSTANCE(...) extern __VA_ARGS__;
#else
#define STATICPY_KERNEL_INSTANCE(...)
#endif
