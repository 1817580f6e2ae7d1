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

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/threads.hpp"
#include "staticpy/data/collate.hpp"
#include "staticpy/data/dataset.hpp"
#include "staticpy/data/detail/common.hpp"
#include "staticpy/data/sampler.hpp"

namespace staticpy::data {

// ---- type-erased samplers -------------------------------------------------------------------

namespace detail {
/// Reads one epoch of a range: each call gives the next element, nullopt at the end. The range is
/// kept alive (when owned) by the captured handle. Like a Python generator, a reader that threw
/// is exhausted: the error comes once, then the end.
template <class Held, class Convert>
auto range_reader(Held held, Convert convert) {
    using R = typename Held::element_type;
    struct state {
        Held owner;
        std::ranges::iterator_t<R&> it;
        std::ranges::sentinel_t<R&> end;
        bool started = false;
        bool done = false;
    };
    auto st = std::make_shared<state>(
        state{held, std::ranges::begin(held.get()), std::ranges::end(held.get())});
    return [st, convert]() -> std::optional<decltype(convert(*st->it))> {
        if (st->done)
            return std::nullopt;
        try {
            // The iterator moves past an element only when the next one is asked for: a
            // BatchSampler builds its next batch in ++, and if that throws, the batch before it
            // has already been handed out instead of being lost with the error.
            if (st->started)
                ++st->it;
            st->started = true;
            if (st->it == st->end) {
                st->done = true;
                return std::nullopt;
            }
            return convert(*st->it);
        } catch (...) {
            st->done = true;
            throw;
        }
    };
}
} // namespace detail

namespace detail {
/// The one implementation behind any_sampler and any_batch_sampler: an epoch is begun by start(),
/// which returns a reader of its elements; the range's iterator walks such a reader.
template <class T>
class erased_range {
public:
    using reader = std::function<std::optional<T>()>;

    /// Begins an epoch (a random sampler draws its indices now).
    ///   auto read = sampler.start();
    ///   while (auto i = read()) use(*i);
    [[nodiscard]] reader start() const { return start_(); }
    /// len(sampler); TypeError when the sampler has no length.
    ///   any_sampler s = SequentialSampler(4);
    ///   s.size() == 4
    [[nodiscard]] std::int64_t size() const {
        if (!size_)
            throw TypeError("object of type 'sampler' has no len()");
        return size_();
    }
    /// Whether size() has an answer.
    ///   any_sampler s = std::views::iota(0);   // endless
    ///   s.has_size() == false
    [[nodiscard]] bool has_size() const noexcept { return static_cast<bool>(size_); }

    class iterator {
    public:
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::input_iterator_tag;

        iterator() = default;
        explicit iterator(reader r) : read_(std::make_shared<reader>(std::move(r))) { advance(); }
        const T& operator*() const { return *current_; }
        iterator& operator++() {
            advance();
            return *this;
        }
        void operator++(int) { advance(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) {
            return !it.current_.has_value();
        }

    private:
        void advance() { current_ = (*read_)(); }
        std::shared_ptr<reader> read_;
        std::optional<T> current_;
    };
    /// Range-for over one epoch.
    ///   any_sampler s = std::vector<std::int64_t>{2, 0};
    ///   for (auto i : s) { ... }   // 2, 0
    [[nodiscard]] iterator begin() const { return iterator(start()); }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

protected:
    template <class S, class Convert>
    void assign(S&& s, Convert convert) {
        held<S> h(std::forward<S>(s));
        start_ = [h, convert]() -> reader { return range_reader(h, convert); };
        if constexpr (sized<typename held<S>::element_type>)
            size_ = [h]() { return length(h.get()); };
    }

private:
    std::function<reader()> start_;
    std::function<std::int64_t()> size_;
};
} // namespace detail

/// A sampler of any type behind one type, as DataLoaderOptions::sampler takes it: any range of
/// integer indices (SequentialSampler, RandomSampler, std::vector<std::int64_t>, ...), itself a
/// range of std::int64_t. An lvalue is referenced (it must outlive the loader), an rvalue owned,
/// as composites do.
///   any_sampler s = RandomSampler(ds, g);
///   DataLoader loader(ds, {.batch_size = 4, .sampler = SubsetRandomSampler({0, 2, 4}, g)});
class any_sampler : public detail::erased_range<std::int64_t> {
public:
    template <class S>
    requires(!std::derived_from<std::remove_cvref_t<S>, detail::erased_range<std::int64_t>> &&
             Sampler<std::remove_reference_t<detail::held_target_t<S>>>)
        any_sampler(S&& s) { // NOLINT: implicit, as a sampler= argument
        assign(std::forward<S>(s), [](auto i) { return static_cast<std::int64_t>(i); });
    }
};

/// A batch sampler of any type behind one type, as DataLoaderOptions::batch_sampler takes it:
/// any range of ranges of integer indices (BatchSampler, std::vector<std::vector<int64_t>>,
/// ...), itself a range of std::vector<std::int64_t>.
///   any_batch_sampler b = BatchSampler(SequentialSampler(10), 3, false);
///   DataLoader loader(ds, {.batch_sampler = b});
class any_batch_sampler : public detail::erased_range<std::vector<std::int64_t>> {
public:
    template <class S>
    requires(!std::derived_from<std::remove_cvref_t<S>,
                                detail::erased_range<std::vector<std::int64_t>>> &&
             BatchSamplerLike<std::remove_reference_t<detail::held_target_t<S>>>)
        any_batch_sampler(S&& s) { // NOLINT: implicit, as a batch_sampler= argument
        assign(std::forward<S>(s), [](auto&& batch) {
            std::vector<std::int64_t> out;
            for (auto i : batch)
                out.push_back(static_cast<std::int64_t>(i));
            return out;
        });
    }
};

// ---- worker info ----------------------------------------------------------------------------

/// torch.utils.data.get_worker_info()'s result: inside a worker, its id (0 to num_workers - 1),
/// the number of workers, its seed (base_seed + id) and the dataset (shared with the loader and
/// the other workers, not a copy as in PyTorch's processes).
///   if (auto info = get_worker_info()) { shard = info->id; shards = info->num_workers; }
///   const auto& ds = info->dataset_as<MyStream>();
struct WorkerInfo {
    int id = 0;
    int num_workers = 0;
    std::uint64_t seed = 0;
    const void* dataset = nullptr;
    const std::type_info* dataset_type = nullptr;

    /// The dataset as its type; TypeError when it is of another type.
    ///   const auto& ds = info->dataset_as<Range>();
    ///   auto n = ds.size();
    template <class D>
    [[nodiscard]] const D& dataset_as() const {
        if (dataset_type == nullptr || *dataset_type != typeid(D))
            throw TypeError("WorkerInfo.dataset is not of the requested type");
        return *static_cast<const D*>(dataset);
    }
};

namespace detail {
struct worker_context {
    std::optional<WorkerInfo> info;
    Generator* generator = nullptr;
};
inline worker_context& this_worker() {
    thread_local worker_context ctx;
    return ctx;
}
} // namespace detail

/// torch.utils.data.get_worker_info(): the calling worker's WorkerInfo, nullopt on any other
/// thread (the main thread, or a loader with num_workers = 0).
///   auto info = get_worker_info();
///   int shard = info ? info->id : 0;
inline std::optional<WorkerInfo> get_worker_info() {
    return detail::this_worker().info;
}

/// The Generator random transforms should draw from: in a worker, its own, seeded base_seed + id
/// (PyTorch seeds each worker process's torch generator so); elsewhere default_generator().
///   float flip = worker_generator().uniform();
///   auto noise = randn<float>(3_c, worker_generator());
inline Generator& worker_generator() {
    Generator* g = detail::this_worker().generator;
    return g != nullptr ? *g : default_generator();
}

// ---- the contiguous fast path ---------------------------------------------------------------

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

// ---- options --------------------------------------------------------------------------------

namespace detail {
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

// ---- DataLoader -----------------------------------------------------------------------------

namespace detail {

/// "DataLoader timed out after 5.0 seconds": PyTorch formats its timeout, which a C++ caller gives
/// as a double, so it is written as Python's repr of that float.
inline std::string seconds_text(double s) {
    std::string out;
    staticpy::detail::float_repr_into(out, s);
    return out;
}

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

/// Rethrows an exception caught in worker `id` on the consuming thread: staticpy errors as the
/// same type, anything else as RuntimeError, with PyTorch's "Caught ... in DataLoader worker
/// process N." header, the original nested (std::rethrow_if_nested reaches it).
[[noreturn]] inline void reraise(const std::exception_ptr& error, int id) {
    const std::string where = " in DataLoader worker process " + std::to_string(id) +
                              ".\nOriginal Traceback (most recent call last):\n";
    try {
        std::rethrow_exception(error);
    } catch (const Error& e) {
        const std::string name = e.python_name();
        const std::string text = "Caught " + name + where + name + ": " + e.what();
        if (dynamic_cast<const IndexError*>(&e) != nullptr)
            std::throw_with_nested(IndexError(text));
        if (dynamic_cast<const KeyError*>(&e) != nullptr)
            std::throw_with_nested(KeyError(text));
        if (dynamic_cast<const ValueError*>(&e) != nullptr)
            std::throw_with_nested(ValueError(text));
        if (dynamic_cast<const TypeError*>(&e) != nullptr)
            std::throw_with_nested(TypeError(text));
        if (dynamic_cast<const RuntimeError*>(&e) != nullptr)
            std::throw_with_nested(RuntimeError(text));
        std::throw_with_nested(Error(text));
    } catch (const std::exception& e) {
        std::throw_with_nested(
            RuntimeError("Caught std::exception" + where + "std::exception: " + e.what()));
    } catch (...) {
        std::throw_with_nested(
            RuntimeError("Caught an exception" + where + "(not a std::exception)"));
    }
}

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

inline void warn_pin_memory_once() {
    warn_once("'pin_memory' argument is set as true but CUDA is not available, then device "
              "pinned memory won't be used.");
}

} // namespace detail

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
public:
    using dataset_type = typename detail::held<D>::element_type;
    /// Whether the dataset is map-style (else iterable-style), PyTorch's _DatasetKind.
    static constexpr bool map_style = MapDataset<dataset_type>;
    static_assert(map_style || IterableDataset<dataset_type>,
                  "staticpy: TypeError: DataLoader takes a map-style dataset (size() and "
                  "ds[i]) or an iterable one (a range)");

    using sample_type = typename detail::loader_sample<dataset_type, map_style>::type;

    /// Whether collate_fn takes lists of samples (automatic batching) or one sample.
    static constexpr bool batched = !detail::per_sample_collate_v<Collate> &&
                                    std::is_invocable_v<const Collate&, std::vector<sample_type>>;
    static_assert(batched || std::is_invocable_v<const Collate&, sample_type>,
                  "staticpy: TypeError: collate_fn takes a std::vector of samples (or, marked "
                  "per_sample, one sample); default_collate takes numbers, tensors, strings, "
                  "tuples, lists and dicts of them");

    /// What iterating the loader gives: collate_fn's result.
    using batch_type = std::remove_cvref_t<typename std::conditional_t<
        batched, std::invoke_result<const Collate&, std::vector<sample_type>>,
        std::invoke_result<const Collate&, sample_type>>::type>;
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
        : cfg_(std::make_shared<config>(std::forward<A>(dataset),
                                        rebind(std::move(options), std::move(collate_fn)))) {}

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
    using held_dataset = detail::held<D>;

    struct config {
        template <class A>
        config(A&& ds, DataLoaderOptions<Collate> o)
            : dataset(std::forward<A>(ds)), opts(std::move(o)) {
            check();
            detail::check_worker_number_rationality(opts.num_workers);
            if (opts.persistent_workers)
                persistent.resize(static_cast<std::size_t>(opts.num_workers));
        }

        // PyTorch's DataLoader.__init__ checks, in its order, with its texts.
        void check() {
            auto& o = opts;
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
                *o.prefetch_factor > detail::max_batches_in_flight / o.num_workers)
                throw ValueError("prefetch_factor * num_workers (the batches requested ahead) "
                                 "should be at most " +
                                 std::to_string(detail::max_batches_in_flight) +
                                 ", but got prefetch_factor=" + std::to_string(*o.prefetch_factor) +
                                 " and num_workers=" + std::to_string(o.num_workers));
            if (o.persistent_workers && o.num_workers == 0)
                throw ValueError("persistent_workers option needs num_workers > 0");
            if constexpr (!map_style) {
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
            if (auto_collation != batched)
                throw ValueError(
                    batched ? "batch_size=None disables auto-batching, which needs a per-sample "
                              "collate_fn (DataLoaderOptions<DefaultConvert>): in C++ the batch "
                              "type is fixed by collate_fn's type"
                            : "a per-sample collate_fn (DefaultConvert) needs batch_size=None "
                              "and no batch_sampler");
            if constexpr (map_style) {
                if (!o.sampler) {
                    const std::int64_t n = detail::length(dataset.get());
                    if (o.shuffle)
                        o.sampler.emplace(RandomSampler<bool>(n, false, None,
                                                              o.generator != nullptr
                                                                  ? generator_arg(*o.generator)
                                                                  : generator_arg(None)));
                    else
                        o.sampler.emplace(SequentialSampler(n));
                }
                if (o.batch_size && !o.batch_sampler)
                    o.batch_sampler.emplace(
                        BatchSampler<any_sampler>(*o.sampler, *o.batch_size, o.drop_last));
            }
        }

        held_dataset dataset;
        DataLoaderOptions<Collate> opts;

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

    // The next index list of an epoch; for an iterable dataset, PyTorch's _InfiniteConstantSampler
    // feeding a BatchSampler, one element: the batch's length (a batch_size near INT64_MAX must
    // not become a list of that many indices).
    using index_reader = std::function<std::optional<std::vector<std::int64_t>>()>;

    static index_reader make_index_reader(const config& cfg) {
        const auto& o = cfg.opts;
        if constexpr (!map_style) {
            const std::int64_t n = o.batch_size.value_or(1);
            return [n]() {
                return std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>{n});
            };
        } else if (o.batch_sampler) {
            return o.batch_sampler->start();
        } else {
            auto r = o.sampler->start();
            return [r]() -> std::optional<std::vector<std::int64_t>> {
                auto i = r();
                if (!i)
                    return std::nullopt;
                return std::vector<std::int64_t>{*i};
            };
        }
    }

    // PyTorch's _MapDatasetFetcher / _IterableDatasetFetcher.
    class fetcher {
    public:
        explicit fetcher(const config& cfg) : cfg_(cfg) {
            if constexpr (!map_style)
                iter_.emplace(std::ranges::begin(cfg.dataset.get()));
        }
        // nullopt: an iterable dataset is exhausted (PyTorch's StopIteration).
        std::optional<batch_type> fetch(const std::vector<std::int64_t>& indices) {
            auto& ds = cfg_.dataset.get();
            const auto& collate = cfg_.opts.collate_fn;
            if constexpr (map_style) {
                if constexpr (batched && std::is_same_v<Collate, DefaultCollate> &&
                              GatherDataset<dataset_type>) {
                    return ds.gather(std::span<const std::int64_t>(indices));
                } else if constexpr (batched) {
                    std::vector<sample_type> samples;
                    samples.reserve(indices.size());
                    for (std::int64_t i : indices)
                        samples.push_back(getitem(ds, i));
                    return std::invoke(collate, std::move(samples));
                } else {
                    return std::invoke(collate, sample_type(getitem(ds, indices.at(0))));
                }
            } else {
                if (ended_)
                    return std::nullopt;
                auto& it = *iter_;
                if constexpr (batched) {
                    const std::int64_t wanted = indices.at(0);
                    std::vector<sample_type> samples;
                    while (static_cast<std::int64_t>(samples.size()) < wanted) {
                        if (it == std::ranges::end(ds)) {
                            ended_ = true;
                            break;
                        }
                        samples.push_back(*it);
                        ++it;
                    }
                    if (samples.empty() ||
                        (cfg_.opts.drop_last && static_cast<std::int64_t>(samples.size()) < wanted))
                        return std::nullopt;
                    return std::invoke(collate, std::move(samples));
                } else {
                    if (it == std::ranges::end(ds)) {
                        ended_ = true;
                        return std::nullopt;
                    }
                    sample_type s = *it;
                    ++it;
                    return std::invoke(collate, std::move(s));
                }
            }
        }

    private:
        const config& cfg_;
        std::optional<typename detail::loader_sample<dataset_type, map_style>::iterator> iter_;
        bool ended_ = false;
    };

    struct task {
        std::int64_t idx;
        std::vector<std::int64_t> indices;
    };
    struct result {
        std::int64_t idx = 0;
        int worker = 0;
        std::optional<batch_type> data;
        std::exception_ptr error;
        bool stop_iteration = false; // PyTorch's _IterableDatasetStopIteration
    };
    struct task_info {
        int worker;
        std::optional<result> data;
    };

    // One epoch: what PyTorch's _SingleProcessDataLoaderIter / _MultiProcessingDataLoaderIter
    // hold. Its fields other than the queues are used by the consuming thread only.
    class epoch {
    public:
        explicit epoch(std::shared_ptr<config> cfg) : cfg_(std::move(cfg)) {
            auto& o = cfg_->opts;
            if (o.pin_memory)
                detail::warn_pin_memory_once();
            // PyTorch draws the base seed at every iter(), before the sampler's first draw (its
            // samplers are lazy generators); a persistent loader's workers keep their first.
            Generator& gen = o.generator != nullptr ? *o.generator : default_generator();
            {
                const auto lock = staticpy::detail::lock_if_default(gen);
                base_seed_ = gen.next_u64() >> 1;
            }
            next_index_ = make_index_reader(*cfg_);
            workers_ = o.num_workers;
            if (workers_ == 0)
                return;
            detail::check_worker_number_rationality(workers_);
            if (o.persistent_workers) {
                if (!cfg_->persistent_seed)
                    cfg_->persistent_seed = base_seed_;
                base_seed_ = *cfg_->persistent_seed;
            }
            queues_.resize(static_cast<std::size_t>(workers_));
            status_.assign(static_cast<std::size_t>(workers_), true);
            threads_.reserve(static_cast<std::size_t>(workers_));
            // The workers' cores are theirs while they run: the model's kernels use the rest.
            cores_.emplace(workers_);
            try {
                for (int w = 0; w < workers_; ++w)
                    threads_.emplace_back([this, w] { worker_loop(w); });
                // No more requests than batches: a prefetch_factor larger than the epoch is free.
                const std::int64_t prefetch = *o.prefetch_factor * workers_;
                for (std::int64_t k = 0; k < prefetch && !sampler_done_; ++k)
                    try_put_index();
            } catch (...) { // a thread that failed to start: no destructor joins the others
                shutdown();
                throw;
            }
        }
        epoch(const epoch&) = delete;
        epoch& operator=(const epoch&) = delete;
        ~epoch() { shutdown(); }

        // The next batch, nullopt at the end of the epoch.
        std::optional<batch_type> next() {
            if (finished_)
                return std::nullopt;
            if (workers_ == 0) {
                std::optional<std::vector<std::int64_t>> idx;
                try {
                    idx = next_index_();
                    if (idx && !fetcher_)
                        fetcher_.emplace(*cfg_);
                } catch (...) {
                    // The sampler, or the iterable dataset's begin(), failed: as a Python
                    // generator that raised, it has nothing more, so the error comes once and the
                    // epoch ends (retrying would raise it for ever).
                    finished_ = true;
                    throw;
                }
                if (!idx)
                    return finish();
                auto b = fetcher_->fetch(*idx);
                if (!b)
                    return finish();
                return b;
            }
            return next_from_workers();
        }

        // Stops and joins the workers; what they were fetching is finished first.
        void shutdown() {
            {
                std::lock_guard lock(mutex_);
                if (stop_)
                    return;
                stop_ = true;
            }
            finished_ = true;
            work_cv_.notify_all();
            for (auto& t : threads_)
                if (t.joinable())
                    t.join();
            cores_.reset();
        }

    private:
        std::nullopt_t finish() {
            finished_ = true;
            if (!cfg_->opts.persistent_workers)
                shutdown();
            return std::nullopt;
        }

        // PyTorch's _try_put_index: the next index list to the next active worker in turn.
        void try_put_index() {
            if (sampler_done_)
                return;
            std::optional<std::vector<std::int64_t>> idx;
            try {
                idx = next_index_();
            } catch (...) {
                // Raised once the batches requested before it are delivered (PyTorch raises it
                // here, losing the batch in hand; a generator that raised is then exhausted).
                sampler_error_ = std::current_exception();
                sampler_done_ = true;
                return;
            }
            if (!idx) {
                sampler_done_ = true;
                return;
            }
            int w = -1;
            for (int k = 0; k < workers_; ++k) {
                const int candidate = cycle_;
                cycle_ = (cycle_ + 1) % workers_;
                if (status_[static_cast<std::size_t>(candidate)]) {
                    w = candidate;
                    break;
                }
            }
            if (w < 0)
                return;
            {
                std::lock_guard lock(mutex_);
                queues_[static_cast<std::size_t>(w)].push_back(task{send_idx_, std::move(*idx)});
            }
            work_cv_.notify_all();
            tasks_.emplace(send_idx_, task_info{w, std::nullopt});
            ++send_idx_;
        }

        // PyTorch's _next_data.
        std::optional<batch_type> next_from_workers() {
            while (true) {
                while (rcvd_idx_ < send_idx_) {
                    const auto it = tasks_.find(rcvd_idx_);
                    if (it != tasks_.end()) {
                        if (it->second.data || status_[static_cast<std::size_t>(it->second.worker)])
                            break;
                        tasks_.erase(it);
                    }
                    ++rcvd_idx_;
                }
                if (rcvd_idx_ >= send_idx_) {
                    if (sampler_error_) {
                        const std::exception_ptr error = std::exchange(sampler_error_, nullptr);
                        finish();
                        std::rethrow_exception(error);
                    }
                    return finish();
                }
                auto& info = tasks_.at(rcvd_idx_);
                if (info.data) {
                    result r = std::move(*info.data);
                    tasks_.erase(rcvd_idx_);
                    ++rcvd_idx_;
                    return process(std::move(r));
                }
                result r = get_data();
                if (r.stop_iteration) {
                    status_[static_cast<std::size_t>(r.worker)] = false;
                    if (!r.error) {
                        tasks_.erase(r.idx);
                        try_put_index();
                        continue;
                    }
                    // A worker that could not start: its error takes its first task's place in
                    // the order, and it has ended, so the epoch can.
                }
                if (r.idx != rcvd_idx_) {
                    if (!cfg_->opts.in_order) {
                        tasks_.erase(r.idx);
                        return process(std::move(r));
                    }
                    tasks_.at(r.idx).data = std::move(r);
                } else {
                    tasks_.erase(r.idx);
                    ++rcvd_idx_;
                    return process(std::move(r));
                }
            }
        }

        std::optional<batch_type> process(result r) {
            try_put_index();
            if (r.error)
                detail::reraise(r.error, r.worker);
            return std::move(r.data);
        }

        result get_data() {
            std::unique_lock lock(mutex_);
            const auto ready = [this] { return !results_.empty(); };
            const double timeout = cfg_->opts.timeout;
            if (timeout > 0 && timeout < detail::forever_timeout_s) {
                const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::duration<double>(timeout));
                if (!result_cv_.wait_for(lock, wait, ready))
                    throw RuntimeError("DataLoader timed out after " +
                                       detail::seconds_text(timeout) + " seconds");
            } else {
                result_cv_.wait(lock, ready);
            }
            result r = std::move(results_.front());
            results_.pop_front();
            return r;
        }

        // PyTorch's _worker_loop, on a thread.
        void worker_loop(int id) {
            auto& o = cfg_->opts;
            auto& ctx = detail::this_worker();
            std::optional<Generator> own;
            Generator* gen = nullptr;
            std::exception_ptr init_error;
            bool run_init = true;
            if (o.persistent_workers) {
                auto& kept = cfg_->persistent[static_cast<std::size_t>(id)];
                run_init = !kept.generator.has_value();
                if (run_init)
                    kept.generator.emplace(base_seed_ + static_cast<std::uint64_t>(id));
                gen = &*kept.generator;
                init_error = kept.init_error;
            } else {
                gen = &own.emplace(base_seed_ + static_cast<std::uint64_t>(id));
            }
            ctx.generator = gen;
            ctx.info = WorkerInfo{id, workers_, base_seed_ + static_cast<std::uint64_t>(id),
                                  static_cast<const void*>(&cfg_->dataset.get()),
                                  &typeid(std::remove_cv_t<dataset_type>)};
            std::optional<fetcher> f;
            try {
                if (run_init && o.worker_init_fn)
                    o.worker_init_fn(id);
                if (!init_error)
                    f.emplace(*cfg_);
            } catch (...) {
                init_error = std::current_exception();
            }
            if (o.persistent_workers && run_init)
                cfg_->persistent[static_cast<std::size_t>(id)].init_error = init_error;

            bool iteration_end = false;
            while (true) {
                task t;
                {
                    std::unique_lock lock(mutex_);
                    auto& q = queues_[static_cast<std::size_t>(id)];
                    work_cv_.wait(lock, [&] { return stop_ || !q.empty(); });
                    if (stop_)
                        break;
                    t = std::move(q.front());
                    q.pop_front();
                }
                if (iteration_end)
                    continue;
                result r;
                r.idx = t.idx;
                r.worker = id;
                if (init_error) {
                    r.error = init_error;
                    if constexpr (!map_style) {
                        // An iterable dataset's worker that cannot start has nothing to give:
                        // it says why once, then ends, as if exhausted (else the epoch, which
                        // waits for every worker to end, never would).
                        r.stop_iteration = true;
                        iteration_end = true;
                    }
                    // A map dataset's worker reports it for each of its tasks: every batch
                    // sent to it fails, and the sampler bounds the epoch.
                } else {
                    try {
                        r.data = f->fetch(t.indices);
                        if (!r.data) {
                            r.stop_iteration = true;
                            iteration_end = true;
                        }
                    } catch (...) {
                        r.error = std::current_exception();
                    }
                }
                {
                    std::lock_guard lock(mutex_);
                    results_.push_back(std::move(r));
                }
                result_cv_.notify_one();
            }
            f.reset();
            ctx.info.reset();
            ctx.generator = nullptr;
        }

        std::shared_ptr<config> cfg_;
        index_reader next_index_;
        std::uint64_t base_seed_ = 0;
        int workers_ = 0;
        bool finished_ = false;
        std::optional<fetcher> fetcher_;

        // Consuming thread only.
        bool sampler_done_ = false;
        std::exception_ptr sampler_error_;
        int cycle_ = 0;
        std::int64_t send_idx_ = 0;
        std::int64_t rcvd_idx_ = 0;
        std::map<std::int64_t, task_info> tasks_;
        std::vector<bool> status_;

        // Shared with the workers, under mutex_.
        std::mutex mutex_;
        std::condition_variable work_cv_;
        std::condition_variable result_cv_;
        std::vector<std::deque<task>> queues_;
        std::deque<result> results_;
        bool stop_ = false;
        std::vector<std::thread> threads_;
        std::optional<reserve_threads> cores_;
    };

    static DataLoaderOptions<Collate> rebind(DataLoaderOptions<DefaultCollate> o, Collate fn) {
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
