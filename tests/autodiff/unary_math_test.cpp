// Derivatives of the unary math functions (functors.hpp's vjp rules), in both modes, against
// float64 central finite differences on random positive inputs.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

TEST_CASE("d/dx exp(v)") {
    check_unary([](auto v) { return exp(v); });
}

TEST_CASE("d/dx expm1(v)") {
    check_unary([](auto v) { return expm1(v); });
}

TEST_CASE("d/dx log(v)") {
    check_unary([](auto v) { return log(v); });
}

TEST_CASE("d/dx log1p(v)") {
    check_unary([](auto v) { return log1p(v); });
}

TEST_CASE("d/dx sqrt(v)") {
    check_unary([](auto v) { return sqrt(v); });
}

TEST_CASE("d/dx rsqrt(v)") {
    check_unary([](auto v) { return rsqrt(v); });
}

TEST_CASE("d/dx reciprocal(v)") {
    check_unary([](auto v) { return reciprocal(v); });
}

TEST_CASE("d/dx sin(v)") {
    check_unary([](auto v) { return sin(v); });
}

TEST_CASE("d/dx cos(v)") {
    check_unary([](auto v) { return cos(v); });
}

TEST_CASE("d/dx tanh(v)") {
    check_unary([](auto v) { return tanh(v); });
}

TEST_CASE("d/dx erf(v)") {
    check_unary([](auto v) { return erf(v); });
}
