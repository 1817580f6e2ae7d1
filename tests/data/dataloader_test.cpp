// DataLoader: ported from PyTorch's test/test_dataloader.py (TestDataLoader,
// TestIndividualWorkerQueue, TestWorkerInfoDataset, TestSetAffinity's neighbours) where they
// apply to threads, plus the C++ forms. Sleeps are kept short (the suite runs under sanitizers).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

namespace {

/// range(n) as a map dataset.
struct Range {
    std::int64_t n = 0;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const { return i; }
};

/// PyTorch's ErrorDataset: every item raises.
struct ErrorDataset {
    std::int64_t n = 0;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const {
        throw ValueError("bad sample " + std::to_string(i));
    }
};

/// Sleeps before returning index `slow` (or every index when slow < 0).
struct SleepDataset {
    std::int64_t n = 0;
    std::int64_t slow = -1;
    int ms = 150;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const {
        if (slow < 0 || i == slow)
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        return i;
    }
};

/// Which worker fetched each sample (-1: the main thread).
struct WorkerIdDataset {
    std::int64_t n = 0;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t) const {
        const auto info = get_worker_info();
        return info ? info->id : -1;
    }
};

template <class Loader>
std::vector<std::int64_t> flatten(const Loader& loader) {
    std::vector<std::int64_t> out;
    for (auto& batch : loader)
        for (std::int64_t i = 0; i < batch.numel(); ++i)
            out.push_back(batch(i));
    return out;
}

std::vector<std::int64_t> iota(std::int64_t n) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = i;
    return v;
}

std::vector<std::int64_t> sorted(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    return v;
}

} // namespace

namespace {
/// PyTorch's CountingIterableDataset range(n), split into contiguous shards across workers
/// through get_worker_info when `shard` is set.
struct ShardedStream {
    std::int64_t n = 0;
    bool shard = true;
    struct sentinel {};
    struct iterator {
        using value_type = std::int64_t;
        using difference_type = std::ptrdiff_t;
        std::int64_t i = 0;
        std::int64_t hi = 0;
        std::int64_t operator*() const { return i; }
        iterator& operator++() {
            ++i;
            return *this;
        }
        void operator++(int) { ++i; }
        friend bool operator==(const iterator& it, sentinel) { return it.i >= it.hi; }
    };
    [[nodiscard]] iterator begin() const {
        std::int64_t lo = 0;
        std::int64_t hi = n;
        if (const auto info = get_worker_info(); info && shard) {
            const std::int64_t per = (n + info->num_workers - 1) / info->num_workers;
            lo = std::min(n, info->id * per);
            hi = std::min(n, lo + per);
        }
        return iterator{lo, hi};
    }
    [[nodiscard]] sentinel end() const { return {}; }
};
/// ShardedStream with a length: an iterable dataset that len(loader) can measure.
struct SizedStream : ShardedStream {
    [[nodiscard]] std::int64_t size() const { return n; }
};

/// An iterable dataset whose begin() raises (PyTorch's "Error in __iter__").
struct BadIter {
    struct it {
        using value_type = int;
        using difference_type = std::ptrdiff_t;
        int operator*() const { return 0; }
        it& operator++() { return *this; }
        void operator++(int) {}
        bool operator==(std::default_sentinel_t) const { return false; }
    };
    [[nodiscard]] it begin() const { throw RuntimeError("Error in __iter__"); }
    [[nodiscard]] std::default_sentinel_t end() const { return {}; }
};

/// The indices 0, 1, ..., n - 1, raising ValueError on reaching `fail_at`: a Python sampler
/// whose __iter__ raises midway.
struct FailingSampler {
    std::int64_t n = 10;
    std::int64_t fail_at = 5;
    struct iterator {
        using value_type = std::int64_t;
        using difference_type = std::ptrdiff_t;
        std::int64_t i = 0;
        std::int64_t n = 0;
        std::int64_t fail_at = 0;
        std::int64_t operator*() const {
            if (i == fail_at)
                throw ValueError("sampler failed at " + std::to_string(i));
            return i;
        }
        iterator& operator++() {
            ++i;
            return *this;
        }
        void operator++(int) { ++i; }
        bool operator==(std::default_sentinel_t) const { return i >= n; }
    };
    [[nodiscard]] iterator begin() const { return iterator{0, n, fail_at}; }
    [[nodiscard]] std::default_sentinel_t end() const { return {}; }
};

/// Batches of two indices, 0-1, 2-3, ..., raising ValueError instead of batch `fail_at`.
struct FailingBatchSampler {
    std::int64_t fail_at = 2;
    struct iterator {
        using value_type = std::vector<std::int64_t>;
        using difference_type = std::ptrdiff_t;
        std::int64_t k = 0;
        std::int64_t fail_at = 0;
        std::vector<std::int64_t> operator*() const {
            if (k == fail_at)
                throw ValueError("batch sampler failed at " + std::to_string(k));
            return {2 * k, 2 * k + 1};
        }
        iterator& operator++() {
            ++k;
            return *this;
        }
        void operator++(int) { ++k; }
        bool operator==(std::default_sentinel_t) const { return k >= 5; }
    };
    [[nodiscard]] iterator begin() const { return iterator{0, fail_at}; }
    [[nodiscard]] std::default_sentinel_t end() const { return {}; }
};

/// What a caller that skips failed batches, as docs/data.md describes, gets from one epoch.
struct skipping_read {
    std::vector<std::int64_t> values;
    std::vector<std::string> errors;
    bool ended = false;
};

/// Reads one epoch so, giving up after `limit` calls so that an epoch that never ends fails the
/// test instead of hanging it.
template <class Loader>
skipping_read read_skipping_errors(const Loader& loader, int limit = 1000) {
    skipping_read out;
    auto it = loader.begin();
    for (int call = 0; call < limit && !out.ended; ++call) {
        try {
            if (auto batch = it.next()) {
                for (std::int64_t i = 0; i < batch->numel(); ++i)
                    out.values.push_back((*batch)(i));
            } else {
                out.ended = true;
            }
        } catch (const Error& e) {
            out.errors.emplace_back(e.what());
        }
    }
    return out;
}

using test_errors::capture_cerr;

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

} // namespace

TEST_CASE("sequential batches with 0 and 4 workers (test_sequential_batch)") {
    for (int workers : {0, 4}) {
        CAPTURE(workers);
        DataLoader loader(Range{100}, {.batch_size = 2, .num_workers = workers});
        std::int64_t k = 0;
        for (auto& batch : loader) {
            STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(batch)>,
                                          Tensor<std::int64_t, dynamic_shape<1>>>);
            REQUIRE(batch.numel() == 2);
            CHECK(batch(0) == 2 * k);
            CHECK(batch(1) == 2 * k + 1);
            ++k;
        }
        CHECK(k == 50);
    }
}

TEST_CASE("shuffled batches with 0 and 4 workers: every sample exactly once (test_shuffle)") {
    for (int workers : {0, 4}) {
        CAPTURE(workers);
        DataLoader loader(Range{100}, {.batch_size = 3, .shuffle = true, .num_workers = workers});
        const auto seen = flatten(loader);
        CHECK(seen != iota(100));
        CHECK(sorted(seen) == iota(100));
    }
}

TEST_CASE("len with and without drop_last (test_len)") {
    const Range ds{100};
    CHECK(DataLoader(ds, {.batch_size = 2}).size() == 50);
    CHECK(DataLoader(ds, {.batch_size = 3}).size() == 34);
    CHECK(DataLoader(ds, {.batch_size = 2, .drop_last = true}).size() == 50);
    CHECK(DataLoader(ds, {.batch_size = 3, .drop_last = true}).size() == 33);
    for (int workers : {0, 2}) {
        DataLoader loader(ds, {.batch_size = 3, .num_workers = workers, .drop_last = true});
        std::int64_t batches = 0;
        for (auto& b : loader) {
            CHECK(b.numel() == 3);
            ++batches;
        }
        CHECK(batches == 33);
        DataLoader ragged(ds, {.batch_size = 3, .num_workers = workers});
        CHECK(static_cast<std::int64_t>(flatten(ragged).size()) == 100);
    }
    CHECK(DataLoader(ds, DataLoaderOptions<DefaultConvert>{}).size() == 100);
}

TEST_CASE("sampler and batch_sampler arguments (test_sampler, test_batch_sampler)") {
    const Range ds{10};
    SECTION("a sampler") {
        Generator g(3);
        for (int workers : {0, 2}) {
            DataLoader loader(ds, {.batch_size = 2,
                                   .sampler = SubsetRandomSampler({1, 3, 5, 7, 9}, g),
                                   .num_workers = workers});
            CHECK(loader.size() == 3);
            CHECK(sorted(flatten(loader)) == std::vector<std::int64_t>{1, 3, 5, 7, 9});
        }
        std::vector<std::int64_t> order{9, 8, 7};
        DataLoader fixed(ds, {.sampler = order});
        CHECK(flatten(fixed) == order);
    }
    SECTION("a batch sampler") {
        const std::vector<std::vector<std::int64_t>> batches{{0, 1, 2}, {3}, {9, 4}};
        for (int workers : {0, 2}) {
            DataLoader loader(ds, {.batch_sampler = batches, .num_workers = workers});
            CHECK(loader.size() == 3);
            std::vector<std::vector<std::int64_t>> got;
            for (auto& b : loader) {
                got.emplace_back();
                for (std::int64_t i = 0; i < b.numel(); ++i)
                    got.back().push_back(b(i));
            }
            CHECK(got == batches);
            CHECK_FALSE(loader.batch_size().has_value());
        }
        DataLoader from_sampler(
            ds, {.batch_sampler = BatchSampler(SequentialSampler(ds), 4, true), .num_workers = 2});
        CHECK(from_sampler.size() == 2);
        CHECK(flatten(from_sampler) == iota(8));
    }
}

TEST_CASE("reproducibility from a seeded generator, 0 and 2 workers") {
    const Range ds{50};
    const auto run = [&](int workers, std::uint64_t seed) {
        Generator g(seed);
        DataLoader loader(
            ds, {.batch_size = 4, .shuffle = true, .num_workers = workers, .generator = &g});
        std::vector<std::int64_t> epochs = flatten(loader);
        const auto second = flatten(loader); // the generator moves on: another order
        CHECK(second != epochs);
        epochs.insert(epochs.end(), second.begin(), second.end());
        return epochs;
    };
    const auto a = run(0, 7);
    CHECK(run(0, 7) == a);
    CHECK(run(2, 7) == a); // workers don't change the order
    CHECK(run(0, 8) != a);

    SECTION("worker seeds are base_seed + id, base_seed drawn from the generator") {
        const auto seeds = [](std::uint64_t seed) {
            Generator g(seed);
            std::mutex m;
            std::map<int, std::uint64_t> out;
            DataLoader loader(Range{8}, {.batch_size = 1,
                                         .num_workers = 2,
                                         .worker_init_fn =
                                             [&](int id) {
                                                 std::lock_guard lock(m);
                                                 out[id] = get_worker_info()->seed;
                                             },
                                         .generator = &g});
            (void)flatten(loader);
            return out;
        };
        const auto s1 = seeds(11);
        REQUIRE(s1.size() == 2);
        CHECK(s1.at(1) == s1.at(0) + 1);
        CHECK(seeds(11) == s1);
        CHECK(seeds(12) != s1);
    }
}

TEST_CASE("nested and dict samples are collated through the loader") {
    struct Pairs {
        [[nodiscard]] std::int64_t size() const { return 6; }
        [[nodiscard]] auto operator[](std::int64_t i) const {
            return std::tuple(full<float>(2_c, static_cast<float>(i)),
                              std::map<std::string, double>{{"w", 0.5 * static_cast<double>(i)}},
                              std::string(1, static_cast<char>('a' + i)));
        }
    };
    DataLoader loader(Pairs{}, {.batch_size = 4, .num_workers = 2});
    auto it = loader.begin();
    auto& [x, m, s] = *it;
    CHECK(x.sizes() == std::array<std::int64_t, 2>{4, 2});
    CHECK(x(3, 1) == 3.f);
    CHECK(m.at("w")(2) == 1.0);
    CHECK(s == std::vector<std::string>{"a", "b", "c", "d"});
    ++it;
    CHECK(std::get<0>(*it).sizes()[0] == 2);

    auto named = StackDataset("x"_s = Range{5}, "y"_s = Range{5});
    DataLoader dicts(named, {.batch_size = 5});
    for (auto& b : dicts) {
        CHECK(b["x"_s](4) == 4);
        CHECK(b["y"_s].dtype() == int64);
    }
}

TEST_CASE("errors in workers are rethrown, each failed batch skipped (test_error_in_workers)") {
    const auto count_errors = [](auto& loader, std::string* first = nullptr) {
        int errors = 0;
        int batches = 0;
        auto it = loader.begin();
        while (true) {
            try {
                if (!it.next())
                    break;
                ++batches;
            } catch (const ValueError& e) {
                if (first != nullptr && errors == 0)
                    *first = e.what();
                ++errors;
            }
        }
        CHECK(batches == 0);
        return errors;
    };
    SECTION("100 items, batch 2, no workers: the original error, 50 times") {
        DataLoader loader(ErrorDataset{100}, {.batch_size = 2});
        std::string first;
        CHECK(count_errors(loader, &first) == 50);
        CHECK(first == "bad sample 0");
    }
    SECTION("100 items, batch 2, 2 workers: 50") {
        DataLoader loader(ErrorDataset{100}, {.batch_size = 2, .num_workers = 2});
        CHECK(count_errors(loader) == 50);
    }
    SECTION("41 items, batch 2, 4 workers: 21, with PyTorch's header") {
        DataLoader loader(ErrorDataset{41}, {.batch_size = 2, .num_workers = 4});
        std::string first;
        CHECK(count_errors(loader, &first) == 21);
        CHECK(first == "Caught ValueError in DataLoader worker process 0.\nOriginal Traceback "
                       "(most recent call last):\nValueError: bad sample 0");
    }
    SECTION("the original exception is nested") {
        DataLoader loader(ErrorDataset{4}, {.batch_size = 2, .num_workers = 1});
        auto it = loader.begin();
        try {
            (void)it.next();
            FAIL("no exception");
        } catch (const ValueError& e) {
            try {
                std::rethrow_if_nested(e);
                FAIL("not nested");
            } catch (const ValueError& original) {
                CHECK(std::string(original.what()) == "bad sample 0");
            }
        }
    }
    SECTION("other exception types become RuntimeError") {
        struct Throws {
            [[nodiscard]] std::int64_t size() const { return 2; }
            [[nodiscard]] int operator[](std::int64_t) const { throw std::out_of_range("oops"); }
        };
        DataLoader loader(Throws{}, {.num_workers = 1});
        CHECK_THROWS_AS(loader.begin().next(), RuntimeError);
        CHECK_THROWS_WITH(loader.begin().next(), Catch::Contains("std::exception: oops"));
    }
}

TEST_CASE("an error in worker_init_fn (test_error_in_init)") {
    DataLoader loader(Range{10}, {.num_workers = 2, .worker_init_fn = [](int) {
                                      throw RuntimeError("Error in worker_init_fn");
                                  }});
    CHECK_THROWS_WITH(flatten(loader), Catch::Contains("Error in worker_init_fn") &&
                                           Catch::StartsWith("Caught RuntimeError"));
    for (int workers : {0, 2}) {
        DataLoader bad(BadIter{}, {.num_workers = workers});
        CHECK_THROWS_WITH(flatten(bad), Catch::Contains("Error in __iter__"));
    }
}

TEST_CASE("timeout (test_timeout)") {
    DataLoader loader(SleepDataset{4, -1, 200},
                      {.batch_size = 1, .num_workers = 1, .timeout = 0.05});
    auto it = loader.begin();
    CHECK_THROWS_AS(it.next(), RuntimeError);
    CHECK_THROWS_WITH(loader.begin().next(), "DataLoader timed out after 0.05 seconds");
    // The timeout is a float, and PyTorch's message shows it as Python does.
    CHECK(staticpy::data::detail::seconds_text(1) == "1.0");
    CHECK(staticpy::data::detail::seconds_text(5) == "5.0");
    CHECK(staticpy::data::detail::seconds_text(0.5) == "0.5");
    CHECK(staticpy::data::detail::seconds_text(2.5) == "2.5");
}

TEST_CASE("a timeout too large for the clock waits as long as it takes (issue 8)") {
    // 1e10 s and more overflow steady_clock's int64 nanoseconds: such a timeout means forever.
    for (double timeout : {1e10, 1e300, std::numeric_limits<double>::infinity()}) {
        CAPTURE(timeout);
        DataLoader loader(SleepDataset{3, -1, 20},
                          {.batch_size = 1, .num_workers = 1, .timeout = timeout});
        CHECK(flatten(loader) == iota(3));
    }
}

TEST_CASE("worker_init_fn and get_worker_info (test_worker_info, test_worker_init_fn)") {
    CHECK_FALSE(get_worker_info().has_value());
    std::mutex m;
    std::vector<WorkerInfo> infos;
    WorkerIdDataset ds{40};
    DataLoader loader(ds, {.batch_size = 1, .num_workers = 4, .worker_init_fn = [&](int id) {
                               // No Catch2 assertion here: Catch2 is not thread-safe.
                               const auto info = get_worker_info();
                               std::lock_guard lock(m);
                               if (info && info->id == id)
                                   infos.push_back(*info);
                           }});
    // PyTorch's round-robin: batch k goes to worker k % num_workers.
    const auto who = flatten(loader);
    REQUIRE(who.size() == 40);
    for (std::size_t k = 0; k < who.size(); ++k)
        CHECK(who[k] == static_cast<std::int64_t>(k % 4));
    REQUIRE(infos.size() == 4);
    std::sort(infos.begin(), infos.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (int w = 0; w < 4; ++w) {
        const auto& info = infos[static_cast<std::size_t>(w)];
        CHECK(info.id == w);
        CHECK(info.num_workers == 4);
        CHECK(info.seed == infos[0].seed + static_cast<std::uint64_t>(w));
        CHECK(&info.dataset_as<WorkerIdDataset>() == &ds);
        CHECK_THROWS_AS(info.dataset_as<Range>(), TypeError);
    }
    CHECK_FALSE(get_worker_info().has_value());
    CHECK(&worker_generator() == &default_generator());

    SECTION("each worker's generator is seeded base_seed + id") {
        struct Draw {
            [[nodiscard]] std::int64_t size() const { return 2; }
            [[nodiscard]] std::uint64_t operator[](std::int64_t) const {
                const auto info = get_worker_info();
                Generator expected(info->seed);
                return worker_generator().next_u64() == expected.next_u64() ? 1u : 0u;
            }
        };
        DataLoader draws(Draw{}, {.batch_size = 1, .num_workers = 2});
        CHECK(flatten(draws) == std::vector<std::int64_t>{1, 1});
    }
}

TEST_CASE("in_order with one slow sample") {
    const SleepDataset ds{8, 0, 150};
    DataLoader ordered(ds, {.batch_size = 1, .num_workers = 2});
    CHECK(flatten(ordered) == iota(8));
    DataLoader as_ready(ds, {.batch_size = 1, .num_workers = 2, .in_order = false});
    const auto got = flatten(as_ready);
    CHECK(got.front() != 0);
    CHECK(sorted(got) == iota(8));
}

TEST_CASE("iterable datasets: every worker iterates, sharding through get_worker_info") {
    SECTION("sharded: each sample once") {
        for (int workers : {0, 1, 3}) {
            DataLoader loader(ShardedStream{20}, {.batch_size = 3, .num_workers = workers});
            const auto got = flatten(loader);
            CHECK(sorted(got) == iota(20));
        }
    }
    SECTION("not sharded: each worker yields the whole dataset, as PyTorch") {
        DataLoader loader(ShardedStream{5, false}, {.batch_size = 2, .num_workers = 2});
        const auto got = flatten(loader);
        CHECK(got.size() == 10);
        CHECK(std::count(got.begin(), got.end(), 4) == 2);
    }
    SECTION("drop_last, no batching, len") {
        DataLoader dropping(ShardedStream{7, false}, {.batch_size = 2, .drop_last = true});
        CHECK(flatten(dropping) == iota(6));
        DataLoader single(ShardedStream{3}, DataLoaderOptions<DefaultConvert>{.num_workers = 2});
        std::vector<std::int64_t> got;
        for (auto x : single)
            got.push_back(x);
        CHECK(sorted(got) == iota(3));
        CHECK_THROWS_AS(single.size(), TypeError);
        CHECK_THROWS_WITH(single.size(), "object of type 'IterableDataset' has no len()");
    }
}

TEST_CASE("early break, several live iterators, destruction with workers running") {
    const SleepDataset slow{200, -1, 2};
    SECTION("break out of a loop") {
        for (int round = 0; round < 3; ++round) {
            DataLoader loader(slow, {.batch_size = 2, .num_workers = 4});
            int seen = 0;
            for (auto& b : loader) {
                (void)b;
                if (++seen == 2)
                    break;
            }
            CHECK(seen == 2);
        }
    }
    SECTION("an iterator dropped without reading, and the loader destroyed first") {
        // A unique_ptr, not a std::optional: g++ 12 at -O3 takes the optional's disengaged
        // shared_ptr for maybe-uninitialized (-Wmaybe-uninitialized, a false positive).
        auto loader = std::make_unique<DataLoader<const SleepDataset&>>(
            slow, DataLoaderOptions<>{.batch_size = 4, .num_workers = 3});
        auto it = loader->begin();
        (void)loader->begin();
        loader.reset(); // the iterator keeps what it needs
        CHECK((*it)(0) == 0);
    }
    SECTION("two iterators at once, and many epochs") {
        DataLoader loader(Range{30}, {.batch_size = 5, .num_workers = 2});
        auto a = loader.begin();
        auto b = loader.begin();
        std::vector<std::int64_t> from_a;
        std::vector<std::int64_t> from_b;
        while (auto x = a.next()) {
            from_a.push_back((*x)(0));
            if (auto y = b.next())
                from_b.push_back((*y)(0));
        }
        CHECK(from_a == from_b);
        for (int epoch = 0; epoch < 5; ++epoch)
            CHECK(flatten(loader) == iota(30));
    }
}

TEST_CASE("batch_size=None, custom collate_fn, persistent workers, pin_memory") {
    SECTION("no automatic batching: one sample at a time") {
        DataLoader loader(Range{5}, DataLoaderOptions<DefaultConvert>{.num_workers = 2});
        STATIC_REQUIRE(std::is_same_v<decltype(loader)::batch_type, std::int64_t>);
        std::vector<std::int64_t> got;
        for (auto x : loader)
            got.push_back(x);
        CHECK(got == iota(5));
    }
    SECTION("any callable as collate_fn") {
        DataLoader loader(Range{7}, {.batch_size = 3}, [](std::vector<std::int64_t> b) {
            return static_cast<std::int64_t>(b.size());
        });
        std::vector<std::int64_t> sizes;
        for (auto n : loader)
            sizes.push_back(n);
        CHECK(sizes == std::vector<std::int64_t>{3, 3, 1});
    }
    SECTION("persistent workers: worker_init_fn once per worker across epochs") {
        std::atomic<int> inits{0};
        DataLoader loader(Range{8}, {.batch_size = 2,
                                     .num_workers = 2,
                                     .worker_init_fn = [&](int) { ++inits; },
                                     .persistent_workers = true});
        for (int epoch = 0; epoch < 3; ++epoch)
            CHECK(flatten(loader) == iota(8));
        CHECK(inits == 2);
    }
    SECTION("pin_memory is accepted (one warning without CUDA), batches unpinned") {
        capture_cerr captured;
        DataLoader loader(Range{4}, {.batch_size = 2, .pin_memory = true});
        CHECK(loader.pin_memory());
        CHECK(flatten(loader) == iota(4));
        CHECK(flatten(loader) == iota(4));
        for (const auto& batch : loader)
            CHECK_FALSE(batch.is_pinned());
        CHECK(occurrences(captured.text(),
                          "UserWarning: 'pin_memory' argument is set as true but CUDA is not "
                          "available, then device pinned memory won't be used.\n") == 1);
    }
}

TEST_CASE("invalid argument combinations, with PyTorch's messages") {
    const Range ds{10};
    const auto throws = [](auto make, const std::string& message) {
        CHECK_THROWS_AS(make(), ValueError);
        CHECK_THROWS_WITH(make(), message);
    };
    throws([&] { return DataLoader(ds, {.num_workers = -1}); },
           "num_workers option should be non-negative; use num_workers=0 to disable "
           "multiprocessing.");
    throws([&] { return DataLoader(ds, {.timeout = -1}); },
           "timeout option should be non-negative");
    throws([&] { return DataLoader(ds, {.prefetch_factor = 2}); },
           "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
           "to enable multiprocessing, otherwise set prefetch_factor to None.");
    throws([&] { return DataLoader(ds, {.num_workers = 1, .prefetch_factor = -1}); },
           "prefetch_factor option should be non-negative");
    throws([&] { return DataLoader(ds, {.persistent_workers = true}); },
           "persistent_workers option needs num_workers > 0");
    throws([&] { return DataLoader(ds, {.shuffle = true, .sampler = SequentialSampler(ds)}); },
           "sampler option is mutually exclusive with shuffle");
    const std::vector<std::vector<std::int64_t>> batches{{0, 1}};
    const auto exclusive = "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                           "sampler, and drop_last";
    throws([&] { return DataLoader(ds, {.batch_size = 2, .batch_sampler = batches}); }, exclusive);
    throws([&] { return DataLoader(ds, {.shuffle = true, .batch_sampler = batches}); }, exclusive);
    throws([&] { return DataLoader(ds, {.sampler = iota(3), .batch_sampler = batches}); },
           exclusive);
    throws([&] { return DataLoader(ds, {.batch_sampler = batches, .drop_last = true}); },
           exclusive);
    throws(
        [&] { return DataLoader(ds, DataLoaderOptions<DefaultConvert>{.drop_last = true}); },
        "batch_size=None option disables auto-batching and is mutually exclusive with drop_last");
    throws([&] { return DataLoader(ds, {.batch_size = 0}); },
           "batch_size should be a positive integer value, but got batch_size=0");
    throws([&] { return DataLoader(ShardedStream{3}, {.shuffle = true}); },
           "DataLoader with IterableDataset: expected unspecified shuffle option, but got "
           "shuffle=True");
    CHECK_THROWS_AS(DataLoader(ShardedStream{3}, {.sampler = iota(3)}), ValueError);
    CHECK_THROWS_AS(DataLoader(ds, {.batch_size = std::nullopt}), ValueError);
}

TEST_CASE("an iterable dataset's worker that cannot start says why once, then ends (issue 8)") {
    SECTION("worker_init_fn fails in worker 0 of 2: its error, worker 1's shard, the end") {
        DataLoader loader(ShardedStream{10},
                          {.batch_size = 2, .num_workers = 2, .worker_init_fn = [](int id) {
                               if (id == 0)
                                   throw RuntimeError("Error in worker_init_fn");
                           }});
        const auto got = read_skipping_errors(loader);
        CHECK(got.ended);
        REQUIRE(got.errors.size() == 1);
        CHECK_THAT(got.errors[0],
                   Catch::StartsWith("Caught RuntimeError in DataLoader worker process 0.") &&
                       Catch::EndsWith("RuntimeError: Error in worker_init_fn"));
        CHECK(sorted(got.values) == std::vector<std::int64_t>{5, 6, 7, 8, 9});
    }
    SECTION("begin() fails in every worker: one error from each, then the end") {
        for (int workers : {0, 1, 3}) {
            CAPTURE(workers);
            DataLoader loader(BadIter{}, {.num_workers = workers});
            std::vector<std::string> errors;
            bool ended = false;
            auto it = loader.begin();
            for (int call = 0; call < 1000 && !ended; ++call) {
                try {
                    ended = !it.next().has_value();
                } catch (const RuntimeError& e) {
                    errors.emplace_back(e.what());
                }
            }
            CHECK(ended);
            CHECK(errors.size() == static_cast<std::size_t>(std::max(workers, 1)));
            for (const auto& e : errors)
                CHECK_THAT(e, Catch::EndsWith("Error in __iter__"));
        }
    }
    SECTION("persistent workers: the same in every epoch") {
        DataLoader loader(ShardedStream{10}, {.batch_size = 2,
                                              .num_workers = 2,
                                              .worker_init_fn =
                                                  [](int id) {
                                                      if (id == 1)
                                                          throw RuntimeError("no start");
                                                  },
                                              .persistent_workers = true});
        for (int epoch = 0; epoch < 3; ++epoch) {
            CAPTURE(epoch);
            const auto got = read_skipping_errors(loader);
            CHECK(got.ended);
            CHECK(got.errors.size() == 1);
            CHECK(sorted(got.values) == iota(5));
        }
    }
}

TEST_CASE("a sampler that raises: its batches so far, its error once, the end (issue 8)") {
    for (int workers : {0, 1, 2, 4}) {
        CAPTURE(workers);
        SECTION("a sampler: the incomplete batch it was building is lost with it") {
            DataLoader loader(
                Range{10},
                {.batch_size = 2, .sampler = FailingSampler{10, 5}, .num_workers = workers});
            const auto got = read_skipping_errors(loader);
            CHECK(got.ended);
            CHECK(got.values == iota(4));
            CHECK(got.errors == std::vector<std::string>{"sampler failed at 5"});
        }
        SECTION("a batch sampler") {
            DataLoader loader(Range{10},
                              {.batch_sampler = FailingBatchSampler{2}, .num_workers = workers});
            const auto got = read_skipping_errors(loader);
            CHECK(got.ended);
            CHECK(got.values == iota(4));
            CHECK(got.errors == std::vector<std::string>{"batch sampler failed at 2"});
        }
        SECTION("without automatic batching") {
            DataLoader loader(Range{10},
                              DataLoaderOptions<DefaultConvert>{.sampler = FailingSampler{10, 3},
                                                                .num_workers = workers});
            std::vector<std::int64_t> values;
            std::vector<std::string> errors;
            bool ended = false;
            auto it = loader.begin();
            for (int call = 0; call < 1000 && !ended; ++call) {
                try {
                    if (auto x = it.next())
                        values.push_back(*x);
                    else
                        ended = true;
                } catch (const ValueError& e) {
                    errors.emplace_back(e.what());
                }
            }
            CHECK(ended);
            CHECK(values == iota(3));
            CHECK(errors == std::vector<std::string>{"sampler failed at 3"});
        }
    }
}

TEST_CASE("loaders started on two threads at once draw from the default generator safely "
          "(issue 8)") {
    // Without a .generator each epoch draws its base seed, and a shuffling sampler its order,
    // from default_generator(): unguarded, data_dataloader_tsan_test reports the race.
    constexpr int epochs = 20;
    std::vector<int> good(2, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t)
        threads.emplace_back([&good, t] {
            for (int epoch = 0; epoch < epochs; ++epoch) {
                DataLoader shuffled(Range{16}, {.batch_size = 4, .shuffle = true});
                DataLoader subset(Range{16},
                                  {.batch_size = 4, .sampler = SubsetRandomSampler(iota(16))});
                DataLoader threaded(Range{16},
                                    {.batch_size = 4, .shuffle = true, .num_workers = 1});
                // No Catch2 assertion here: Catch2 is not thread-safe.
                if (sorted(flatten(shuffled)) == iota(16) && sorted(flatten(subset)) == iota(16) &&
                    sorted(flatten(threaded)) == iota(16))
                    ++good[static_cast<std::size_t>(t)];
            }
        });
    for (auto& t : threads)
        t.join();
    CHECK(good == std::vector<int>{epochs, epochs});
}

TEST_CASE("extreme batch_size and prefetch_factor (issue 8)") {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    SECTION("batch_size near INT64_MAX: one batch of everything, len 1") {
        for (std::int64_t bs : {max, max - 1}) {
            CAPTURE(bs);
            DataLoader map(Range{10}, {.batch_size = bs});
            CHECK(map.size() == 1);
            CHECK(DataLoader(Range{10}, {.batch_size = bs, .drop_last = true}).size() == 0);
            CHECK(flatten(map) == iota(10));
            for (int workers : {0, 2}) {
                DataLoader stream(SizedStream{{10, false}},
                                  {.batch_size = bs, .num_workers = workers});
                CHECK(stream.size() == 1);
                const auto got = flatten(stream); // each worker streams it all, unsharded
                CHECK(got.size() == static_cast<std::size_t>(10 * std::max(workers, 1)));
            }
        }
    }
    SECTION("a prefetch_factor whose requests cannot all be queued is refused") {
        const auto refused = [](std::int64_t prefetch, int workers) {
            return DataLoader(Range{10}, {.num_workers = workers, .prefetch_factor = prefetch});
        };
        CHECK_THROWS_AS(refused(std::int64_t{1} << 40, 2), ValueError);
        CHECK_THROWS_WITH(refused(std::int64_t{1} << 40, 2),
                          "prefetch_factor * num_workers (the batches requested ahead) should be "
                          "at most 65536, but got prefetch_factor=1099511627776 and "
                          "num_workers=2");
        CHECK_THROWS_AS(refused(max, 3), ValueError); // max * 3 must not overflow first
        CHECK_THROWS_AS(refused(32769, 2), ValueError);
        // Within the bound, requests stop with the sampler: 10 batches, not 65536.
        DataLoader loader(Range{10}, {.num_workers = 2, .prefetch_factor = 32768});
        CHECK(flatten(loader) == iota(10));
    }
}

TEST_CASE("persistent_workers: a second begin() restarts the one iterator, as PyTorch's _reset "
          "(issue 8)") {
    DataLoader loader(Range{8}, {.batch_size = 2, .num_workers = 2, .persistent_workers = true});
    auto first = loader.begin();
    auto a = first.next();
    REQUIRE(a);
    CHECK((*a)(0) == 0);
    auto second = loader.begin(); // PyTorch: iter(loader) is the first iterator, reset
    std::vector<std::int64_t> from_first;
    auto b = first.next();
    REQUIRE(b); // not silently ended: the new epoch's first batch
    CHECK((*b)(0) == 0);
    auto c = second.next();
    REQUIRE(c); // the same iterator: it moves on
    CHECK((*c)(0) == 2);
    while (auto x = first.next())
        for (std::int64_t i = 0; i < x->numel(); ++i)
            from_first.push_back((*x)(i));
    CHECK(from_first == std::vector<std::int64_t>{4, 5, 6, 7});
    CHECK_FALSE(second.next().has_value());
    // Once the iterator is gone, begin() starts a fresh one; the workers' state is kept.
    for (int epoch = 0; epoch < 2; ++epoch)
        CHECK(flatten(loader) == iota(8));
}

TEST_CASE("more workers than usable cores: PyTorch's warning, once per process (issue 8)") {
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
    const int cores = CPU_COUNT(&set);
#else
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
#endif
    // More than any other test here uses, so that no earlier warning has this text.
    const int workers = cores + 7;
    capture_cerr captured;
    for (int round = 0; round < 2; ++round) {
        DataLoader loader(Range{4}, {.batch_size = 1, .num_workers = workers});
        CHECK(flatten(loader) == iota(4));
        CHECK(flatten(loader) == iota(4));
    }
    DataLoader fine(Range{4}, {.batch_size = 1, .num_workers = 1});
    CHECK(flatten(fine) == iota(4));
    const std::string text = captured.text();
    const std::string expected =
        "UserWarning: This DataLoader will create " + std::to_string(workers) +
        " worker threads in total. Our suggested max number of worker in current system is " +
        std::to_string(cores) +
#if !defined(__linux__)
        " (`cpuset` is not taken into account)" +
#endif
        ", which is smaller than what this DataLoader is going to create. Please be aware that "
        "excessive worker creation might get DataLoader running slow or even freeze, lower the "
        "worker number to avoid potential slowness/freeze if necessary.\n";
    CHECK(occurrences(text, expected) == 1);
    CHECK(occurrences(text, "UserWarning") == 1);
}
