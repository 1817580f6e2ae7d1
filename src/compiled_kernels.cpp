// The library staticpy::kernels (CMake option STATICPY_COMPILED_KERNELS=ON): the generic CPU
// kernels' float and double instances, and the safetensors reader and writer, compiled here once
// instead of in every translation unit of a program: code that takes no model type. Each header
// lists its own instances (STATICPY_KERNEL_INSTANCE); this file turns the list into explicit
// instantiations, the users' translation units into `extern template` declarations
// (kernels/config.hpp).
#define STATICPY_KERNELS_INSTANTIATE

#include "staticpy/kernels/conv.hpp"
#include "staticpy/kernels/gemm.hpp"
#include "staticpy/kernels/pool.hpp"
#include "staticpy/kernels/softmax.hpp"
#include "staticpy/nn/checkpoint.hpp"
