#pragma once
// What a DataLoader and its epochs share. It sits behind a shared_ptr so that an iterator may
// outlive its loader, as a Python iterator keeps its DataLoader alive.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "staticpy/core/generator.hpp"
#include "staticpy/data/dataloader_options.hpp"
#include "staticpy/data/detail/common.hpp"
#include "staticpy/data/detail/fetch.hpp"
#include "staticpy/data/detail/loader_options.hpp"

namespace staticpy::data::detail {

/// The dataset (referenced or owned, see held), the options as resolved once at construction,
/// and what persistent workers carry from one epoch to the next.
template <class D, class Collate>
struct loader_config {
    using types = loader_types<D, Collate>;

    template <class A>
    loader_config(A&& ds, DataLoaderOptions<Collate> o)
        : dataset(std::forward<A>(ds)),
          opts(resolve_options<types::map_style, types::batched>(std::move(o), dataset.get())) {
        if (opts.persistent_workers)
            persistent.resize(static_cast<std::size_t>(opts.num_workers));
    }

    held<D> dataset;
    loader_options<Collate> opts;

    // persistent_workers: what a worker keeps from one epoch to the next (PyTorch keeps
    // the processes; here threads end, and their state is carried over).
    struct kept {
        std::optional<Generator> generator;
        std::exception_ptr init_error;
    };
    std::vector<kept> persistent;
    std::optional<std::uint64_t> persistent_seed;
    std::weak_ptr<void> live_iterator; // persistent_workers: the loader's one iterator
};

} // namespace staticpy::data::detail
