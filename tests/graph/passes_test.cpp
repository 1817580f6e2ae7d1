// The compile-time passes, read off the graph's type: constant folding, algebraic simplification,
// common-subexpression elimination, fusion regions, matmul epilogues; and the three views of a
// graph: dump (IR text), to_dot and to_cpp.

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "graph_test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using graph_test::both_modes;

namespace {

template <class F, class... Args>
using program_t = typename graph::trace<F, Args...>::prog;

using X = Tensor<float, static_shape<4, 8>>;
using I = Tensor<std::int32_t, static_shape<4, 8>>;

/// The node type of slot S.
template <class Prog, std::size_t S>
using node_t = typename Prog::template node_at<S>;

template <class Prog>
constexpr std::size_t materialized_count() {
    std::size_t n = 0;
    for (std::size_t s = 0; s < Prog::size; ++s)
        n += Prog::materialized[s];
    return n;
}

} // namespace

TEST_CASE("passes: x * 1, x + 0, x - 0, x / 1, 1 * x, 0 + x, pow(x, 1) leave x") {
    auto identity = [](auto x) { return ((1_c * (x * 1_c + 0_c) - 0_c) / 1_c + 0.0_c) * 1.0_c; };
    using P = program_t<decltype(identity), X>;
    STATIC_REQUIRE(P::size == 1); // just the input
    auto p1 = [](auto x) { return pow(x, 1_c); };
    STATIC_REQUIRE(program_t<decltype(p1), X>::size == 1);
    auto x = randn(4_c, 8_c);
    both_modes(jit(identity), x);
}

TEST_CASE("passes: a simplification that would change the dtype keeps it with a cast") {
    // int32 * 1.0 is float32 in PyTorch: the node becomes cast<float>(x), not x.
    auto f = [](auto x) { return x * 1.0_c; };
    using P = program_t<decltype(f), I>;
    STATIC_REQUIRE(P::size == 2);
    STATIC_REQUIRE(std::is_same_v<typename node_t<P, 1>::functor, fn::cast<float>>);
    auto i = cast<std::int32_t>(arange(32).reshape(4_c, 8_c));
    both_modes(jit(f), i);
}

TEST_CASE("passes: --x, relu(relu(x)), abs(abs(x)), abs(-x), pow(x, 2), x - x") {
    auto neg2 = [](auto x) { return -(-x); };
    STATIC_REQUIRE(program_t<decltype(neg2), X>::size == 1);
    auto relu2 = [](auto x) { return relu(relu(x)); };
    STATIC_REQUIRE(program_t<decltype(relu2), X>::size == 2);
    auto abs_neg = [](auto x) { return abs(abs(-x)); };
    using PA = program_t<decltype(abs_neg), X>;
    STATIC_REQUIRE(PA::size == 2);
    STATIC_REQUIRE(std::is_same_v<typename node_t<PA, 1>::functor, fn::abs>);
    auto square = [](auto x) { return pow(x, 2_c); };
    using PS = program_t<decltype(square), X>;
    STATIC_REQUIRE(std::is_same_v<typename node_t<PS, 1>::functor, fn::mul>);
    auto zero = [](auto x) { return exp(x) - exp(x); };
    using PZ = program_t<decltype(zero), X>;
    STATIC_REQUIRE(std::is_same_v<typename node_t<PZ, PZ::size - 1>::functor, fn::zeros_like>);
    auto x = randn(4_c, 8_c);
    both_modes(jit(neg2), x);
    both_modes(jit(relu2), x);
    both_modes(jit(abs_neg), x);
    both_modes(jit(square), x);
    both_modes(jit(zero), x);
    // A rewrite that enables another: -(-(x + 0)) -> -(-x) -> x.
    auto chain = [](auto x) { return -(-(x + 0_c)); };
    STATIC_REQUIRE(program_t<decltype(chain), X>::size == 1);
}

TEST_CASE("passes: x - y is not x - x, and run-time scalars are not assumed equal") {
    auto f = [](auto x, auto y) { return x - y; };
    using P = program_t<decltype(f), X, X>;
    STATIC_REQUIRE(std::is_same_v<typename node_t<P, 2>::functor, fn::sub>);
    // Same types, different values: the speculative program merges x * 2 and x * 3, the values
    // disagree at run time, and the exact program (kept apart) runs.
    auto g = [](auto x) { return x * 2.0f - x * 3.0f; };
    using T = graph::trace<decltype(g), X>;
    STATIC_REQUIRE(T::prog::size == 4);       // x, a scalar, x * s, sub
    STATIC_REQUIRE(T::exact_prog::size == 6); // x, 2, x * 2, 3, x * 3, sub
    auto x = randn(4_c, 8_c);
    auto r = both_modes(jit(g), x);
    graph_test::require_same(r, x * -1.0f);
    CHECK(dump(jit(g), x).find("%5 = sub(%2, %4)") != std::string::npos);
}

TEST_CASE("passes: a graph too large to number exactly runs op by op when merged values differ") {
    // y * tanh(y) names y twice, so the exact numbering walks each level's operands twice: 2^9
    // walks of x * 2.0f here, as in a deep network's gradient. That program is not numbered;
    // when the merged scalars differ at run time, the call runs op by op.
    auto deep = [](auto x, auto scale) {
        auto level = [](const auto& y) { return y * tanh(y); };
        auto y = level(level(level(x * 2.0f)));
        return level(level(level(level(level(level(y)))))) - x * scale;
    };
    auto differ = [&](auto x) { return deep(x, 3.0f); };
    auto same = [&](auto x) { return deep(x, 2.0f); };
    using T = graph::trace<decltype(differ), X>;
    STATIC_REQUIRE(!T::exact_numbered_too);
    STATIC_REQUIRE(std::is_void_v<T::exact_prog>);
    auto x = randn(4_c, 8_c);
    auto eager = [&](float scale) {
        auto y = x * 2.0f;
        for (int i = 0; i < 9; ++i)
            y = y * tanh(y);
        return (y - x * scale).contiguous();
    };
    graph_test::require_same(both_modes(jit(differ), x), eager(3.0f));
    graph_test::require_same(both_modes(jit(same), x), eager(2.0f));
    auto out = zeros<float>(4_c, 8_c);
    jit(differ).into(out, x);
    graph_test::require_same(out, eager(3.0f));
    // Only a call with a graph has one to show.
    CHECK(dump(jit(same), x).find("tanh") != std::string::npos);
    CHECK_THROWS_AS(dump(jit(differ), x), RuntimeError);
    CHECK_THROWS_AS(to_dot(jit(differ), x), RuntimeError);
    try {
        (void)to_cpp(jit(differ), x);
        FAIL("to_cpp did not throw");
    } catch (const RuntimeError& e) {
        CHECK(std::string(e.what()).starts_with("to_cpp: this call has no graph"));
    }
    // The trace drew a dropout key; the call that then runs op by op draws the same one, as an
    // eager call does: the generator is put back as the trace found it.
    Generator gen(5);
    auto noisy = [&](auto v) { return deep(nn::functional::dropout(v, 0.5, true, gen), 3.0f); };
    std::vector<decltype(noisy(x))> results;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        graph_test::mode_guard guard;
        set_context(mode);
        gen.manual_seed(5);
        results.push_back(jit(noisy)(x));
        results.push_back(jit(noisy)(x)); // the next key: another mask
    }
    graph_test::require_same(results[0], results[2]);
    graph_test::require_same(results[1], results[3]);
    const auto first = results[0].contiguous();
    const auto second = results[1].contiguous();
    CHECK(!std::equal(first.data(), first.data() + first.numel(), second.data()));
}

TEST_CASE("passes: a float argument is one value wherever the graph names it") {
    // The function's float arguments are scalar nodes that name the argument: no payload, so the
    // exact program is the speculative one; two arguments stay two values.
    auto f = [](auto x, auto a, auto b) { return (x * a + (x * a) * a) - x * b; };
    using T = graph::trace<decltype(f), X, float, float>;
    STATIC_REQUIRE(std::is_same_v<T::prog, T::exact_prog>);
    STATIC_REQUIRE(T::prog::size == 8); // x, a, x * a, (x * a) * a, +, b, x * b, -
    auto x = randn(4_c, 8_c);
    graph_test::require_same(both_modes(jit(f), x, 0.5f, 3.0f), x * -2.25f);
}

TEST_CASE("passes: ops whose arguments are compile-time carry no payload: one program") {
    // A backward graph names the forward nodes it reads once per use; a node with run-time
    // arguments gets a slot of its own at each use in the exact program. nn's layers give their
    // ops compile-time arguments (fixed in the op's type), so the exact program is the
    // speculative one, and there is nothing to compare per call.
    using XI = Tensor<float, static_shape<2, 1, 6, 6>>;
    using W = Tensor<float, static_shape<2, 1, 3, 3>>;
    using L = Tensor<std::int64_t, shape<std::int64_t>>;
    auto net = [](const auto& w, const auto& x, const auto& labels, const auto& stride) {
        const auto h = max_pool2d(relu(conv2d(x, w, None, stride, 1_c)), 2_c);
        return nn::functional::cross_entropy(h.flatten(1_c, int_<-1>{}), labels);
    };
    auto fixed_args = [&](const auto& w, const auto& x, const auto& labels) {
        return grad(net)(w, x, labels, 1_c);
    };
    using T = graph::trace<decltype(fixed_args), W, XI, L>;
    STATIC_REQUIRE(std::is_same_v<T::prog, T::exact_prog>);
    // A run-time stride is an argument to compare: the exact program repeats the convolution
    // (its forward and the uses its backward makes of it).
    auto runtime_args = [&](const auto& w, const auto& x, const auto& labels) {
        return grad(net)(w, x, labels, std::int64_t{1});
    };
    using R = graph::trace<decltype(runtime_args), W, XI, L>;
    STATIC_REQUIRE(R::prog::size == T::prog::size);
    STATIC_REQUIRE(R::exact_prog::size > R::prog::size);
    const auto w = randn(2_c, 1_c, 3_c, 3_c);
    const auto x = randn(2_c, 1_c, 6_c, 6_c);
    const auto labels = from_vector(std::vector<std::int64_t>{3, 0});
    graph_test::require_same(both_modes(jit(fixed_args), w, x, labels),
                             both_modes(jit(runtime_args), w, x, labels));
}

TEST_CASE("passes: equal run-time scalars and dims merge (speculative CSE, checked per call)") {
    // h holds a run-time scalar; each use of h is a copy of its tree. The copies merge because
    // their scalars are equal in this call, so h is evaluated once.
    auto f = [](auto x, auto s) {
        auto h = tanh(x * s);
        return h * h + h.sum(1, True);
    };
    auto x = randn(4_c, 8_c);
    const std::string ir = dump(jit(f), x, 0.5f);
    CHECK(ir.find("tanh(") == ir.rfind("tanh(")); // one tanh node
    CHECK(ir.find("%4 = mul(%3, %3)") != std::string::npos);
    both_modes(jit(f), x, 0.5f);
    // 0.0 and -0.0 are different payloads (x * -0.0 is -0.0 for positive x)
    auto g = [](auto t) { return t * 0.0f + t * -0.0f; };
    both_modes(jit(g), x);
}

TEST_CASE("passes: constant folding, at compile time and once per call") {
    // Compile-time constants fold into one constant node: x * 6.
    auto f = [](auto x) { return x * (2_c * 3_c + 0_c); };
    auto ct = [](auto x) {
        using node =
            graph::ew<fn::mul, std::remove_cvref_t<decltype(x.node)>, graph::constant<int_<6>>>;
        return graph::traced(node{{x.node, {}}});
    };
    STATIC_REQUIRE(std::is_same_v<program_t<decltype(f), X>, program_t<decltype(ct), X>>);
    // Run-time numbers (traced float arguments) fold into one scalar: a * b is computed once.
    auto h = [](auto x, auto a, auto b) { return x * (a * b + 1.0f); };
    using P = program_t<decltype(h), X, float, float>;
    STATIC_REQUIRE(P::size == 3); // x, the folded scalar, the mul
    STATIC_REQUIRE(graph::is_number_node_v<node_t<P, 1>>);
    auto x = randn(4_c, 8_c);
    auto r = both_modes(jit(h), x, 2.0f, 3.0f);
    graph_test::require_same(r, x * 7.0f);
}

TEST_CASE("passes: common subexpressions are evaluated once") {
    auto f = [](auto x, auto w) {
        auto h = tanh(x * w);
        return h * h + tanh(x * w) * sigmoid(x * w);
    };
    using P = program_t<decltype(f), X, X>;
    // x, w, mul, tanh, mul(h, h), sigmoid, mul(tanh, sigmoid), add
    STATIC_REQUIRE(P::size == 8);
    auto x = randn(4_c, 8_c);
    auto w = randn(4_c, 8_c);
    both_modes(jit(f), x, w);
    const std::string ir = dump(jit(f), x, w);
    CHECK(ir.find("%2 = mul(%0, %1)") != std::string::npos);
    CHECK(ir.find("%3 = tanh(%2)") != std::string::npos);
    CHECK(ir.find("%4 = mul(%3, %3)") != std::string::npos);
    CHECK(ir.find("tanh(", ir.find("%3 = tanh(") + 10) == std::string::npos); // one tanh
}

TEST_CASE("passes: all elementwise work of an output is one kernel, reductions fuse their "
          "producers") {
    auto f = [](auto x, auto y) { return (x * y + 1.0f).sum(); };
    using P = program_t<decltype(f), X, X>;
    // Only the inputs and the sum are materialized: x * y + 1 is never written anywhere.
    STATIC_REQUIRE(materialized_count<P>() == 3);
    STATIC_REQUIRE(graph::region<P, P::size - 2>::member[2]);
    auto x = randn(4_c, 8_c);
    auto y = randn(4_c, 8_c);
    const std::string ir = dump(jit(f), x, y);
    CHECK(ir.find("# kernel 0: reduce %2 %3 %4 into %5") != std::string::npos);
    CHECK(ir.find("# kernel 1") == std::string::npos); // one loop in all
    auto g = [](auto x, auto y) { return sigmoid(tanh(x * y) * 2.0f - y) / (1.0f + abs(x)); };
    CHECK(dump(jit(g), x, y).find("# kernel 1") == std::string::npos);
}

TEST_CASE("inspect: dump prints one node per line with dtypes and shapes") {
    auto f = jit([](auto x, auto w) { return relu(x * w + 1.0f).sum(1_c); });
    auto x = ones(3_c, 4_c);
    auto w = ones(std::int64_t{4});
    const std::string expected = "graph(%0: float32[3, 4], %1: float32[4]) {\n"
                                 "  %2 = mul(%0, %1) : float32[3, 4]\n"
                                 "  %3 = scalar 1.0 : float32[]\n"
                                 "  %4 = add(%2, %3) : float32[3, 4]\n"
                                 "  %5 = relu(%4) : float32[3, 4]\n"
                                 "  %6 = reduce_sum(%5, dims=[1]) : float32[3]\n"
                                 "  return %6\n"
                                 "  # kernel 0: reduce %2 %3 %4 %5 into %6\n"
                                 "}\n";
    CHECK(dump(f, x, w) == expected);
    auto m = jit([](auto a, auto b) { return a.matmul(b).softmax(-1_c); });
    const std::string ir = dump(m, ones(2_c, 3_c), ones(3_c, 5_c));
    CHECK(ir.find("%2 = matmul(%0, %1) : float32[2, 5]") != std::string::npos);
    CHECK(ir.find("%3 = softmax(%2, -1) : float32[2, 5]") != std::string::npos);
}

TEST_CASE("inspect: to_dot is Graphviz with a cluster per fused kernel") {
    auto f = jit([](auto x) { return list(exp(x).sum(), exp(x) * 2.0f); });
    const std::string dot = to_dot(f, ones(3_c));
    CHECK(dot.rfind("digraph staticpy {\n", 0) == 0);
    CHECK(dot.find("subgraph cluster_0 {") != std::string::npos);
    CHECK(dot.find("subgraph cluster_1 {") != std::string::npos);
    CHECK(dot.find("n0 -> n1;") != std::string::npos);
    CHECK(dot.find("[label=\"%1 = exp(%0)\\nfloat32[3]\"]") != std::string::npos);
    CHECK(dot.find("out0 [shape=ellipse, label=\"output 0\"];") != std::string::npos);
    CHECK(dot.substr(dot.size() - 2) == "}\n");
}

TEST_CASE("inspect: to_cpp emits each fused kernel as C++ through the functors' cpp()") {
    auto f = jit([](auto x, auto a) { return sigmoid(x * a).sum(0_c); });
    const std::string src = to_cpp(f, ones(2_c, 3_c), 0.5f);
    CHECK(src.find("#include <cmath>") != std::string::npos);
    CHECK(src.find("void kernel_0(std::int64_t numel, int rank, const std::int64_t* sizes, "
                   "const float* in0, const std::int64_t* in0_strides, float p1, double* out, "
                   "const std::int64_t* out_strides)") != std::string::npos);
    CHECK(src.find("const float v2 = (v0 * v1);") != std::string::npos);
    CHECK(src.find("const float v3 = (1 / (1 + std::exp((-v2))));") != std::string::npos);
    CHECK(src.find("out[o_out] += value;") != std::string::npos);
}

TEST_CASE("passes: bias and activation after a matmul run in its epilogue") {
    auto f = jit([](auto x, auto w, auto b) { return relu(matmul(x, w) + b) * 2.0f; });
    auto x = randn(std::int64_t{100}, std::int64_t{70});
    auto w = randn(std::int64_t{70}, std::int64_t{90});
    auto b = randn(std::int64_t{90});
    const std::string ir = dump(f, x, w, b);
    CHECK(ir.find("%2 = matmul(%0, %1) : float32[100, 90]") != std::string::npos);
    CHECK(ir.find("(epilogue of matmul %2)") != std::string::npos);
    graph_test::require_same(f(x, w, b), relu(matmul(x, w) + b) * 2.0f, 1e-4, 1e-4);
    // linear(x, w, b): the transposed weight is a view, the bias add the epilogue
    auto l = jit([](auto p, auto q, auto r) { return gelu(linear(p, q, r)); });
    auto wl = randn(std::int64_t{33}, std::int64_t{70});
    auto bl = randn(std::int64_t{33});
    CHECK(dump(l, x, wl, bl).find("(epilogue of matmul") != std::string::npos);
    graph_test::require_same(l(x, wl, bl), gelu(linear(x, wl, bl)), 1e-4, 1e-4);
    // A matmul that is also an output, or read by a reduction, is materialized instead.
    auto two = jit([](auto p, auto q) {
        auto m = matmul(p, q);
        return list(m, relu(m));
    });
    CHECK(dump(two, x, w).find("epilogue") == std::string::npos);
    auto red = jit([](auto p, auto q) {
        auto m = matmul(p, q);
        return relu(m) - m.mean(1_c, True);
    });
    CHECK(dump(red, x, w).find("epilogue") == std::string::npos);
    both_modes(red, x, w);
    // A kernel that also reads a matrix as large as the product (a residual, a parameter it
    // updates) runs as one flat pass after the GEMM: the epilogue would read it panel by panel.
    auto residual = jit([](auto p, auto q, auto r) { return relu(matmul(p, q) + r); });
    auto full = randn(std::int64_t{100}, std::int64_t{90});
    CHECK(dump(residual, x, w, full).find("epilogue") == std::string::npos);
    graph_test::require_same(residual(x, w, full), relu(matmul(x, w) + full), 1e-4, 1e-4);
    // An operand that broadcasts the result beyond the matmul's shape: no epilogue at run time.
    auto bc = jit([](auto p, auto q, auto r) { return matmul(p, q) + r; });
    auto row = randn(std::int64_t{1}, std::int64_t{70});
    auto col = randn(std::int64_t{5}, std::int64_t{1});
    graph_test::require_same(bc(row, w, col), matmul(row, w) + col, 1e-4, 1e-4);
}

TEST_CASE("passes: every node names its kind, a reduce node reads its reduction's description") {
    auto f = [](auto x, auto s) { return (x * s + 1_c).sum(1_c); };
    using P = program_t<decltype(f), X, float>;
    // x, s, mul, 1, add, sum
    STATIC_REQUIRE(P::size == 6);
    STATIC_REQUIRE(node_t<P, 0>::kind == graph::node_kind::input);
    STATIC_REQUIRE(node_t<P, 1>::kind == graph::node_kind::scalar);
    STATIC_REQUIRE(node_t<P, 2>::kind == graph::node_kind::elementwise);
    STATIC_REQUIRE(node_t<P, 3>::kind == graph::node_kind::constant);
    STATIC_REQUIRE(node_t<P, 5>::kind == graph::node_kind::reduce);
    STATIC_REQUIRE(std::is_same_v<typename node_t<P, 5>::reduction, reduction::sum>);
    auto g = [](auto x, auto w) { return softmax(matmul(x, w), 1_c); };
    using Q = program_t<decltype(g), X, Tensor<float, static_shape<8, 3>>>;
    STATIC_REQUIRE(node_t<Q, 2>::kind == graph::node_kind::matmul);
    STATIC_REQUIRE(node_t<Q, 3>::kind == graph::node_kind::opaque);
    auto w = randn(8_c, 3_c);
    auto h = [w](auto x) { return x.sum(0_c) * w.sum(1_c).sum(); };
    using H = program_t<decltype(h), X>;
    STATIC_REQUIRE(node_t<H, 2>::kind == graph::node_kind::captured);
}
