// Derivatives of the activations, sign-sensitive ops, powers, clamp and casts (functors.hpp), in
// both modes, against float64 central finite differences.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

TEST_CASE("d/dx sigmoid(v)") {
    check_unary([](auto v) { return sigmoid(v); });
}

TEST_CASE("d/dx gelu(v - 1.0)") {
    check_unary([](auto v) { return gelu(v - 1.0); });
}

TEST_CASE("d/dx silu(v - 1.0)") {
    check_unary([](auto v) { return silu(v - 1.0); });
}

TEST_CASE("d/dx softplus(v - 1.0)") {
    check_unary([](auto v) { return softplus(v - 1.0); });
}

TEST_CASE("d/dx softplus(v, 2.0, 1.5)") {
    check_unary([](auto v) { return softplus(v, 2.0, 1.5); });
}

TEST_CASE("d/dx leaky_relu(v - 1.0, 0.1)") {
    check_unary([](auto v) { return leaky_relu(v - 1.0, 0.1); });
}

TEST_CASE("d/dx relu(v - 1.0)") {
    check_unary([](auto v) { return relu(v - 1.0); });
}

TEST_CASE("d/dx abs(v - 1.0)") {
    check_unary([](auto v) { return abs(v - 1.0); });
}

TEST_CASE("d/dx -v") {
    check_unary([](auto v) { return -v; });
}

TEST_CASE("d/dx square(v)") {
    check_unary([](auto v) { return square(v); });
}

TEST_CASE("d/dx pow(v, 3.0)") {
    check_unary([](auto v) { return pow(v, 3.0); });
}

TEST_CASE("d/dx pow(2.0, v)") {
    check_unary([](auto v) { return pow(2.0, v); });
}

TEST_CASE("d/dx clamp(v, 0.5, 1.5)") {
    check_unary([](auto v) { return clamp(v, 0.5, 1.5); });
}

TEST_CASE("d/dx through a cast is the gradient cast back to x's dtype") {
    // (float32 rounding makes finite differences of a cast meaningless: compared exactly instead)
    const auto x = cast<float>(random_tensor(2, 0.2, 2.0, 2_c, 5_c));
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    const auto g = grad([](auto v, auto c) { return (cast<double>(v) * c).sum(); })(x, w);
    STATIC_REQUIRE(std::is_same_v<typename std::remove_cvref_t<decltype(g)>::value_type, float>);
    CHECK(flat(g) == flat(cast<float>(w)));
}
