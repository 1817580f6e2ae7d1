// The compile-time helpers the graph layer keeps its per-slot data with: packs reached by
// position (indexed::pack) and selections by mask (selection::count, ranks, chosen).
#include <array>
#include <string>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/core/indexed.hpp>
#include <staticpy/core/selection.hpp>

using namespace staticpy;

TEST_CASE("indexed::pack reaches each element by position", "[indexed]") {
    using P = indexed::pack<int, std::string, double>;
    STATIC_REQUIRE(std::is_same_v<indexed::type_at<0, P>, int>);
    STATIC_REQUIRE(std::is_same_v<indexed::type_at<1, P>, std::string>);
    STATIC_REQUIRE(std::is_same_v<indexed::type_at<2, P>, double>);
    STATIC_REQUIRE(std::is_aggregate_v<P>);

    P p{{1}, {"two"}, {3.5}};
    CHECK(indexed::get<0>(p) == 1);
    CHECK(indexed::get<1>(p) == "two");
    CHECK(indexed::get<2>(p) == 3.5);
    indexed::get<1>(p) += "!";
    const P& c = p;
    CHECK(indexed::get<1>(c) == "two!");

    // Value-initialized, every element is: the evaluator's tensors start this way.
    P z{};
    CHECK(indexed::get<0>(z) == 0);
    CHECK(indexed::get<1>(z).empty());
    CHECK(indexed::get<2>(z) == 0.0);
}

TEST_CASE("indexed::pack tells equal types apart by position", "[indexed]") {
    // The sweep's cotangents are mostly the same type (no cotangent yet) in every slot.
    using P = indexed::pack<int, int, int>;
    constexpr P p{{4}, {5}, {6}};
    STATIC_REQUIRE(indexed::get<0>(p) == 4);
    STATIC_REQUIRE(indexed::get<1>(p) == 5);
    STATIC_REQUIRE(indexed::get<2>(p) == 6);
    STATIC_REQUIRE(std::is_same_v<indexed::pack<>, indexed::pack_of<std::index_sequence<>>>);
}

TEST_CASE("selection counts, ranks and lists the chosen positions", "[selection]") {
    constexpr std::array<bool, 5> mask{false, true, false, true, true};
    STATIC_REQUIRE(selection::count(mask) == 3);
    constexpr auto r = selection::ranks(mask);
    STATIC_REQUIRE(r.size() == 6);
    STATIC_REQUIRE(r[1] == 0);
    STATIC_REQUIRE(r[3] == 1);
    STATIC_REQUIRE(r[4] == 2);
    STATIC_REQUIRE(r[0] == 0);
    STATIC_REQUIRE(r[5] == 0);
    constexpr auto c = selection::chosen<3>(mask);
    STATIC_REQUIRE(c == std::array<std::size_t, 3>{1, 3, 4});

    constexpr std::array<bool, 3> none{};
    STATIC_REQUIRE(selection::count(none) == 0);
    STATIC_REQUIRE(selection::chosen<0>(none).empty());
}
