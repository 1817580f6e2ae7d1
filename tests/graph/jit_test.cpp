// jit: every op gives the same numbers traced and fused (GRAPH_MODE) as op by op (PYNATIVE_MODE),
// on static and dynamic shapes, contiguous and strided inputs, SIMD and tail lengths; composite
// graphs also against a naive reference. Built twice: with xsimd and with STATICPY_NO_XSIMD.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "graph_test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using graph_test::both_modes;
using graph_test::both_modes_within;
using graph_test::require_same;

namespace {
Generator gen() {
    return Generator(1234);
}
} // namespace

TEST_CASE("jit: the function is traced in both modes, never instantiated on Tensors") {
    // PYNATIVE_MODE runs the traced program op by op (backend/op_by_op.hpp), so a jit call
    // compiles the function once, with Tracers: a body that cannot take Tensors still compiles,
    // and both modes return what it would return on Tensors.
    auto f = jit([](const auto& a, auto b) {
        static_assert(is_tracer_v<std::remove_cvref_t<decltype(a)>>,
                      "a jit function is instantiated with Tracers only");
        return std::tuple{relu(a * b + 1.0f), (a * a).sum()};
    });
    auto g = gen();
    const auto x = randn(4_c, 3_c, g);
    const auto w = randn(3_c, g);
    graph_test::mode_guard guard;
    set_context(GRAPH_MODE);
    const auto graph = f(x, w);
    set_context(PYNATIVE_MODE);
    const auto op_by_op = f(x, w);
    using result_t = std::tuple<Tensor<float, shape<int_<4>, int_<3>>>, Tensor<float, shape<>>>;
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(graph)>, result_t>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(op_by_op)>, result_t>);
    for (const auto* r : {&graph, &op_by_op}) {
        require_same(std::get<0>(*r), relu(x * w + 1.0f));
        require_same(std::get<1>(*r), (x * x).sum());
    }
}

TEST_CASE("jit: the issue's example in both modes") {
    auto g = gen();
    auto x = randn(5_c, 7_c, g);
    auto w = randn(7_c, g);
    auto f = jit([](auto a, auto b) { return relu(a * b + 1.0f).sum(1); });
    auto y = both_modes(f, x, w);
    // against a naive loop
    for (std::int64_t i = 0; i < 5; ++i) {
        double s = 0;
        for (std::int64_t j = 0; j < 7; ++j)
            s += std::max(0.0, static_cast<double>(x(i, j)) * w(j) + 1.0);
        CHECK(y(i) == Approx(s).epsilon(1e-5));
    }
}

TEST_CASE("jit: unary ops, both modes, lengths around the SIMD width") {
    auto g = gen();
    for (std::int64_t n : {1, 3, 7, 8, 15, 16, 17, 33, 100, 1000}) {
        auto x = randn(n, g);
        auto p = rand(n, g) + 0.1f; // positive, for log/sqrt/rsqrt
        INFO("n = " << n);
        both_modes(jit([](auto a) { return -a; }), x);
        both_modes(jit([](auto a) { return abs(a); }), x);
        both_modes(jit([](auto a) { return exp(a); }), x);
        both_modes(jit([](auto a) { return log(a); }), p);
        both_modes(jit([](auto a) { return sqrt(a); }), p);
        both_modes(jit([](auto a) { return rsqrt(a); }), p);
        both_modes(jit([](auto a) { return sin(a); }), x);
        both_modes(jit([](auto a) { return cos(a); }), x);
        both_modes(jit([](auto a) { return tanh(a); }), x);
        both_modes(jit([](auto a) { return sigmoid(a); }), x);
        both_modes(jit([](auto a) { return relu(a); }), x);
        both_modes(jit([](auto a) { return gelu(a); }), x);
        // The ops added as one description each (issue 9).
        both_modes(jit([](auto a) { return log1p(a); }), p);
        both_modes(jit([](auto a) { return expm1(a); }), x);
        both_modes(jit([](auto a) { return erf(a); }), x);
        both_modes(jit([](auto a) { return silu(a); }), x);
        both_modes(jit([](auto a) { return softplus(a); }), x);
        both_modes(jit([](auto a) { return softplus(a * 20.0f, 2.0, 5.0); }), x);
        both_modes(jit([](auto a) { return leaky_relu(a, 0.2); }), x);
        both_modes(jit([](auto a) { return clamp(a, -0.5, 0.5); }), x);
        both_modes(jit([](auto a) { return a.clip(None, 0.25); }), x);
        both_modes(jit([](auto a) { return sign(a); }), x);
        both_modes(jit([](auto a) { return floor(a * 3.0f); }), x);
        both_modes(jit([](auto a) { return ceil(a * 3.0f); }), x);
        both_modes(jit([](auto a) { return round(a * 3.0f); }), x);
        both_modes(jit([](auto a) { return square(a); }), x);
        both_modes(jit([](auto a) { return reciprocal(a); }), p);
        both_modes(jit([](auto a) { return clamp(relu(a) - 0.5f, -0.25, square(a)); }), x);
    }
}

TEST_CASE("jit: binary ops, scalars on either side, comparisons and where") {
    auto g = gen();
    auto x = randn(4_c, 9_c, g);
    auto y = randn(4_c, 9_c, g);
    auto p = rand(4_c, 9_c, g) + 0.5f;
    both_modes(jit([](auto a, auto b) { return a + b; }), x, y);
    both_modes(jit([](auto a, auto b) { return a - b; }), x, y);
    both_modes(jit([](auto a, auto b) { return a * b; }), x, y);
    both_modes(jit([](auto a, auto b) { return a / b; }), x, p);
    both_modes(jit([](auto a, auto b) { return pow(a, b); }), p, y);
    both_modes(jit([](auto a, auto b) { return maximum(a, b); }), x, y);
    both_modes(jit([](auto a, auto b) { return minimum(a, b); }), x, y);
    both_modes(jit([](auto a) { return 2.0f - a * 3; }), x);
    both_modes(jit([](auto a) { return 1 / (a + 5.0); }), x); // a Python float: stays float32
    both_modes(jit([](auto a, auto b) { return a > b; }), x, y);
    both_modes(jit([](auto a, auto b) { return a == b; }), x, x);
    both_modes(jit([](auto a, auto b) { return a <= b; }), x, y);
    both_modes(jit([](auto a, auto b) { return where(a > b, a, b * 2.0f); }), x, y);
    both_modes(jit([](auto a) { return where(a > 0.0f, a, 0.0f); }), x);
}

TEST_CASE("jit: comparisons and where fused on SIMD batches (masks), with NaN, integer "
          "constants, strided inputs and reductions") {
    // A comparison inside a fused region is a batch's mask, taken by where's condition: relu's
    // backward (where(y <= 0, 0, g)) and its reductions run on batches. Lengths below, at and past
    // the SIMD width; NaN on either side of a comparison (false, != true).
    const float nan = std::nanf("");
    auto g = gen();
    for (std::int64_t n : {1, 7, 16, 37}) {
        CAPTURE(n);
        auto x = randn(3, n, g);
        auto y = randn(3, n, g);
        x.data()[0] = nan;
        y.data()[x.numel() - 1] = nan;
        both_modes(jit([](auto a, auto b) { return where(a <= 0_c, 0_c, b); }), x, y);
        both_modes(jit([](auto a, auto b) { return where(a != a, b, a * 2.0f); }), x, y);
        both_modes(jit([](auto a, auto b) { return where((a > b) == (b < 1.5), a, b) + 1; }), x, y);
        both_modes_within(1e-5, jit([](auto a, auto b) { return where(a > 0_c, b, 0_c).sum(1_c); }),
                          x, y);
        both_modes_within(1e-5, jit([](auto a, auto b) { return where(a > 0_c, b, 0_c).sum(0_c); }),
                          x, y);
        auto t = randn(n, 3, g).t(); // strided (transposed) leaf
        both_modes(jit([](auto a, auto b) { return where(a >= b, a - b, b); }), t, y);
    }
}

TEST_CASE("jit: NaN propagates through maximum, minimum and relu as in eager mode") {
    const float nan = std::nanf("");
    auto x = from_vector(
        std::vector<float>{nan, 1, -1, nan, 2, 3, 4, 5, 6, nan, -7, 8, 9, 10, 11, 12, 13});
    auto y = from_vector(
        std::vector<float>{0, nan, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, nan});
    both_modes(jit([](auto a, auto b) { return maximum(a, b); }), x, y);
    both_modes(jit([](auto a, auto b) { return minimum(a, b); }), x, y);
    both_modes(jit([](auto a) { return relu(a); }), x);
    both_modes(jit([](auto a) { return a.amax(0_c); }), x);
}

TEST_CASE("jit: integer and bool tensors, promotion and casts") {
    auto i = arange(12).reshape(3_c, 4_c); // int64
    auto j = cast<std::int32_t>(arange(4));
    auto u = cast<std::uint8_t>(arange(12).reshape(3_c, 4_c));
    both_modes(jit([](auto a, auto b) { return a * b + 3; }), i, j);
    both_modes(jit([](auto a, auto b) { return a / b; }), i, j + 1); // true division: float
    both_modes(jit([](auto a) { return a * 2.5; }), i);              // int * float: float32
    both_modes(jit([](auto a) { return sigmoid(a); }), u);           // uint8 -> float32
    both_modes(jit([](auto a) { return cast<double>(a) * 0.5; }), i);
    both_modes(jit([](auto a, auto b) { return (a > 5) == (b < 2); }), i, j);
    both_modes(jit([](auto a) { return a.sum(); }), i);
    both_modes(jit([](auto a) { return a.prod(0_c); }), j + 1);
    both_modes(jit([](auto a) { return (a > 3).sum(0_c); }), i);
    both_modes(jit([](auto a) { return a.amax(1_c) - a.amin(1_c); }), u);
}

TEST_CASE("jit: broadcasting of static and dynamic shapes") {
    auto g = gen();
    auto a = randn(3_c, 1_c, 5_c, g);
    auto b = randn(4_c, 1_c, g);
    auto c = randn(std::int64_t{5}, g);
    auto r = both_modes(jit([](auto x, auto y, auto z) { return x * y + z; }), a, b, c);
    STATIC_REQUIRE(std::is_same_v<decltype(r), Tensor<float, shape<int_<3>, int_<4>, int_<5>>>>);
    // zero-dim tensors and dynamic shapes
    auto s = randn(g);
    auto d = randn(std::int64_t{2}, std::int64_t{6}, g);
    both_modes(jit([](auto x, auto y) { return x * y - y; }), d, s);
}

TEST_CASE("jit: strided, transposed and broadcast (expanded) inputs") {
    auto g = gen();
    auto x = randn(6_c, 10_c, g);
    auto xt = x.t();                       // a transposed view
    auto xs = x.slice(1, 1, 9, 3);         // every third column
    auto e = randn(10_c, g).expand(6, 10); // stride 0
    both_modes(jit([](auto a) { return tanh(a) * 2.0f; }), xt);
    both_modes(jit([](auto a, auto b) { return a * b; }), xs, xs);
    both_modes(jit([](auto a, auto b) { return a + b; }), x, e);
    both_modes(jit([](auto a) { return a.sum(0_c); }), xt);
    both_modes(jit([](auto a) { return a.t().sum(1_c); }), x);
}

TEST_CASE("jit: reductions over any dims with keepdim, fused with their producers") {
    auto g = gen();
    auto x = randn(3_c, 4_c, 5_c, g);
    auto y = randn(3_c, 4_c, 5_c, g);
    both_modes(jit([](auto a) { return a.sum(); }), x);
    both_modes(jit([](auto a, auto b) { return (a * b).sum(); }), x, y);
    both_modes(jit([](auto a) { return a.sum(0_c); }), x);
    both_modes(jit([](auto a) { return a.sum(1_c); }), x);
    both_modes(jit([](auto a) { return a.sum(2_c, True); }), x);
    both_modes(jit([](auto a) { return a.sum(list(0_c, 2_c)); }), x);
    both_modes(jit([](auto a) { return a.sum(-1); }), x); // a run-time dim
    both_modes(jit([](auto a) { return a.mean(1_c, True); }), x);
    both_modes(jit([](auto a) { return exp(a).mean(); }), x);
    both_modes(jit([](auto a) { return a.prod(2_c); }), x);
    both_modes(jit([](auto a) { return amax(a, list(0_c, 1_c)); }), x);
    both_modes(jit([](auto a) { return amin(a * -1.0f, 2_c, True); }), x);
    both_modes(jit([](auto a) { return max(a) - min(a); }), x);
    both_modes(jit([](auto a) { return a.var(1_c); }), x);
    both_modes(jit([](auto a) { return a.var(); }), x);
    both_modes(jit([](auto a) { return a.argmax(2_c); }), x);
    both_modes(jit([](auto a) { return (a * 2.0f).argmin(); }), x);
    both_modes(jit([](auto a) { return softmax(a * 3.0f, 1_c); }), x);
    both_modes(jit([](auto a) { return log_softmax(a, -1_c); }), x);
    // a reduction feeding elementwise work that broadcasts it back
    both_modes(jit([](auto a) { return a - a.mean(2_c, True); }), x);
}

TEST_CASE("jit: row softmax kernel: long rows, strided input, -inf and NaN rows") {
    auto g = gen();
    auto x = randn(6_c, 37_c, g) * 4.0f;
    both_modes(jit([](auto a) { return softmax(a, -1_c); }), x);
    both_modes(jit([](auto a) { return log_softmax(a * 2.0f, 1); }), x);
    both_modes(jit([](auto a) { return softmax(a, 1_c); }), x.t().contiguous().t());
    both_modes(jit([](auto a) { return softmax(a, 0_c); }), x); // not the last dim: eager kernel
    const float inf = std::numeric_limits<float>::infinity();
    auto special = from_vector(std::vector<float>{-inf, -inf, -inf, -inf, 1, std::nanf(""), 2, 3})
                       .reshape(2_c, 4_c);
    both_modes(jit([](auto a) { return softmax(a, -1_c); }), special);
    both_modes(jit([](auto a) { return log_softmax(a, -1_c); }), special);
    auto big = randn(std::int64_t{512}, std::int64_t{1024}, g);
    both_modes(jit([](auto a) { return softmax(a, -1_c); }), big);
    // read once, by a reduction rather than as the output: it is materialized for the reduction
    // (it crashed reading a tensor that only an output would have had)
    both_modes(jit([](auto a) { return softmax(a, 1_c).sum(); }), x);
    both_modes(jit([](auto a) { return (log_softmax(a, -1_c) * a).sum(1_c); }), x);
}

TEST_CASE("jit: large reductions stay accurate and threads agree") {
    auto g = gen();
    auto x = rand(std::int64_t{1} << 20, g);
    auto s = both_modes(jit([](auto a) { return (a * 2.0f).sum(); }), x);
    double ref = 0;
    for (std::int64_t i = 0; i < x.numel(); ++i)
        ref += 2.0 * x.data()[i];
    CHECK(s.item() == Approx(ref).epsilon(1e-6));
    auto m = randn(std::int64_t{300}, std::int64_t{1000}, g);
    // 300 or 1000 terms of size 1: float rounding of the terms, not of the (small) sum
    both_modes_within(1e-4, jit([](auto a) { return a.sum(0_c); }), m);
    both_modes_within(1e-4, jit([](auto a) { return a.sum(1_c); }), m);
    both_modes(jit([](auto a) { return tanh(a) * a + 1.0f; }), m);
}

TEST_CASE("jit: empty tensors and PyTorch's errors for empty max") {
    auto e = zeros(0_c, 3_c);
    both_modes(jit([](auto a) { return a.sum(0_c); }), e);
    both_modes(jit([](auto a) { return a * 2.0f; }), e);
    auto mean = jit([](auto a) { return a.mean(); });
    CHECK(std::isnan(mean(e).item()));
    auto f = jit([](auto a) { return max(a); });
    CHECK_THROWS_AS(f(e), RuntimeError);
    CHECK_THROWS_WITH(f(e), "max(): Expected reduction dim to be specified for input.numel() == "
                            "0. Specify the reduction dim with the 'dim' argument.");
    auto h = jit([](auto a) { return amax(a, 0_c); });
    CHECK_THROWS_AS(h(e), IndexError);
    CHECK_THROWS_WITH(h(e), "amax(): Expected reduction dim 0 to have non-zero size.");
}

TEST_CASE("jit: dynamic shapes that do not broadcast throw PyTorch's RuntimeError") {
    auto a = zeros(std::int64_t{2}, std::int64_t{3});
    auto b = zeros(std::int64_t{2}, std::int64_t{4});
    auto f = jit([](auto x, auto y) { return x + y; });
    CHECK_THROWS_AS(f(a, b), RuntimeError);
    CHECK_THROWS_WITH(f(a, b), "The size of tensor a (3) must match the size of tensor b (4) at "
                               "non-singleton dimension 1");
    auto m = jit([](auto x, auto y) { return matmul(x, y); });
    CHECK_THROWS_AS(m(a, b), RuntimeError);
}

TEST_CASE("jit: matmul, batched matmul and linear with epilogues") {
    auto g = gen();
    auto x = randn(5_c, 7_c, g);
    auto w = randn(7_c, 3_c, g);
    auto b = randn(3_c, g);
    both_modes(jit([](auto p, auto q) { return matmul(p, q); }), x, w);
    both_modes(jit([](auto p, auto q, auto r) { return relu(matmul(p, q) + r); }), x, w, b);
    both_modes(jit([](auto p, auto q) { return p.matmul(q).sum(1_c); }), x, w);
    auto wl = randn(4_c, 7_c, g);
    auto bl = randn(4_c, g);
    both_modes(jit([](auto p, auto q, auto r) { return sigmoid(linear(p, q, r)); }), x, wl, bl);
    both_modes(jit([](auto p, auto q) { return linear(p, q); }), x, wl);
    auto bx = randn(2_c, 5_c, 7_c, g);
    both_modes(jit([](auto p, auto q) { return tanh(matmul(p * 0.5f, q)); }), bx, w);
    // a matmul of fused operands: x * 2 is evaluated into a temporary, then multiplied
    both_modes(jit([](auto p, auto q) { return matmul(p * 2.0f, q - 1.0f); }), x, w);
    // a GEMM whose ReLU epilogue feeds another GEMM (an MLP): the first runs once, with the ReLU
    // as its epilogue; read by two GEMMs, or by a GEMM and a reduction, it runs on its own
    auto w2 = randn(3_c, 4_c, g);
    both_modes(jit([](auto p, auto q, auto r) { return matmul(relu(matmul(p, q)), r); }), x, w, w2);
    both_modes(jit([](auto p, auto q, auto r) {
                   auto h = relu(linear(p, q.t()));
                   return matmul(h, r) + matmul(h * 2.0f, r);
               }),
               x, w, w2);
    both_modes(jit([](auto p, auto q, auto r) {
                   auto h = relu(matmul(p, q));
                   return matmul(h, r).sum() + h.sum();
               }),
               x, w, w2);
}

TEST_CASE("jit: into() writes several outputs over their destinations, reads first") {
    auto g = gen();
    const auto a0 = randn(4_c, 3_c, g);
    const auto b0 = randn(4_c, 3_c, g);
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        // each output's destination is the other's operand: both read before either is written
        auto a = a0.clone();
        auto b = b0.clone();
        auto swapped = std::tuple(b, a);
        jit([](auto x, auto y) { return std::tuple(x + y, x * 2.0f); }).into(swapped, a, b);
        graph_test::require_same(b, a0 + b0, 0, 0);
        graph_test::require_same(a, a0 * 2.0f, 0, 0);
        // an update in place, p - lr * (x^T @ y), and a GEMM with a bias epilogue into a fresh
        // tensor, in a dict like the result's
        auto p = randn(3_c, 5_c, g);
        const auto p0 = p.clone();
        const auto x = randn(6_c, 3_c, g);
        const auto y = randn(6_c, 5_c, g);
        const auto bias = randn(5_c, g);
        auto h = empty<float>(6_c, 5_c);
        auto outs = dict("p"_s = p, "h"_s = h);
        jit([](auto pp, auto lr, auto xx, auto yy, auto bb) {
            return dict("p"_s = pp - lr * matmul(xx.t(), yy), "h"_s = relu(matmul(xx, pp) + bb));
        }).into(outs, p, 0.5f, x, y, bias);
        graph_test::require_same(p, p0 - 0.5f * matmul(x.t(), y), 1e-5, 1e-5);
        graph_test::require_same(h, relu(matmul(x, p0) + bias), 1e-5, 1e-5);
    }
    set_context(GRAPH_MODE);
}

TEST_CASE("jit: views inside graphs") {
    auto g = gen();
    auto x = randn(4_c, 6_c, g);
    both_modes(jit([](auto a) { return a.reshape(2_c, 12_c).sum(1_c); }), x);
    both_modes(jit([](auto a) { return (a * 2.0f).transpose(0, 1) + 1.0f; }), x);
    both_modes(jit([](auto a) { return a.unsqueeze(0_c) * a.unsqueeze(1_c); }), x);
    both_modes(jit([](auto a) { return a.permute(1_c, 0_c).contiguous().flatten(); }), x);
}

TEST_CASE("jit: float arguments are traced scalars, ints stay constants of the trace") {
    auto g = gen();
    auto x = randn(3_c, 8_c, g);
    auto f = jit([](auto t, auto a, auto b) { return t * (a * b) + a; });
    both_modes(f, x, 2.0f, 3.0f);
    both_modes(f, x, -1.5f, 0.25f);
    auto h = jit([](auto t, int dim) { return t.sum(dim); });
    both_modes(h, x, 0);
    both_modes(h, x, 1);
}

TEST_CASE("jit: captured tensors are constants of the graph") {
    auto g = gen();
    auto w = randn(8_c, g);
    auto x = randn(3_c, 8_c, g);
    auto f = jit([w](auto t) { return t * w + w; });
    both_modes(f, x);
}

TEST_CASE("jit: lists and dicts in and out, their methods cost nothing at run time") {
    auto g = gen();
    auto x = randn(2_c, 3_c, g);
    auto w = randn(3_c, g);
    auto params = dict("w"_s = w, "scale"_s = 2.0f);
    auto f = jit([](auto t, auto p) {
        auto y = t * p["w"_s] * p["scale"_s];
        return dict("y"_s = y, "s"_s = y.sum());
    });
    {
        graph_test::mode_guard guard;
        auto r = f(x, params);
        set_context(PYNATIVE_MODE);
        auto e = f(x, params);
        require_same(r["y"_s], e["y"_s]);
        require_same(r["s"_s], e["s"_s]);
    }
    // list in, list out, list methods at trace time
    auto l = list(x, x * 2.0f);
    auto h = jit([](auto ts) {
        auto more = ts.append(ts[0_c] + ts[1_c]);
        return list(more[-1_c], len(more) == 3_c);
    });
    auto out = h(l);
    require_same(out[0_c], x + x * 2.0f);
    STATIC_REQUIRE(std::remove_cvref_t<decltype(out[1_c])>::value);
    // The graph of the dict version is the graph of the plain version: d["w"_s] resolved at
    // compile time to input 1, the scale to a scalar; nothing of the dict is left to run.
    using with_dict = graph::trace<decltype(f.function()), decltype(x), decltype(params)>::prog;
    auto plain = [](auto t, auto w2, auto s) {
        auto y = t * w2 * s;
        return list(y, y.sum());
    };
    using without = graph::trace<decltype(plain), decltype(x), decltype(w), float>::prog;
    STATIC_REQUIRE(std::is_same_v<with_dict, without>);
}

TEST_CASE("jit: set_context flips every jit function between the modes") {
    graph_test::mode_guard guard;
    CHECK(get_context() == GRAPH_MODE);
    set_context(PYNATIVE_MODE);
    CHECK(get_context() == PYNATIVE_MODE);
    set_context(GRAPH_MODE);
    CHECK_THROWS_AS(set_context(2), ValueError);
    CHECK_THROWS_WITH(set_context(2),
                      "For 'context.set_context', the argument 'mode' should be "
                      "context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), but got 2.");
}

TEST_CASE("jit: into() writes the output in place, also over an argument") {
    auto g = gen();
    auto x = randn(64_c, g);
    auto y = zeros(64_c);
    auto f = jit([](auto a) { return a * 2.0f + 1.0f; });
    f.into(y, x);
    require_same(y, x * 2.0f + 1.0f);
    // y = f(y): the same view, element by element, is safe
    auto expect = y * 2.0f + 1.0f;
    f.into(y, y);
    require_same(y, expect);
    // writing the transpose of an argument into it: overlapping in another layout, through a
    // temporary
    auto m = arange(16.0f).reshape(4_c, 4_c).contiguous();
    auto expect_t = m.t() + 0.0f;
    auto tr = jit([](auto a) { return a.t() + 0.0f; });
    tr.into(m, m);
    require_same(m, expect_t);
    // a strided output
    auto big = zeros(64_c, 2_c);
    auto col = big.select(1, 1);
    f.into(col, x);
    require_same(col, x * 2.0f + 1.0f);
    // softmax and log_softmax outputs are written into into()'s tensor directly when it is
    // contiguous (the row kernel along the last dim, the eager kernel along another; in place
    // when it is the input itself), through a temporary when it is strided.
    auto logits = randn(5_c, 33_c, g);
    auto probs = zeros(5_c, 33_c);
    auto sm = jit([](auto a) { return softmax(a * 2.0f, -1_c); });
    sm.into(probs, logits);
    require_same(probs, softmax(logits * 2.0f, -1_c));
    auto lsm = jit([](auto a) { return log_softmax(a, 1_c); });
    auto probs_t = zeros(33_c, 5_c);
    auto probs_view = probs_t.t();
    lsm.into(probs_view, logits);
    require_same(probs_view.contiguous(), log_softmax(logits, 1_c));
    auto self = logits.contiguous() + 0.0f;
    const auto expect_self = log_softmax(self, -1_c);
    jit([](auto a) { return log_softmax(a, -1_c); }).into(self, self);
    require_same(self, expect_self);
    auto cols = zeros(5_c, 33_c);
    jit([](auto a) { return softmax(a, 0_c); }).into(cols, logits);
    require_same(cols, softmax(logits, 0_c));
    require_same(sm(logits), softmax(logits * 2.0f, -1_c));
    auto wrong = zeros(std::int64_t{63});
    CHECK_THROWS_AS(f.into(wrong, x), RuntimeError);
    CHECK_THROWS_WITH(f.into(wrong, x),
                      "jit into(): the output has shape Size([63]) but the result has shape "
                      "Size([64])");
}
