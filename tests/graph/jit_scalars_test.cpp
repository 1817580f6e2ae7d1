// jit's plain arithmetic arguments (double lr, std::int64_t n, float, int, bool): run-time
// numbers of the graph, given to parameters declared as numbers or as auto, in jit, grad and
// value_and_grad; both modes give the same numbers, and each call's values are the ones used
// (nothing of a number is kept in the graph's type, which the compiler built once).

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {

/// Restores GRAPH_MODE when a test leaves, whatever it switched to.
struct mode_guard {
    ~mode_guard() { set_context(GRAPH_MODE); }
};

/// f(args...) in GRAPH_MODE and in PYNATIVE_MODE: the same type and, element by element, the
/// same bits (these graphs compute each element with the eager ops' operations, in their order).
template <class F, class... Args>
auto both_modes_exactly(const F& f, const Args&... args) {
    mode_guard guard;
    set_context(GRAPH_MODE);
    auto graph = f(args...);
    set_context(PYNATIVE_MODE);
    auto eager = f(args...);
    STATIC_REQUIRE(std::is_same_v<decltype(graph), decltype(eager)>);
    REQUIRE(graph.numel() == eager.numel());
    for (std::int64_t i = 0; i < graph.numel(); ++i) {
        INFO("element " << i);
        CHECK(graph.contiguous().data()[i] == eager.contiguous().data()[i]);
    }
    return graph;
}

template <class T, class S>
double at(const Tensor<T, S>& t, std::int64_t i) {
    return static_cast<double>(t.contiguous().data()[i]);
}

} // namespace

TEST_CASE("jit: parameters declared as numbers take the call's numbers") {
    const auto x = tensor<float>({1, 2, 3});
    const auto f = jit([](auto t, double lr, std::int64_t n) { return t * lr + n; });
    auto y = both_modes_exactly(f, x, 0.5, std::int64_t{3});
    CHECK(at(y, 2) == 4.5);
    // The next call's numbers, not the first's: the graph's type holds none of them.
    y = both_modes_exactly(f, x, 0.25, std::int64_t{5});
    CHECK(at(y, 0) == 5.25);
    CHECK(at(y, 2) == 5.75);

    const auto g = jit([](auto t, float a, int k, bool flag) { return t * a - k + flag; });
    auto z = both_modes_exactly(g, x, 2.0f, 1, true);
    CHECK(at(z, 1) == 4.0);
    z = both_modes_exactly(g, x, -1.0f, 3, false);
    CHECK(at(z, 1) == -5.0);
    STATIC_REQUIRE(std::is_same_v<decltype(z), Tensor<float, dynamic_shape<1>>>);
}

TEST_CASE("jit: parameters declared auto take the same numbers") {
    const auto x = tensor<double>({1, 2, 3});
    const auto f = jit([](auto t, auto lr, auto n, auto flag) { return t * lr + n * flag; });
    auto y = both_modes_exactly(f, x, 0.1, std::int64_t{3}, true);
    CHECK(at(y, 1) == 2 * 0.1 + 3);
    y = both_modes_exactly(f, x, 0.3, std::int64_t{-2}, true);
    CHECK(at(y, 1) == 2 * 0.3 - 2);
    y = both_modes_exactly(f, x, 0.3, std::int64_t{7}, false);
    CHECK(at(y, 2) == 3 * 0.3);
    // Numbers combined before they meet a tensor are computed as C++ (Python) computes them,
    // in double, in both modes: 0.1 * 3 is not rounded to float32 on the way.
    const auto g = jit([](auto t, auto lr, auto n) { return t * (lr * n); });
    y = both_modes_exactly(g, x, 0.1, 3);
    CHECK(at(y, 0) == 0.1 * 3);
}

TEST_CASE("jit: an integer argument is a run-time scalar node, not a constant of the graph") {
    const auto x = tensor<float>({1, 2, 3, 4});
    const auto f = jit([](auto t, std::int64_t n) { return t * n; });
    const std::string ir = dump(f, x, std::int64_t{3});
    CHECK(ir.find("scalar 3 : int64[]") != std::string::npos);
    for (std::int64_t n : {3, -2, 1000000007}) {
        const auto y = both_modes_exactly(f, x, n);
        CHECK(at(y, 3) == static_cast<double>(static_cast<float>(4 * n)));
    }
    // The same graph serves every value: only the scalar's value differs between the calls'.
    std::string other = dump(f, x, std::int64_t{5});
    const auto at5 = other.find("scalar 5 : int64[]");
    REQUIRE(at5 != std::string::npos);
    other.replace(at5, 8, "scalar 3");
    CHECK(other == ir);
    // An int used as a dim stays what it is: a run-time dim.
    const auto s = jit([](auto t, int dim) { return t.sum(dim); });
    const auto m = tensor<float>({{1, 2}, {3, 4}});
    CHECK(at(both_modes_exactly(s, m, 0), 1) == 6.0);
    CHECK(at(both_modes_exactly(s, m, 1), 1) == 7.0);
}

TEST_CASE("jit: a float argument stays a traced scalar where its parameter takes one") {
    // auto a takes its Tracer (a scalar node naming argument 1), double b its value; found
    // from the left, each float at a time.
    const auto f = [](auto t, auto a, double b) { return t * a + b; };
    using symbolic = graph::trace<decltype(f), Tensor<float>, double, double>::symbolic_args;
    using choice = std::decay_t<decltype(std::apply(
        [](const auto&... a) {
            return graph::float_parameters<decltype(f), std::decay_t<decltype(a)>...>{};
        },
        std::declval<symbolic>()))>;
    STATIC_REQUIRE(choice::plain == 0b100);
    const auto g = [](auto t, auto a, auto b) { return t * a + b; };
    using all_traced =
        graph::float_parameters<decltype(g), Tracer<graph::input<0, float, dynamic_shape<1>>>,
                                Tracer<graph::scalar<double, 0>>, Tracer<graph::scalar<double, 1>>>;
    STATIC_REQUIRE(all_traced::plain == 0);
    const auto x = tensor<float>({1, 2});
    auto y = both_modes_exactly(jit(f), x, 2.0, 0.5);
    CHECK(at(y, 1) == 4.5);
    y = both_modes_exactly(jit(f), x, 3.0, -1.0);
    CHECK(at(y, 1) == 5.0);
}

TEST_CASE("jit: into() takes plain numbers too") {
    const auto x = tensor<float>({1, 2, 3});
    auto out = zeros<float>(3);
    const auto f = jit([](const auto& t, double scale, int shift) { return t * scale + shift; });
    f.into(out, x, 2.0, 1);
    CHECK(at(out, 2) == 7.0);
    f.into(out, x, -1.0, 0);
    CHECK(at(out, 2) == -3.0);
}

TEST_CASE("grad and value_and_grad: an extra number argument, in both modes") {
    const auto w = tensor<double>({1, 2, 3});
    const auto x = tensor<double>({0.5, -1, 2});
    // loss = lr * sum(w * x) / n: d loss / d w = lr * x / n.
    const auto typed = [](auto w_, auto x_, double lr, std::int64_t n) {
        return (w_ * x_ * lr).sum() / n;
    };
    const auto generic = [](auto w_, auto x_, auto lr, auto n) { return (w_ * x_ * lr).sum() / n; };
    for (double lr : {0.1, 0.7}) {
        for (std::int64_t n : {1, 4}) {
            const auto dw = both_modes_exactly(grad(typed), w, x, lr, n);
            const auto dw_auto = both_modes_exactly(grad(generic), w, x, lr, n);
            for (std::int64_t i = 0; i < 3; ++i) {
                CHECK(at(dw, i) == Approx(lr * at(x, i) / static_cast<double>(n)).epsilon(1e-15));
                CHECK(at(dw_auto, i) == at(dw, i));
            }
            const auto value = [&](const auto& f) {
                return std::get<0>(value_and_grad(f)(w, x, lr, n));
            };
            const auto v = both_modes_exactly(value, typed);
            CHECK(at(v, 0) == Approx(lr * 4.5 / static_cast<double>(n)).epsilon(1e-15));
            // One graph of the forward and backward, jitted: its numbers are the call's.
            const auto step = jit(value_and_grad(typed));
            const auto dw_step = both_modes_exactly(
                [&](const auto&... a) { return std::get<1>(step(a...)); }, w, x, lr, n);
            CHECK(at(dw_step, 2) == at(dw, 2));
        }
    }
}

TEST_CASE("grad by a float argument declared auto, the others given as numbers") {
    const auto w = tensor<double>({1, 2, 3});
    // d/d lr of lr * sum(w) * k = sum(w) * k, with k a number parameter.
    const auto f = [](auto w_, auto lr, double k) { return (w_ * lr).sum() * k; };
    const auto by_lr = [&](const auto& lr, double k) {
        const auto d = grad(f, 1_c)(w, lr, k);
        return d.reshape(1); // a 0-dim tensor, as a Python float's gradient
    };
    for (double k : {2.0, -0.5}) {
        const auto d = both_modes_exactly(by_lr, 0.5, k);
        CHECK(at(d, 0) == 6.0 * k);
    }
}
