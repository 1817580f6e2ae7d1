// Derivatives of the unary math functions (functors.hpp's vjp rules), in graph mode, against
// float64 central finite differences on random positive inputs.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

TEST_CASE("d/dx exp(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((exp(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx expm1(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((expm1(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx log(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((log(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx log1p(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((log1p(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx sqrt(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((sqrt(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx rsqrt(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((rsqrt(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx reciprocal(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((reciprocal(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx sin(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((sin(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx cos(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((cos(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx tanh(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((tanh(v)) * c).sum(); }, x, w);
}

TEST_CASE("d/dx erf(v)") {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([](auto v, auto c) { return ((erf(v)) * c).sum(); }, x, w);
}
