// Samplers: ported from PyTorch's test/test_dataloader.py (test_random_sampler,
// test_random_sampler_len_with(out)_replacement, test_batch_sampler, test_DistributedSampler_*,
// the samplers' argument checks) plus distribution checks of staticpy's own draws.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::data;

namespace {

struct Range {
    std::int64_t n = 0;
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const { return i; }
};

template <class S>
std::vector<std::int64_t> collect(const S& sampler) {
    std::vector<std::int64_t> out;
    for (auto i : sampler)
        out.push_back(static_cast<std::int64_t>(i));
    return out;
}

/// PyTorch's sample_stat: (how many indices repeat, min, max, count).
struct Stat {
    std::int64_t repeated = 0, min = 0, max = 0, total = 0;
};
template <class S>
Stat sample_stat(const S& sampler) {
    std::map<std::int64_t, std::int64_t> counts;
    for (auto i : sampler)
        ++counts[i];
    Stat s;
    for (auto [k, c] : counts) {
        s.repeated += c > 1;
        s.total += c;
    }
    s.min = counts.begin()->first;
    s.max = counts.rbegin()->first;
    return s;
}

} // namespace

TEST_CASE("concepts: ranges of indices are samplers, ranges of index lists batch samplers") {
    STATIC_REQUIRE(Sampler<SequentialSampler>);
    STATIC_REQUIRE(Sampler<RandomSampler<>>);
    STATIC_REQUIRE(Sampler<SubsetRandomSampler>);
    STATIC_REQUIRE(Sampler<WeightedRandomSampler<>>);
    STATIC_REQUIRE(Sampler<DistributedSampler>);
    STATIC_REQUIRE(Sampler<std::vector<std::int64_t>>);
    STATIC_REQUIRE(Sampler<std::array<int, 3>>);
    STATIC_REQUIRE(!Sampler<std::vector<double>>);
    STATIC_REQUIRE(BatchSamplerLike<BatchSampler<SequentialSampler>>);
    STATIC_REQUIRE(BatchSamplerLike<std::vector<std::vector<std::int64_t>>>);
    STATIC_REQUIRE(!BatchSamplerLike<SequentialSampler>);
    STATIC_REQUIRE(std::forward_iterator<SequentialSampler::iterator>);
    STATIC_REQUIRE(std::forward_iterator<data::detail::index_iterator>);
}

TEST_CASE("SequentialSampler") {
    CHECK(collect(SequentialSampler(Range{5})) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
    CHECK(SequentialSampler(std::vector<int>(7)).size() == 7);
    CHECK(collect(SequentialSampler(0)).empty());
    CHECK(staticpy::len(SequentialSampler(3)) == 3);
}

TEST_CASE("RandomSampler: PyTorch's test_random_sampler") {
    const Range dataset{100};
    Generator g(0);
    SECTION("with replacement, n + 1 samples: some repeat, all in range") {
        RandomSampler s(dataset, true, dataset.n + 1, g);
        const auto st = sample_stat(s);
        CHECK(st.repeated > 0);
        CHECK(st.min >= 0);
        CHECK(st.max < dataset.n);
        CHECK(st.total == dataset.n + 1);
    }
    SECTION("without replacement, default num_samples: a permutation") {
        RandomSampler s(dataset, g);
        const auto st = sample_stat(s);
        CHECK(st.repeated == 0);
        CHECK(st.min == 0);
        CHECK(st.max == dataset.n - 1);
        CHECK(st.total == dataset.n);
        CHECK(s.size() == 100);
    }
    SECTION("without replacement, 2n samples: every index twice") {
        RandomSampler s(dataset, false, 2 * dataset.n, g);
        const auto st = sample_stat(s);
        CHECK(st.repeated == dataset.n);
        CHECK(st.min == 0);
        CHECK(st.max == dataset.n - 1);
        CHECK(st.total == 2 * dataset.n);
        auto idx = collect(s);
        std::sort(idx.begin(), idx.begin() + 100);
        for (std::int64_t i = 0; i < 100; ++i)
            CHECK(idx[static_cast<std::size_t>(i)] == i); // the first n are one permutation
    }
    SECTION("without replacement, n - 1 samples: no repeats") {
        RandomSampler s(dataset, false, dataset.n - 1, g);
        const auto st = sample_stat(s);
        CHECK(st.repeated == 0);
        CHECK(st.min >= 0);
        CHECK(st.max < dataset.n);
        CHECK(st.total == dataset.n - 1);
    }
    SECTION("without replacement, n + 1 samples: one repeat") {
        RandomSampler s(dataset, false, dataset.n + 1, g);
        const auto st = sample_stat(s);
        CHECK(st.repeated == 1);
        CHECK(st.min == 0);
        CHECK(st.max == dataset.n - 1);
        CHECK(st.total == dataset.n + 1);
    }
    SECTION("len with and without replacement (n + 5)") {
        for (bool replacement : {true, false}) {
            RandomSampler s(dataset, replacement, dataset.n + 5, g);
            CHECK(s.size() == dataset.n + 5);
            CHECK(static_cast<std::int64_t>(collect(s).size()) == dataset.n + 5);
            CHECK(BatchSampler(s, 6, false).size() == 18); // ceil(105 / 6)
        }
    }
    SECTION("num_samples must be positive") {
        CHECK_THROWS_AS(RandomSampler(dataset, false, 0), ValueError);
        CHECK_THROWS_WITH(RandomSampler(dataset, false, 0),
                          "num_samples should be a positive integer value, but got num_samples=0");
        CHECK_THROWS_WITH(RandomSampler(Range{0}),
                          "num_samples should be a positive integer value, but got num_samples=0");
        CHECK_THROWS_WITH(RandomSampler(dataset, true, -3),
                          "num_samples should be a positive integer value, but got num_samples=-3");
    }
}

TEST_CASE("RandomSampler: reproducible from a seed, fresh each epoch") {
    const Range dataset{50};
    Generator g1(123);
    Generator g2(123);
    Generator g3(124);
    RandomSampler a(dataset, g1);
    RandomSampler b(dataset, g2);
    RandomSampler c(dataset, g3);
    const auto a1 = collect(a);
    CHECK(a1 == collect(b));
    CHECK(a1 != collect(c));
    CHECK(collect(a) != a1); // the shared generator moved on: a new epoch, a new order
    RandomSampler w1(dataset, true, 30, g1);
    Generator g4(123);
    (void)collect(RandomSampler(dataset, g4)); // bring g4 to g1's state
    (void)collect(RandomSampler(dataset, g4));
    CHECK(collect(w1) == collect(RandomSampler(dataset, true, 30, g4)));

    // No generator: one seed from the default generator per iteration (PyTorch's rule).
    manual_seed(5);
    const auto d1 = collect(RandomSampler(dataset));
    manual_seed(5);
    CHECK(collect(RandomSampler(dataset)) == d1);
}

TEST_CASE("RandomSampler: shuffles are uniform permutations") {
    // All 6 orders of 3 items, 6000 draws: each expected 1000 times. Chi-square with 5 degrees of
    // freedom: 20.5 is its 0.999 quantile (fixed seed, so the check is deterministic).
    Generator g(2024);
    RandomSampler s(3, g);
    std::map<std::vector<std::int64_t>, int> counts;
    for (int k = 0; k < 6000; ++k)
        ++counts[collect(s)];
    REQUIRE(counts.size() == 6);
    double chi2 = 0;
    for (const auto& [order, c] : counts)
        chi2 += (c - 1000.0) * (c - 1000.0) / 1000.0;
    CHECK(chi2 < 20.5);
    // With replacement: each of 4 values equally likely.
    std::array<int, 4> hist{};
    for (auto i : RandomSampler(4, true, 8000, g))
        ++hist[static_cast<std::size_t>(i)];
    chi2 = 0;
    for (int c : hist)
        chi2 += (c - 2000.0) * (c - 2000.0) / 2000.0;
    CHECK(chi2 < 16.3); // 3 degrees of freedom, 0.999 quantile
}

TEST_CASE("SubsetRandomSampler") {
    Generator g(9);
    SubsetRandomSampler s({10, 20, 30, 40}, g);
    CHECK(s.size() == 4);
    auto got = collect(s);
    std::sort(got.begin(), got.end());
    CHECK(got == std::vector<std::int64_t>{10, 20, 30, 40});
    Generator g2(9);
    Generator g3(9);
    CHECK(collect(SubsetRandomSampler(std::array<int, 5>{1, 2, 3, 4, 5}, g2)) ==
          collect(SubsetRandomSampler({1, 2, 3, 4, 5}, g3)));
    manual_seed(1);
    const auto d = collect(SubsetRandomSampler({1, 2, 3, 4, 5, 6, 7}));
    manual_seed(1);
    CHECK(collect(SubsetRandomSampler({1, 2, 3, 4, 5, 6, 7})) == d);
}

TEST_CASE("WeightedRandomSampler: the weights' distribution") {
    Generator g(77);
    const std::vector<double> weights{1, 2, 3, 4, 0};
    WeightedRandomSampler s(weights, 20000, true, g);
    CHECK(s.size() == 20000);
    std::array<int, 5> hist{};
    for (auto i : s)
        ++hist[static_cast<std::size_t>(i)];
    CHECK(hist[4] == 0); // zero weight: never drawn
    double chi2 = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const double expected = 20000.0 * weights[i] / 10.0;
        chi2 += (hist[i] - expected) * (hist[i] - expected) / expected;
    }
    CHECK(chi2 < 16.3); // 3 degrees of freedom, 0.999 quantile

    SECTION("without replacement: distinct, and the heavy ones first") {
        Generator h(5);
        WeightedRandomSampler d({1.0, 1.0, 1.0, 1000.0, 1.0, 0.0}, 5, false, h);
        for (int epoch = 0; epoch < 20; ++epoch) {
            const auto got = collect(d);
            CHECK(std::set<std::int64_t>(got.begin(), got.end()).size() == 5);
            CHECK(std::find(got.begin(), got.end(), 5) == got.end());
        }
        int heavy_first = 0;
        for (int k = 0; k < 200; ++k)
            heavy_first += collect(d)[0] == 3;
        CHECK(heavy_first > 190);
    }
    SECTION("reproducible") {
        Generator a(1);
        Generator b(1);
        CHECK(collect(WeightedRandomSampler({0.2, 0.5, 0.3}, 50, true, a)) ==
              collect(WeightedRandomSampler({0.2, 0.5, 0.3}, 50, true, b)));
    }
}

TEST_CASE("WeightedRandomSampler: PyTorch's errors") {
    CHECK_THROWS_AS(WeightedRandomSampler({1.0, 2.0}, 0), ValueError);
    CHECK_THROWS_WITH(WeightedRandomSampler({1.0, 2.0}, 0),
                      "num_samples should be a positive integer value, but got num_samples=0");
    CHECK_THROWS_WITH(WeightedRandomSampler({1.0, 2.0}, -1),
                      "num_samples should be a positive integer value, but got num_samples=-1");
    // The weights are checked when iterating, as torch.multinomial checks them.
    Generator g(0);
    WeightedRandomSampler negative({1.0, -2.0}, 3, true, g);
    CHECK_THROWS_AS(collect(negative), RuntimeError);
    CHECK_THROWS_WITH(collect(negative),
                      "invalid multinomial distribution (encountering probability entry < 0)");
    CHECK_THROWS_WITH(collect(WeightedRandomSampler({1.0, INFINITY}, 3)),
                      "invalid multinomial distribution (encountering probability entry = "
                      "infinity or NaN)");
    CHECK_THROWS_WITH(collect(WeightedRandomSampler({0.0, 0.0}, 3)),
                      "invalid multinomial distribution (sum of probabilities <= 0)");
    CHECK_THROWS_WITH(collect(WeightedRandomSampler({1.0, -1.0}, 1, false)),
                      "probability tensor contains either `inf`, `nan` or element < 0");
    CHECK_THROWS_WITH(collect(WeightedRandomSampler({1.0, INFINITY}, 1)),
                      "probability tensor contains either `inf`, `nan` or element < 0");
    CHECK_THROWS_WITH(collect(WeightedRandomSampler({0.0, 0.0}, 2, false)),
                      "invalid multinomial distribution (sum of probabilities <= 0)");
    CHECK_THROWS_WITH(collect(WeightedRandomSampler({1.0, 1.0}, 3, false)),
                      "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
}

TEST_CASE("BatchSampler: lengths and batches") {
    // PyTorch's test_len: 100 items, batch sizes 2 and 3.
    const Range dataset{100};
    CHECK(BatchSampler(SequentialSampler(dataset), 2, false).size() == 50);
    CHECK(BatchSampler(SequentialSampler(dataset), 3, false).size() == 34);
    CHECK(BatchSampler(SequentialSampler(dataset), 2, true).size() == 50);
    CHECK(BatchSampler(SequentialSampler(dataset), 3, true).size() == 33);
    for (bool drop_last : {false, true}) {
        for (int bs : {2, 3}) {
            BatchSampler s(SequentialSampler(dataset), bs, drop_last);
            std::int64_t batches = 0;
            std::int64_t next = 0;
            for (const auto& batch : s) {
                ++batches;
                for (auto i : batch)
                    CHECK(i == next++);
                CHECK(static_cast<int>(batch.size()) <= bs);
            }
            CHECK(batches == s.size());
            CHECK(next == (drop_last ? 99 * (bs == 3) + 100 * (bs == 2) : 100));
        }
    }
    std::vector<std::vector<std::int64_t>> got;
    for (const auto& b : BatchSampler(SequentialSampler(10), 3, false))
        got.push_back(b);
    CHECK(got == std::vector<std::vector<std::int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}});
    got.clear();
    for (const auto& b : BatchSampler(std::vector<std::int64_t>{5, 4, 3, 2}, 3, true))
        got.push_back(b);
    CHECK(got == std::vector<std::vector<std::int64_t>>{{5, 4, 3}});
}

TEST_CASE("BatchSampler: len with a batch_size near INT64_MAX does not overflow") {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t bs : {max, max - 1, max / 2 + 1}) {
        CAPTURE(bs);
        CHECK(BatchSampler(SequentialSampler(10), bs, false).size() == 1);
        CHECK(BatchSampler(SequentialSampler(10), bs, true).size() == 0);
        CHECK(BatchSampler(SequentialSampler(0), bs, false).size() == 0);
    }
    std::vector<std::vector<std::int64_t>> got;
    for (const auto& b : BatchSampler(SequentialSampler(3), max, false))
        got.push_back(b);
    CHECK(got == std::vector<std::vector<std::int64_t>>{{0, 1, 2}});
}

TEST_CASE("BatchSampler: over a random sampler, referenced or owned") {
    Generator g(3);
    RandomSampler inner(Range{10}, g);
    BatchSampler bs(inner, 4, false);
    STATIC_REQUIRE(std::is_same_v<decltype(bs), BatchSampler<RandomSampler<>&>>);
    CHECK(&bs.sampler() == &inner);
    std::vector<std::int64_t> all;
    for (const auto& b : bs)
        all.insert(all.end(), b.begin(), b.end());
    std::sort(all.begin(), all.end());
    CHECK(all == collect(SequentialSampler(10)));
    CHECK(bs.batch_size() == 4);
    CHECK(!bs.drop_last());
}

TEST_CASE("BatchSampler: PyTorch's argument checks") {
    CHECK_THROWS_AS(BatchSampler(SequentialSampler(10), 0, false), ValueError);
    CHECK_THROWS_WITH(BatchSampler(SequentialSampler(10), 0, false),
                      "batch_size should be a positive integer value, but got batch_size=0");
    CHECK_THROWS_WITH(BatchSampler(SequentialSampler(10), -1, false),
                      "batch_size should be a positive integer value, but got batch_size=-1");
}

TEST_CASE("DistributedSampler: PyTorch's strided split and padding") {
    const auto share = [](std::int64_t n, std::int64_t replicas, std::int64_t rank,
                          bool drop_last) {
        return collect(DistributedSampler(n, replicas, rank, false, 0, drop_last));
    };
    using V = std::vector<std::int64_t>;
    CHECK(share(10, 4, 0, false) == V{0, 4, 8});
    CHECK(share(10, 4, 1, false) == V{1, 5, 9});
    CHECK(share(10, 4, 2, false) == V{2, 6, 0});
    CHECK(share(10, 4, 3, false) == V{3, 7, 1});
    CHECK(share(10, 4, 0, true) == V{0, 4});
    CHECK(share(10, 4, 1, true) == V{1, 5});
    CHECK(share(10, 4, 2, true) == V{2, 6});
    CHECK(share(10, 4, 3, true) == V{3, 7});
    CHECK(share(12, 4, 1, true) == V{1, 5, 9}); // divisible: nothing dropped
    // More replicas than items: the list is repeated to fill (indices * ceil(padding / len)).
    CHECK(share(3, 8, 5, false) == V{2});
    CHECK(share(3, 8, 7, false) == V{1});
    CHECK(share(3, 8, 0, true).empty());
    DistributedSampler s(10, 4, 2, false, 0, false);
    CHECK(s.size() == 3);
    CHECK(s.num_samples == 3);
    CHECK(s.total_size == 12);
    DistributedSampler d(Range{10}, 4, 2, false, 0, true);
    CHECK(d.size() == 2);
    CHECK(d.total_size == 8);
}

TEST_CASE("DistributedSampler: shuffled shares cover the dataset, set_epoch reshuffles") {
    const std::int64_t n = 23;
    const std::int64_t replicas = 4;
    const auto epoch_indices = [&](std::int64_t epoch, std::int64_t seed) {
        std::vector<std::int64_t> all;
        for (std::int64_t r = 0; r < replicas; ++r) {
            DistributedSampler s(n, replicas, r, true, seed, false);
            s.set_epoch(epoch);
            CHECK(s.epoch == epoch);
            const auto mine = collect(s);
            CHECK(static_cast<std::int64_t>(mine.size()) == s.num_samples);
            all.insert(all.end(), mine.begin(), mine.end());
        }
        return all;
    };
    const auto e0 = epoch_indices(0, 0);
    CHECK(e0.size() == 24);
    CHECK(std::set<std::int64_t>(e0.begin(), e0.end()).size() == 23); // one padded repeat
    CHECK(epoch_indices(0, 0) == e0);                                 // deterministic
    CHECK(epoch_indices(1, 0) != e0);                                 // set_epoch
    CHECK(epoch_indices(0, 1) != e0);                                 // seed
    DistributedSampler s(n, replicas, 0);
    CHECK(collect(s) == collect(s)); // without set_epoch, the same order each time
}

TEST_CASE("DistributedSampler: len with num_replicas near INT64_MAX does not overflow") {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    CHECK(DistributedSampler(10, max, 0, false).size() == 1);          // ceil(10 / max)
    CHECK(DistributedSampler(10, max - 1, 3, false).size() == 1);      // ceil(10 / (max - 1))
    CHECK(DistributedSampler(10, max, 0, false, 0, true).size() == 0); // ceil((10 - max) / max)
    CHECK(DistributedSampler(10, 4, 0, false, 0, true).size() == 2);   // ceil((10 - 4) / 4)
}

TEST_CASE("DistributedSampler: PyTorch's rank check") {
    CHECK_THROWS_AS(DistributedSampler(10, 4, 5), ValueError);
    CHECK_THROWS_WITH(DistributedSampler(10, 4, 5),
                      "Invalid rank 5, rank should be in the interval [0, 3]");
    CHECK_THROWS_WITH(DistributedSampler(10, 4, -1),
                      "Invalid rank -1, rank should be in the interval [0, 3]");
    CHECK_THROWS_WITH(DistributedSampler(10, 4, 4),
                      "Invalid rank 4, rank should be in the interval [0, 3]");
}
