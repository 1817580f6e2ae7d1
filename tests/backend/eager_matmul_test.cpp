// Eager matmul and linear on kernels::gemm, at sizes that take the blocked (and threaded)
// path, with the layouts the GEMM sees from them: batched and broadcast operands, transposed
// weights, a bias fused through the epilogue, and a permuted input whose leading dims cannot be
// merged into one run of rows (one GEMM per matrix).
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {

std::vector<float> seq(std::int64_t n, int seed) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<float>((i * 7 + seed) % 9 - 4);
    return v;
}

} // namespace

TEST_CASE("eager linear: fused bias, 3-D and permuted inputs", "[gemm][linear]") {
    const std::int64_t B = 3, R = 40, in = 70, out = 50;
    const auto xv = seq(B * R * in, 1), wv = seq(out * in, 2), bv = seq(out, 3);
    auto x = tensor<float>(xv, B, R, in);
    auto w = tensor<float>(wv, out, in);
    auto b = tensor<float>(bv, out);
    // want[b][r][o] = sum_k x[b][r][k] w[o][k] + bias[o]
    const auto want = [&](std::int64_t bi, std::int64_t r, std::int64_t o) {
        double s = bv[static_cast<std::size_t>(o)];
        for (std::int64_t k = 0; k < in; ++k)
            s += double(xv[static_cast<std::size_t>((bi * R + r) * in + k)]) *
                 double(wv[static_cast<std::size_t>(o * in + k)]);
        return s;
    };
    auto y = linear(x, w, b);
    REQUIRE(y.is_contiguous());
    std::int64_t wrong = 0;
    for (std::int64_t bi = 0; bi < B; ++bi)
        for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t o = 0; o < out; ++o)
                wrong += double(y.data()[(bi * R + r) * out + o]) != want(bi, r, o);
    CHECK(wrong == 0);

    // x permuted to [R, B, in]: its rows are not one strided run, so each [B, in] is a GEMM.
    auto xp = x.permute(1_c, 0_c, 2_c);
    auto yp = linear(xp, w, b);
    wrong = 0;
    for (std::int64_t r = 0; r < R; ++r)
        for (std::int64_t bi = 0; bi < B; ++bi)
            for (std::int64_t o = 0; o < out; ++o)
                wrong += double(yp.data()[(r * B + bi) * out + o]) != want(bi, r, o);
    CHECK(wrong == 0);
}

TEST_CASE("eager matmul: batched with a broadcast operand, blocked sizes", "[gemm][matmul]") {
    const std::int64_t B = 2, n = 70, k = 90, m = 110;
    const auto av = seq(B * n * k, 4), bv = seq(k * m, 5);
    auto a = tensor<float>(av, B, n, k);
    auto b = tensor<float>(bv, k, m);
    auto c = matmul(a, b);
    std::int64_t wrong = 0;
    for (std::int64_t bi = 0; bi < B; ++bi)
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < m; ++j) {
                double s = 0;
                for (std::int64_t q = 0; q < k; ++q)
                    s += double(av[static_cast<std::size_t>((bi * n + i) * k + q)]) *
                         double(bv[static_cast<std::size_t>(q * m + j)]);
                wrong += double(c.data()[(bi * n + i) * m + j]) != s;
            }
    CHECK(wrong == 0);
}
