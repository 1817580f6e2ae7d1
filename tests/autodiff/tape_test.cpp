// The eager tape (tensor/autograd.hpp) on its own: Vars compute at once and record; backward()
// runs the recorded rules back from the output; no_grad stops recording.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

TEST_CASE("a Var computes at once, as a Tensor, and records a node") {
    const auto t = random_tensor(40, -1, 1, 3_c);
    const auto x = autograd::leaf(t);
    const auto y = exp(x) * 2.0;
    CHECK(flat(y.value) == flat(exp(t) * 2.0));
    CHECK(y.node != nullptr);
}

TEST_CASE("backward sums the cotangents of a value used twice") {
    const auto t = random_tensor(41, -1, 1, 4_c);
    const auto x = autograd::leaf(t);
    const auto h = sin(x);
    const auto y = (h * h + h).sum(); // dy/dx = (2 sin x + 1) cos x
    autograd::backward(y, ones_like(y.value));
    require_close(autograd::gradient(x), flat((sin(t) * 2.0 + 1.0) * cos(t)), 1e-12);
}

TEST_CASE("an operand broadcast in the forward op gets its gradient summed back") {
    const auto a = autograd::leaf(random_tensor(42, -1, 1, 3_c, 4_c));
    const auto b = autograd::leaf(random_tensor(43, -1, 1, 4_c));
    const auto y = (a * b).sum();
    autograd::backward(y, ones_like(y.value));
    require_close(autograd::gradient(b), flat(sum(a.value, 0_c)), 1e-12);
    require_close(autograd::gradient(a), flat(b.value.expand(3_c, 4_c)), 1e-12);
}

TEST_CASE("no_grad stops recording, a leaf nothing reached has a zero gradient") {
    const auto x = autograd::leaf(random_tensor(44, -1, 1, 3_c));
    const auto z = autograd::leaf(random_tensor(45, -1, 1, 3_c));
    {
        const autograd::no_grad off;
        CHECK((x * x).node == nullptr);
    }
    const auto y = (x * 3.0).sum();
    autograd::backward(y, ones_like(y.value));
    CHECK(flat(autograd::gradient(x)) == std::vector<double>{3, 3, 3});
    CHECK(flat(autograd::gradient(z)) == std::vector<double>{0, 0, 0});
}

TEST_CASE("PYNATIVE_MODE grad runs the graph op by op and agrees with GRAPH_MODE") {
    const auto w = random_tensor(46, -1, 1, 4_c, 3_c);
    const auto x = random_tensor(47, -1, 1, 5_c, 4_c);
    auto loss = [](auto ww, auto xx) {
        return mean(square(tanh(matmul(xx, ww)))) + var(ww) + log_softmax(ww, 1_c).sum();
    };
    const mode_guard restore;
    const auto graph = grad(loss)(w, x);
    set_context(PYNATIVE_MODE);
    const auto eager = grad(loss)(w, x);
    require_close(eager, flat(graph), 1e-12);
}
