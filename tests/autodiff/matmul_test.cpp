// Derivatives of matmul (1-D, 2-D, batched with broadcast batch dims) and linear
// (ops_matmul.hpp's matmul_vjp), against finite differences.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// Operands of every rank combination torch.matmul takes.
const auto a = random_tensor(14, -1, 1, 3_c, 4_c);
const auto b = random_tensor(15, -1, 1, 4_c, 2_c);
const auto v = random_tensor(16, -1, 1, 4_c);
const auto v2 = random_tensor(17, -1, 1, 4_c);
const auto u = random_tensor(18, -1, 1, 3_c);
const auto ba = random_tensor(19, -1, 1, 2_c, 3_c, 4_c);
const auto bb = random_tensor(20, -1, 1, 2_c, 4_c, 2_c);
} // namespace

TEST_CASE("matmul derivatives: 2-D @ 2-D") {
    check_gradients<0, 1>([](auto p, auto q) { return (matmul(p, q) * matmul(p, q)).sum(); }, a, b);
}

TEST_CASE("matmul derivatives: vector @ vector") {
    check_gradients<0, 1>([](auto p, auto q) { return matmul(p, q); }, v, v2);
}

TEST_CASE("matmul derivatives: matrix @ vector") {
    check_gradients<0, 1>([](auto p, auto q) { return sum(square(matmul(p, q))); }, a, v);
}

TEST_CASE("matmul derivatives: vector @ matrix") {
    check_gradients<0, 1>([](auto p, auto q) { return sum(square(matmul(p, q))); }, u, a);
}

TEST_CASE("matmul derivatives: batched @ 2-D, the batch broadcast") {
    check_gradients<0, 1>([](auto p, auto q) { return sum(square(matmul(p, q))); }, ba, b);
}

TEST_CASE("matmul derivatives: 2-D @ batched, the batch broadcast") {
    check_gradients<0, 1>([](auto p, auto q) { return sum(square(matmul(p, q))); }, a, bb);
}

TEST_CASE("linear's derivatives for input, weight and bias") {
    const auto x = random_tensor(21, -1, 1, 5_c, 4_c);
    const auto w = random_tensor(22, -1, 1, 2_c, 4_c);
    const auto bias = random_tensor(23, -1, 1, 2_c);
    check_gradients<0, 1, 2>([](auto p, auto q, auto r) { return sum(tanh(linear(p, q, r))); }, x,
                             w, bias);
}

TEST_CASE("matmul derivatives of an operand stored by columns (a transposed view)") {
    // The derivative is computed in the operand's layout there, (b @ g^T)^T and (g^T @ a)^T.
    check_gradients<0, 1>([](auto p, auto q) { return sum(square(matmul(p.t(), q))); },
                          random_tensor(25, -1, 1, 4_c, 3_c), b);
    check_gradients<0, 1>([](auto p, auto q) { return sum(square(matmul(p, q.t()))); }, a,
                          random_tensor(26, -1, 1, 2_c, 4_c));
}

TEST_CASE("linear's weight gradient comes out contiguous, as the weight (both modes)") {
    // as PyTorch's mm backward: an optimiser then updates the weight in one flat pass
    const auto x = random_tensor(27, -1, 1, 5_c, 4_c);
    const auto w = random_tensor(28, -1, 1, 3_c, 4_c);
    for_each_gradient<0, 1>([](auto p, auto q) { return sum(tanh(linear(p, q))); },
                            [](auto, auto k, const auto& gradient) {
                                INFO("argument " << k());
                                CHECK(gradient.is_contiguous());
                            },
                            x, w);
}

TEST_CASE("the gradient of a transposed view has the view's shape and strides' values") {
    const auto base = random_tensor(24, -1, 1, 4_c, 3_c);
    const auto xt = base.t();
    const auto g = grad([](auto v) { return (v * v * v).sum(); })(xt);
    require_close(g, flat(xt * xt * 3.0));
}
