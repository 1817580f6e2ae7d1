#pragma once
// The kernels layer: SIMD (xsimd) and OpenMP detection, the vectorised math, the GEMM, loop nests,
// the parallel split, the elementwise and reduction loops, the softmax row kernel; the GEMM takes
// its epilogue through function_ref.
//   #include <staticpy/kernels.hpp>

#include "staticpy/kernels/config.hpp"
#include "staticpy/kernels/elementwise.hpp"
#include "staticpy/kernels/function_ref.hpp"
#include "staticpy/kernels/gemm.hpp"
#include "staticpy/kernels/loop.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/kernels/parallel.hpp"
#include "staticpy/kernels/reduce.hpp"
#include "staticpy/kernels/simd.hpp"
#include "staticpy/kernels/softmax.hpp"
#include "staticpy/kernels/vmath.hpp"
