// Derivatives of the views (node.hpp's opaque ops: transpose, t, permute, reshape, view,
// flatten, squeeze, unsqueeze, expand, contiguous), against finite differences.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// The inputs, and weights of each view's shape (the loss is sum(view(x) * weight)).
const auto x = random_tensor(25, -1, 1, 3_c, 4_c);
const auto x2 = random_tensor(26, -1, 1, 3_c, 4_c);
const auto c = random_tensor(27, -1, 1, 4_c, 3_c);
const auto c12 = random_tensor(28, -1, 1, 12_c);
const auto col = random_tensor(29, -1, 1, 3_c, 1_c);
} // namespace

TEST_CASE("d/dx of a view: transpose") {
    check_gradients<0>([](auto v, auto k) { return (v.transpose(0_c, 1_c) * k).sum(); }, x, c);
}

TEST_CASE("d/dx of a view: t") {
    check_gradients<0>([](auto v, auto k) { return (v.t() * k).sum(); }, x, c);
}

TEST_CASE("d/dx of a view: permute") {
    check_gradients<0>([](auto v, auto k) { return (v.permute(1_c, 0_c) * k).sum(); }, x, c);
}

TEST_CASE("d/dx of a view: permute by run-time dims") {
    check_gradients<0>([](auto v, auto k) { return (v.permute(1, 0) * k).sum(); }, x, c);
}

TEST_CASE("d/dx of a view: reshape") {
    check_gradients<0>([](auto v, auto k) { return (v.reshape(4_c, 3_c) * k).sum(); }, x, c);
}

TEST_CASE("d/dx of a view: view") {
    check_gradients<0>([](auto v, auto k) { return (v.view(12_c) * k).sum(); }, x, c12);
}

TEST_CASE("d/dx of a view: flatten") {
    check_gradients<0>([](auto v, auto k) { return (v.flatten() * k).sum(); }, x, c12);
}

TEST_CASE("d/dx of a view: unsqueeze and squeeze") {
    check_gradients<0>([](auto v, auto k) { return (v.unsqueeze(0_c).squeeze(0_c) * k).sum(); }, x,
                       x2);
}

TEST_CASE("d/dx of a view: expand") {
    check_gradients<0>([](auto v, auto k) { return (v.expand(3_c, 4_c) * k).sum(); }, col, x);
}

TEST_CASE("d/dx of a view: contiguous") {
    check_gradients<0>([](auto v, auto k) { return (v.t().contiguous() * k).sum(); }, x, c);
}
