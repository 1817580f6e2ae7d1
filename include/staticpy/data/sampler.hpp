#pragma once
// Samplers, as PyTorch's torch/utils/data/sampler.py and distributed.py: ranges of dataset
// indices (or of index lists, for a batch sampler).
//
//   staticpy::Generator g(0);
//   for (auto batch : BatchSampler(RandomSampler(ds, false, None, g), 32, false)) { ... }
//
// Any range of integers is a sampler (the Sampler concept), any range of integer ranges a batch
// sampler, so std::vector<std::int64_t> or std::views::iota(0, n) work wherever one is taken.
// Randomness comes from a staticpy::Generator, referenced as PyTorch shares the object (so that
// successive epochs continue its sequence); the same seed gives the same indices on every
// platform. They are not PyTorch's indices for that seed: the engines differ (mt19937_64 with
// Fisher-Yates shuffles and rejection-sampled integers here, Philox/mt19937 and ATen's kernels
// there). A sampler reads its data source's length when it is constructed; PyTorch re-reads it
// at each iteration, for datasets that grow.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <numeric>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data {

// ---- concepts -------------------------------------------------------------------------------

/// A sampler: any input range of integer indices.
///   static_assert(Sampler<std::vector<std::int64_t>>);
///   static_assert(Sampler<SequentialSampler>);
template <class S>
concept Sampler = std::ranges::input_range<S> &&
    std::integral<std::remove_cvref_t<std::ranges::range_reference_t<S>>>;

/// A batch sampler: any input range of ranges of integer indices.
///   static_assert(BatchSamplerLike<std::vector<std::vector<std::int64_t>>>);
///   static_assert(BatchSamplerLike<BatchSampler<SequentialSampler>>);
template <class S>
concept BatchSamplerLike =
    std::ranges::input_range<S> && Sampler<std::remove_cvref_t<std::ranges::range_reference_t<S>>>;

using detail::generator_arg;
using detail::optional_int;

namespace detail {

/// A data source argument: a length, or anything with one (a dataset, a sized range).
template <class Source>
std::int64_t source_length(const Source& source) {
    if constexpr (std::is_integral_v<Source>) {
        static_assert(!std::is_same_v<Source, bool>,
                      "staticpy: TypeError: a sampler's data source is a length or a dataset");
        return static_cast<std::int64_t>(source);
    } else {
        return length(const_cast<Source&>(source)); // NOLINT: len() only reads
    }
}

/// The iterator of a sampler whose indices are drawn when iteration begins: it walks a shared
/// vector, so copies of it are cheap and stay valid after the sampler goes away.
class index_iterator {
public:
    using value_type = std::int64_t;
    using difference_type = std::ptrdiff_t;
    using iterator_concept = std::forward_iterator_tag;

    index_iterator() = default;
    explicit index_iterator(std::shared_ptr<const std::vector<std::int64_t>> indices)
        : indices_(std::move(indices)) {}

    std::int64_t operator*() const { return (*indices_)[pos_]; }
    index_iterator& operator++() {
        ++pos_;
        return *this;
    }
    index_iterator operator++(int) {
        index_iterator old = *this;
        ++pos_;
        return old;
    }
    friend bool operator==(const index_iterator& a, const index_iterator& b) {
        return a.indices_ == b.indices_ && a.pos_ == b.pos_;
    }
    friend bool operator==(const index_iterator& it, std::default_sentinel_t) {
        return !it.indices_ || it.pos_ == it.indices_->size();
    }

private:
    std::shared_ptr<const std::vector<std::int64_t>> indices_;
    std::size_t pos_ = 0;
};

inline index_iterator iterate(std::vector<std::int64_t> indices) {
    return index_iterator(std::make_shared<const std::vector<std::int64_t>>(std::move(indices)));
}

/// len() of `n` indices in batches of `batch_size` (> 0): n // b with drop_last, else
/// math.ceil(n / b), written so that n + b - 1 cannot overflow when b is near INT64_MAX.
constexpr std::int64_t batch_count(std::int64_t n, std::int64_t batch_size, bool drop_last) {
    return n / batch_size + (!drop_last && n % batch_size != 0 ? 1 : 0);
}

inline std::string positive_int_message(const char* name, std::int64_t value) {
    return std::string(name) + " should be a positive integer value, but got " + name + "=" +
           std::to_string(value);
}

} // namespace detail

// ---- SequentialSampler --------------------------------------------------------------------

/// torch.utils.data.SequentialSampler: 0, 1, ..., len - 1.
///   for (auto i : SequentialSampler(ds)) { ... }
///   SequentialSampler(5).size() == 5
class SequentialSampler {
public:
    /// From a length or a data source (a dataset or sized range).
    template <class Source>
    explicit SequentialSampler(const Source& data_source)
        : n_(detail::source_length(data_source)) {}

    /// len(sampler).
    [[nodiscard]] std::int64_t size() const noexcept { return n_; }
    class iterator {
    public:
        using value_type = std::int64_t;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::forward_iterator_tag;

        iterator() = default;
        explicit iterator(std::int64_t i) : i_(i) {}
        std::int64_t operator*() const { return i_; }
        iterator& operator++() {
            ++i_;
            return *this;
        }
        iterator operator++(int) { return iterator(i_++); }
        friend bool operator==(const iterator&, const iterator&) = default;

    private:
        std::int64_t i_ = 0;
    };
    [[nodiscard]] iterator begin() const { return iterator(0); }
    [[nodiscard]] iterator end() const { return iterator(n_); }

private:
    std::int64_t n_;
};

// ---- RandomSampler ------------------------------------------------------------------------

/// torch.utils.data.RandomSampler: without replacement, a random permutation of the indices
/// (num_samples > len takes further permutations, as PyTorch 1.13+); with replacement,
/// num_samples indices drawn uniformly. num_samples defaults to len. Each iteration draws anew:
/// from `generator`, or, when none is given, from a fresh Generator seeded by one draw from the
/// default generator (PyTorch's rule, so that staticpy::manual_seed makes it reproducible).
/// ValueError("num_samples should be a positive integer value, but got num_samples=0"), also
/// for an empty data source; a non-bool `replacement` is a compile error (PyTorch's TypeError).
///   staticpy::Generator g(1);
///   RandomSampler s(ds, true, 2 * len, g);   // with replacement, twice the length
template <class Replacement = bool>
class RandomSampler {
    static_assert(std::is_same_v<Replacement, bool>,
                  "staticpy: TypeError: replacement should be a boolean value");

public:
    template <class Source>
    explicit RandomSampler(const Source& data_source, Replacement replacement = false,
                           optional_int num_samples = None, generator_arg generator = None)
        : n_(detail::source_length(data_source)),
          replacement_(replacement),
          num_samples_(num_samples.value_or(n_)),
          generator_(generator.get()) {
        if (num_samples_ <= 0)
            throw ValueError(detail::positive_int_message("num_samples", num_samples_));
    }
    /// RandomSampler(ds, generator): PyTorch's RandomSampler(ds, generator=g).
    template <class Source>
    RandomSampler(const Source& data_source, Generator& generator)
        : RandomSampler(data_source, false, None, generator) {}

    /// PyTorch's `replacement` and `num_samples`.
    [[nodiscard]] bool replacement() const noexcept { return replacement_; }
    [[nodiscard]] std::int64_t num_samples() const noexcept { return num_samples_; }
    /// len(sampler): num_samples.
    [[nodiscard]] std::int64_t size() const noexcept { return num_samples_; }

    /// Draws this iteration's indices.
    [[nodiscard]] detail::index_iterator begin() const {
        Generator local;
        Generator* gen = generator_;
        if (gen == nullptr) {
            std::lock_guard lock(default_generator_mutex());
            local.manual_seed(default_generator().next_u64());
            gen = &local;
        }
        std::vector<std::int64_t> out;
        out.reserve(static_cast<std::size_t>(num_samples_));
        if (replacement_) {
            for (std::int64_t k = 0; k < num_samples_; ++k)
                out.push_back(gen->randint(0, n_)); // n_ == 0: PyTorch's randint error
        } else {
            if (n_ == 0) // Python: num_samples // n
                throw RuntimeError("integer division or modulo by zero");
            while (static_cast<std::int64_t>(out.size()) < num_samples_) {
                const auto perm = detail::randperm(n_, *gen);
                const auto take = std::min<std::int64_t>(
                    n_, num_samples_ - static_cast<std::int64_t>(out.size()));
                out.insert(out.end(), perm.begin(), perm.begin() + take);
            }
        }
        return detail::iterate(std::move(out));
    }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    std::int64_t n_;
    bool replacement_;
    std::int64_t num_samples_;
    Generator* generator_;
};
template <class Source>
RandomSampler(const Source&) -> RandomSampler<bool>;
template <class Source, class R, class... Rest>
RandomSampler(const Source&, R, Rest&&...) -> RandomSampler<R>;
template <class Source>
RandomSampler(const Source&, Generator&) -> RandomSampler<bool>;

// ---- SubsetRandomSampler ------------------------------------------------------------------

/// torch.utils.data.SubsetRandomSampler: the given indices in a random order, drawn at each
/// iteration from `generator`, or from the default generator when none is given (as PyTorch).
///   SubsetRandomSampler s({0, 2, 4, 6}, g);
///   for (auto i : s) { ... }   // a permutation of 0, 2, 4, 6
class SubsetRandomSampler {
public:
    explicit SubsetRandomSampler(std::vector<std::int64_t> indices, generator_arg generator = None)
        : indices_(std::move(indices)), generator_(generator.get()) {}
    /// From any range of integers.
    template <std::ranges::input_range R>
    requires(
        !std::same_as<std::remove_cvref_t<R>, std::vector<std::int64_t>> &&
        std::integral<std::ranges::range_value_t<R>>) explicit SubsetRandomSampler(const R& indices,
                                                                                   generator_arg
                                                                                       generator =
                                                                                           None)
        : generator_(generator.get()) {
        for (auto i : indices)
            indices_.push_back(static_cast<std::int64_t>(i));
    }

    /// PyTorch's `indices`.
    [[nodiscard]] const std::vector<std::int64_t>& indices() const noexcept { return indices_; }
    /// len(sampler): the number of indices.
    [[nodiscard]] std::int64_t size() const noexcept {
        return static_cast<std::int64_t>(indices_.size());
    }
    [[nodiscard]] detail::index_iterator begin() const {
        Generator& gen = generator_ != nullptr ? *generator_ : default_generator();
        const auto perm = [&] {
            const auto lock = staticpy::detail::lock_if_default(gen);
            return detail::randperm(size(), gen);
        }();
        std::vector<std::int64_t> out;
        out.reserve(perm.size());
        for (std::int64_t p : perm)
            out.push_back(indices_[static_cast<std::size_t>(p)]);
        return detail::iterate(std::move(out));
    }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    std::vector<std::int64_t> indices_;
    Generator* generator_;
};

// ---- WeightedRandomSampler ----------------------------------------------------------------

/// torch.utils.data.WeightedRandomSampler: num_samples indices, index i drawn with probability
/// weights[i] / sum(weights); with replacement (the default) independently, without it distinct
/// (Gumbel top-k, as torch.multinomial). The weights need not sum to 1. Construction checks
/// num_samples (ValueError, PyTorch's text); the weights are checked when iterating, as
/// torch.multinomial does then (RuntimeError: "invalid multinomial distribution (encountering
/// probability entry < 0)", "... (encountering probability entry = infinity or NaN)", "... (sum
/// of probabilities <= 0)", and "cannot sample n_sample > prob_dist.size(-1) samples without
/// replacement"). A non-bool `replacement` is a compile error (PyTorch's ValueError).
///   WeightedRandomSampler s({0.1, 0.9, 0.4, 0.7, 3.0, 0.6}, 5, true, g);
///   for (auto i : s) { ... }   // 4 most often
template <class Replacement = bool>
class WeightedRandomSampler {
    static_assert(std::is_same_v<Replacement, bool>,
                  "staticpy: ValueError: replacement should be a boolean value");

public:
    template <std::ranges::input_range W>
    requires(std::is_arithmetic_v<std::ranges::range_value_t<W>>)
        WeightedRandomSampler(const W& weights, std::int64_t num_samples,
                              Replacement replacement = true, generator_arg generator = None)
        : num_samples_(num_samples), replacement_(replacement), generator_(generator.get()) {
        if (num_samples <= 0)
            throw ValueError(detail::positive_int_message("num_samples", num_samples));
        for (auto w : weights)
            weights_.push_back(static_cast<double>(w));
    }
    WeightedRandomSampler(std::initializer_list<double> weights, std::int64_t num_samples,
                          Replacement replacement = true, generator_arg generator = None)
        : WeightedRandomSampler(std::vector<double>(weights), num_samples, replacement, generator) {
    }

    /// PyTorch's `weights` (as double), `num_samples`, `replacement`.
    [[nodiscard]] const std::vector<double>& weights() const noexcept { return weights_; }
    [[nodiscard]] std::int64_t num_samples() const noexcept { return num_samples_; }
    [[nodiscard]] bool replacement() const noexcept { return replacement_; }
    /// len(sampler): num_samples.
    [[nodiscard]] std::int64_t size() const noexcept { return num_samples_; }

    [[nodiscard]] detail::index_iterator begin() const {
        Generator& gen = generator_ != nullptr ? *generator_ : default_generator();
        const auto lock = staticpy::detail::lock_if_default(gen);
        return detail::iterate(replacement_ && num_samples_ > 1 ? with_replacement(gen)
                                                                : without_replacement(gen));
    }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    // ATen's multinomial kernel with replacement: inverse-CDF sampling by binary search.
    std::vector<std::int64_t> with_replacement(Generator& gen) const {
        std::vector<double> cdf;
        cdf.reserve(weights_.size());
        double sum = 0;
        for (double w : weights_) {
            if (!(w >= 0))
                throw RuntimeError(
                    "invalid multinomial distribution (encountering probability entry < 0)");
            if (!std::isfinite(w))
                throw RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry = infinity or NaN)");
            cdf.push_back(sum += w);
        }
        if (!(sum > 0))
            throw RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)");
        for (double& c : cdf)
            c /= sum;
        cdf.back() = 1;
        std::vector<std::int64_t> out;
        out.reserve(static_cast<std::size_t>(num_samples_));
        for (std::int64_t k = 0; k < num_samples_; ++k) {
            // The first bucket whose cumulative probability exceeds u: ATen takes ">= u", which
            // lets u == 0 pick a leading zero-weight index; "> u" never picks one.
            const double u = gen.uniform();
            const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
            out.push_back(std::min<std::int64_t>(it - cdf.begin(),
                                                 static_cast<std::int64_t>(cdf.size()) - 1));
        }
        return out;
    }

    // ATen's fast path without replacement (and for one sample): the top num_samples of
    // w / q with q ~ Exp(1), which draws distinct indices with the sequential-sampling law.
    std::vector<std::int64_t> without_replacement(Generator& gen) const {
        const auto n = static_cast<std::int64_t>(weights_.size());
        if (!replacement_ && num_samples_ > n)
            throw RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        double sum = 0;
        for (double w : weights_) {
            if (!(w >= 0) || std::isinf(w))
                throw RuntimeError(
                    "probability tensor contains either `inf`, `nan` or element < 0");
            sum += w;
        }
        if (sum == 0)
            throw RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)");
        std::vector<double> keys;
        keys.reserve(weights_.size());
        for (double w : weights_)
            keys.push_back(w / -std::log1p(-gen.uniform())); // -log(1 - u) ~ Exp(1), finite
        std::vector<std::int64_t> order(weights_.size());
        std::iota(order.begin(), order.end(), std::int64_t{0});
        const auto k = static_cast<std::ptrdiff_t>(num_samples_);
        std::partial_sort(
            order.begin(), order.begin() + k, order.end(), [&](std::int64_t a, std::int64_t b) {
                return keys[static_cast<std::size_t>(a)] > keys[static_cast<std::size_t>(b)];
            });
        order.resize(static_cast<std::size_t>(k));
        return order;
    }

    std::vector<double> weights_;
    std::int64_t num_samples_;
    bool replacement_;
    Generator* generator_;
};
template <class W>
WeightedRandomSampler(const W&, std::int64_t) -> WeightedRandomSampler<bool>;
template <class W, class R, class... Rest>
WeightedRandomSampler(const W&, std::int64_t, R, Rest&&...) -> WeightedRandomSampler<R>;
WeightedRandomSampler(std::initializer_list<double>, std::int64_t)->WeightedRandomSampler<bool>;
template <class R, class... Rest>
WeightedRandomSampler(std::initializer_list<double>, std::int64_t, R, Rest&&...)
    -> WeightedRandomSampler<R>;

// ---- BatchSampler -------------------------------------------------------------------------

/// torch.utils.data.BatchSampler: the indices of `sampler` in lists of batch_size, the last one
/// shorter unless drop_last. len() is len(sampler) / batch_size rounded down with drop_last, up
/// without. An lvalue sampler is referenced, an rvalue owned. ValueError("batch_size should be a
/// positive integer value, but got batch_size=0"); a non-bool drop_last, or a bool batch_size, is
/// a compile error (PyTorch's ValueError).
///   BatchSampler bs(SequentialSampler(10), 3, false);   // [0,1,2] [3,4,5] [6,7,8] [9]
///   bs.size() == 4
template <class S, class DropLast = bool>
class BatchSampler {
    static_assert(Sampler<typename detail::held<S>::element_type>,
                  "staticpy: TypeError: BatchSampler's sampler is a range of integer indices");
    static_assert(std::is_same_v<DropLast, bool>,
                  "staticpy: ValueError: drop_last should be a boolean value");
    using sampler_type = typename detail::held<S>::element_type;

public:
    template <class A, std::integral B>
    BatchSampler(A&& sampler, B batch_size, DropLast drop_last)
        : sampler_(std::forward<A>(sampler)),
          batch_size_(static_cast<std::int64_t>(batch_size)),
          drop_last_(drop_last) {
        static_assert(!std::is_same_v<B, bool>,
                      "staticpy: ValueError: batch_size should be a positive integer value");
        if (batch_size_ <= 0)
            throw ValueError(detail::positive_int_message("batch_size", batch_size_));
    }

    /// PyTorch's `sampler`, `batch_size`, `drop_last`.
    [[nodiscard]] sampler_type& sampler() const noexcept { return sampler_.get(); }
    [[nodiscard]] std::int64_t batch_size() const noexcept { return batch_size_; }
    [[nodiscard]] bool drop_last() const noexcept { return drop_last_; }

    /// len(batch_sampler); the sampler must have a length.
    [[nodiscard]] std::int64_t size() const requires detail::sized<sampler_type> {
        return detail::batch_count(detail::length(sampler_.get()), batch_size_, drop_last_);
    }

    class iterator {
        using inner_iterator = std::ranges::iterator_t<sampler_type&>;
        using inner_sentinel = std::ranges::sentinel_t<sampler_type&>;

    public:
        using value_type = std::vector<std::int64_t>;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::input_iterator_tag;

        iterator(const BatchSampler* self)
            : self_(self),
              it_(std::ranges::begin(self->sampler_.get())),
              end_(std::ranges::end(self->sampler_.get())) {
            fill();
        }

        const value_type& operator*() const { return batch_; }
        iterator& operator++() {
            fill();
            return *this;
        }
        void operator++(int) { fill(); }
        friend bool operator==(const iterator& it, std::default_sentinel_t) { return it.done_; }

    private:
        void fill() {
            batch_.clear();
            while (static_cast<std::int64_t>(batch_.size()) < self_->batch_size_ && it_ != end_) {
                batch_.push_back(static_cast<std::int64_t>(*it_));
                ++it_;
            }
            done_ =
                batch_.empty() || (self_->drop_last_ &&
                                   static_cast<std::int64_t>(batch_.size()) < self_->batch_size_);
        }

        const BatchSampler* self_;
        inner_iterator it_;
        inner_sentinel end_;
        value_type batch_;
        bool done_ = false;
    };

    /// Starts an iteration of the sampler (a random one draws its order here).
    [[nodiscard]] iterator begin() const { return iterator(this); }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    detail::held<S> sampler_;
    std::int64_t batch_size_;
    bool drop_last_;
};
template <class A, class B, class DL>
BatchSampler(A&&, B, DL) -> BatchSampler<A, DL>;

// ---- DistributedSampler -------------------------------------------------------------------

namespace detail {
/// The default process group's (world size, rank), for a DistributedSampler given neither: set by
/// staticpy/distributed's init_process_group (the data layer cannot include MPI), null before.
inline std::pair<std::int64_t, std::int64_t> (*default_process_group)() = nullptr;

inline std::int64_t process_group_value(bool rank) {
    if (default_process_group == nullptr)
        throw RuntimeError("Default process group has not been initialized, please make sure to "
                           "call init_process_group.");
    const auto [world_size, this_rank] = default_process_group();
    return rank ? this_rank : world_size;
}
} // namespace detail

/// torch.utils.data.distributed.DistributedSampler: the share of replica `rank` among
/// `num_replicas`. The indices (shuffled by a Generator seeded seed + epoch, or in order) are
/// padded by repeating the first ones to a multiple of num_replicas, or cut to one with
/// drop_last, then dealt out with stride num_replicas: N = 10 over 4 replicas gives [0,4,8],
/// [1,5,9], [2,6,0], [3,7,1]; with drop_last [0,4], [1,5], [2,6], [3,7]. Every replica sees the
/// same permutation when they share seed and epoch: call set_epoch(e) before each epoch.
/// num_replicas and rank default (None) to the default process group's world size and rank, as
/// PyTorch's: <staticpy/distributed.hpp>'s init_process_group must have run (RuntimeError
/// "Default process group has not been initialized, ..." otherwise);
/// ValueError("Invalid rank 5, rank should be in the interval [0, 3]").
///   DistributedSampler s(ds, 4, rank, true, 0, false);
///   DistributedSampler t(ds);   // distributed::get_world_size() replicas, this rank's share
///   s.set_epoch(epoch);
class DistributedSampler {
public:
    template <class Source>
    explicit DistributedSampler(const Source& dataset, optional_int num_replicas_ = None,
                                optional_int rank_ = None, bool shuffle_ = true,
                                std::int64_t seed_ = 0, bool drop_last_ = false)
        : num_replicas(num_replicas_.has_value() ? num_replicas_.value()
                                                 : detail::process_group_value(false)),
          rank(rank_.has_value() ? rank_.value() : detail::process_group_value(true)),
          drop_last(drop_last_),
          shuffle(shuffle_),
          seed(seed_),
          n_(detail::source_length(dataset)) {
        if (rank >= num_replicas || rank < 0)
            throw ValueError("Invalid rank " + std::to_string(rank) +
                             ", rank should be in the interval [0, " +
                             std::to_string(num_replicas - 1) + "]");
        // math.ceil of a true division, whose numerator may be negative with drop_last; no
        // a + b - 1, which overflows for a num_replicas near INT64_MAX.
        const auto ceil_div = [](std::int64_t a, std::int64_t b) {
            return a / b + (a % b > 0 ? 1 : 0);
        };
        if (drop_last && n_ % num_replicas != 0)
            num_samples = ceil_div(n_ - num_replicas, num_replicas);
        else
            num_samples = ceil_div(n_, num_replicas);
        total_size = num_samples * num_replicas;
    }

    /// PyTorch's attributes.
    std::int64_t num_replicas;
    std::int64_t rank;
    std::int64_t epoch = 0;
    bool drop_last;
    std::int64_t num_samples = 0;
    std::int64_t total_size = 0;
    bool shuffle;
    std::int64_t seed;

    /// Sets the epoch that, with seed, fixes the shuffle; call it at each epoch's start.
    ///   s.set_epoch(1);   // another permutation, the same on every replica
    void set_epoch(std::int64_t e) noexcept { epoch = e; }
    /// len(sampler): num_samples.
    [[nodiscard]] std::int64_t size() const noexcept { return num_samples; }

    [[nodiscard]] detail::index_iterator begin() const {
        std::vector<std::int64_t> indices;
        if (shuffle) {
            Generator g(static_cast<std::uint64_t>(seed + epoch));
            indices = detail::randperm(n_, g);
        } else {
            indices.resize(static_cast<std::size_t>(n_));
            std::iota(indices.begin(), indices.end(), std::int64_t{0});
        }
        if (!drop_last) {
            // Repeats the list as often as needed: indices * ceil(padding / len), then cut.
            const std::size_t original = indices.size();
            for (std::size_t k = 0; indices.size() < static_cast<std::size_t>(total_size); ++k)
                indices.push_back(indices[k % original]);
        } else {
            indices.resize(static_cast<std::size_t>(total_size));
        }
        std::vector<std::int64_t> mine;
        mine.reserve(static_cast<std::size_t>(num_samples));
        for (std::int64_t i = rank; i < total_size; i += num_replicas)
            mine.push_back(indices[static_cast<std::size_t>(i)]);
        return detail::iterate(std::move(mine));
    }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    std::int64_t n_;
};

} // namespace staticpy::data
