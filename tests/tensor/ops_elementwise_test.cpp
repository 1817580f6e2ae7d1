// Eager elementwise ops against naive references computed here with plain loops: values,
// broadcasting (static, dynamic, strided views), promotion of the result's element type, scalars
// on either side, NaN/inf behaviour and PyTorch's error text.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

#include "test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;

namespace {

using tensor_test::values;

std::vector<float> iota_f(int n, float start = -2.5f, float step = 0.75f) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = start + step * static_cast<float>(i);
    return v;
}

template <class F>
std::vector<float> map1(const std::vector<float>& a, F f) {
    std::vector<float> out;
    for (float x : a)
        out.push_back(f(x));
    return out;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i]))
            CHECK(std::isnan(got[i]));
        else
            CHECK(got[i] == Approx(want[i]).epsilon(1e-6).margin(1e-7));
    }
}

} // namespace

TEST_CASE("elementwise: arithmetic of same-shape tensors against loops", "[elementwise]") {
    const auto av = iota_f(6), bv = iota_f(6, 1.0f, 0.5f);
    auto a = tensor<float>(av, 2_c, 3_c);
    auto b = tensor<float>(bv, 2_c, 3_c);
    std::vector<float> add, sub, mul, div, mx, mn, pw;
    for (std::size_t i = 0; i < 6; ++i) {
        add.push_back(av[i] + bv[i]);
        sub.push_back(av[i] - bv[i]);
        mul.push_back(av[i] * bv[i]);
        div.push_back(av[i] / bv[i]);
        mx.push_back(std::max(av[i], bv[i]));
        mn.push_back(std::min(av[i], bv[i]));
        pw.push_back(std::pow(bv[i], av[i]));
    }
    auto c = a + b;
    STATIC_REQUIRE(std::is_same_v<decltype(c), Tensor<float, static_shape<2, 3>>>);
    check_close(values(c), add);
    check_close(values(a - b), sub);
    check_close(values(a * b), mul);
    check_close(values(a / b), div);
    check_close(values(staticpy::add(a, b)), add);
    check_close(values(maximum(a, b)), mx);
    check_close(values(minimum(a, b)), mn);
    check_close(values(pow(b, a)), pw);
    check_close(values(-a), map1(av, [](float x) { return -x; }));
}

TEST_CASE("elementwise: unary math against loops", "[elementwise]") {
    const auto av = iota_f(8, -3.0f, 0.8f);
    auto a = tensor<float>(av, 8_c);
    auto pos = tensor<float>(iota_f(8, 0.25f, 0.5f), 8_c);
    const auto pv = iota_f(8, 0.25f, 0.5f);
    check_close(values(abs(a)), map1(av, [](float x) { return std::fabs(x); }));
    check_close(values(exp(a)), map1(av, [](float x) { return std::exp(x); }));
    check_close(values(log(pos)), map1(pv, [](float x) { return std::log(x); }));
    check_close(values(sqrt(pos)), map1(pv, [](float x) { return std::sqrt(x); }));
    check_close(values(rsqrt(pos)), map1(pv, [](float x) { return 1.0f / std::sqrt(x); }));
    check_close(values(sin(a)), map1(av, [](float x) { return std::sin(x); }));
    check_close(values(cos(a)), map1(av, [](float x) { return std::cos(x); }));
    check_close(values(tanh(a)), map1(av, [](float x) { return std::tanh(x); }));
    check_close(values(sigmoid(a)), map1(av, [](float x) { return 1.0f / (1.0f + std::exp(-x)); }));
    check_close(values(relu(a)), map1(av, [](float x) { return x > 0 ? x : 0.0f; }));
    check_close(values(gelu(a)), map1(av, [](float x) {
                    return static_cast<float>(0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
                }));
}

TEST_CASE("elementwise: broadcasting", "[elementwise][broadcast]") {
    // [3, 1] + [4] -> [3, 4]
    auto col = tensor<float>(std::vector<float>{1, 2, 3}, 3_c, 1_c);
    auto row = tensor<float>(std::vector<float>{10, 20, 30, 40}, 4_c);
    auto s = col + row;
    STATIC_REQUIRE(std::is_same_v<decltype(s), Tensor<float, static_shape<3, 4>>>);
    std::vector<float> want;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            want.push_back(static_cast<float>(i + 1) + 10.0f * static_cast<float>(j + 1));
    check_close(values(s), want);

    // Dynamic extents: the same numbers, the type's extents dynamic.
    const std::int64_t three = 3, four = 4, one = 1;
    auto dcol = tensor<float>(std::vector<float>{1, 2, 3}, three, one);
    auto drow = tensor<float>(std::vector<float>{10, 20, 30, 40}, four);
    auto d = dcol * 1.0f + drow;
    STATIC_REQUIRE(std::is_same_v<decltype(d), Tensor<float, dynamic_shape<2>>>);
    CHECK(d.sizes() == std::array<std::int64_t, 2>{3, 4});
    check_close(values(d), want);

    // Mixed: a static 4 beside a dynamic extent stays static.
    auto m = dcol + row;
    STATIC_REQUIRE(std::is_same_v<decltype(m), Tensor<float, shape<std::int64_t, int_<4>>>>);
    check_close(values(m), want);

    // [2, 1, 3] * [4, 1] -> [2, 4, 3]
    auto a = tensor<std::int32_t>(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}, 2_c, 1_c, 3_c);
    auto b = tensor<std::int32_t>(std::vector<std::int32_t>{1, 10, 100, 1000}, 4_c, 1_c);
    auto p = a * b;
    STATIC_REQUIRE(std::is_same_v<decltype(p), Tensor<std::int32_t, static_shape<2, 4, 3>>>);
    std::vector<std::int32_t> wp;
    const int bs[4] = {1, 10, 100, 1000};
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 3; ++k)
                wp.push_back((i * 3 + k + 1) * bs[j]);
    CHECK(values(p) == wp);

    // A zero-dim tensor broadcasts against anything.
    auto z = tensor<float>(std::vector<float>{2}, shape<>{});
    check_close(values(row * z), {20, 40, 60, 80});
    check_close(values(z - z), {0});
}

TEST_CASE("elementwise: strided views are read through their strides", "[elementwise]") {
    auto a = tensor<float>(iota_f(6, 0.0f, 1.0f), 2_c, 3_c); // [[0,1,2],[3,4,5]]
    auto t = a.t();                                          // [[0,3],[1,4],[2,5]], not contiguous
    REQUIRE_FALSE(t.is_contiguous());
    check_close(values(t + 0.0f), {0, 3, 1, 4, 2, 5});
    auto ones3x2 = ones<float>(3_c, 2_c);
    check_close(values(t * ones3x2), {0, 3, 1, 4, 2, 5});
    // A broadcast (stride-0) view as input.
    auto e = tensor<float>(std::vector<float>{1, 2}, 2_c, 1_c).expand(2_c, 3_c);
    check_close(values(e + a), {1, 2, 3, 5, 6, 7});
}

TEST_CASE("elementwise: scalars on either side", "[elementwise]") {
    auto a = tensor<float>(std::vector<float>{1, 2, 4}, 3_c);
    check_close(values(a + 1), {2, 3, 5});
    check_close(values(1 + a), {2, 3, 5});
    check_close(values(10.0 - a), {9, 8, 6});
    check_close(values(a - 10.0), {-9, -8, -6});
    check_close(values(1.0f / a), {1, 0.5f, 0.25f});
    check_close(values(a * 2_c), {2, 4, 8});
    check_close(values(a / 2.5_c), {0.4f, 0.8f, 1.6f});
    check_close(values(pow(a, 2)), {1, 4, 16});
    check_close(values(pow(2, a)), {2, 4, 16});
    check_close(values(maximum(a, 2.5)), {2.5f, 2.5f, 4});
    CHECK(values(a > 1.5) == std::vector<bool>{false, true, true});
    CHECK(values(2 == a) == std::vector<bool>{false, true, false});
}

TEST_CASE("elementwise: result element types follow PyTorch's promotion",
          "[elementwise][promote]") {
    auto f32 = ones<float>(2_c);
    auto f64 = ones<double>(2_c);
    auto i32 = ones<std::int32_t>(2_c);
    auto i64 = ones<std::int64_t>(2_c);
    auto u8 = ones<std::uint8_t>(2_c);
    auto b = ones<bool>(2_c);
    STATIC_REQUIRE(std::is_same_v<decltype(f32 + f64)::value_type, double>);
    STATIC_REQUIRE(std::is_same_v<decltype(i32 + f32)::value_type, float>);
    STATIC_REQUIRE(std::is_same_v<decltype(u8 + i32)::value_type, std::int32_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(i32 + i64)::value_type, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(i32 + 2.5)::value_type, float>); // int tensor + float
    STATIC_REQUIRE(
        std::is_same_v<decltype(f32 + 2.0)::value_type, float>); // double scalar: still f32
    STATIC_REQUIRE(std::is_same_v<decltype(u8 + 300)::value_type, std::uint8_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(b + 1)::value_type, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(b + b)::value_type, bool>);
    STATIC_REQUIRE(std::is_same_v<decltype(i64 / i64)::value_type, float>); // true division
    STATIC_REQUIRE(std::is_same_v<decltype(i32 / 2)::value_type, float>);
    STATIC_REQUIRE(std::is_same_v<decltype(f64 / 2)::value_type, double>);
    STATIC_REQUIRE(std::is_same_v<decltype(exp(i32))::value_type, float>);
    STATIC_REQUIRE(std::is_same_v<decltype(sqrt(b))::value_type, float>);
    STATIC_REQUIRE(std::is_same_v<decltype(relu(i32))::value_type, std::int32_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(i32 < 2.5)::value_type, bool>);
    STATIC_REQUIRE(std::is_same_v<decltype(f32 == f64)::value_type, bool>);
    STATIC_REQUIRE(std::is_same_v<decltype(where(b, i32, 0.5))::value_type, float>);
    STATIC_REQUIRE(std::is_same_v<decltype(where(b, i32, f64))::value_type, double>);
    STATIC_REQUIRE(std::is_same_v<decltype(cast<std::uint8_t>(f32))::value_type, std::uint8_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(pow(i32, 2))::value_type, std::int32_t>);
    // A zero-dim float64 tensor lifts an int tensor to float64, but not a float32 one.
    auto z64 = tensor<double>(std::vector<double>{1}, shape<>{});
    STATIC_REQUIRE(std::is_same_v<decltype(i32 + z64)::value_type, double>);
    STATIC_REQUIRE(std::is_same_v<decltype(f32 + z64)::value_type, float>);

    // The values are computed in the promoted type.
    auto i = tensor<std::int32_t>(std::vector<std::int32_t>{1, 2, 7}, 3_c);
    check_close(values(i + 2.5), {3.5f, 4.5f, 9.5f});
    check_close(values(i / 2), {0.5f, 1, 3.5f});
    CHECK(values(i < 1.5) == std::vector<bool>{true, false, false});
    auto u = tensor<std::uint8_t>(std::vector<std::uint8_t>{1, 200, 255}, 3_c);
    CHECK(values(u + 300) == std::vector<std::uint8_t>{45, 244, 43}); // wraps, as torch.uint8
    CHECK(values(-u) == std::vector<std::uint8_t>{255, 56, 1});
    auto bb = tensor<bool>(std::vector<bool>{true, false}, 2_c);
    CHECK(values(bb + 1) == std::vector<std::int64_t>{2, 1});
    CHECK(values(bb + bb) == std::vector<bool>{true, false});
    CHECK(values(bb * bb) == std::vector<bool>{true, false});
    CHECK(values(cast<std::int32_t>(tensor<float>(std::vector<float>{-2.7f, 2.7f}, 2_c))) ==
          std::vector<std::int32_t>{-2, 2});
}

TEST_CASE("elementwise: where", "[elementwise]") {
    auto x = tensor<float>(std::vector<float>{-1, 2, -3, 4}, 2_c, 2_c);
    check_close(values(where(x > 0, x, 0.0f)), {0, 2, 0, 4});
    check_close(values(where(x > 0, 1, x)), {-1, 1, -3, 1});
    // cond [2, 1] broadcast against [2, 2] and a scalar
    auto c = tensor<bool>(std::vector<bool>{true, false}, 2_c, 1_c);
    check_close(values(where(c, x, -9)), {-1, 2, -9, -9});
}

TEST_CASE("elementwise: NaN and infinity as PyTorch", "[elementwise]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    auto a = tensor<float>(std::vector<float>{nan, -inf, inf, -1, 0}, 5_c);
    auto r = values(relu(a));
    CHECK(std::isnan(r[0])); // relu(nan) is nan
    CHECK(r[1] == 0);
    CHECK(r[2] == inf);
    auto m = values(maximum(a, 0.0f));
    CHECK(std::isnan(m[0])); // maximum propagates NaN
    CHECK(m[1] == 0);
    auto mn = values(minimum(0.0f, a));
    CHECK(std::isnan(mn[0]));
    CHECK(mn[1] == -inf);
    auto e = values(exp(a));
    CHECK(std::isnan(e[0]));
    CHECK(e[1] == 0);
    CHECK(e[2] == inf);
    auto s = values(sigmoid(a));
    CHECK(s[1] == 0);
    CHECK(s[2] == 1);
    auto l = values(log(a));
    CHECK(l[4] == -inf);
    CHECK(std::isnan(l[3]));
    CHECK(values(a == a) == std::vector<bool>{false, true, true, true, true});
    CHECK(values(a != a) == std::vector<bool>{true, false, false, false, false});
    auto d = values(tensor<float>(std::vector<float>{1, -1, 0}, 3_c) / 0.0f);
    CHECK(d[0] == inf);
    CHECK(d[1] == -inf);
    CHECK(std::isnan(d[2]));
}

TEST_CASE("elementwise: empty tensors and rank 0", "[elementwise]") {
    const std::int64_t zero = 0;
    auto e = zeros<float>(zero, 3_c);
    auto r = e + 1.0f;
    CHECK(r.numel() == 0);
    CHECK(r.sizes() == std::array<std::int64_t, 2>{0, 3});
    auto z = tensor<double>(std::vector<double>{3}, shape<>{});
    auto y = sqrt(z * z);
    STATIC_REQUIRE(decltype(y)::rank == 0);
    CHECK(y.item() == 3.0);
}

TEST_CASE("elementwise: shapes that do not broadcast", "[elementwise][errors]") {
    const std::int64_t n3 = 3, n4 = 4, n2 = 2;
    auto a = zeros<float>(n2, n3);
    auto b = zeros<float>(n2, n4);
    CHECK_THROWS_MATCHES(
        a + b, RuntimeError,
        Catch::Message("The size of tensor a (3) must match the size of tensor b (4) at "
                       "non-singleton dimension 1"));
    CHECK_THROWS_AS(where(a > 0, a, b), RuntimeError);
    // A static extent beside a dynamic one is checked at run time.
    auto s = zeros<float>(2_c, 3_c);
    CHECK_THROWS_MATCHES(
        s * b, RuntimeError,
        Catch::Message("The size of tensor a (3) must match the size of tensor b (4) at "
                       "non-singleton dimension 1"));
}

TEST_CASE("elementwise: the generic entry point and composition", "[elementwise]") {
    auto x = tensor<float>(std::vector<float>{-1, 0.5f, 2}, 3_c);
    auto w = tensor<float>(std::vector<float>{2, 2, 2}, 3_c);
    auto y = relu(x * w + 1.0f);
    check_close(values(y), {0, 2, 5});
    check_close(values(elementwise<fn::mul>(x, 2.0f)), {-2, 1, 4});
    check_close(values(elementwise<fn::gelu>(x)), values(gelu(x)));
    // Inputs are never modified; results own fresh storage.
    auto x2 = x + 0.0f;
    CHECK_FALSE(x2.storage().is_same(x.storage()));
    check_close(values(x), {-1, 0.5f, 2});
}

TEST_CASE("elementwise: a temporary operand lends its memory to the result", "[elementwise]") {
    auto x = tensor<float>(iota_f(6), 2_c, 3_c);
    const auto xv = values(x);

    // An rvalue that nothing else shares: the result is written over it.
    auto t = x * 2.0f;
    const float* buffer = t.data();
    auto y = std::move(t) + 1.0f;
    CHECK(y.data() == buffer);
    check_close(values(y), map1(xv, [](float v) { return v * 2.0f + 1.0f; }));

    // Chains: one allocation, the right values, the inputs untouched.
    const auto z = values(tanh(x * 0.5f + 0.25f) * x - sigmoid(-x));
    for (std::size_t i = 0; i < xv.size(); ++i) {
        const double v = xv[i];
        CHECK(z[i] == Approx(std::tanh(v * 0.5 + 0.25) * v - 1.0 / (1.0 + std::exp(v)))
                          .epsilon(1e-5)
                          .margin(1e-6));
    }
    CHECK(values(x) == xv);
    // Both operands temporaries.
    check_close(values((x * 2.0f) + (x * 3.0f)), map1(xv, [](float v) { return 5.0f * v; }));
    // The same tensor on both sides, as an lvalue: never overwritten.
    check_close(values(x + x), map1(xv, [](float v) { return 2.0f * v; }));
    CHECK(values(x) == xv);

    // Shared with a view: the view keeps its values and the result gets new memory.
    auto u = x * 2.0f;
    auto view = u.view(6_c);
    auto w = std::move(u) + 1.0f;
    CHECK(w.data() != view.data());
    check_close(values(view), map1(xv, [](float v) { return v * 2.0f; }));
    check_close(values(w), map1(xv, [](float v) { return v * 2.0f + 1.0f; }));

    // A temporary that broadcasts to a larger result cannot hold it.
    auto row = tensor<float>(std::vector<float>{1, 2, 3}, 3_c);
    auto b = (row * 1.0f) + x;
    CHECK(values(b) ==
          std::vector<float>{xv[0] + 1, xv[1] + 2, xv[2] + 3, xv[3] + 1, xv[4] + 2, xv[5] + 3});
    // A strided temporary (a transposed view of one) is not reused either.
    auto tt = (x * 1.0f).t() + 0.0f;
    CHECK(values(tt) == std::vector<float>{xv[0], xv[3], xv[1], xv[4], xv[2], xv[5]});
    // A result of another dtype gets its own memory: int * 2 + 0.5 is float32.
    auto xi = tensor<std::int32_t>(std::vector<std::int32_t>{1, 2, 3}, 3_c);
    auto f = (xi * 2) + 0.5;
    static_assert(std::is_same_v<typename decltype(f)::value_type, float>);
    CHECK(values(f) == std::vector<float>{2.5f, 4.5f, 6.5f});
    CHECK(values(xi) == std::vector<std::int32_t>{1, 2, 3});
    // Comparisons of temporaries give bool tensors in new memory.
    CHECK(values((x * 1.0f) > 0.0f) == std::vector<bool>{false, false, false, false, true, true});
}
