#pragma once
// What nn::functional's normalisations (layer_norm, batch_norm and their derivatives,
// nn/normalization.hpp) hand to the CUDA backend when their tensors are on a GPU: the input seen
// as [outer, groups, inner], each group normalised over its outer * inner elements with its own
// statistics (layer_norm: a group per row, outer 1, inner the row's width; batch_norm: a group per
// channel of [N, C, d1...], outer N, inner d1 * ...). The backend (backend/cuda/normalization.hpp)
// runs the CPU's formulas as group and elementwise kernels. Here, in the tensor layer below both,
// as class_loss_device.hpp is for the class losses; a fallback says where <staticpy/cuda.hpp> is
// not included.
//
//   norm_on_cuda(norm_device_tag{}, call, tensors);

#include <cstdint>

#include "staticpy/core/error.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::detail {

/// What a normalisation kernel computes, besides its tensors.
struct norm_device_call {
    enum class result { output, input_gradient, weight_gradient, bias_gradient };
    result what = result::output;
    /// batch_norm's: a weight and a bias per group (channel); else layer_norm's, per position
    /// in a group's elements (a row's column).
    bool per_group_affine = false;
    /// The batch's statistics (layer_norm; batch_norm in training), else the running ones.
    bool batch_statistics = true;
    std::int64_t outer = 1, groups = 0, inner = 1;
    double eps = 1e-5;
    /// A training batch_norm's update of the running statistics, made by this call.
    bool update_running = false;
    /// The update's momentum; below 0 for None (the cumulative average, 1 / num_batches_tracked).
    double momentum = -1;
};

/// A normalisation's tensors on one GPU, each flat and contiguous but the running statistics
/// (1-D, strided as they are) and any undefined where the call has none: the input x, the
/// cotangent g (gradients), the weight and bias, running_mean and running_var, a module's
/// num_batches_tracked, and the result (the input's shape, or the weight's or bias's).
template <class T>
struct norm_device_tensors {
    Tensor<T, dynamic_shape<1>> x, g, weight, bias, running_mean, running_var;
    Tensor<std::int64_t, shape<>> num_batches_tracked;
    Tensor<T, dynamic_shape<1>> out;
};

/// Selects the CUDA backend's normalisation kernels by argument-dependent lookup.
struct norm_device_tag {};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class T>
void norm_on_cuda(Tag, const norm_device_call&, const norm_device_tensors<T>&) {
    throw RuntimeError("staticpy: CUDA is not available here: a normalisation's tensors are on "
                       "the GPU, and its translation unit does not include <staticpy/cuda.hpp>");
}

} // namespace staticpy::detail
