// Derivatives of nn::functional's cross_entropy and nll_loss
// against PyTorch 1.13's input gradients (tests/nn/reference/loss_reference.txt,
// make_loss_reference.py's GRAD_CASES) and, where the loss is smooth, finite differences, in both
// modes (GRAPH_MODE's backward graph, the PYNATIVE_MODE tape). Each case is one grad
// instantiation (seconds and up to 2 GB of compile each), so a case covers several options; the
// losses are split over two files to keep each compile's memory in bounds.

#include <cstdint>
#include <string>

#include "loss_test_support.hpp"

using namespace loss_test;

TEST_CASE("d/dx of cross_entropy with class indices, weight, ignore_index, label_smoothing") {
    check_case<0>(
        "ce_indices", {"X"}, true,
        [](auto x, auto t, auto ti) {
            return F::cross_entropy(x, t) +
                   F::cross_entropy(x, ti, "sum"_s, {.weight = W, .label_smoothing = 0.2});
        },
        X, T, TI);
}

TEST_CASE("d/dx of cross_entropy with reduction 'none' scales each row by its cotangent") {
    check_case<0>(
        "ce_none", {"X"}, true,
        [](auto x, auto ti) {
            return (F::cross_entropy(x, ti, "none"_s, {.weight = W}) * C).sum();
        },
        X, TI);
}

TEST_CASE("d/dx and d/dtarget of cross_entropy with class probabilities") {
    check_case<0, 1>(
        "ce_probabilities", {"X", "P"}, true,
        [](auto x, auto p) {
            return F::cross_entropy(x, p, {.weight = W, .label_smoothing = 0.3});
        },
        X, P);
}

TEST_CASE("d/dx of cross_entropy of K-dimensional and one-row inputs") {
    const auto X3 = input("X3", 2, 3, 4);
    const auto T3 = input<std::int64_t>("T3", 2, 4);
    const auto X1 = input("X1", 5_c);
    const auto T1 = input<std::int64_t>("T1");
    const auto W3 = W.slice(0, 0, 3);
    check_case<0, 1>(
        "ce_kdim", {"X3", "X1"}, true,
        [W3](auto x3, auto x1, auto t3, auto t1) {
            return F::cross_entropy(x3, t3, {.weight = W3, .label_smoothing = 0.1}) +
                   F::cross_entropy(x1, t1);
        },
        X3, X1, T3, T1);
}

TEST_CASE("d/dx of nll_loss") {
    check_case<0>(
        "nll", {"X"}, true,
        [](auto x, auto t, auto ti) {
            return F::nll_loss(x, t, {.weight = W}) + F::nll_loss(x, ti, "sum"_s);
        },
        X, T, TI);
}

TEST_CASE("jit(value_and_grad(cross_entropy)): the backward is one node, no softmax") {
    auto step = jit(value_and_grad([](auto x, auto t) {
        return F::cross_entropy(x, t, {.weight = W, .label_smoothing = 0.2});
    }));
    const auto [value, dx] = step(X, T);
    CHECK(value.item() ==
          Approx(F::cross_entropy(X, T, {.weight = W, .label_smoothing = 0.2}).item()));
    const std::string ir = dump(step, X, T);
    INFO(ir);
    CHECK(ir.find("cross_entropy_backward(") != std::string::npos);
    CHECK(ir.find("cross_entropy(") != std::string::npos);
    for (const char* op : {"softmax", "exp(", "log(", "reduce"})
        CHECK(ir.find(op) == std::string::npos);
    require_close(dx, numeric_gradient<0>(
                          [](auto x, auto t) {
                              return F::cross_entropy(x, t, {.weight = W, .label_smoothing = 0.2});
                          },
                          X, T));
}
