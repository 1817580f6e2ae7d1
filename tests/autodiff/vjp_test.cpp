// vjp (a function's value and its pullback, for outputs of any shape) and stop_gradient/detach
// (a value through which no gradient flows), in both modes.

#include <string>

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// Runs check() in GRAPH_MODE, then in PYNATIVE_MODE.
template <class Check>
void in_both_modes(const Check& check) {
    const mode_guard restore;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        check();
    }
}
} // namespace

TEST_CASE("vjp of a non-scalar function of two arguments: the value and v^T J for each") {
    const auto x = random_tensor(41, -1, 1, 2_c, 3_c);
    const auto w = random_tensor(42, -1, 1, 3_c); // broadcast over x's rows
    const auto v = random_tensor(43, -1, 1, 2_c, 3_c);
    in_both_modes([&] {
        auto [y, pullback] = vjp([](auto a, auto b) { return a.sin() * b; }, x, w);
        require_close(y, flat(x.sin() * w), 1e-12);
        const auto [dx, dw] = pullback(v);
        STATIC_REQUIRE(
            std::is_same_v<std::remove_cvref_t<decltype(dw)>, std::remove_cvref_t<decltype(w)>>);
        require_close(dx, flat(v * x.cos() * w), 1e-12);
        require_close(dw, flat(sum(v * x.sin(), 0_c)), 1e-12);
        // the pullback can be called again, with another cotangent
        const auto [dx2, dw2] = pullback(v * 2.0);
        require_close(dx2, flat(v * x.cos() * w * 2.0), 1e-12);
    });
}

TEST_CASE("vjp of one argument gives its gradient alone, and a cotangent of the wrong size is "
          "PyTorch's RuntimeError") {
    const auto x = random_tensor(44, -1, 1, 3_c);
    in_both_modes([&] {
        auto [y, pullback] = vjp([](auto a) { return a.exp(); }, x);
        require_close(pullback(ones_like(y)), flat(x.exp()), 1e-12);
        // a float cotangent of a double output is cast, as PyTorch casts it
        require_close(pullback(ones<float>(3_c)), flat(x.exp()), 1e-12);
        CHECK_THROWS_WITH(pullback(ones<double>(2)),
                          "Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
                          "output[0] has a shape of torch.Size([3]).");
    });
}

TEST_CASE("stop_gradient and detach: the value flows, the gradient does not") {
    const auto x = random_tensor(45, -1, 1, 4_c);
    in_both_modes([&] {
        // d/dx [x * sg(x) + 2 detach(x)^2] = sg(x) = x
        const auto g = grad([](auto v) {
            return (v * stop_gradient(v)).sum() + (v.detach().square() * 2.0).sum();
        })(x);
        require_close(g, flat(x), 1e-12);
        // nothing but stopped values: a zero gradient
        const auto z =
            grad([](auto v) { return (stop_gradient(v) * v.detach()).sum() + v.sum(); })(x);
        require_close(z, std::vector<double>(4, 1.0), 1e-12);
    });
}

TEST_CASE("detach of a tensor shares its storage, as PyTorch's") {
    auto x = random_tensor(46, -1, 1, 3_c);
    const auto d = x.detach();
    CHECK(d.data() == x.data());
    CHECK(stop_gradient(x).data() == x.data());
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cvref_t<decltype(d)>, std::remove_cvref_t<decltype(x)>>);
}
