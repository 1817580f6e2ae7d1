// kernels::gemm against a double-precision triple loop: shapes that are not multiples of the
// blocking (edge tiles, ragged K blocks), K = 0, transposed and strided operands, ldc > N, integer
// types, and the epilogue's contract (each cell of C in exactly one block, seen with its final
// value). Built as is, with STATICPY_NO_XSIMD (the scalar kernel) and, where a CBLAS is found,
// with STATICPY_HAS_CBLAS (tests/backend/CMakeLists.txt).
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/kernels/gemm.hpp>

namespace {

using staticpy::kernels::gemm;

/// An M x K (or K x N) matrix stored with arbitrary strides inside a larger buffer.
template <class T>
struct strided {
    std::int64_t rows, cols, rs, cs;
    std::vector<T> data;
    strided(std::int64_t r, std::int64_t c, bool transposed, std::int64_t pad, int seed)
        : rows(r), cols(c) {
        // Row-major with `pad` unused columns, or column-major with `pad` unused rows.
        rs = transposed ? 1 : c + pad;
        cs = transposed ? r + pad : 1;
        const std::int64_t n = transposed ? (r + pad) * c : r * (c + pad);
        data.assign(static_cast<std::size_t>(n > 0 ? n : 1), T(99)); // padding: must be ignored
        for (std::int64_t i = 0; i < r; ++i)
            for (std::int64_t j = 0; j < c; ++j)
                at(i, j) = T(((i * 7 + j * 3 + seed) % 11) - 5);
    }
    T& at(std::int64_t i, std::int64_t j) {
        return data[static_cast<std::size_t>(i * rs + j * cs)];
    }
};

template <class T>
void check_product(std::int64_t M, std::int64_t N, std::int64_t K, bool ta, bool tb,
                   std::int64_t pad) {
    CAPTURE(M, N, K, ta, tb, pad);
    strided<T> a(M, K, ta, pad, 1), b(K, N, tb, pad, 2);
    const std::int64_t ldc = N + pad;
    std::vector<T> c(static_cast<std::size_t>(M * ldc + 1), T(42)); // 42: overwritten or untouched
    gemm<T>(M, N, K, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, c.data(), ldc);
    // One REQUIRE per product, not per cell: Catch's assertions would dominate a Debug run.
    std::int64_t wrong = 0, first_i = -1, first_j = -1;
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < ldc; ++j) {
            double want = 42;
            if (j < N) {
                want = 0;
                for (std::int64_t k = 0; k < K; ++k)
                    want += double(a.at(i, k)) * double(b.at(k, j));
            }
            // Small integers: every partial sum is exact in float and double.
            if (double(c[static_cast<std::size_t>(i * ldc + j)]) != want && wrong++ == 0) {
                first_i = i;
                first_j = j;
            }
        }
    CAPTURE(first_i, first_j);
    REQUIRE(wrong == 0);
    REQUIRE(c.back() == T(42));
}

template <class T>
void check_shapes() {
    const std::int64_t shapes[][3] = {{1, 1, 1},   {7, 13, 5},    {65, 33, 129}, {8, 32, 1},
                                      {17, 1, 40}, {1, 70, 33},   {9, 31, 400},  {50, 100, 0},
                                      {3, 4, 0},   {200, 45, 21}, {64, 128, 96}, {2, 2, 2},
                                      {40, 40, 1}};
    for (const auto& s : shapes)
        for (int layout = 0; layout < 4; ++layout)
            check_product<T>(s[0], s[1], s[2], layout & 1, layout & 2, layout == 3 ? 3 : 0);
}

} // namespace

TEST_CASE("gemm: float against a naive product", "[gemm]") {
    check_shapes<float>();
}
TEST_CASE("gemm: double against a naive product", "[gemm]") {
    check_shapes<double>();
}
TEST_CASE("gemm: int32 against a naive product", "[gemm]") {
    check_shapes<std::int32_t>();
}

TEST_CASE("gemm: products large enough to run on several threads", "[gemm]") {
    check_product<float>(100, 110, 96, false, false, 0);
    check_product<float>(100, 110, 96, true, true, 3);
    check_product<double>(97, 101, 103, false, true, 1);
    // A linear layer's forward, x W^T: B transposed, packed in 8 x 8 register blocks.
    check_product<float>(64, 128, 784, false, true, 0);
    check_product<float>(64, 120, 397, false, true, 5);
}

TEST_CASE("gemm: thin products of operands unit-stride along K (dot products)", "[gemm]") {
    // A row-major, B column-major (A B^T of two row-major matrices) with a side of at most 32:
    // a convolution's weight gradient. Edge tiles in both directions, K with and without a tail
    // shorter than a SIMD batch, padded leading dimensions.
    const std::int64_t shapes[][3] = {{6, 25, 2352}, {16, 150, 200}, {33, 5, 70},
                                      {3, 3, 64},    {5, 7, 71},     {32, 40, 100}};
    for (const auto& s : shapes)
        for (std::int64_t pad : {0, 3}) {
            check_product<float>(s[0], s[1], s[2], false, true, pad);
            check_product<double>(s[0], s[1], s[2], false, true, pad);
        }
    check_product<float>(30, 200, 3000, false, true, 0); // threaded
}

TEST_CASE("gemm: few rows read a row-major B in place", "[gemm]") {
    // At most one micro-tile row: B is not packed, except its ragged last panel. Several column
    // blocks (N > 4096), K blocks, and N below one panel.
    const std::int64_t shapes[][3] = {
        {6, 1000, 25}, {4, 4200, 30}, {8, 333, 800}, {1, 5, 9}, {3, 17, 400}};
    for (const auto& s : shapes)
        for (std::int64_t pad : {0, 2}) {
            check_product<float>(s[0], s[1], s[2], false, false, pad);
            check_product<double>(s[0], s[1], s[2], true, false, pad);
        }
}

TEST_CASE("gemm: M or N zero writes nothing", "[gemm]") {
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4] = {7, 7, 7, 7};
    int calls = 0;
    const auto count = [&](auto, auto, auto, auto) { ++calls; };
    gemm<float>(0, 2, 2, a, 2, 1, b, 2, 1, c, 2, count);
    gemm<float>(2, 0, 2, a, 2, 1, b, 2, 1, c, 2, count);
    CHECK(calls == 0);
    CHECK(c[0] == 7);
}

TEST_CASE("gemm: integers wrap as two's complement", "[gemm]") {
    const std::int8_t a[2] = {100, 100}, b[2] = {3, 1};
    std::int8_t c[1] = {0};
    gemm<std::int8_t>(1, 1, 2, a, 2, 1, b, 1, 1, c, 1);
    CHECK(c[0] == static_cast<std::int8_t>(400 - 256 * 2)); // 400 mod 256 = 144 -> -112
    const std::uint16_t ua[1] = {65535}, ub[1] = {65535};
    std::uint16_t uc[1] = {0};
    gemm<std::uint16_t>(1, 1, 1, ua, 1, 1, ub, 1, 1, uc, 1);
    CHECK(uc[0] == 1);
}

namespace {

/// Runs gemm with an epilogue that records every block and the values it sees.
template <class T>
void check_epilogue(std::int64_t M, std::int64_t N, std::int64_t K, bool tb = false) {
    CAPTURE(M, N, K, tb);
    strided<T> a(M, K, false, 0, 3), b(K, N, tb, 0, 4);
    std::vector<T> c(static_cast<std::size_t>(M * N), T(-1));
    std::vector<int> seen(static_cast<std::size_t>(M * N), 0);
    std::vector<T> at_epilogue(static_cast<std::size_t>(M * N), T(0));
    std::mutex m;
    bool in_bounds = true;
    gemm<T>(M, N, K, a.data.data(), a.rs, a.cs, b.data.data(), b.rs, b.cs, c.data(), N,
            [&](std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
                std::lock_guard<std::mutex> lock(m);
                if (i0 < 0 || i1 > M || j0 < 0 || j1 > N || i0 >= i1 || j0 >= j1) {
                    in_bounds = false;
                    return;
                }
                for (std::int64_t i = i0; i < i1; ++i)
                    for (std::int64_t j = j0; j < j1; ++j) {
                        const auto at = static_cast<std::size_t>(i * N + j);
                        ++seen[at];
                        at_epilogue[at] = c[at];
                        c[at] = c[at] * T(2) + T(1); // the epilogue may rewrite its block
                    }
            });
    REQUIRE(in_bounds);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            const auto at = static_cast<std::size_t>(i * N + j);
            double want = 0;
            for (std::int64_t k = 0; k < K; ++k)
                want += double(a.at(i, k)) * double(b.at(k, j));
            if (seen[at] != 1 || double(at_epilogue[at]) != want || double(c[at]) != want * 2 + 1)
                ++wrong;
        }
    REQUIRE(wrong == 0);
}

} // namespace

TEST_CASE("gemm: the epilogue covers C once, with final values", "[gemm][epilogue]") {
    // Small (naive path), blocked single-threaded, several K blocks, and large enough to thread.
    check_epilogue<float>(3, 5, 2);
    check_epilogue<float>(37, 70, 11);
    check_epilogue<float>(20, 40, 900);
    check_epilogue<float>(130, 150, 100);
    check_epilogue<float>(160, 130, 120); // large enough for the CBLAS path when it is built in
    check_epilogue<double>(61, 67, 300);
    check_epilogue<std::int32_t>(9, 10, 11);
    check_epilogue<float>(6, 7, 0);            // K = 0: zeros, epilogue still called
    check_epilogue<float>(6, 25, 700, true);   // dot products
    check_epilogue<float>(30, 200, 900, true); // dot products, threaded
    check_epilogue<float>(5, 300, 40);         // B read in place
}

TEST_CASE("gemm: an exception from the epilogue reaches the caller", "[gemm][epilogue]") {
    const std::int64_t n = 128;
    std::vector<float> a(static_cast<std::size_t>(n * n), 1.0f), c(a.size());
    CHECK_THROWS_AS(gemm<float>(n, n, n, a.data(), n, 1, a.data(), n, 1, c.data(), n,
                                [](auto i0, auto, auto, auto) {
                                    if (i0 == 0)
                                        throw std::runtime_error("epilogue");
                                }),
                    std::runtime_error);
}

TEST_CASE("set_num_threads / get_num_threads and cores reserved by other work") {
    const int before = staticpy::get_num_threads();
    CHECK(before >= 1);
    CHECK_THROWS_AS(staticpy::set_num_threads(0), staticpy::RuntimeError);
    CHECK_THROWS_WITH(staticpy::set_num_threads(0),
                      "set_num_threads expects a positive number of threads");
    staticpy::set_num_threads(1);
    CHECK(staticpy::get_num_threads() == 1);
    CHECK(staticpy::kernels::threads_for(std::int64_t{1} << 30) == 1);
    staticpy::set_num_threads(3);
    CHECK(staticpy::kernels::available_threads() == (STATICPY_HAS_OPENMP ? 3 : 1));
    {
        staticpy::reserve_threads workers(2);
        CHECK(staticpy::kernels::available_threads() == 1);
        CHECK(staticpy::kernels::threads_for(100) == 1); // small work: always one
    }
    CHECK(staticpy::kernels::available_threads() == (STATICPY_HAS_OPENMP ? 3 : 1));
    staticpy::set_num_threads(before);
}
