#pragma once
// What nn::functional's class losses (cross_entropy, nll_loss and their derivatives) hand to the
// CUDA backend when their tensors are on a GPU: the call described at run time, every tensor
// contiguous and flat. The backend (backend/cuda/class_loss.hpp) runs it as row kernels. Here, in
// the tensor layer below both (as the eager reductions' eager_reduce_tag), so that nn stays free
// of CUDA and the backend does not include nn; a fallback says where <staticpy/cuda.hpp> is not
// included.
//
//   class_loss_on_cuda(class_loss_device_tag{}, call, input, target, weight, cotangent, out);

#include <cstdint>

#include "staticpy/core/error.hpp"

namespace staticpy::detail {

/// What a class-loss kernel computes, besides its tensors.
struct class_loss_device_call {
    enum class result { loss, input_gradient, target_gradient };
    enum class reduce { none, mean, sum };

    result what = result::loss;
    reduce reduction = reduce::mean;
    bool logits = true;  // cross_entropy (logits), else nll_loss (log-probabilities)
    bool indices = true; // class-index target, else class probabilities
    std::int64_t outer = 1, classes = 0, inner = 1; // the input as [outer, C, inner]
    std::int64_t ignore_index = -100;
    double smoothing = 0; // the effective label smoothing, in [0, 1]
};

/// Selects the CUDA backend's class-loss kernels by argument-dependent lookup.
struct class_loss_device_tag {};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class... Tensors>
void class_loss_on_cuda(Tag, const class_loss_device_call&, const Tensors&...) {
    throw RuntimeError("staticpy: CUDA is not available here: a loss's tensors are on the GPU, "
                       "and its translation unit does not include <staticpy/cuda.hpp>");
}

} // namespace staticpy::detail
