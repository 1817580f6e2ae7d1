// Eager reductions and softmax against naive loops: every axis, keepdim, several axes, result
// types (int sums are int64), NaN behaviour, stability of softmax, and PyTorch's error text.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers/list.hpp>
#include <staticpy/core/threads.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>
#include <staticpy/tensor/reductions.hpp>

#include "test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;

namespace {

using tensor_test::values;

// x[i][j][k] = data[i*12 + j*4 + k] for a [2, 3, 4] tensor.
std::vector<double> data234() {
    std::vector<double> v;
    for (int i = 0; i < 24; ++i)
        v.push_back(std::sin(1.7 * i) * 3.0 + 0.25 * (i % 5));
    return v;
}

/// Naive reduction of a [2, 3, 4] array over the dims in `red` (row-major output over the rest).
template <class F>
std::vector<double> naive(const std::vector<double>& v, std::array<bool, 3> red, double init, F f) {
    const int n[3] = {2, 3, 4};
    std::vector<double> out;
    for (int i = 0; i < (red[0] ? 1 : n[0]); ++i)
        for (int j = 0; j < (red[1] ? 1 : n[1]); ++j)
            for (int k = 0; k < (red[2] ? 1 : n[2]); ++k) {
                double acc = init;
                for (int a = 0; a < (red[0] ? n[0] : 1); ++a)
                    for (int b = 0; b < (red[1] ? n[1] : 1); ++b)
                        for (int c = 0; c < (red[2] ? n[2] : 1); ++c) {
                            const int ii = red[0] ? a : i, jj = red[1] ? b : j, kk = red[2] ? c : k;
                            acc = f(acc, v[static_cast<std::size_t>(ii * 12 + jj * 4 + kk)]);
                        }
                out.push_back(acc);
            }
    return out;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want,
                 double eps = 1e-12) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        CHECK(got[i] == Approx(want[i]).epsilon(eps).margin(eps));
}

std::vector<double> map_div(std::vector<double> v, double d) {
    for (double& x : v)
        x /= d;
    return v;
}

} // namespace

TEST_CASE("reduce: sum, prod, max, min over every single dim", "[reduce]") {
    const auto v = data234();
    auto x = tensor<double>(v, 2_c, 3_c, 4_c);
    auto add = [](double a, double b) { return a + b; };
    auto mul = [](double a, double b) { return a * b; };
    auto mx = [](double a, double b) { return std::max(a, b); };
    auto mn = [](double a, double b) { return std::min(a, b); };
    const double inf = std::numeric_limits<double>::infinity();

    auto s0 = sum(x, 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(s0), Tensor<double, static_shape<3, 4>>>);
    check_close(values(s0), naive(v, {true, false, false}, 0, add));
    auto s1 = sum(x, 1_c, True);
    STATIC_REQUIRE(std::is_same_v<decltype(s1), Tensor<double, static_shape<2, 1, 4>>>);
    check_close(values(s1), naive(v, {false, true, false}, 0, add));
    auto s2 = sum(x, -1_c);
    STATIC_REQUIRE(std::is_same_v<decltype(s2), Tensor<double, static_shape<2, 3>>>);
    check_close(values(s2), naive(v, {false, false, true}, 0, add));
    // A run-time dim: the same numbers, dynamic extents.
    auto r = sum(x, 1);
    STATIC_REQUIRE(std::is_same_v<decltype(r), Tensor<double, dynamic_shape<2>>>);
    CHECK(r.sizes() == std::array<std::int64_t, 2>{2, 4});
    check_close(values(r), naive(v, {false, true, false}, 0, add));
    auto rk = sum(x, -2, True);
    STATIC_REQUIRE(std::is_same_v<decltype(rk), Tensor<double, dynamic_shape<3>>>);
    CHECK(rk.sizes() == std::array<std::int64_t, 3>{2, 1, 4});

    check_close(values(prod(x, 2_c)), naive(v, {false, false, true}, 1, mul));
    check_close(values(amax(x, 0_c)), naive(v, {true, false, false}, -inf, mx));
    check_close(values(amin(x, 1_c)), naive(v, {false, true, false}, inf, mn));
    check_close(values(mean(x, 2_c)), map_div(naive(v, {false, false, true}, 0, add), 4.0));
}

TEST_CASE("reduce: several dims, and all of them", "[reduce]") {
    const auto v = data234();
    auto x = tensor<double>(v, 2_c, 3_c, 4_c);
    auto add = [](double a, double b) { return a + b; };
    auto s02 = sum(x, list(0_c, 2_c));
    STATIC_REQUIRE(std::is_same_v<decltype(s02), Tensor<double, static_shape<3>>>);
    check_close(values(s02), naive(v, {true, false, true}, 0, add));
    auto s02k = sum(x, std::tuple(0_c, -1_c), True);
    STATIC_REQUIRE(std::is_same_v<decltype(s02k), Tensor<double, static_shape<1, 3, 1>>>);
    check_close(values(s02k), naive(v, {true, false, true}, 0, add));
    auto s12 = mean(x, std::array<int, 2>{1, 2});
    STATIC_REQUIRE(std::is_same_v<decltype(s12), Tensor<double, dynamic_shape<1>>>);
    check_close(values(s12), map_div(naive(v, {false, true, true}, 0, add), 12.0));

    auto all = sum(x);
    STATIC_REQUIRE(std::is_same_v<decltype(all), Tensor<double, shape<>>>);
    check_close({all.item()}, naive(v, {true, true, true}, 0, add));
    check_close({mean(x).item()}, map_div(naive(v, {true, true, true}, 0, add), 24.0));
    double mx = -1e300, mn = 1e300;
    std::int64_t imx = 0, imn = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] > mx) {
            mx = v[i];
            imx = static_cast<std::int64_t>(i);
        }
        if (v[i] < mn) {
            mn = v[i];
            imn = static_cast<std::int64_t>(i);
        }
    }
    CHECK(max(x).item() == mx);
    CHECK(min(x).item() == mn);
    CHECK(argmax(x).item() == imx);
    CHECK(argmin(x).item() == imn);
    STATIC_REQUIRE(std::is_same_v<decltype(argmax(x)), Tensor<std::int64_t, shape<>>>);
}

TEST_CASE("reduce: max/min with a dim give values and indices", "[reduce]") {
    auto x = tensor<float>(std::vector<float>{1, 5, 5, 2, -1, 0, -7, -1}, 2_c, 4_c);
    auto [values1, indices1] = max(x, 1_c);
    STATIC_REQUIRE(std::is_same_v<decltype(values1), Tensor<float, static_shape<2>>>);
    STATIC_REQUIRE(std::is_same_v<decltype(indices1), Tensor<std::int64_t, static_shape<2>>>);
    CHECK(values(values1) == std::vector<float>{5, 0});
    CHECK(values(indices1) == std::vector<std::int64_t>{1, 1}); // the first of equal maxima
    auto [values0, indices0] = min(x, 0, True);
    CHECK(values0.sizes() == std::array<std::int64_t, 2>{1, 4});
    CHECK(values(values0) == std::vector<float>{-1, 0, -7, -1});
    CHECK(values(indices0) == std::vector<std::int64_t>{1, 1, 1, 1});
    CHECK(values(argmax(x, 1_c)) == std::vector<std::int64_t>{1, 1});
    CHECK(values(argmin(x, -1_c, True)) == std::vector<std::int64_t>{0, 2});
    // max(a, b) of two tensors is maximum
    auto y = tensor<float>(std::vector<float>{0, 9, 0, 9, 0, 9, 0, 9}, 2_c, 4_c);
    CHECK(values(max(x, y)) == std::vector<float>{1, 9, 5, 9, 0, 9, 0, 9});
    CHECK(values(min(x, y)) == std::vector<float>{0, 5, 0, 2, -1, 0, -7, -1});
}

TEST_CASE("reduce: result element types", "[reduce][promote]") {
    auto i = tensor<std::int32_t>(std::vector<std::int32_t>{1, 2, 3, 4}, 2_c, 2_c);
    auto s = sum(i);
    STATIC_REQUIRE(std::is_same_v<decltype(s)::value_type, std::int64_t>); // as torch.sum
    CHECK(s.item() == 10);
    STATIC_REQUIRE(std::is_same_v<decltype(prod(i, 0_c))::value_type, std::int64_t>);
    CHECK(values(prod(i, 0_c)) == std::vector<std::int64_t>{3, 8});
    auto b = tensor<bool>(std::vector<bool>{true, true, false}, 3_c);
    STATIC_REQUIRE(std::is_same_v<decltype(sum(b))::value_type, std::int64_t>);
    CHECK(sum(b).item() == 2);
    STATIC_REQUIRE(std::is_same_v<decltype(max(i))::value_type, std::int32_t>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(sum(tensor<float>(std::vector<float>{1}, 1_c)))::value_type,
                       float>);
    auto u = tensor<std::uint8_t>(std::vector<std::uint8_t>{200, 100}, 2_c);
    CHECK(sum(u).item() == 300); // accumulated in int64, no uint8 wrap-around
    // float32 accumulates in double (PyTorch's CPU accumulate type)
    std::vector<float> many(100000, 0.1f);
    auto f = from_vector(many);
    CHECK(sum(f).item() == Approx(100000 * 0.1).epsilon(1e-6));
}

TEST_CASE("reduce: var (correction=1 by default)", "[reduce]") {
    auto x = tensor<double>(std::vector<double>{1, 2, 3, 4, 10, 20, 30, 40}, 2_c, 4_c);
    CHECK(var(x).item() ==
          Approx(1517.5 / 7)); // torch.var over all 8 values: sum of squares / (8 - 1)
    auto v1 = var(x, 1_c);
    CHECK(values(v1)[0] == Approx(5.0 / 3.0));
    CHECK(values(v1)[1] == Approx(500.0 / 3.0));
    auto v0 = var(x, 0_c, True);
    STATIC_REQUIRE(std::is_same_v<decltype(v0), Tensor<double, static_shape<1, 4>>>);
    CHECK(values(v0) == std::vector<double>{40.5, 162.0, 364.5, 648.0});
    auto biased = var(x, 1_c, False, 0); // correction=0
    CHECK(values(biased)[0] == Approx(1.25));
    // One element: NaN (PyTorch also warns about the degrees of freedom).
    auto one = tensor<float>(std::vector<float>{3}, 1_c);
    CHECK(std::isnan(var(one).item()));
    CHECK(std::isinf(values(var(x, list(0_c, 1_c), False, 8))[0])); // no degrees of freedom left
}

TEST_CASE("reduce: NaN propagates through max/min/sum, argmax finds it", "[reduce]") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    auto x = tensor<float>(std::vector<float>{1, nan, 3, 4}, 2_c, 2_c);
    CHECK(std::isnan(max(x).item()));
    CHECK(std::isnan(min(x).item()));
    CHECK(std::isnan(sum(x).item()));
    CHECK(argmax(x).item() == 1);
    auto [v, i] = max(x, 1_c);
    CHECK(std::isnan(values(v)[0]));
    CHECK(values(v)[1] == 4);
    CHECK(values(i) == std::vector<std::int64_t>{1, 1});
}

TEST_CASE("reduce: softmax and log_softmax", "[reduce][softmax]") {
    const auto v = data234();
    auto x = tensor<double>(v, 2_c, 3_c, 4_c);
    for (int d = 0; d < 3; ++d) {
        auto p = softmax(x, d);
        STATIC_REQUIRE(std::is_same_v<decltype(p), Tensor<double, static_shape<2, 3, 4>>>);
        auto lp = log_softmax(x, d);
        // naive reference: exp(x) / sum(exp(x)) along d
        std::array<bool, 3> red{d == 0, d == 1, d == 2};
        auto sums = naive(v, red, 0, [](double a, double b) { return a + std::exp(b); });
        const int n[3] = {2, 3, 4};
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j)
                for (int k = 0; k < 4; ++k) {
                    const int idx[3] = {i, j, k};
                    int o = 0; // index into sums: row-major over the kept dims
                    for (int e = 0; e < 3; ++e)
                        if (e != d)
                            o = o * n[e] + idx[e];
                    const double want = std::exp(v[static_cast<std::size_t>(i * 12 + j * 4 + k)]) /
                                        sums[static_cast<std::size_t>(o)];
                    CHECK(p(i, j, k) == Approx(want).epsilon(1e-12));
                    CHECK(lp(i, j, k) == Approx(std::log(want)).epsilon(1e-12));
                }
    }
    // Rows sum to 1.
    auto p = softmax(tensor<float>(std::vector<float>{1, 2, 3, -1, 0, 1}, 2_c, 3_c), -1_c);
    const auto pv = values(p);
    CHECK(pv[0] + pv[1] + pv[2] == Approx(1.0f));
    CHECK(pv[3] + pv[4] + pv[5] == Approx(1.0f));
}

TEST_CASE("reduce: softmax is stable for large inputs", "[reduce][softmax]") {
    auto x = tensor<float>(std::vector<float>{1000, 1001, -1000, -1001}, 2_c, 2_c);
    auto p = values(softmax(x, 1_c));
    // torch.softmax(torch.tensor([1000., 1001.]), 0) == [0.2689, 0.7311]
    CHECK(p[0] == Approx(0.26894142f));
    CHECK(p[1] == Approx(0.73105858f));
    CHECK(p[2] == Approx(0.73105858f));
    CHECK(p[3] == Approx(0.26894142f));
    auto lp = values(log_softmax(x, 1_c));
    CHECK(lp[0] == Approx(-1.3132616f));
    CHECK(lp[1] == Approx(-0.3132617f));
    for (float e : lp)
        CHECK(std::isfinite(e));
    // A -inf entry gets probability 0.
    const float inf = std::numeric_limits<float>::infinity();
    auto q = values(softmax(tensor<float>(std::vector<float>{-inf, 0}, 2_c), 0_c));
    CHECK(q[0] == 0);
    CHECK(q[1] == 1);
}

TEST_CASE("reduce: strided inputs", "[reduce]") {
    auto x = tensor<float>(std::vector<float>{1, 2, 3, 4, 5, 6}, 2_c, 3_c);
    auto t = x.t(); // [[1, 4], [2, 5], [3, 6]]
    CHECK(values(sum(t, 1_c)) == std::vector<float>{5, 7, 9});
    CHECK(values(sum(t, 0_c)) == std::vector<float>{6, 15});
    auto p = softmax(t, 0_c);
    CHECK(p(0, 0) + p(1, 0) + p(2, 0) == Approx(1.0f));
    CHECK(p(2, 1) > p(1, 1));
}

TEST_CASE("reduce: large inputs through the fused reduction loop (SIMD, threads)", "[reduce]") {
    // 300 x 1000 floats: big enough for SIMD folds, four-accumulator runs, two threads and
    // private per-thread accumulators; the transposed view is read with a stride.
    constexpr int rows = 300, cols = 1000;
    std::vector<float> v(rows * cols);
    for (int i = 0; i < rows * cols; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<float>(std::sin(0.37 * i) + 0.001 * (i % 7));
    auto x = tensor<float>(v, 300_c, 1000_c);
    auto at = [&](int r, int c) {
        return static_cast<double>(v[static_cast<std::size_t>(r * cols + c)]);
    };

    double total = 0, biggest = -1e30;
    for (int i = 0; i < rows * cols; ++i) {
        total += static_cast<double>(v[static_cast<std::size_t>(i)]);
        biggest = std::max(biggest, static_cast<double>(v[static_cast<std::size_t>(i)]));
    }
    CHECK(values(sum(x))[0] == Approx(total).epsilon(1e-6));
    CHECK(values(mean(x))[0] == Approx(total / (rows * cols)).epsilon(1e-6));
    CHECK(static_cast<double>(values(max(x))[0]) == biggest);

    const int threads_before = get_num_threads();
    for (int threads : {1, 2}) {
        set_num_threads(threads);
        const auto by_row = values(sum(x, 1_c));       // inner dim reduced
        const auto by_col = values(sum(x, 0_c));       // outer dim reduced
        const auto by_col_t = values(sum(x.t(), 1_c)); // the same through a strided view
        const auto top = values(amax(x.t(), 1_c, True));
        REQUIRE(by_row.size() == rows);
        REQUIRE(by_col.size() == cols);
        for (int r = 0; r < rows; ++r) {
            double s = 0;
            for (int c = 0; c < cols; ++c)
                s += at(r, c);
            CHECK(by_row[static_cast<std::size_t>(r)] == Approx(s).margin(1e-4));
        }
        for (int c = 0; c < cols; ++c) {
            double s = 0, m = -1e30;
            for (int r = 0; r < rows; ++r) {
                s += at(r, c);
                m = std::max(m, at(r, c));
            }
            CHECK(by_col[static_cast<std::size_t>(c)] == Approx(s).margin(1e-4));
            CHECK(by_col_t[static_cast<std::size_t>(c)] == Approx(s).margin(1e-4));
            CHECK(static_cast<double>(top[static_cast<std::size_t>(c)]) == m);
        }
    }
    set_num_threads(threads_before);

    // A NaN deep inside a SIMD-folded run still wins, on both threads' shares.
    v[123457] = std::numeric_limits<float>::quiet_NaN();
    auto y = tensor<float>(v, 300_c, 1000_c);
    CHECK(std::isnan(values(amax(y, list(0_c, 1_c)))[0]));
    CHECK(std::isnan(values(sum(y))[0]));
    // Integers accumulate in int64 past int32's range.
    auto big = full<std::int32_t>(shape<int_<300>, int_<1000>>{}, 2000000000);
    CHECK(values(sum(big))[0] == std::int64_t{2000000000} * rows * cols);
}

TEST_CASE("reduce: softmax rows (the row kernel) against a naive loop", "[reduce][softmax]") {
    constexpr int rows = 37, cols = 1030; // not a multiple of any batch width
    std::vector<float> v(rows * cols);
    for (int i = 0; i < rows * cols; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<float>(8 * std::sin(0.11 * i));
    auto x = tensor<float>(v, 37_c, 1030_c);
    const auto p = values(softmax(x, -1_c));
    const auto lp = values(log_softmax(x, 1_c));
    for (int r = 0; r < rows; ++r) {
        double m = -1e30, total = 0;
        for (int c = 0; c < cols; ++c)
            m = std::max(m, static_cast<double>(v[static_cast<std::size_t>(r * cols + c)]));
        for (int c = 0; c < cols; ++c)
            total += std::exp(static_cast<double>(v[static_cast<std::size_t>(r * cols + c)]) - m);
        for (int c = 0; c < cols; c += 7) {
            const auto i = static_cast<std::size_t>(r * cols + c);
            const double e = static_cast<double>(v[i]) - m;
            CHECK(p[i] == Approx(std::exp(e) / total).epsilon(1e-5).margin(1e-12));
            CHECK(lp[i] == Approx(e - std::log(total)).epsilon(1e-5).margin(1e-5));
        }
    }
}

TEST_CASE("reduce: errors with PyTorch's text", "[reduce][errors]") {
    auto x = zeros<float>(2_c, 3_c);
    CHECK_THROWS_MATCHES(
        sum(x, 2), IndexError,
        Catch::Message("Dimension out of range (expected to be in range of [-2, 1], but got 2)"));
    CHECK_THROWS_MATCHES(
        softmax(x, -3), IndexError,
        Catch::Message("Dimension out of range (expected to be in range of [-2, 1], but got -3)"));
    CHECK_THROWS_MATCHES(sum(x, std::array<int, 2>{1, -1}), RuntimeError,
                         Catch::Message("dim 1 appears multiple times in the list of dims"));
    const std::int64_t zero = 0;
    auto e = zeros<float>(zero, 3_c);
    CHECK_THROWS_MATCHES(
        max(e), RuntimeError,
        Catch::Message("max(): Expected reduction dim to be specified for input.numel() == 0. "
                       "Specify the reduction dim with the 'dim' argument."));
    CHECK_THROWS_MATCHES(max(e, 0_c), IndexError,
                         Catch::Message("max(): Expected reduction dim 0 to have non-zero size."));
    CHECK_THROWS_AS(argmax(e), RuntimeError);
    // Reducing an empty dim is fine for sum (0) and mean (NaN).
    CHECK(values(sum(e, 0_c)) == std::vector<float>{0, 0, 0});
    CHECK(std::isnan(values(mean(e, 0_c))[0]));
    CHECK(sum(e, 1_c).numel() == 0);
}

TEST_CASE("reduce: one description per reduction (tensor/reductions.hpp)", "[reduce]") {
    // The types and identities that eager mode, the graph evaluator and the dumps all read.
    STATIC_REQUIRE(std::is_same_v<reduction::sum::accumulator<float>, double>);
    STATIC_REQUIRE(std::is_same_v<reduction::sum::result<std::int32_t>, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<reduction::prod::result<bool>, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<reduction::mean::result<float>, float>);
    STATIC_REQUIRE(std::is_same_v<reduction::amax::accumulator<std::int32_t>, std::int32_t>);
    STATIC_REQUIRE(reduction::prod::identity<double>() == 1.0);
    STATIC_REQUIRE(reduction::amax::identity<float>() == -std::numeric_limits<float>::infinity());
    STATIC_REQUIRE(reduction::amin::identity<std::int32_t>() ==
                   std::numeric_limits<std::int32_t>::max());
    STATIC_REQUIRE(std::is_same_v<reduction_of_t<reduce_kind::mean>, reduction::mean>);
    CHECK(reduction::mean::finish<float>(6.0, 4) == 1.5f);
    CHECK(std::isnan(reduction::mean::finish<float>(0.0, 0)));
    // Of equal values the first is kept, in the description and so in eager max().
    CHECK(!std::signbit(reduction::amax::combine(0.0f, -0.0f)));
    CHECK(std::signbit(reduction::amin::combine(-0.0f, 0.0f)));
    CHECK(!std::signbit(max(tensor<float>({0.0f, -0.0f})).item()));
    CHECK(std::isnan(reduction::amax::combine(1.0f, std::numeric_limits<float>::quiet_NaN())));
    // The empty-input check names the function called: max(x) over every element, amax over dims.
    CHECK_THROWS_WITH(reduction::amax::check_input(std::array<std::int64_t, 1>{0},
                                                   std::array<bool, 1>{true}, true),
                      "max(): Expected reduction dim to be specified for input.numel() == 0. "
                      "Specify the reduction dim with the 'dim' argument.");
    CHECK_THROWS_WITH(reduction::amin::check_input(std::array<std::int64_t, 2>{2, 0},
                                                   std::array<bool, 2>{false, true}, false),
                      "amin(): Expected reduction dim 1 to have non-zero size.");
    CHECK_NOTHROW(reduction::sum::check_input(std::array<std::int64_t, 1>{0},
                                              std::array<bool, 1>{true}, true));
}
