#pragma once
// The contiguous fast path: a map dataset that can make a whole batch itself says so by modelling
// GatherDataset, and the DataLoader then skips building one sample per index.

#include <concepts>
#include <cstdint>
#include <span>

#include "staticpy/data/collate.hpp"
#include "staticpy/data/dataset_base.hpp"

namespace staticpy::data {

/// A map dataset that makes its own batches: ds.gather(indices) returns exactly what
/// default_collate makes of the samples ds[i] (same type, same values, same errors), typically by
/// copying each sample's bytes from contiguous storage straight into the batch. With the default
/// collate_fn the DataLoader calls gather instead of fetching samples one by one and collating
/// them; TensorDataset and MNIST / FashionMNIST (without a transform, or a pixelwise one) model it.
///   static_assert(GatherDataset<TensorDataset<Tensor<float, dynamic_shape<2>>>>);
///   auto batch = ds.gather(std::vector<std::int64_t>{3, 4, 5});   // one memcpy
template <class D>
concept GatherDataset = MapDataset<D> && collatable<sample_t<D>> &&
    requires(D& d, std::span<const std::int64_t> indices) {
    { d.gather(indices) } -> std::same_as<collate_t<sample_t<D>>>;
};

} // namespace staticpy::data
