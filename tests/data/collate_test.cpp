// Collation: PyTorch's default_collate / default_convert tests (test_dataloader.py's
// TestDefaultCollate and the collation parts of TestDataLoader), in their C++ forms.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

TEST_CASE("default_collate: numbers become 1-D tensors of Python's types") {
    STATIC_REQUIRE(std::is_same_v<collate_t<int>, Tensor<std::int64_t, dynamic_shape<1>>>);
    STATIC_REQUIRE(std::is_same_v<collate_t<long>, Tensor<std::int64_t, dynamic_shape<1>>>);
    STATIC_REQUIRE(std::is_same_v<collate_t<double>, Tensor<double, dynamic_shape<1>>>);
    STATIC_REQUIRE(std::is_same_v<collate_t<float>, Tensor<float, dynamic_shape<1>>>);
    STATIC_REQUIRE(std::is_same_v<collate_t<bool>, Tensor<bool, dynamic_shape<1>>>);
    STATIC_REQUIRE(std::is_same_v<collate_t<std::uint8_t>, Tensor<std::uint8_t, dynamic_shape<1>>>);

    const auto ints = default_collate(std::vector<int>{1, 2, 3});
    CHECK(ints.dtype() == int64);
    CHECK(ints.sizes()[0] == 3);
    CHECK(ints(2) == 3);
    const auto floats = default_collate(std::vector<double>{0.5, 1.5});
    CHECK(floats.dtype() == float64);
    CHECK(floats(1) == 1.5);
    const auto flags = default_collate(std::vector<bool>{true, false});
    CHECK(flags.dtype() == boolean);
    CHECK(flags(0));
    CHECK_FALSE(flags(1));
}

TEST_CASE("default_collate: tensors are stacked along a new first dimension") {
    std::vector<Tensor<float, static_shape<2, 3>>> samples;
    for (int i = 0; i < 4; ++i)
        samples.push_back(full<float>(2_c, 3_c, static_cast<float>(i)));
    auto batch = default_collate(samples);
    STATIC_REQUIRE(
        std::is_same_v<decltype(batch), Tensor<float, shape<std::int64_t, int_<2>, int_<3>>>>);
    CHECK(batch.sizes() == std::array<std::int64_t, 3>{4, 2, 3});
    CHECK(batch(3, 1, 2) == 3.f);
    CHECK(batch(0, 0, 0) == 0.f);
    batch(1, 0, 0) = 42.f; // a new tensor, not a view of the samples
    CHECK(samples[1](0, 0) == 1.f);

    SECTION("non-contiguous samples (views) are copied element by element") {
        auto m = arange<float>(0, 6).reshape(2, 3).contiguous();
        std::vector<Tensor<float, dynamic_shape<2>>> ts{m.t(), m.t()};
        auto b = default_collate(ts);
        CHECK(b.sizes() == std::array<std::int64_t, 3>{2, 3, 2});
        CHECK(b(1, 2, 0) == 2.f);
        CHECK(b(1, 0, 1) == 3.f);
    }
    SECTION("0-dim tensors stack into a 1-D tensor") {
        auto x = arange<std::int64_t>(0, 4);
        std::vector<decltype(x[0])> scalars{x[2], x[3]};
        auto b = default_collate(scalars);
        CHECK(b.sizes()[0] == 2);
        CHECK(b(1) == 3);
    }
    SECTION("unequal sizes: torch.stack's error") {
        std::vector<Tensor<float>> ts{zeros<float>(2), zeros<float>(3)};
        CHECK_THROWS_AS(default_collate(ts), RuntimeError);
        CHECK_THROWS_WITH(default_collate(ts), "stack expects each tensor to be equal size, but "
                                               "got [2] at entry 0 and [3] at entry 1");
    }
}

TEST_CASE("default_collate: tuples, lists and sequences give the same kind of sequence") {
    using sample = std::tuple<int, double, std::string>;
    const std::vector<sample> samples{{1, 0.5, "a"}, {2, 1.5, "b"}, {3, 2.5, "c"}};
    auto [i, d, s] = default_collate(samples);
    CHECK(i(2) == 3);
    CHECK(d(0) == 0.5);
    CHECK(s == std::vector<std::string>{"a", "b", "c"});

    SECTION("staticpy list") {
        std::vector<decltype(list(1, 2.f))> ls{list(1, 2.f), list(3, 4.f)};
        auto l = default_collate(ls);
        STATIC_REQUIRE(is_list_v<decltype(l)>);
        CHECK(l[0_c](1) == 3);
        CHECK(l[1_c](0) == 2.f);
    }
    SECTION("std::vector samples (Python lists): transposed, then each position collated") {
        const std::vector<std::vector<int>> rows{{1, 2, 3}, {4, 5, 6}};
        auto cols = default_collate(rows);
        REQUIRE(cols.size() == 3);
        CHECK(cols[0](1) == 4);
        CHECK(cols[2](0) == 3);
        const std::vector<std::vector<int>> ragged{{1, 2}, {3}};
        CHECK_THROWS_AS(default_collate(ragged), RuntimeError);
        CHECK_THROWS_WITH(default_collate(ragged),
                          "each element in list of batch should be of equal size");
    }
    SECTION("std::array and std::pair") {
        std::vector<std::array<float, 2>> arrs{{1.f, 2.f}, {3.f, 4.f}};
        auto a = default_collate(arrs);
        CHECK(a[1](1) == 4.f);
        std::vector<std::pair<int, std::string>> ps{{1, "x"}, {2, "y"}};
        auto p = default_collate(ps);
        CHECK(p.first(1) == 2);
        CHECK(p.second[0] == "x");
    }
    SECTION("an empty batch: PyTorch's batch[0]") {
        CHECK_THROWS_AS(default_collate(std::vector<int>{}), IndexError);
    }
}

TEST_CASE("default_collate: dicts keep their keys (test_dict_collate / nested)") {
    SECTION("staticpy dict with compile-time keys") {
        using sample = decltype(dict("x"_s = zeros<float>(2_c), "y"_s = 0));
        std::vector<sample> samples;
        for (int k = 0; k < 3; ++k)
            samples.push_back(dict("x"_s = full<float>(2_c, static_cast<float>(k)), "y"_s = k));
        auto b = default_collate(samples);
        CHECK(b["x"_s].sizes() == std::array<std::int64_t, 2>{3, 2});
        CHECK(b["x"_s](2, 1) == 2.f);
        CHECK(b["y"_s](1) == 1);
    }
    SECTION("std::map<std::string, X>, nested") {
        using inner = std::map<std::string, std::tuple<int, std::vector<double>>>;
        std::vector<inner> samples{{{"a", {1, {0.5, 1.0}}}}, {{"a", {2, {1.5, 2.0}}}}};
        auto b = default_collate(samples);
        const auto& [ints, doubles] = b.at("a");
        CHECK(ints(1) == 2);
        CHECK(doubles[1](0) == 1.0);
        CHECK(doubles[0](1) == 1.5);
        std::vector<std::map<std::string, int>> missing{{{"a", 1}}, {{"b", 2}}};
        CHECK_THROWS_AS(default_collate(missing), KeyError);
        CHECK_THROWS_WITH(default_collate(missing), "'a'");
    }
}

TEST_CASE("default_convert leaves samples as they are, the functors") {
    const auto t = std::tuple(1, 2.0, std::string("s"));
    CHECK(default_convert(t) == t);
    auto x = zeros<float>(3);
    auto y = default_convert(x);
    CHECK(y.data() == x.data()); // the same handle: no copy
    CHECK(DefaultConvert{}(5) == 5);
    CHECK(DefaultCollate{}(std::vector<int>{4, 5})(1) == 5);
    STATIC_REQUIRE(collatable<std::tuple<int, std::string>>);
    STATIC_REQUIRE(!collatable<std::vector<int*>>);
}
