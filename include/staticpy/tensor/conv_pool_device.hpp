#pragma once
// What conv2d and the 2-D pools (tensor/ops_conv.hpp, tensor/ops_pool.hpp) and their derivatives
// hand to the CUDA backend when their tensors are on a GPU: the call described at run time (the
// geometry the CPU kernels take), every tensor contiguous and flat. The backend
// (backend/cuda/conv_pool.hpp) runs them as its own kernels (im2col and cuBLAS for the
// convolutions, a window scan per output or input element for the pools). Here, in the tensor
// layer below both, as class_loss_device.hpp is for the class losses; a fallback says where
// <staticpy/cuda.hpp> is not included.
//
//   conv2d_on_cuda(conv_pool_device_tag{}, conv_device_call{what, geometry}, a, b, bias, out);
//   pool2d_on_cuda(conv_pool_device_tag{}, pool_device_call{...}, a, b, out);

#include <cstdint>
#include <string>

#include "staticpy/core/error.hpp"
#include "staticpy/kernels/conv.hpp"
#include "staticpy/kernels/pool.hpp"

namespace staticpy::detail {

/// A convolution's kernel on the device, with its operands a and b:
///   output           conv2d(x, w) + bias: a = x, b = w, out [N, O, OH, OW];
///   input_gradient   conv2d_input_backward(g, w): a = g, b = w, out [N, C, H, W];
///   weight_gradient  conv2d_weight_backward(g, x): a = g, b = x, out [O, C / groups, kH, kW].
struct conv_device_call {
    enum class result { output, input_gradient, weight_gradient };
    result what = result::output;
    kernels::conv2d_geometry geometry;
};

/// A pooling kernel on the device, with its operands a and b:
///   output           the pool of a = x (b undefined), out [planes, OH, OW];
///   input_gradient   the gradient a = g spread back over x's windows (max: b = x, whose argmaxes
///                    take it; the linear pools: b undefined), out [planes, H, W];
///   at_argmax        max pooling's a = v (x's shape) at the argmax of each of b = x's windows,
///                    out [planes, OH, OW] (max_pool2d_backward's derivative).
struct pool_device_call {
    enum class pool { max, avg, adaptive_avg };
    enum class result { output, input_gradient, at_argmax };
    pool kind = pool::max;
    result what = result::output;
    kernels::pool2d_geometry geometry{};
    kernels::avg_pool2d_divisor divisor{}; // avg's

    pool_device_call(pool k, result w) : kind(k), what(w) {}
};

/// Selects the CUDA backend's convolution and pooling kernels by argument-dependent lookup.
struct conv_pool_device_tag {};

/// The fallbacks where the translation unit does not include <staticpy/cuda.hpp>.
[[noreturn]] inline void throw_conv_pool_without_cuda(const char* what) {
    throw RuntimeError(std::string("staticpy: CUDA is not available here: a ") + what +
                       "'s tensors are on the GPU, and its translation unit does not include "
                       "<staticpy/cuda.hpp>");
}
template <class Tag, class... Tensors>
void conv2d_on_cuda(Tag, const conv_device_call&, const Tensors&...) {
    throw_conv_pool_without_cuda("convolution");
}
template <class Tag, class... Tensors>
void pool2d_on_cuda(Tag, const pool_device_call&, const Tensors&...) {
    throw_conv_pool_without_cuda("pooling");
}

} // namespace staticpy::detail
