// Derivatives of the reductions, var, softmax and log_softmax (reductions.hpp's and the opaque ops'
// vjp rules), over dims, with keepdim and over every element, against finite differences.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// The input x [3, 4] and weights of each reduction's result shape, so that the loss
/// sum(reduction(x) * w) weighs every result element differently.
const auto x = random_tensor(7, 0.5, 1.5, 3_c, 4_c);
const auto w3 = random_tensor(8, -1, 1, 3_c);
const auto w4 = random_tensor(9, -1, 1, 4_c);
const auto w31 = random_tensor(10, -1, 1, 3_c, 1_c);
const auto x2 = random_tensor(11, -1, 1, 3_c, 4_c);
} // namespace

TEST_CASE("d/dx of sum over a compile-time dim") {
    check_gradients<0>([](auto v, auto c) { return (sum(v, 1_c) * c).sum(); }, x, w3);
}

TEST_CASE("d/dx of sum over a run-time dim") {
    check_gradients<0>([](auto v, auto c) { return (sum(v, 0) * c).sum(); }, x, w4);
}

TEST_CASE("d/dx of mean with keepdim") {
    check_gradients<0>([](auto v, auto c) { return (mean(v, 1_c, True) * c).sum(); }, x, w31);
}

TEST_CASE("d/dx of mean of every element") {
    check_gradients<0>([](auto v, auto c) { return mean(v * c); }, x, x2);
}

TEST_CASE("d/dx of prod over a dim") {
    check_gradients<0>([](auto v, auto c) { return (prod(v, 0_c) * c).sum(); }, x, w4);
}

TEST_CASE("d/dx of amax over a dim") {
    check_gradients<0>([](auto v, auto c) { return (amax(v, 1_c) * c).sum(); }, x, w3);
}

TEST_CASE("d/dx of amin over a dim") {
    check_gradients<0>([](auto v, auto c) { return (amin(v, 0_c) * c).sum(); }, x, w4);
}

TEST_CASE("d/dx of var over a dim") {
    check_gradients<0>([](auto v, auto c) { return (var(v, 1_c) * c).sum(); }, x, w3);
}

TEST_CASE("d/dx of var of every element") {
    check_gradients<0>([](auto v, auto c) { return var(v) * c.sum(); }, x, w3);
}

TEST_CASE("d/dx of softmax") {
    check_gradients<0>([](auto v, auto c) { return (softmax(v, 1_c) * c).sum(); }, x, x2);
}

TEST_CASE("d/dx of log_softmax") {
    check_gradients<0>([](auto v, auto c) { return (log_softmax(v, 0_c) * c).sum(); }, x, x2);
}

TEST_CASE("log_softmax of large logits has finite gradients") {
    const auto x = random_tensor(12, 500, 1000, 2_c, 3_c);
    const auto c = random_tensor(13, -1, 1, 2_c, 3_c);
    const auto g = grad([](auto v, auto k) { return (log_softmax(v, 1_c) * k).sum(); })(x, c);
    for (double e : flat(g))
        CHECK(std::isfinite(e));
    // each row's gradient is c - softmax(x) * sum(c) over the row
    const auto want = c - softmax(x, 1_c) * sum(c, 1_c, True);
    require_close(g, flat(want), 1e-9);
}
