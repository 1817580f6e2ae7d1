#pragma once
// DataLoader's options checked and completed once, when the loader is built: PyTorch's
// DataLoader.__init__ checks (in its order, with its texts) and defaults (prefetch_factor 2 with
// workers, the default samplers), and the warnings it gives there. The loader and its epochs read
// only the result, so no check or default is repeated or left for later.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <sched.h>
#endif

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/data/any_sampler.hpp"
#include "staticpy/data/dataloader_options.hpp"
#include "staticpy/data/detail/common.hpp"
#include "staticpy/data/sampler.hpp"

namespace staticpy::data::detail {

/// From this many seconds on, a timeout waits forever: steady_clock counts int64 nanoseconds,
/// which 9.2e9 s overflows (undefined behaviour); 1e9 s is 31 years, and far from that limit
/// even once added to the clock's current reading.
inline constexpr double forever_timeout_s = 1e9;

/// The most batches a loader may request ahead (prefetch_factor * num_workers): every one of them
/// is a queued task now and a batch in memory later, so a larger figure can only exhaust memory
/// or, with an endless iterable dataset, never finish being queued.
inline constexpr std::int64_t max_batches_in_flight = std::int64_t{1} << 16;

/// torch._utils.cpu_count(): the cores this process may run on (sched_getaffinity, which
/// respects cpuset, where it exists), else the machine's; nullopt when unknown.
inline std::optional<int> usable_cpu_count(bool& cpuset_checked) {
#if defined(__linux__)
    cpuset_checked = true;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#else
    cpuset_checked = false;
#endif
    const unsigned n = std::thread::hardware_concurrency();
    if (n == 0)
        return std::nullopt;
    return static_cast<int>(n);
}

/// PyTorch's DataLoader.check_worker_number_rationality: a warning (once per text, as Python's
/// warnings) when the workers outnumber the usable cores. Its text, with "worker threads" for
/// PyTorch's "worker processes": staticpy's workers are threads.
inline void check_worker_number_rationality(int num_workers) {
    if (num_workers <= 0)
        return;
    bool cpuset_checked = false;
    const std::optional<int> suggest = usable_cpu_count(cpuset_checked);
    if (suggest && num_workers <= *suggest)
        return;
    const std::string suggested =
        suggest ? "Our suggested max number of worker in current system is " +
                      std::to_string(*suggest) +
                      (cpuset_checked ? "" : " (`cpuset` is not taken into account)") +
                      ", which is smaller than what this DataLoader is going to create."
                : std::string("DataLoader is not able to compute a suggested max number of "
                              "worker in current system.");
    warn_once("This DataLoader will create " + std::to_string(num_workers) +
              " worker threads in total. " + suggested +
              " Please be aware that excessive worker creation might get DataLoader running "
              "slow or even freeze, lower the worker number to avoid potential slowness/freeze "
              "if necessary.");
}

/// Given at each epoch's start, as PyTorch's pin-memory thread would start there.
inline void warn_pin_memory_once() {
    warn_once("'pin_memory' argument is set as true but CUDA is not available, then device "
              "pinned memory won't be used.");
}

/// DataLoaderOptions after PyTorch's normalisation, as the loader's attributes show them: a
/// batch_sampler clears batch_size and drop_last, workers default prefetch_factor to 2, a map
/// dataset always has a sampler, and a batch_sampler whenever batches are made. shuffle has done
/// its work (it chose the sampler) and is gone.
template <class Collate>
struct loader_options {
    std::optional<std::int64_t> batch_size;
    std::optional<any_sampler> sampler;             // nullopt for an iterable dataset
    std::optional<any_batch_sampler> batch_sampler; // nullopt without automatic batching
    int num_workers = 0;
    Collate collate_fn;
    bool pin_memory = false;
    bool drop_last = false;
    double timeout = 0;
    /// How long to wait for a worker's batch; nullopt: for ever (timeout 0, or too large for the
    /// clock, see forever_timeout_s).
    std::optional<std::chrono::nanoseconds> timeout_wait;
    std::function<void(int)> worker_init_fn;
    Generator* generator = nullptr;
    std::optional<std::int64_t> prefetch_factor; // set exactly when there are workers
    bool persistent_workers = false;
    bool in_order = true;
};

/// The worker options: num_workers, timeout, prefetch_factor (defaulted here to 2 with
/// workers), persistent_workers.
template <class Collate>
void check_worker_options(DataLoaderOptions<Collate>& o) {
    if (o.num_workers < 0)
        throw ValueError("num_workers option should be non-negative; use num_workers=0 "
                         "to disable multiprocessing.");
    if (o.timeout < 0)
        throw ValueError("timeout option should be non-negative");
    if (o.num_workers == 0 && o.prefetch_factor)
        throw ValueError("prefetch_factor option could only be specified in "
                         "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                         "otherwise set prefetch_factor to None.");
    if (o.num_workers > 0 && !o.prefetch_factor)
        o.prefetch_factor = 2;
    else if (o.prefetch_factor && *o.prefetch_factor < 0)
        throw ValueError("prefetch_factor option should be non-negative");
    if (o.prefetch_factor && *o.prefetch_factor == 0) // PyTorch: an assert in iter()
        throw ValueError("prefetch_factor option should be positive");
    // staticpy's own bound, in PyTorch's words: PyTorch would queue them all.
    if (o.prefetch_factor && o.num_workers > 0 &&
        *o.prefetch_factor > max_batches_in_flight / o.num_workers)
        throw ValueError("prefetch_factor * num_workers (the batches requested ahead) "
                         "should be at most " +
                         std::to_string(max_batches_in_flight) +
                         ", but got prefetch_factor=" + std::to_string(*o.prefetch_factor) +
                         " and num_workers=" + std::to_string(o.num_workers));
    if (o.persistent_workers && o.num_workers == 0)
        throw ValueError("persistent_workers option needs num_workers > 0");
}

/// The sampling options: shuffle, sampler, batch_sampler, batch_size, drop_last, and whether
/// automatic batching agrees with collate_fn's type (Batched: it takes lists of samples). A
/// batch_sampler clears batch_size and drop_last here.
template <bool MapStyle, bool Batched, class Collate>
void check_sampling_options(DataLoaderOptions<Collate>& o) {
    if constexpr (!MapStyle) {
        if (o.shuffle)
            throw ValueError("DataLoader with IterableDataset: expected unspecified "
                             "shuffle option, but got shuffle=True");
        if (o.sampler)
            throw ValueError("DataLoader with IterableDataset: expected unspecified "
                             "sampler option, but got sampler=<any_sampler object>");
        if (o.batch_sampler)
            throw ValueError("DataLoader with IterableDataset: expected unspecified "
                             "batch_sampler option, but got "
                             "batch_sampler=<any_batch_sampler object>");
    }
    if (o.sampler && o.shuffle)
        throw ValueError("sampler option is mutually exclusive with shuffle");
    if (o.batch_sampler) {
        if (o.batch_size != std::optional<std::int64_t>(1) || o.shuffle || o.sampler ||
            o.drop_last)
            throw ValueError("batch_sampler option is mutually exclusive with "
                             "batch_size, shuffle, sampler, and drop_last");
        o.batch_size = std::nullopt;
        o.drop_last = false;
    } else if (!o.batch_size) {
        if (o.drop_last)
            throw ValueError("batch_size=None option disables auto-batching and is "
                             "mutually exclusive with drop_last");
    }
    if (o.batch_size && *o.batch_size <= 0)
        throw ValueError("batch_size should be a positive integer value, but got "
                         "batch_size=" +
                         std::to_string(*o.batch_size));
    // The C++ batch type is fixed by collate_fn's type: automatic batching is on exactly
    // when collate_fn takes lists of samples.
    const bool auto_collation = o.batch_size.has_value() || o.batch_sampler.has_value();
    if (auto_collation != Batched)
        throw ValueError(Batched
                             ? "batch_size=None disables auto-batching, which needs a "
                               "per-sample collate_fn (DataLoaderOptions<DefaultConvert>): in "
                               "C++ the batch type is fixed by collate_fn's type"
                             : "a per-sample collate_fn (DefaultConvert) needs batch_size=None "
                               "and no batch_sampler");
}

/// PyTorch's default samplers for a map dataset: a RandomSampler drawing from the loader's
/// generator with shuffle, else a SequentialSampler; and the BatchSampler over it that batch_size
/// asks for. The dataset's length is read only when a sampler is to be made.
template <class Collate, class D>
void add_default_samplers(DataLoaderOptions<Collate>& o, D& dataset) {
    if (!o.sampler) {
        const std::int64_t n = length(dataset);
        if (o.shuffle)
            o.sampler.emplace(RandomSampler<bool>(n, false, None,
                                                  o.generator != nullptr
                                                      ? generator_arg(*o.generator)
                                                      : generator_arg(None)));
        else
            o.sampler.emplace(SequentialSampler(n));
    }
    if (o.batch_size && !o.batch_sampler)
        o.batch_sampler.emplace(BatchSampler<any_sampler>(*o.sampler, *o.batch_size, o.drop_last));
}

/// The options a DataLoader runs with: those given, checked and completed as PyTorch's
/// DataLoader.__init__ does (ValueError with its text at the first fault), and the warning about
/// more workers than cores. MapStyle: the dataset is map-style; Batched: collate_fn takes lists
/// of samples.
///   auto o = resolve_options<true, true>(DataLoaderOptions<>{.num_workers = 2}, ten_samples);
///   *o.prefetch_factor == 2 && o.batch_sampler->size() == 10
template <bool MapStyle, bool Batched, class Collate, class D>
loader_options<Collate> resolve_options(DataLoaderOptions<Collate> o, D& dataset) {
    check_worker_options(o);
    check_sampling_options<MapStyle, Batched>(o);
    if constexpr (MapStyle)
        add_default_samplers(o, dataset);
    check_worker_number_rationality(o.num_workers);
    std::optional<std::chrono::nanoseconds> timeout_wait;
    if (o.timeout > 0 && o.timeout < forever_timeout_s)
        timeout_wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::duration<double>(o.timeout));
    return loader_options<Collate>{o.batch_size,
                                   std::move(o.sampler),
                                   std::move(o.batch_sampler),
                                   o.num_workers,
                                   std::move(o.collate_fn),
                                   o.pin_memory,
                                   o.drop_last,
                                   o.timeout,
                                   timeout_wait,
                                   std::move(o.worker_init_fn),
                                   o.generator,
                                   o.prefetch_factor,
                                   o.persistent_workers,
                                   o.in_order};
}

} // namespace staticpy::data::detail
