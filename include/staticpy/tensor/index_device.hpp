#pragma once
// What the index-driven ops (tensor/ops_index.hpp: index_select, gather, scatter_add, index_add,
// and through them embedding and the ops' derivatives) hand to the CUDA backend when their
// tensors are on a GPU: their one walk (ops_index.hpp's header comment) described at run time,
// and the check of an index's values before it. The backend (backend/cuda/indexing.hpp) runs them
// as kernels. Here, in the tensor layer, as class_loss_device.hpp is for the class losses; a
// fallback says where <staticpy/cuda.hpp> is not included.
//
//   first_out_of_range_on_cuda(index_device_tag{}, walk_space, index, bound);
//   indexed_walk_on_cuda(index_device_tag{}, call, index, in, out, alpha);

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "staticpy/core/error.hpp"

namespace staticpy::detail {

/// The most dims an index-driven op takes on a GPU (its kernels' fixed arrays of sizes and
/// strides): PyTorch's CUDA kernels take 25; staticpy's tensors here rarely pass 5.
inline constexpr std::size_t max_device_index_rank = 8;

/// An iteration space of up to max_device_index_rank dims, with one operand's strides over it;
/// the dims past `rank` are absent (size 1, stride 0).
struct index_space {
    std::size_t rank = 0;
    std::array<std::int64_t, max_device_index_rank> sizes{};
    std::array<std::int64_t, max_device_index_rank> strides{};
};

/// The walk: for every position p of `sizes`, the target's offset is p's over target_strides
/// with p[dim] replaced by index[p] (read through index_strides); then, reading,
/// out[p over direct_strides] = in[target offset], or, accumulating,
/// out[target offset] += alpha * in[p over direct_strides].
struct indexed_walk_call {
    bool accumulate = false;
    std::size_t rank = 0, dim = 0;
    std::array<std::int64_t, max_device_index_rank> sizes{}, direct_strides{}, index_strides{},
        target_strides{};
};

/// Selects the CUDA backend's index kernels by argument-dependent lookup.
struct index_device_tag {};

[[noreturn]] inline void throw_index_on_cuda_unavailable() {
    throw RuntimeError("staticpy: CUDA is not available here: an indexing op's tensors are on "
                       "the GPU, and its translation unit does not include <staticpy/cuda.hpp>");
}

/// The fallbacks where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class Index>
std::optional<std::int64_t> first_out_of_range_on_cuda(Tag, const index_space&, const Index&,
                                                       std::int64_t) {
    throw_index_on_cuda_unavailable();
}
template <class Tag, class Index, class In, class Out, class T>
void indexed_walk_on_cuda(Tag, const indexed_walk_call&, const Index&, const In&, Out&, T) {
    throw_index_on_cuda_unavailable();
}

} // namespace staticpy::detail
