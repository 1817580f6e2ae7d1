#pragma once
// Fetching, as PyTorch's torch/utils/data/_utils/fetch.py: the index lists an epoch walks and the
// batch made for each, whether on the consuming thread or in a worker. Also the types a loader's
// dataset and collate_fn fix, which the fetcher makes and the rest of the loader passes on.

#include <cstdint>
#include <functional>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/data/collate.hpp"
#include "staticpy/data/dataloader_options.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/detail/common.hpp"
#include "staticpy/data/detail/loader_options.hpp"
#include "staticpy/data/detail/pin.hpp"
#include "staticpy/data/gather.hpp"

namespace staticpy::data::detail {

template <class D, bool Map>
struct loader_sample {
    using type = sample_t<D>;
    using iterator = char; // unused: a map dataset is indexed
};
template <class D>
struct loader_sample<D, false> {
    using type = std::ranges::range_value_t<D>;
    using iterator = std::ranges::iterator_t<D&>;
};

/// What a DataLoader<D, Collate> is made of, fixed at compile time: the dataset's kind, its
/// samples, whether collate_fn batches them, and the batch type. The checks come first, so that a
/// user sees their text before any error the types would cause.
template <class D, class Collate>
struct loader_types {
    using dataset_type = typename held<D>::element_type;
    /// Whether the dataset is map-style (else iterable-style), PyTorch's _DatasetKind.
    static constexpr bool map_style = MapDataset<dataset_type>;
    static_assert(map_style || IterableDataset<dataset_type>,
                  "staticpy: TypeError: DataLoader takes a map-style dataset (size() and "
                  "ds[i]) or an iterable one (a range)");

    using sample_type = typename loader_sample<dataset_type, map_style>::type;
    using dataset_iterator = typename loader_sample<dataset_type, map_style>::iterator;

    /// Whether collate_fn takes lists of samples (automatic batching) or one sample.
    static constexpr bool batched = !per_sample_collate_v<Collate> &&
                                    std::is_invocable_v<const Collate&, std::vector<sample_type>>;
    static_assert(batched || std::is_invocable_v<const Collate&, sample_type>,
                  "staticpy: TypeError: collate_fn takes a std::vector of samples (or, marked "
                  "per_sample, one sample); default_collate takes numbers, tensors, strings, "
                  "tuples, lists and dicts of them");

    /// collate_fn's result.
    using batch_type = std::remove_cvref_t<typename std::conditional_t<
        batched, std::invoke_result<const Collate&, std::vector<sample_type>>,
        std::invoke_result<const Collate&, sample_type>>::type>;
};

/// The next index list of an epoch, nullopt at its end. For an iterable dataset it is PyTorch's
/// _InfiniteConstantSampler feeding a BatchSampler, as one element: the batch's length (a
/// batch_size near INT64_MAX must not become a list of that many indices).
using index_reader = std::function<std::optional<std::vector<std::int64_t>>()>;

/// Begins an epoch of the loader's (batch) sampler: a random sampler draws its indices now.
template <bool MapStyle, class Collate>
index_reader make_index_reader(const loader_options<Collate>& o) {
    if constexpr (!MapStyle) {
        const std::int64_t n = o.batch_size.value_or(1);
        return [n]() {
            return std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{n});
        };
    } else if (o.batch_sampler) {
        return o.batch_sampler->start();
    } else {
        auto read = o.sampler->start();
        return [read]() -> std::optional<std::vector<std::int64_t>> {
            auto i = read();
            if (!i)
                return std::nullopt;
            return std::vector<std::int64_t>{*i};
        };
    }
}

/// PyTorch's _MapDatasetFetcher / _IterableDatasetFetcher: the batch for one index list. Made
/// where it is used (one per worker), because an iterable dataset's fetcher holds its own
/// iterator, begun at construction.
template <class D, class Collate>
class fetcher {
    using types = loader_types<D, Collate>;
    using dataset_type = typename types::dataset_type;
    using sample_type = typename types::sample_type;
    using batch_type = typename types::batch_type;

public:
    /// drop_last: whether an iterable dataset's last, short batch is dropped; pin_memory:
    /// whether batches are pinned (the loader's option, where a device can be used).
    fetcher(dataset_type& dataset, const Collate& collate_fn, bool drop_last, bool pin_memory)
        : dataset_(dataset),
          collate_fn_(collate_fn),
          drop_last_(drop_last),
          pin_memory_(pin_memory && can_pin_memory()) {
        if constexpr (!types::map_style)
            iter_.emplace(std::ranges::begin(dataset));
    }

    /// The batch for `indices` (for an iterable dataset: of indices[0] samples); nullopt once an
    /// iterable dataset is exhausted (PyTorch's StopIteration). Pinned by the thread that
    /// fetches it (a worker's, where there are workers), as PyTorch's pin-memory thread would.
    std::optional<batch_type> fetch(const std::vector<std::int64_t>& indices) {
        std::optional<batch_type> batch;
        if constexpr (types::map_style)
            batch = fetch_indexed(indices);
        else if constexpr (types::batched)
            batch = fetch_batch_of_next(indices.at(0));
        else
            batch = fetch_next();
        if (pin_memory_ && batch)
            pin_in_place(*batch);
        return batch;
    }

private:
    batch_type fetch_indexed(const std::vector<std::int64_t>& indices) {
        if constexpr (types::batched && std::is_same_v<Collate, DefaultCollate> &&
                      GatherDataset<dataset_type>) {
            return dataset_.gather(std::span<const std::int64_t>(indices));
        } else if constexpr (types::batched) {
            std::vector<sample_type> samples;
            samples.reserve(indices.size());
            for (std::int64_t i : indices)
                samples.push_back(getitem(dataset_, i));
            return std::invoke(collate_fn_, std::move(samples));
        } else {
            return std::invoke(collate_fn_, sample_type(getitem(dataset_, indices.at(0))));
        }
    }

    std::optional<batch_type> fetch_batch_of_next(std::int64_t wanted) {
        if (ended_)
            return std::nullopt;
        auto& it = *iter_;
        std::vector<sample_type> samples;
        while (static_cast<std::int64_t>(samples.size()) < wanted) {
            if (it == std::ranges::end(dataset_)) {
                ended_ = true;
                break;
            }
            samples.push_back(*it);
            ++it;
        }
        if (samples.empty() || (drop_last_ && static_cast<std::int64_t>(samples.size()) < wanted))
            return std::nullopt;
        return std::invoke(collate_fn_, std::move(samples));
    }

    std::optional<batch_type> fetch_next() {
        if (ended_)
            return std::nullopt;
        auto& it = *iter_;
        if (it == std::ranges::end(dataset_)) {
            ended_ = true;
            return std::nullopt;
        }
        sample_type s = *it;
        ++it;
        return std::invoke(collate_fn_, std::move(s));
    }

    dataset_type& dataset_;
    const Collate& collate_fn_;
    bool drop_last_ = false;
    bool pin_memory_ = false;
    std::optional<typename types::dataset_iterator> iter_;
    bool ended_ = false;
};

} // namespace staticpy::data::detail
