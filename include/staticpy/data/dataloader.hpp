#pragma once
// DataLoader, as PyTorch's torch/utils/data/dataloader.py and _utils/{fetch,worker}.py: a
// sampler's indices are fetched from a dataset and collated into batches, on the consuming thread
// (num_workers = 0) or by worker threads.
//
//   DataLoader loader(TensorDataset(x, y), {.batch_size = 64, .shuffle = true, .num_workers = 2});
//   for (auto& [xb, yb] : loader) { ... }   // xb: [64, 784], yb: [64]
//
// Workers are std::threads, not processes: the dataset and collate_fn are shared, not copied, so
// they must allow concurrent reads (dataset[i], begin() of an iterable dataset, collate_fn(batch)
// from several threads at once). Each worker has its own Generator (worker_generator()), seeded
// base_seed + id as PyTorch seeds its workers; random transforms draw from it.
//
// The batch type is fixed at compile time by the collate_fn's type: DefaultCollate (the default)
// takes a std::vector of samples; a per-sample collate_fn such as DefaultConvert is what turns
// automatic batching off (see DataLoaderOptions).
//
// The pieces, as PyTorch splits torch/utils/data: the options as given (dataloader_options.hpp)
// and as checked and completed once (detail/loader_options.hpp), the samplers behind one type
// (any_sampler.hpp), fetching (detail/fetch.hpp), the workers (detail/worker_pool.hpp) and what
// they can ask about themselves (worker_info.hpp). This header is the DataLoader and its
// iterator, and includes them all.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/data/any_sampler.hpp"
#include "staticpy/data/collate.hpp"
#include "staticpy/data/dataloader_options.hpp"
#include "staticpy/data/dataset.hpp"
#include "staticpy/data/detail/common.hpp"
#include "staticpy/data/detail/fetch.hpp"
#include "staticpy/data/detail/loader_config.hpp"
#include "staticpy/data/detail/loader_options.hpp"
#include "staticpy/data/detail/worker_pool.hpp"
#include "staticpy/data/gather.hpp"
#include "staticpy/data/sampler.hpp"
#include "staticpy/data/worker_info.hpp"

namespace staticpy::data {

/// torch.utils.data.DataLoader over a map-style dataset (size() and ds[i]) or an iterable one
/// (any range). An lvalue dataset is referenced (it must outlive the loader and its iterators),
/// an rvalue owned. Options as PyTorch's arguments (DataLoaderOptions), checked at construction
/// with PyTorch's ValueErrors. Iterating it (range-for, or begin() and next()) runs one epoch;
/// several iterators may be live at once, each with its own workers (with persistent_workers,
/// one: begin() restarts it), and dropping one mid-epoch stops and joins them. An exception in a
/// worker is rethrown by the consuming thread (see detail::reraise) and that batch is skipped:
/// the iterator goes on with the next one. A sampler's exception comes after the batches it
/// produced, once, and ends the epoch.
///   DataLoader loader(ds, {.batch_size = 2, .num_workers = 4});
///   for (auto& batch : loader) train(batch);
template <class D, class Collate = DefaultCollate>
class DataLoader {
    using types = detail::loader_types<D, Collate>;
    using config = detail::loader_config<D, Collate>;

public:
    using dataset_type = typename types::dataset_type;
    /// Whether the dataset is map-style (else iterable-style), PyTorch's _DatasetKind.
    static constexpr bool map_style = types::map_style;
    using sample_type = typename types::sample_type;
    /// Whether collate_fn takes lists of samples (automatic batching) or one sample.
    static constexpr bool batched = types::batched;
    /// What iterating the loader gives: collate_fn's result.
    using batch_type = typename types::batch_type;
    using value_type = batch_type;

    /// DataLoader(dataset, options): PyTorch's checks and messages, e.g. ValueError("sampler
    /// option is mutually exclusive with shuffle").
    ///   DataLoader loader(ds, {.batch_size = 8, .drop_last = true});
    template <class A>
    explicit DataLoader(A&& dataset, DataLoaderOptions<Collate> options = {})
        : cfg_(std::make_shared<config>(std::forward<A>(dataset), std::move(options))) {}
    /// DataLoader(dataset, options, collate_fn): a collate_fn of any type with otherwise
    /// default-typed options (batch_size must be set to nullopt for a per-sample collate_fn).
    ///   DataLoader loader(ds, {.batch_size = 4}, [](std::vector<int> b) { return b.size(); });
    template <class A>
    DataLoader(A&& dataset, DataLoaderOptions<DefaultCollate> options, Collate collate_fn)
        : cfg_(std::make_shared<config>(
              std::forward<A>(dataset),
              detail::with_collate_fn(std::move(options), std::move(collate_fn)))) {}

    // ---- PyTorch's attributes ----

    /// loader.dataset, loader.batch_size, ... as PyTorch's attributes, after its normalisation
    /// (a batch_sampler clears batch_size; workers default prefetch_factor to 2).
    ///   DataLoader loader(ds, {.num_workers = 2});
    ///   loader.prefetch_factor() == 2
    [[nodiscard]] dataset_type& dataset() const noexcept { return cfg_->dataset.get(); }
    [[nodiscard]] std::optional<std::int64_t> batch_size() const noexcept {
        return cfg_->opts.batch_size;
    }
    [[nodiscard]] bool drop_last() const noexcept { return cfg_->opts.drop_last; }
    [[nodiscard]] int num_workers() const noexcept { return cfg_->opts.num_workers; }
    [[nodiscard]] std::optional<std::int64_t> prefetch_factor() const noexcept {
        return cfg_->opts.prefetch_factor;
    }
    [[nodiscard]] double timeout() const noexcept { return cfg_->opts.timeout; }
    [[nodiscard]] bool pin_memory() const noexcept { return cfg_->opts.pin_memory; }
    [[nodiscard]] bool persistent_workers() const noexcept { return cfg_->opts.persistent_workers; }
    [[nodiscard]] bool in_order() const noexcept { return cfg_->opts.in_order; }
    [[nodiscard]] const Collate& collate_fn() const noexcept { return cfg_->opts.collate_fn; }
    /// The sampler (the default SequentialSampler or RandomSampler when none was given); nullopt
    /// for an iterable dataset.
    ///   for (auto i : *DataLoader(Range(3)).sampler()) { ... }   // 0, 1, 2
    [[nodiscard]] const std::optional<any_sampler>& sampler() const noexcept {
        return cfg_->opts.sampler;
    }
    /// The batch sampler given, or the BatchSampler built from batch_size.
    ///   DataLoader(Range(5), {.batch_size = 2}).batch_sampler()->size() == 3
    [[nodiscard]] const std::optional<any_batch_sampler>& batch_sampler() const noexcept {
        return cfg_->opts.batch_sampler;
    }

    /// len(loader), as PyTorch: len(batch_sampler), len(sampler) without automatic batching, or
    /// for an iterable dataset with a size() its length divided by batch_size (rounded down with
    /// drop_last, up without). TypeError for an iterable dataset without one.
    ///   DataLoader(Range(100), {.batch_size = 3}).size() == 34
    ///   DataLoader(Range(100), {.batch_size = 3, .drop_last = true}).size() == 33
    [[nodiscard]] std::int64_t size() const {
        const auto& o = cfg_->opts;
        if constexpr (!map_style) {
            if constexpr (detail::sized<dataset_type>) {
                const std::int64_t n = detail::length(cfg_->dataset.get());
                if (!o.batch_size)
                    return n;
                return detail::batch_count(n, *o.batch_size, o.drop_last);
            } else {
                throw TypeError("object of type 'IterableDataset' has no len()");
            }
        } else {
            return o.batch_sampler ? o.batch_sampler->size() : o.sampler->size();
        }
    }

    class iterator;

    /// iter(loader): a new epoch. With workers they start now and the first
    /// prefetch_factor * num_workers batches are requested; batches are read lazily.
    ///   auto it = loader.begin();
    ///   while (auto batch = it.next()) { ... }
    /// With persistent_workers, as PyTorch's one iterator per loader that each iter() resets,
    /// every begin() gives the same iterator: a second begin() restarts the epoch for all of
    /// its copies, the first included (what the first had not read yet is not delivered).
    [[nodiscard]] iterator begin() const { return iterator::start(cfg_); }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    // One epoch: what PyTorch's _SingleProcessDataLoaderIter / _MultiProcessingDataLoaderIter
    // hold; used by the consuming thread only.
    class epoch {
    public:
        explicit epoch(std::shared_ptr<config> cfg) : cfg_(std::move(cfg)) {
            const auto& o = cfg_->opts;
            if (o.pin_memory && !detail::can_pin_memory())
                detail::warn_pin_memory_once();
            std::uint64_t base_seed = draw_base_seed();
            next_index_ = detail::make_index_reader<map_style>(o);
            if (o.num_workers == 0)
                return;
            detail::check_worker_number_rationality(o.num_workers);
            if (o.persistent_workers) {
                if (!cfg_->persistent_seed)
                    cfg_->persistent_seed = base_seed;
                base_seed = *cfg_->persistent_seed;
            }
            workers_.emplace(cfg_, std::move(next_index_), base_seed);
        }
        epoch(const epoch&) = delete;
        epoch& operator=(const epoch&) = delete;
        ~epoch() { shutdown(); }

        // The next batch, nullopt at the end of the epoch.
        std::optional<batch_type> next() {
            if (finished_)
                return std::nullopt;
            return workers_ ? next_from_workers() : next_in_this_thread();
        }

        // Stops and joins the workers; what they were fetching is finished first.
        void shutdown() {
            finished_ = true;
            if (workers_)
                workers_->shutdown();
        }

    private:
        // PyTorch draws the base seed at every iter(), before the sampler's first draw (its
        // samplers are lazy generators); a persistent loader's workers keep their first.
        std::uint64_t draw_base_seed() const {
            Generator* g = cfg_->opts.generator;
            Generator& gen = g != nullptr ? *g : default_generator();
            const auto lock = staticpy::detail::lock_if_default(gen);
            return gen.next_u64() >> 1;
        }

        std::optional<batch_type> next_in_this_thread() {
            std::optional<std::vector<std::int64_t>> indices;
            try {
                indices = next_index_();
                if (indices && !fetcher_)
                    fetcher_.emplace(cfg_->dataset.get(), cfg_->opts.collate_fn,
                                     cfg_->opts.drop_last, cfg_->opts.pin_memory);
            } catch (...) {
                // The sampler, or the iterable dataset's begin(), failed: as a Python
                // generator that raised, it has nothing more, so the error comes once and the
                // epoch ends (retrying would raise it for ever).
                finished_ = true;
                throw;
            }
            if (!indices)
                return finish();
            auto batch = fetcher_->fetch(*indices);
            if (!batch)
                return finish();
            return batch;
        }

        std::optional<batch_type> next_from_workers() {
            if (auto batch = workers_->next())
                return batch;
            // Every batch requested is delivered: the sampler's error, if it raised one, comes
            // now, once, and ends the epoch.
            const std::exception_ptr sampler_error = workers_->take_sampler_error();
            finish();
            if (sampler_error)
                std::rethrow_exception(sampler_error);
            return std::nullopt;
        }

        std::nullopt_t finish() {
            finished_ = true;
            if (!cfg_->opts.persistent_workers)
                shutdown();
            return std::nullopt;
        }

        std::shared_ptr<config> cfg_;
        detail::index_reader next_index_;
        bool finished_ = false;
        std::optional<detail::fetcher<D, Collate>> fetcher_; // without workers
        std::optional<detail::worker_pool<D, Collate>> workers_;
    };

    std::shared_ptr<config> cfg_;

public:
    /// The loader's iterator (PyTorch's _BaseDataLoaderIter): an input iterator whose copies
    /// share one epoch. A batch is fetched when first looked at (*it, it == end, next()), so an
    /// error surfaces there; the failed batch is then skipped and the iterator stays usable.
    class iterator {
    public:
        using value_type = batch_type;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::input_iterator_tag;

        iterator() = default;

        /// The current batch (fetched now if it was not yet); ++it moves past it.
        ///   auto it = loader.begin();
        ///   auto& first = *it;
        batch_type& operator*() const {
            ensure();
            if (!state_->current)
                throw IndexError("dereferencing an exhausted DataLoader iterator");
            return *state_->current;
        }
        iterator& operator++() {
            ensure();
            state_->current.reset();
            state_->fetched = false;
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, std::default_sentinel_t) {
            if (!it.state_)
                return true;
            it.ensure();
            return !it.state_->current.has_value();
        }

        /// Python's next(it): the next batch, or nullopt at the end of the epoch.
        ///   auto it = loader.begin();
        ///   while (auto batch = it.next()) use(*batch);
        std::optional<batch_type> next() {
            if (!state_)
                return std::nullopt;
            ensure();
            state_->fetched = false;
            return std::exchange(state_->current, std::nullopt);
        }

    private:
        friend class DataLoader;
        struct state {
            std::shared_ptr<epoch> epoch_;
            std::optional<batch_type> current;
            bool fetched = false;
        };
        explicit iterator(std::shared_ptr<state> s) : state_(std::move(s)) {}

        // iter(loader), PyTorch's DataLoader.__iter__.
        static iterator start(const std::shared_ptr<config>& cfg) {
            if (cfg->opts.persistent_workers) {
                if (auto live = std::static_pointer_cast<state>(cfg->live_iterator.lock())) {
                    // _reset: the workers' kept state passes to the new epoch, so the old one
                    // is stopped first.
                    live->epoch_->shutdown();
                    live->current.reset();
                    live->fetched = false;
                    live->epoch_ = std::make_shared<epoch>(cfg);
                    return iterator(std::move(live));
                }
            }
            auto s = std::make_shared<state>();
            s->epoch_ = std::make_shared<epoch>(cfg);
            if (cfg->opts.persistent_workers)
                cfg->live_iterator = s;
            return iterator(std::move(s));
        }

        void ensure() const {
            if (!state_->fetched) {
                state_->current = state_->epoch_->next(); // an error leaves fetched false
                state_->fetched = true;
            }
        }
        std::shared_ptr<state> state_;
    };
};

template <class A>
DataLoader(A&&) -> DataLoader<A, DefaultCollate>;
template <class A>
DataLoader(A&&, DataLoaderOptions<DefaultCollate>) -> DataLoader<A, DefaultCollate>;
template <class A, class C>
DataLoader(A&&, DataLoaderOptions<C>) -> DataLoader<A, C>;
template <class A, class C>
DataLoader(A&&, DataLoaderOptions<DefaultCollate>, C) -> DataLoader<A, C>;

} // namespace staticpy::data
