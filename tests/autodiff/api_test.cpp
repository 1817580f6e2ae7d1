// grad, value_and_grad and their composition with jit (grad.hpp): argnums, gradients in the
// structure of their argument, zero gradients, has_aux, the dumps, and the edge values PyTorch
// defines (relu and abs at 0, ties of maximum, minimum and max, prod with zeros).

#include <string>

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

TEST_CASE("grad of a sum of squares is 2x, with the type of x") {
    const auto x = random_tensor(1, -1, 1, 3_c, 4_c);
    const auto g = grad([](auto v) { return (v * v).sum(); })(x);
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cvref_t<decltype(g)>, std::remove_cvref_t<decltype(x)>>);
    require_close(g, flat(x * 2.0));
}

TEST_CASE("relu and abs have derivative 0 at 0, as PyTorch") {
    auto x = zeros<double>(4_c);
    x(1) = 1.0;
    x(2) = -1.0;
    const auto g = grad([](auto v) { return (relu(v) + abs(v)).sum(); })(x);
    CHECK(flat(g) == std::vector<double>{0, 2, -1, 0});
}

TEST_CASE("maximum and minimum give each operand half the gradient at a tie") {
    auto x = zeros<double>(4_c);
    x(1) = 1.0;
    x(2) = -1.0;
    const auto y = zeros<double>(4_c);
    const auto [ga, gb] =
        grad([](auto p, auto q) { return (maximum(p, q) + 3.0 * minimum(p, q)).sum(); },
             std::tuple{0_c, 1_c})(x, y);
    CHECK(flat(ga) == std::vector<double>{2, 1, 3, 2});
    CHECK(flat(gb) == std::vector<double>{2, 3, 1, 2});
}

TEST_CASE("max of every element shares the gradient among its ties, prod handles zeros") {
    auto t = zeros<double>(4_c);
    t(0) = 5;
    t(2) = 5;
    CHECK(flat(grad([](auto v) { return max(v); })(t)) == std::vector<double>{0.5, 0, 0.5, 0});
    t(0) = 2;
    t(1) = 3;
    t(2) = 0;
    t(3) = 4;
    auto prod_all = [](auto v) { return prod(v); };
    CHECK(flat(grad(prod_all)(t)) == std::vector<double>{0, 0, 24, 0});
    t(0) = 0;
    CHECK(flat(grad(prod_all)(t)) == std::vector<double>{0, 0, 0, 0});
    t(0) = 2;
    t(2) = 5;
    CHECK(flat(grad(prod_all)(t)) == std::vector<double>{60, 40, 24, 30});
}

TEST_CASE("argnums picks arguments, an argument the result does not depend on gets zeros") {
    const auto x = random_tensor(26, -1, 1, 3_c);
    const auto y = random_tensor(27, -1, 1, 3_c);
    const auto [gx, gy] =
        grad([](auto p, auto) { return (p * p).sum(); }, std::tuple{0_c, 1_c})(x, y);
    require_close(gx, flat(x * 2.0));
    CHECK(flat(gy) == std::vector<double>{0, 0, 0});
}

TEST_CASE("a dict of parameters gives a dict of gradients with the same keys") {
    const auto w = random_tensor(28, -1, 1, 2_c, 3_c);
    const auto b = random_tensor(29, -1, 1, 2_c);
    const auto x = random_tensor(30, -1, 1, 5_c, 3_c);
    auto loss = [](const auto& p, const auto& in) {
        return sum(square(linear(in, p["weight"_s], p["bias"_s])));
    };
    const auto g = grad(loss)(dict("weight"_s = w, "bias"_s = b), x);
    auto by_tensors = [&](auto ww, auto bb) {
        return loss(dict("weight"_s = ww, "bias"_s = bb), x);
    };
    require_close(g["weight"_s], numeric_gradient<0>(by_tensors, w, b));
    require_close(g["bias"_s], numeric_gradient<1>(by_tensors, w, b));
}

TEST_CASE("value_and_grad returns the value, and with has_aux the aux beside it") {
    const auto x = random_tensor(31, -1, 1, 3_c);
    const auto [value, g] = value_and_grad([](auto v) { return (v * v).sum(); })(x);
    CHECK(value.item() == Approx(flat((x * x).sum())[0]));
    require_close(g, flat(x * 2.0));
    const auto [out, g2] = value_and_grad(
        [](auto v) {
            return std::tuple{(v * v).sum(), v.sum()};
        },
        0_c, True)(x);
    CHECK(std::get<1>(out).item() == Approx(flat(x.sum())[0]));
    require_close(g2, flat(x * 2.0));
}

TEST_CASE("jit(value_and_grad(f)) runs forward and backward as one graph") {
    const auto w = random_tensor(32, -1, 1, 4_c, 3_c);
    const auto x = random_tensor(33, -1, 1, 5_c, 4_c);
    auto loss = [](auto ww, auto xx) { return mean(square(tanh(matmul(xx, ww)))); };
    auto step = jit(value_and_grad(loss));
    const auto [value, g] = step(w, x);
    CHECK(value.item() == Approx(value_of(loss, w, x)));
    require_close(g, numeric_gradient<0>(loss, w, x));
    const std::string ir = dump(step, w, x);
    INFO(ir);
    // the marks of what is differentiated are gone once the backward graph is built: w is read
    // in place, not copied through an identity
    CHECK(ir.find("grad_input") == std::string::npos);
    // tanh is computed once: the backward graph's tanh is the forward's node
    CHECK(ir.find("tanh") == ir.rfind("tanh"));
}

TEST_CASE("a C++ float argument is differentiated as a 0-dim tensor of its graph dtype") {
    // d/da sum(x * a * a) = 2 a sum(x); a double is float32 in a graph (a Python float), so its
    // gradient is a 0-dim float32 tensor in both modes
    const auto x = tensor<float>({1.f, 2.f, 3.f});
    auto f = [](auto t, auto a) { return sum(t * a * a); };
    const mode_guard restore;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        const auto g = grad(f, 1_c)(x, 2.0);
        STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(g)>, Tensor<float, shape<>>>);
        CHECK(g.item() == Approx(24.0));
        CHECK(jit(grad(f, 1_c))(x, 2.0).item() == Approx(24.0));
        const auto [value, both] = value_and_grad(f, std::tuple{0_c, 1_c})(x, 2.0);
        CHECK(value.item() == Approx(24.0));
        require_close(std::get<0>(both), flat(x * 0.0 + 4.0));
        CHECK(std::get<1>(both).item() == Approx(24.0));
        // the second derivative: 2 sum(x)
        const auto h = grad([&](auto a) { return grad(f, 1_c)(x, a); })(2.0);
        CHECK(h.item() == Approx(12.0));
    }
}
