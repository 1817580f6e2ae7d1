// Derivatives of nn::functional's elementwise losses, with the edge points PyTorch defines its
// own way among the inputs (l1 at 0, smooth_l1 and huber at |d| == beta and delta, smooth_l1 at 0
// with beta 0, bce at inputs 0 and 1),
// against PyTorch 1.13's input gradients (tests/nn/reference/loss_reference.txt,
// make_loss_reference.py's GRAD_CASES) and, where the loss is smooth, finite differences, in both
// modes (GRAPH_MODE's backward graph, the PYNATIVE_MODE tape). Each case is one grad
// instantiation (seconds and up to 2 GB of compile each), so a case covers several options; the
// losses are split over two files to keep each compile's memory in bounds.

#include <cstdint>
#include <string>

#include "loss_test_support.hpp"

using namespace loss_test;

TEST_CASE("d/dinput and d/dtarget of mse_loss and l1_loss (l1's at d == 0 is 0)") {
    check_case<0, 1>(
        "mse_l1", {"A", "B"}, false,
        [](auto a, auto b) { return F::mse_loss(a, b) + F::l1_loss(a, b, "sum"_s); }, A, B);
}

TEST_CASE("d/dinput and d/dtarget of smooth_l1_loss at |d| == beta, and at 0 with beta 0") {
    check_case<0, 1>(
        "smooth_l1", {"A", "B"}, false,
        [](auto a, auto b) {
            return F::smooth_l1_loss(a, b, "sum"_s) + F::smooth_l1_loss(a, b, {.beta = 0.0});
        },
        A, B);
}

TEST_CASE("d/dinput and d/dtarget of huber_loss at |d| == delta") {
    check_case<0, 1>(
        "huber", {"A", "B"}, false,
        [](auto a, auto b) {
            return F::huber_loss(a, b, "sum"_s) + F::huber_loss(a, b, {.delta = 0.5});
        },
        A, B);
}

TEST_CASE("d/dinput and d/dtarget of binary_cross_entropy, at inputs 0 and 1 as PyTorch's") {
    check_case<0, 1>(
        "bce", {"PR", "Q"}, false,
        [](auto p, auto q) { return F::binary_cross_entropy(p, q, {.weight = BW}); }, PR, Q);
}

TEST_CASE("d/dinput and d/dtarget of binary_cross_entropy_with_logits, weight and pos_weight") {
    check_case<0, 1>(
        "bce_with_logits", {"L", "Q"}, true,
        [](auto l, auto q) {
            return F::binary_cross_entropy_with_logits(l, q, "sum"_s,
                                                       {.weight = BW, .pos_weight = PW}) +
                   F::binary_cross_entropy_with_logits(l, q);
        },
        L, Q);
}
