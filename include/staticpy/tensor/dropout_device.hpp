#pragma once
// What nn::functional::dropout (nn/dropout.hpp) hands to the CUDA backend when its tensor is on a
// GPU: the mask's key and threshold, the scale, the tensor flat and contiguous. The backend
// (backend/cuda/dropout.hpp) draws each element's bits from the same counter-based stream as the
// CPU, so a seed gives the same mask on either device. Here, in the tensor layer below both, as
// class_loss_device.hpp is for the class losses; a fallback says where <staticpy/cuda.hpp> is not
// included.
//
//   dropout_on_cuda(dropout_device_tag{}, call, x, out, scale);

#include <cstdint>

#include "staticpy/core/error.hpp"

namespace staticpy::detail {

/// A dropout's mask: element i is kept (times the scale) when its 32 bits of
/// dropout_bits(key, i / 2) are below keep_below, else zeroed (x * 0); every element is zeroed
/// when drop_all (p = 1).
struct dropout_device_call {
    std::uint64_t key = 0;
    std::uint64_t keep_below = 0;
    bool drop_all = false;
};

/// Selects the CUDA backend's dropout kernel by argument-dependent lookup.
struct dropout_device_tag {};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class X, class Out, class T>
void dropout_on_cuda(Tag, const dropout_device_call&, const X&, const Out&, T) {
    throw RuntimeError("staticpy: CUDA is not available here: a dropout's tensor is on the GPU, "
                       "and its translation unit does not include <staticpy/cuda.hpp>");
}

} // namespace staticpy::detail
