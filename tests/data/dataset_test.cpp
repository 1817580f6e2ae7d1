// Datasets: ported from PyTorch's test/test_dataloader.py (TestConcatDataset, TestStackDataset,
// TestTensorDataset, TestDatasetRandomSplit) where they apply, plus the C++ forms.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

namespace {

/// Python's range(n) as a map dataset (deriving from Dataset for `+`).
struct Range : Dataset {
    std::int64_t n = 0;
    std::int64_t start = 0;
    Range() = default;
    explicit Range(std::int64_t len, std::int64_t first = 0) : n(len), start(first) {}
    [[nodiscard]] std::int64_t size() const { return n; }
    [[nodiscard]] std::int64_t operator[](std::int64_t i) const { return start + i; }
};

/// A map dataset through get() instead of operator[], with no base class.
struct Letters {
    [[nodiscard]] std::size_t size() const { return 3; }
    [[nodiscard]] std::string get(std::int64_t i) const {
        return std::string(1, static_cast<char>('a' + i));
    }
};

template <class D>
std::vector<std::int64_t> items(const D& ds) {
    std::vector<std::int64_t> out;
    for (std::int64_t i = 0; i < ds.size(); ++i)
        out.push_back(static_cast<std::int64_t>(ds[i]));
    return out;
}

} // namespace

TEST_CASE("concepts: any type with size() and [] or get() is a map dataset") {
    STATIC_REQUIRE(MapDataset<Range>);
    STATIC_REQUIRE(MapDataset<Letters>);
    STATIC_REQUIRE(MapDataset<std::vector<int>>);
    STATIC_REQUIRE(!MapDataset<int>);
    STATIC_REQUIRE(!MapDataset<Tensor<float, dynamic_shape<2>>>); // size() is a shape
    STATIC_REQUIRE(IterableDataset<std::vector<int>>);
    STATIC_REQUIRE(!IterableDataset<Range>);
    STATIC_REQUIRE(std::is_same_v<sample_t<Letters>, std::string>);
    Letters l;
    CHECK(getitem(l, 1) == "b");
}

TEST_CASE("TensorDataset: rows as views, PyTorch's errors") {
    auto x = arange<float>(0, 12).reshape(4, 3).contiguous();
    auto y = arange<std::int64_t>(0, 4);
    TensorDataset ds(x, y);
    CHECK(ds.size() == 4);
    STATIC_REQUIRE(MapDataset<decltype(ds)>);
    auto [row, label] = ds[2];
    CHECK(row(0) == 6.f);
    CHECK(row(2) == 8.f);
    CHECK(label.item() == 2);
    row(1) = 100.f; // a view: writes through, as x[2] in PyTorch
    CHECK(x(2, 1) == 100.f);
    auto [last_row, last_label] = ds[-1];
    CHECK(last_row(0) == 9.f);
    CHECK(last_label.item() == 3);
    CHECK_THROWS_AS(ds[4], IndexError);
    CHECK_THROWS_WITH(ds[4], "index 4 is out of bounds for dimension 0 with size 4");
    CHECK_THROWS_AS(TensorDataset(x, arange<std::int64_t>(0, 5)), ValueError);
    CHECK_THROWS_WITH(TensorDataset(x, arange<std::int64_t>(0, 5)),
                      "Size mismatch between tensors");
    // A static first extent stays static in the rows' type.
    auto s = TensorDataset(zeros<float>(5_c, 2_c));
    STATIC_REQUIRE(
        std::is_same_v<std::tuple_element_t<0, decltype(s[0])>, Tensor<float, static_shape<2>>>);
}

TEST_CASE("StackDataset: tuple and dict forms, PyTorch's errors") {
    Range a(5);
    Range b(5, 10);
    auto t = StackDataset(a, b);
    CHECK(t.size() == 5);
    CHECK(t[1] == std::tuple<std::int64_t, std::int64_t>(1, 11));
    auto d = StackDataset("a"_s = std::ref(a), "b"_s = b);
    CHECK(d.size() == 5);
    auto s = d[-1];
    CHECK(s["a"_s] == -1);
    CHECK(s["b"_s] == 9);
    a.n = 6; // referenced (std::ref), not copied
    CHECK(StackDataset(a, Range(6)).size() == 6);

    // PyTorch's test_single_tensor / test_mixed: tensors beside other datasets.
    auto x = arange<float>(0, 3);
    auto mixed = StackDataset(TensorDataset(x), Letters{}, Range(3));
    CHECK(std::get<1>(mixed[2]) == "c");
    CHECK(std::get<0>(std::get<0>(mixed[2])).item() == 2.f);

    CHECK_THROWS_AS(StackDataset(Range(3), Range(4)), ValueError);
    CHECK_THROWS_WITH(StackDataset(Range(3), Range(4)), "Size mismatch between datasets");
    CHECK_THROWS_WITH(StackDataset("x"_s = Range(3), "y"_s = Range(2)),
                      "Size mismatch between datasets");
}

TEST_CASE("ConcatDataset: PyTorch's TestConcatDataset") {
    using V = std::vector<std::int64_t>;
    SECTION("two singletons") {
        auto result = ConcatDataset(std::vector<V>{{0}, {1}});
        CHECK(result.size() == 2);
        CHECK(result[0] == 0);
        CHECK(result[1] == 1);
    }
    SECTION("two non-singletons") {
        auto result = ConcatDataset(std::vector<V>{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}});
        CHECK(result.size() == 10);
        CHECK(result[0] == 0);
        CHECK(result[5] == 5);
    }
    SECTION("empty members are skipped") {
        auto result = ConcatDataset(std::vector<V>{{0, 1, 2, 3, 4}, {}, {5, 6, 7, 8, 9}});
        CHECK(result.size() == 10);
        CHECK(items(result) == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
        CHECK(result.cumulative_sizes == V{5, 5, 10});
        auto leading = ConcatDataset(std::vector<V>{{}, {}, {7}});
        CHECK(leading[0] == 7);
        CHECK(leading[-1] == 7);
    }
    SECTION("negative indices and errors") {
        auto result = ConcatDataset(std::vector<V>{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}});
        CHECK(result[-1] == 9);
        CHECK(result[-6] == 4);
        CHECK(result[-10] == 0);
        CHECK_THROWS_AS(result[-11], ValueError);
        CHECK_THROWS_WITH(result[-11], "absolute value of index should not exceed dataset length");
        CHECK_THROWS_AS(result[10], IndexError);
        CHECK_THROWS_WITH(result[11], "list index out of range");
        CHECK_THROWS_AS(ConcatDataset(std::vector<V>{}), ValueError);
        CHECK_THROWS_WITH(ConcatDataset(std::vector<V>{}),
                          "datasets should not be an empty iterable");
    }
    SECTION("lvalue members are referenced") {
        std::vector<Range> parts{Range(2), Range(3, 100)};
        auto result = ConcatDataset(parts);
        STATIC_REQUIRE(std::is_same_v<decltype(result), ConcatDataset<Range&>>);
        CHECK(items(result) == V{0, 1, 100, 101, 102});
    }
    SECTION("heterogeneous members: the common sample type") {
        std::vector<int> ints{1, 2};
        Range r(2, 10);
        auto result = ConcatDataset(std::tie(ints, r));
        STATIC_REQUIRE(std::is_same_v<decltype(result)::sample_type, std::int64_t>);
        CHECK(items(result) == V{1, 2, 10, 11});
        auto copied = ConcatDataset(list(Range(1), std::vector<double>{0.5}));
        CHECK(copied[1] == 0.5);
    }
    SECTION("add: PyTorch's test_add_dataset") {
        Generator g(0);
        auto d1 = TensorDataset(rand(7, 3, 4, g), rand(7, g));
        auto d2 = TensorDataset(rand(7, 3, 4, g), rand(7, g));
        auto d3 = TensorDataset(rand(7, 3, 4, g), rand(7, g));
        auto result = d1 + d2 + d3;
        CHECK(result.size() == 21);
        CHECK(std::get<0>(result[0]).allclose(std::get<0>(d1[0]), 0, 0));
        CHECK(std::get<0>(result[7]).allclose(std::get<0>(d2[0]), 0, 0));
        CHECK(std::get<0>(result[14]).allclose(std::get<0>(d3[0]), 0, 0));
        CHECK(std::get<1>(result[-1]).item() == std::get<1>(d3[6]).item());
        auto ranges = Range(2) + Range(1, 5);
        CHECK(items(ranges) == V{0, 1, 5});
    }
}

TEST_CASE("ChainDataset: iterable datasets one after another") {
    std::vector<std::vector<int>> parts{{1, 2}, {}, {3}, {}};
    std::vector<int> seen;
    for (int x : ChainDataset(parts))
        seen.push_back(x);
    CHECK(seen == std::vector<int>{1, 2, 3});
    CHECK(ChainDataset(parts).size() == 3);

    std::vector<int> a{1};
    std::vector<long> b{2, 3};
    auto chain = ChainDataset(std::tie(a, b));
    STATIC_REQUIRE(std::is_same_v<decltype(chain)::value_type, long>);
    STATIC_REQUIRE(std::ranges::input_range<decltype(chain)>);
    std::vector<long> got;
    for (long x : chain)
        got.push_back(x);
    CHECK(got == std::vector<long>{1, 2, 3});
    b.push_back(4); // referenced: iteration sees it
    got.clear();
    for (long x : chain)
        got.push_back(x);
    CHECK(got == std::vector<long>{1, 2, 3, 4});
    CHECK(chain.size() == 4);

    std::vector<std::vector<int>> none;
    CHECK(ChainDataset(none).begin() == std::default_sentinel);
}

TEST_CASE("Subset: indices into a dataset, Python list indexing") {
    Range r(10);
    auto s = Subset(r, {1, 3, 5});
    CHECK(s.size() == 3);
    CHECK(s[0] == 1);
    CHECK(s[-1] == 5);
    CHECK_THROWS_AS(s[3], IndexError);
    CHECK_THROWS_WITH(s[-4], "list index out of range");
    auto nested = Subset(s, {2, 0});
    CHECK(items(nested) == std::vector<std::int64_t>{5, 1});
    r.start = 100; // referenced
    CHECK(s[0] == 101);
    CHECK(&s.dataset() == &r);
}

TEST_CASE("random_split: PyTorch's TestDatasetRandomSplit") {
    SECTION("lengths must equal the dataset size") {
        CHECK_THROWS_AS(random_split(Range(4), {1, 2}), ValueError);
        CHECK_THROWS_WITH(random_split(Range(4), {1, 2}),
                          "Sum of input lengths does not equal the length of the input dataset!");
    }
    SECTION("splits have the right sizes") {
        auto splits = random_split(Range(6), {2, 4});
        REQUIRE(splits.size() == 2);
        CHECK(splits[0].size() == 2);
        CHECK(splits[1].size() == 4);
        splits = random_split(Range(6), {0.5, 0.5});
        CHECK(splits[0].size() == 3);
        CHECK(splits[1].size() == 3);
        Generator g1(1);
        CHECK(random_split(Range(3), {0.5, 0.5}, g1).size() == 2);
        Generator g(1);
        auto odd = random_split(Range(106), {0.1, 0.2, 0.3, 0.4}, g);
        REQUIRE(odd.size() == 4);
        CHECK(odd[0].size() == 11);
        CHECK(odd[1].size() == 22);
        CHECK(odd[2].size() == 31);
        CHECK(odd[3].size() == 42);
        std::vector<std::int64_t> all;
        for (const auto& s : odd)
            for (std::int64_t i = 0; i < s.size(); ++i)
                all.push_back(s[i]);
        std::sort(all.begin(), all.end());
        std::vector<std::int64_t> expected(106);
        for (std::int64_t i = 0; i < 106; ++i)
            expected[static_cast<std::size_t>(i)] = i;
        CHECK(all == expected); // disjoint and covering
    }
    SECTION("splits are mutually exclusive") {
        std::vector<int> data{5, 2, 3, 4, 1, 6};
        for (const std::vector<double>& lengths :
             {std::vector<double>{2, 4}, std::vector<double>{0.33, 0.67}}) {
            auto splits = random_split(data, lengths);
            std::vector<int> values;
            for (const auto& s : splits)
                for (std::int64_t i = 0; i < s.size(); ++i)
                    values.push_back(s[i]);
            std::sort(values.begin(), values.end());
            CHECK(values == std::vector<int>{1, 2, 3, 4, 5, 6});
        }
    }
    SECTION("reproducible from a generator") {
        const auto lists = [](std::uint64_t seed, std::vector<double> lengths) {
            Generator g(seed);
            std::vector<std::vector<std::int64_t>> out;
            for (const auto& s : random_split(Range(100), lengths, g))
                out.push_back(s.indices);
            return out;
        };
        CHECK(lists(42, {60, 40}) == lists(42, {60, 40}));
        CHECK(lists(42, {0.5, 0.5}) == lists(42, {0.5, 0.5}));
        CHECK(lists(42, {0.33, 0.33, 0.34}) == lists(42, {0.33, 0.33, 0.34}));
        CHECK(lists(42, {60, 40}) != lists(43, {60, 40}));
    }
    SECTION("incomplete or out-of-range fractions") {
        CHECK_THROWS_AS(random_split(Range(4), {0.1}), ValueError);
        CHECK_THROWS_AS(random_split(Range(4), {1.1}), ValueError);
        CHECK_THROWS_WITH(random_split(Range(4), {1.1}),
                          "Sum of input lengths does not equal the length of the input dataset!");
        CHECK_THROWS_AS(random_split(Range(4), {1.5, -0.5}), ValueError);
        CHECK_THROWS_WITH(random_split(Range(4), {1.5, -0.5}),
                          "Fraction at index 0 is not between 0 and 1");
        CHECK_THROWS_WITH(random_split(Range(4), {0.5, 1.5, -1.0}),
                          "Fraction at index 1 is not between 0 and 1");
    }
    SECTION("an empty split warns, as PyTorch") {
        std::ostringstream captured;
        auto* old = std::cerr.rdbuf(captured.rdbuf());
        auto splits = random_split(Range(2), {0.0, 1.0});
        std::cerr.rdbuf(old);
        CHECK(splits[0].size() == 0);
        CHECK(splits[1].size() == 2);
        CHECK(captured.str() == "UserWarning: Length of split at index 0 is 0. This might "
                                "result in an empty dataset.\n");
    }
    SECTION("without a generator, the default generator advances") {
        manual_seed(7);
        const auto first = random_split(Range(10), {5, 5})[0].indices;
        manual_seed(7);
        CHECK(random_split(Range(10), {5, 5})[0].indices == first);
        Generator g(3);
        manual_seed(7);
        (void)random_split(Range(10), {5, 5}, g);
        CHECK(default_generator().next_u64() == Generator(7).next_u64());
    }
    SECTION("an rvalue dataset is shared by its subsets") {
        Generator g(0);
        auto parts = random_split(std::vector<int>{10, 11, 12, 13}, {2, 2}, g);
        CHECK(&parts[0].dataset() == &parts[1].dataset());
        std::set<int> seen;
        for (const auto& p : parts)
            for (std::int64_t i = 0; i < p.size(); ++i)
                seen.insert(p[i]);
        CHECK(seen == std::set<int>{10, 11, 12, 13});
    }
}

TEST_CASE("random_split: an empty split warns once per process, as Python's warnings") {
    std::ostringstream captured;
    auto* old = std::cerr.rdbuf(captured.rdbuf());
    for (int round = 0; round < 3; ++round)
        (void)random_split(Range(2), {0.5, 0.5, 0.0, 0.0});
    std::cerr.rdbuf(old);
    CHECK(captured.str() == "UserWarning: Length of split at index 2 is 0. This might result in an "
                            "empty dataset.\nUserWarning: Length of split at index 3 is 0. This "
                            "might result in an empty dataset.\n");
}
