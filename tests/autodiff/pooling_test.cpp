// Derivatives of max_pool2d, avg_pool2d and adaptive_avg_pool2d (tensor/ops_pool.hpp) through grad
// in both modes (GRAPH_MODE's backward graph, the PYNATIVE_MODE tape): against PyTorch 1.13's input
// gradients (tests/nn/reference/pooling_reference.txt: two cases of pooling_reference.hpp each),
// against finite differences, and second derivatives (the backward ops are differentiable in their
// gradient). The values and every case's gradient on the tape are tests/nn/pooling_test.cpp's.

#include <string>
#include <tuple>

#include <staticpy/staticpy.hpp>

#include "../nn/reference/pooling_reference.hpp"
#include "autodiff_test_support.hpp"

using namespace autodiff_test;
using namespace pooling_reference;

namespace {

/// The gradient of sum(pool(x) * c) with respect to x through grad, in both modes, against
/// PyTorch's.
template <class Pool, class X>
void check_grad(const pool_case<Pool, X>& c) {
    INFO(c.call);
    const std::string call = c.call;
    const auto pool = c.pool;
    for_each_gradient<0>([pool](const auto& v, const auto& w) { return (pool(v) * w).sum(); },
                         [&](auto, auto, const auto& gradient) {
                             require_matches(values(gradient), record(call + "/grad"));
                         },
                         c.input, cotangent_like(call, pool(c.input)));
}

} // namespace

// Two cases of each function, which between them take every option: each grad costs the compiler
// seconds (clang minutes), and pooling_test.cpp checks every case's gradient on the tape, which
// runs the same backward ops.
TEST_CASE("d/dx of max_pool2d against PyTorch, in both modes") {
    check_grad(max_pairs);       // padding, stride, dilation, ceil_mode, pairs
    check_grad(max_ties_padded); // ties, NaN, -inf
}

TEST_CASE("d/dx of avg_pool2d against PyTorch, in both modes") {
    check_grad(avg_divisor);          // pairs, divisor_override
    check_grad(avg_ceil_exclude_pad); // ceil_mode, count_include_pad=False, run-time numbers
}

TEST_CASE("d/dx of adaptive_avg_pool2d against PyTorch, in both modes") {
    check_grad(adaptive_overlapping); // overlapping windows, run-time sizes
    check_grad(adaptive_mean);        // 1 x 1: the mean
}

TEST_CASE("gradients agree with finite differences in both modes") {
    const auto x = random_tensor(7, -2, 2, 2_c, 2_c, 7_c, 6_c);
    const auto c1 = random_tensor(8, -1, 1, 2_c, 2_c, 4_c, 4_c);
    const auto c2 = random_tensor(9, -1, 1, 2_c, 2_c, 4_c, 4_c);
    const auto c3 = random_tensor(10, -1, 1, 2_c, 2_c, 3_c, 4_c);
    check_gradients<0>(
        [](auto v, auto a, auto b, auto c) {
            return (max_pool2d(v, 3_c, 2_c, 1_c, 1_c, True) * a).sum() +
                   (avg_pool2d(v, 3_c, 2_c, 1_c, True, false) * b).sum() +
                   (adaptive_avg_pool2d(v, std::tuple{3_c, 4_c}) * c).sum();
        },
        x, c1, c2, c3);
}

TEST_CASE("second derivatives: the backward ops are differentiable in their gradient") {
    const auto x = random_tensor(11, -2, 2, 1_c, 2_c, 5_c, 5_c);
    // f = sum(max_pool2d(x)^2): grad f = 2 y at each window's argmax, so H·1 = 2 (the number
    // of windows whose argmax each element is).
    auto f = [](auto v) { return max_pool2d(v, 3_c, 1_c, 1_c).square().sum(); };
    const auto counts = tape_gradient([](auto v) { return max_pool2d(v, 3_c, 1_c, 1_c).sum(); }, x);
    check_hessian_row_sums(f, x, flat(counts * 2.0));
    // g = |A x|^2 + |B x|^2 for A avg_pool2d and B adaptive_avg_pool2d: H·1 = 2 (Aᵀ A 1 + Bᵀ B 1).
    auto g = [](auto v) {
        return avg_pool2d(v, 2_c, 1_c, 1_c).square().sum() +
               adaptive_avg_pool2d(v, 3_c).square().sum();
    };
    const auto a1 = avg_pool2d(ones_like(x), 2_c, 1_c, 1_c);
    const auto b1 = adaptive_avg_pool2d(ones_like(x), 3_c);
    const auto want = tape_gradient(
        [a1, b1](auto v) {
            return (avg_pool2d(v, 2_c, 1_c, 1_c) * a1).sum() +
                   (adaptive_avg_pool2d(v, 3_c) * b1).sum();
        },
        x);
    check_hessian_row_sums(g, x, flat(want * 2.0));
}
