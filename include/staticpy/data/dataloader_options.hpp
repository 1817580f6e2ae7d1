#pragma once
// DataLoader's keyword arguments, as they are given. detail/loader_options.hpp checks them and
// fills in PyTorch's defaults once, when a DataLoader is built.

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "staticpy/core/generator.hpp"
#include "staticpy/data/any_sampler.hpp"
#include "staticpy/data/collate.hpp"

namespace staticpy::data {

namespace detail {
/// Whether a collate_fn of type C takes one sample (automatic batching off), as its
/// `static constexpr bool per_sample` says.
template <class C>
inline constexpr bool per_sample_collate_v = requires {
    C::per_sample;
};
} // namespace detail

/// DataLoader's keyword arguments, in PyTorch's order, as an aggregate for designated
/// initializers: DataLoader(ds, {.batch_size = 64, .shuffle = true, .num_workers = 2}).
/// Collate is collate_fn's type. With a per-sample collate_fn (DefaultConvert, or one marked
/// `static constexpr bool per_sample = true`) batch_size defaults to nullopt: no automatic
/// batching, as PyTorch's batch_size=None; otherwise it defaults to 1.
///   DataLoaderOptions<> opts{.batch_size = 32, .drop_last = true};
///   DataLoaderOptions<DefaultConvert> one_by_one{.num_workers = 2};
template <class Collate = DefaultCollate>
struct DataLoaderOptions {
    std::optional<std::int64_t> batch_size =
        detail::per_sample_collate_v<Collate> ? std::nullopt : std::optional<std::int64_t>(1);
    bool shuffle = false;
    std::optional<any_sampler> sampler{};
    std::optional<any_batch_sampler> batch_sampler{};
    int num_workers = 0;
    Collate collate_fn{};
    bool pin_memory = false;
    bool drop_last = false;
    double timeout = 0;
    std::function<void(int)> worker_init_fn{};
    Generator* generator = nullptr;
    std::optional<std::int64_t> prefetch_factor{};
    bool persistent_workers = false;
    bool in_order = true;
};

namespace detail {
/// The options given with a collate_fn of another type, as DataLoader(ds, options, collate_fn)
/// receives them: the options' own Collate field is DefaultCollate.
template <class Collate>
DataLoaderOptions<Collate> with_collate_fn(DataLoaderOptions<DefaultCollate> o, Collate fn) {
    return DataLoaderOptions<Collate>{o.batch_size,
                                      o.shuffle,
                                      std::move(o.sampler),
                                      std::move(o.batch_sampler),
                                      o.num_workers,
                                      std::move(fn),
                                      o.pin_memory,
                                      o.drop_last,
                                      o.timeout,
                                      std::move(o.worker_init_fn),
                                      o.generator,
                                      o.prefetch_factor,
                                      o.persistent_workers,
                                      o.in_order};
}
} // namespace detail

} // namespace staticpy::data
