// matmul and linear against a naive triple loop: 1-D/2-D/batched operands, broadcasting of batch
// dims, strided (transposed) operands, integer types, and PyTorch's error text.
#include <cstdint>
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

std::vector<double> seq(int n, double scale) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(scale * ((i * 7) % 11 - 5));
    return v;
}

/// C = A B for row-major A [n x k], B [k x m].
std::vector<double> naive_mm(const std::vector<double>& a, const std::vector<double>& b, int n,
                             int k, int m) {
    std::vector<double> c(static_cast<std::size_t>(n * m), 0.0);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
            double s = 0;
            for (int q = 0; q < k; ++q)
                s +=
                    a[static_cast<std::size_t>(i * k + q)] * b[static_cast<std::size_t>(q * m + j)];
            c[static_cast<std::size_t>(i * m + j)] = s;
        }
    return c;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        CHECK(got[i] == Approx(want[i]).epsilon(1e-12).margin(1e-12));
}

} // namespace

TEST_CASE("matmul: 2-D", "[matmul]") {
    const auto av = seq(6, 0.5), bv = seq(12, 0.25);
    auto a = tensor<double>(av, 2_c, 3_c);
    auto b = tensor<double>(bv, 3_c, 4_c);
    auto c = matmul(a, b);
    STATIC_REQUIRE(std::is_same_v<decltype(c), Tensor<double, static_shape<2, 4>>>);
    check_close(values(c), naive_mm(av, bv, 2, 3, 4));
    // dynamic extents
    const std::int64_t two = 2, three = 3, four = 4;
    auto d = matmul(tensor<double>(av, two, three), tensor<double>(bv, three, four));
    STATIC_REQUIRE(std::is_same_v<decltype(d), Tensor<double, dynamic_shape<2>>>);
    check_close(values(d), naive_mm(av, bv, 2, 3, 4));
    // transposed (strided) operands: (B^T)^T A^T ... here A^T^T = A
    auto at = tensor<double>(naive_mm(av, {1, 0, 0, 0, 1, 0, 0, 0, 1}, 2, 3, 3), 2_c, 3_c)
                  .t(); // [3, 2] view
    auto e = matmul(at.t(), b);
    check_close(values(e), naive_mm(av, bv, 2, 3, 4));
    auto bt = matmul(b.t(), a.t()); // (A B)^T
    std::vector<double> want_t;
    const auto ab = naive_mm(av, bv, 2, 3, 4);
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 2; ++i)
            want_t.push_back(ab[static_cast<std::size_t>(i * 4 + j)]);
    check_close(values(bt), want_t);
}

TEST_CASE("matmul: 1-D operands", "[matmul]") {
    auto u = tensor<double>(std::vector<double>{1, 2, 3}, 3_c);
    auto v = tensor<double>(std::vector<double>{4, -5, 6}, 3_c);
    auto dot = matmul(u, v);
    STATIC_REQUIRE(std::is_same_v<decltype(dot), Tensor<double, shape<>>>);
    CHECK(dot.item() == 12);
    auto m = tensor<double>(std::vector<double>{1, 2, 3, 4, 5, 6}, 2_c, 3_c);
    auto mv = matmul(m, u);
    STATIC_REQUIRE(std::is_same_v<decltype(mv), Tensor<double, static_shape<2>>>);
    CHECK(values(mv) == std::vector<double>{14, 32});
    auto w = tensor<double>(std::vector<double>{1, -1}, 2_c);
    auto vm = matmul(w, m);
    STATIC_REQUIRE(std::is_same_v<decltype(vm), Tensor<double, static_shape<3>>>);
    CHECK(values(vm) == std::vector<double>{-3, -3, -3});
}

TEST_CASE("matmul: batched, with broadcasting of the batch dim", "[matmul]") {
    const auto av = seq(2 * 3 * 4, 0.5), bv = seq(2 * 4 * 5, 0.25), b2v = seq(4 * 5, 0.125);
    auto a = tensor<double>(av, 2_c, 3_c, 4_c);
    auto b = tensor<double>(bv, 2_c, 4_c, 5_c);
    auto c = matmul(a, b);
    STATIC_REQUIRE(std::is_same_v<decltype(c), Tensor<double, static_shape<2, 3, 5>>>);
    std::vector<double> want;
    for (int i = 0; i < 2; ++i) {
        auto blk =
            naive_mm(std::vector<double>(av.begin() + i * 12, av.begin() + (i + 1) * 12),
                     std::vector<double>(bv.begin() + i * 20, bv.begin() + (i + 1) * 20), 3, 4, 5);
        want.insert(want.end(), blk.begin(), blk.end());
    }
    check_close(values(c), want);
    // [2, 3, 4] x [4, 5]: the matrix is shared by both batches
    auto b2 = tensor<double>(b2v, 4_c, 5_c);
    auto c2 = matmul(a, b2);
    STATIC_REQUIRE(std::is_same_v<decltype(c2), Tensor<double, static_shape<2, 3, 5>>>);
    std::vector<double> want2;
    for (int i = 0; i < 2; ++i) {
        auto blk = naive_mm(std::vector<double>(av.begin() + i * 12, av.begin() + (i + 1) * 12),
                            b2v, 3, 4, 5);
        want2.insert(want2.end(), blk.begin(), blk.end());
    }
    check_close(values(c2), want2);
    // [1, 3, 4] x [2, 4, 5] -> [2, 3, 5]
    auto a1 = tensor<double>(std::vector<double>(av.begin(), av.begin() + 12), 1_c, 3_c, 4_c);
    auto c3 = matmul(a1, b);
    STATIC_REQUIRE(std::is_same_v<decltype(c3), Tensor<double, static_shape<2, 3, 5>>>);
    std::vector<double> want3;
    for (int i = 0; i < 2; ++i) {
        auto blk =
            naive_mm(std::vector<double>(av.begin(), av.begin() + 12),
                     std::vector<double>(bv.begin() + i * 20, bv.begin() + (i + 1) * 20), 3, 4, 5);
        want3.insert(want3.end(), blk.begin(), blk.end());
    }
    check_close(values(c3), want3);
}

TEST_CASE("matmul: integer and float32 element types", "[matmul]") {
    auto a = tensor<std::int64_t>(std::vector<std::int64_t>{1, 2, 3, 4}, 2_c, 2_c);
    auto c = matmul(a, a);
    STATIC_REQUIRE(std::is_same_v<decltype(c)::value_type, std::int64_t>);
    CHECK(values(c) == std::vector<std::int64_t>{7, 10, 15, 22});
    auto f = tensor<float>(std::vector<float>{0.5f, 1.5f}, 1_c, 2_c);
    auto g = matmul(f, f.t());
    STATIC_REQUIRE(std::is_same_v<decltype(g), Tensor<float, static_shape<1, 1>>>);
    CHECK(g(0, 0) == 2.5f);
}

TEST_CASE("linear: x w^T + b", "[matmul][linear]") {
    const auto xv = seq(2 * 3, 0.5), wv = seq(4 * 3, 0.25);
    auto x = tensor<double>(xv, 2_c, 3_c);
    auto w = tensor<double>(wv, 4_c, 3_c);
    auto b = tensor<double>(std::vector<double>{1, 2, 3, 4}, 4_c);
    std::vector<double> wt; // w^T, [3, 4]
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            wt.push_back(wv[static_cast<std::size_t>(j * 3 + i)]);
    auto want = naive_mm(xv, wt, 2, 3, 4);
    auto y0 = linear(x, w);
    STATIC_REQUIRE(std::is_same_v<decltype(y0), Tensor<double, static_shape<2, 4>>>);
    check_close(values(y0), want);
    for (std::size_t i = 0; i < want.size(); ++i)
        want[i] += static_cast<double>(i % 4 + 1);
    auto y = linear(x, w, b);
    check_close(values(y), want);
    // Leading dims are kept: [1, 2, 3] -> [1, 2, 4]
    auto x3 = tensor<double>(xv, 1_c, 2_c, 3_c);
    auto y3 = linear(x3, w, b);
    STATIC_REQUIRE(std::is_same_v<decltype(y3), Tensor<double, static_shape<1, 2, 4>>>);
    check_close(values(y3), want);
    // A 1-D input
    auto x1 = tensor<double>(std::vector<double>(xv.begin(), xv.begin() + 3), 3_c);
    auto y1 = linear(x1, w, b);
    STATIC_REQUIRE(std::is_same_v<decltype(y1), Tensor<double, static_shape<4>>>);
    check_close(values(y1), std::vector<double>(want.begin(), want.begin() + 4));
    // A strided input (transposed view)
    auto xt = tensor<double>(xv, 2_c, 3_c).t().t();
    check_close(values(linear(xt, w, b)), want);
}

TEST_CASE("matmul/linear: mismatched inner dims give PyTorch's text", "[matmul][errors]") {
    const std::int64_t n2 = 2, n3 = 3, n4 = 4, n5 = 5;
    auto a = zeros<float>(n2, n3);
    auto b = zeros<float>(n4, n5);
    CHECK_THROWS_MATCHES(matmul(a, b), RuntimeError,
                         Catch::Message("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
    CHECK_THROWS_MATCHES(
        matmul(zeros<float>(n3), zeros<float>(n4)), RuntimeError,
        Catch::Message("inconsistent tensor size, expected tensor [3] and src [4] to have "
                       "the same number of elements, but got 3 and 4 elements respectively"));
    CHECK_THROWS_MATCHES(matmul(a, zeros<float>(n4)), RuntimeError,
                         Catch::Message("size mismatch, got input (2), mat (2x3), vec (4)"));
    // torch.nn.functional.linear(torch.ones(2, 3), torch.ones(5, 4))
    CHECK_THROWS_MATCHES(linear(a, zeros<float>(n5, n4)), RuntimeError,
                         Catch::Message("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
    CHECK_THROWS_MATCHES(
        linear(a, zeros<float>(n4, n3), zeros<float>(n5)), RuntimeError,
        Catch::Message("The size of tensor a (4) must match the size of tensor b (5) at "
                       "non-singleton dimension 1"));
    // Batch dims that do not broadcast
    CHECK_THROWS_MATCHES(
        matmul(zeros<float>(n2, n2, n3), zeros<float>(n3, n3, n4)), RuntimeError,
        Catch::Message("The size of tensor a (2) must match the size of tensor b (3) at "
                       "non-singleton dimension 0"));
}
