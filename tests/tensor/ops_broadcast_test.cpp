// NumPy/PyTorch broadcasting of shapes: the static result type, the run-time extents, and
// PyTorch's error text.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/tensor/broadcast.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
using dyn = std::int64_t;
std::vector<std::int64_t> bs(std::vector<std::int64_t> a, std::vector<std::int64_t> b) {
    return broadcast_sizes(a, b);
}
} // namespace

TEST_CASE("broadcast_shape_t: static extents", "[broadcast]") {
    STATIC_REQUIRE(
        std::is_same_v<broadcast_shape_t<static_shape<3, 1>, static_shape<4>>, static_shape<3, 4>>);
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<static_shape<2, 3>, static_shape<2, 3>>,
                                  static_shape<2, 3>>);
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<static_shape<5, 1, 7>, static_shape<6, 1>>,
                                  static_shape<5, 6, 7>>);
    STATIC_REQUIRE(
        std::is_same_v<broadcast_shape_t<static_shape<>, static_shape<2, 2>>, static_shape<2, 2>>);
    STATIC_REQUIRE(
        std::is_same_v<broadcast_shape_t<static_shape<>, static_shape<>>, static_shape<>>);
    STATIC_REQUIRE(
        std::is_same_v<broadcast_shape_t<static_shape<1>, static_shape<0>>, static_shape<0>>);
    STATIC_REQUIRE(std::is_same_v<
                   broadcast_shape_t<static_shape<2, 1>, static_shape<1, 3>, static_shape<4, 1, 1>>,
                   static_shape<4, 2, 3>>);
}

TEST_CASE("broadcast_shape_t: static beside dynamic", "[broadcast]") {
    // A static N != 1 stays static (the dynamic side must be 1 or N at run time).
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<int_<3>>, shape<dyn>>, shape<int_<3>>>);
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn>, shape<int_<3>>>, shape<int_<3>>>);
    // A static 1 says nothing about the result.
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<int_<1>>, shape<dyn>>, shape<dyn>>);
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn, dyn>, shape<dyn>>, shape<dyn, dyn>>);
    STATIC_REQUIRE(std::is_same_v<broadcast_shape_t<shape<dyn, int_<1>>, shape<int_<4>>>,
                                  shape<dyn, int_<4>>>);
}

TEST_CASE("broadcast_sizes: run-time extents", "[broadcast]") {
    CHECK(bs({3, 1}, {4}) == std::vector<std::int64_t>{3, 4});
    CHECK(bs({1}, {5, 2}) == std::vector<std::int64_t>{5, 2});
    CHECK(bs({}, {2, 3}) == std::vector<std::int64_t>{2, 3});
    CHECK(bs({2, 0}, {1}) == std::vector<std::int64_t>{2, 0});
    CHECK(bs({8, 1, 6, 1}, {7, 1, 5}) == std::vector<std::int64_t>{8, 7, 6, 5});
}

TEST_CASE("broadcast_sizes: PyTorch's error text", "[broadcast]") {
    // torch.ones(2, 3) + torch.ones(2, 4)
    CHECK_THROWS_MATCHES(
        bs({2, 3}, {2, 4}), RuntimeError,
        Catch::Message("The size of tensor a (3) must match the size of tensor b (4) "
                       "at non-singleton dimension 1"));
    // torch.ones(3) + torch.ones(2, 4): the dimension is counted in the result
    CHECK_THROWS_MATCHES(
        bs({3}, {2, 4}), RuntimeError,
        Catch::Message("The size of tensor a (3) must match the size of tensor b (4) "
                       "at non-singleton dimension 1"));
    CHECK_THROWS_MATCHES(
        bs({5, 2, 3}, {4, 3}), RuntimeError,
        Catch::Message("The size of tensor a (2) must match the size of tensor b (4) "
                       "at non-singleton dimension 1"));
    CHECK_THROWS_AS(bs({0}, {2}), Error);
}

TEST_CASE("broadcast_shapes: staticpy shapes", "[broadcast]") {
    const std::int64_t n = 4;
    auto s = broadcast_shapes(shape(3_c, 1_c), shape(n));
    STATIC_REQUIRE(std::is_same_v<decltype(s), shape<int_<3>, dyn>>);
    CHECK(s[0] == 3);
    CHECK(s[1] == 4);
    auto t = broadcast_shapes(shape(n, 1_c), shape(1_c, 3_c), shape(2_c, 1_c, 1_c));
    STATIC_REQUIRE(std::is_same_v<decltype(t), shape<int_<2>, dyn, int_<3>>>);
    CHECK(t == shape(2, 4, 3));
    auto u = broadcast_shapes(shape(n), shape(1_c));
    CHECK(u[0] == 4);
    // The static 3 meets a run-time 4: checked when it runs.
    CHECK_THROWS_MATCHES(
        broadcast_shapes(shape(3_c), shape(n)), RuntimeError,
        Catch::Message("The size of tensor a (3) must match the size of tensor b (4) "
                       "at non-singleton dimension 0"));
    const std::int64_t one = 1;
    auto v = broadcast_shapes(shape(3_c), shape(one));
    CHECK(v[0] == 3);
}
