#pragma once
// torch.utils.data.TensorDataset: rows of tensors as samples, and the gather that batches them
// straight from the tensors' storage (the DataLoader's contiguous fast path, GatherDataset).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/error.hpp"
#include "staticpy/data/concat_dataset.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/detail/index_runs.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::data {

namespace detail {
template <class T>
inline constexpr bool is_tensor_dataset_member_v = false;
template <class T, class S>
inline constexpr bool is_tensor_dataset_member_v<Tensor<T, S>> = (S::rank > 0);

/// The first extent of each static-first-dimension tensor, or -1.
template <class T>
constexpr std::int64_t static_first_extent() {
    return T::shape_type::static_extents[0];
}
template <class... Ts>
constexpr bool static_first_extents_agree() {
    std::int64_t first = -1;
    bool ok = true;
    for (std::int64_t e : {static_first_extent<Ts>()...}) {
        if (e < 0)
            continue;
        if (first >= 0 && e != first)
            ok = false;
        first = e;
    }
    return ok;
}

/// The rows of t at `indices` (along dimension 0, negative ones from the end) stacked into a new
/// contiguous tensor: what default_collate makes of the samples t[i], without making them. From
/// contiguous storage each run of consecutive indices is one memcpy into the batch (a shuffled
/// batch: one per sample), a large batch split over the kernels' threads; from a strided t each
/// row is copied through a view.
template <class T, class S>
auto gather_rows(const Tensor<T, S>& t, std::span<const std::int64_t> indices) {
    using Out = Tensor<
        T, typename staticpy::detail::shape_cat<shape<std::int64_t>, shape_erase_t<S, 0>>::type>;
    const std::int64_t n = t.sizes()[0];
    auto sizes = t.sizes();
    sizes[0] = static_cast<std::int64_t>(indices.size());
    Out out{typename Out::shape_type(sizes)};
    std::int64_t row = 1;
    for (std::size_t d = 1; d < S::rank; ++d)
        row *= sizes[d];
    T* dst = out.data();
    if (t.is_contiguous()) {
        const T* src = t.data();
        for_each_index_run(indices, n, true, row,
                           [&](std::int64_t first, std::int64_t at, std::int64_t count) noexcept {
                               std::memcpy(dst + at * row, src + first * row,
                                           static_cast<std::size_t>(row * count) * sizeof(T));
                           });
    } else {
        for_each_index_run(indices, n, false,
                           [&](std::int64_t first, std::int64_t at, std::int64_t) {
                               if constexpr (S::rank == 1)
                                   dst[at] = t.data()[first * t.strides()[0]];
                               else
                                   out[at].copy_(t[first]);
                           });
    }
    return out;
}
} // namespace detail

/// torch.utils.data.TensorDataset: sample i is the tuple of each tensor's i-th slice along its
/// first dimension (views, no copy). Tensors are handles, so they are kept by value.
///   auto ds = TensorDataset(zeros<float>(100, 784), zeros<std::int64_t>(100));
///   auto [x, y] = ds[0];   // x: Tensor [784], y: 0-dim Tensor
template <class... Tensors>
class TensorDataset : public Dataset {
    static_assert(sizeof...(Tensors) > 0,
                  "staticpy: IndexError: TensorDataset needs at least one tensor (PyTorch's "
                  "len() fails with: tuple index out of range)");
    static_assert((detail::is_tensor_dataset_member_v<Tensors> && ...),
                  "staticpy: IndexError: dimension specified as 0 but tensor has no dimensions "
                  "(TensorDataset takes Tensors of rank >= 1)");
    static_assert(detail::static_first_extents_agree<Tensors...>(),
                  "staticpy: ValueError: Size mismatch between tensors");

public:
    /// The tensors, as PyTorch's `.tensors`.
    std::tuple<Tensors...> tensors;

    /// ValueError("Size mismatch between tensors") when their first dimensions differ.
    ///   TensorDataset(zeros<float>(3, 2), zeros<float>(4));  // throws
    explicit TensorDataset(Tensors... ts) : tensors(std::move(ts)...) {
        const std::int64_t n = size();
        std::apply(
            [n](const auto&... t) {
                if (!((t.sizes()[0] == n) && ...))
                    throw ValueError("Size mismatch between tensors");
            },
            tensors);
    }

    /// len(ds): the first tensor's size(0).
    [[nodiscard]] std::int64_t size() const { return std::get<0>(tensors).sizes()[0]; }

    /// ds[i]: std::tuple of views; negative i counts from the end; IndexError out of range.
    ///   auto [x, y] = ds[-1];
    [[nodiscard]] auto operator[](std::int64_t i) const {
        return std::apply([i](const auto&... t) { return std::tuple(t[i]...); }, tensors);
    }

    /// The batch default_collate makes of the samples at `indices`, gathered straight from the
    /// tensors (one memcpy per sample, or per run of consecutive indices, into each batch
    /// tensor; no per-sample tensors). The DataLoader takes this path with the default
    /// collate_fn; same errors as ds[i] and default_collate.
    ///   std::vector<std::int64_t> idx{4, 0, 1};
    ///   auto [xb, yb] = ds.gather(idx);   // == default_collate of ds[4], ds[0], ds[1]
    [[nodiscard]] auto gather(std::span<const std::int64_t> indices) const {
        if (indices.empty())
            throw IndexError("list index out of range"); // default_collate's batch[0]
        return std::apply(
            [indices](const auto&... t) { return std::tuple(detail::gather_rows(t, indices)...); },
            tensors);
    }
};

} // namespace staticpy::data
