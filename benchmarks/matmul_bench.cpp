// float32 GEMM: staticpy's kernels::gemm against OpenBLAS (cblas_sgemm) and Eigen 3.4, on
// square sizes and the MLP shapes (a batch of MNIST rows, 784 -> 128), in GFLOP/s (2*M*N*K per
// product). Also bias + ReLU: fused into the GEMM's epilogue, against a GEMM followed by a
// separate pass over C. All three use every core (OpenMP, OpenBLAS threads, Eigen's OpenMP).
// Peers are optional: a missing one's cases are not registered (benchmarks/CMakeLists.txt).
//
//   cmake -S . -B /tmp/gemm-bench -DCMAKE_BUILD_TYPE=Release -DSTATICPY_BUILD_BENCHMARKS=ON
//   cmake --build /tmp/gemm-bench --target matmul_bench
//   for f in '^staticpy_' '^openblas_' '^eigen_'; do
//       /tmp/gemm-bench/benchmarks/matmul_bench --benchmark_filter="$f" --benchmark_repetitions=3
//   done
// One process per library: OpenMP's and OpenBLAS's idle threads spin for a while after each call,
// and on a machine with few cores the spinning pool of one library slows the other's next run.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include <staticpy/kernels/gemm.hpp>

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif
#if defined(STATICPY_BENCH_HAVE_EIGEN)
#if defined(__GNUC__) && !defined(__clang__)
// g++ 12 warns inside its own avx512fintrin.h for Eigen's AVX-512 GEBP kernel (GCC bug 105593,
// _mm512_undefined_ps); the warning is reported where the kernel is inlined, so it is silenced
// for this file rather than around the include.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <Eigen/Core>
#endif

namespace {

struct problem {
    std::int64_t M, N, K;
    std::vector<float> a, b, c, bias;
    explicit problem(const benchmark::State& state)
        : M(state.range(0)),
          N(state.range(1)),
          K(state.range(2)),
          a(static_cast<std::size_t>(M * K)),
          b(static_cast<std::size_t>(K * N)),
          c(static_cast<std::size_t>(M * N)),
          bias(static_cast<std::size_t>(N)) {
        for (std::size_t i = 0; i < a.size(); ++i)
            a[i] = static_cast<float>(static_cast<int>(i % 17) - 8) / 8.0f;
        for (std::size_t i = 0; i < b.size(); ++i)
            b[i] = static_cast<float>(static_cast<int>(i % 13) - 6) / 6.0f;
        for (std::size_t i = 0; i < bias.size(); ++i)
            bias[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
    }
    void report(benchmark::State& state) const {
        state.counters["GFLOP/s"] =
            benchmark::Counter(2.0 * static_cast<double>(M * N * K) / 1e9,
                               benchmark::Counter::kIsIterationInvariantRate);
    }
    /// relu(c + bias) over the block [i0, i1) x [j0, j1).
    void bias_relu(std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
        for (std::int64_t i = i0; i < i1; ++i) {
            float* row = c.data() + i * N;
            for (std::int64_t j = j0; j < j1; ++j)
                row[j] = std::max(row[j] + bias[static_cast<std::size_t>(j)], 0.0f);
        }
    }
};

void staticpy_gemm(benchmark::State& state) {
    problem p(state);
    for (auto _ : state) {
        staticpy::kernels::gemm<float>(p.M, p.N, p.K, p.a.data(), p.K, 1, p.b.data(), p.N, 1,
                                            p.c.data(), p.N);
        benchmark::DoNotOptimize(p.c.data());
        benchmark::ClobberMemory();
    }
    p.report(state);
}

void staticpy_gemm_bias_relu_fused(benchmark::State& state) {
    problem p(state);
    for (auto _ : state) {
        staticpy::kernels::gemm<float>(p.M, p.N, p.K, p.a.data(), p.K, 1, p.b.data(), p.N, 1,
                                            p.c.data(), p.N,
                                            [&p](std::int64_t i0, std::int64_t i1, std::int64_t j0,
                                                 std::int64_t j1) { p.bias_relu(i0, i1, j0, j1); });
        benchmark::DoNotOptimize(p.c.data());
        benchmark::ClobberMemory();
    }
    p.report(state);
}

void staticpy_gemm_then_bias_relu(benchmark::State& state) {
    problem p(state);
    for (auto _ : state) {
        staticpy::kernels::gemm<float>(p.M, p.N, p.K, p.a.data(), p.K, 1, p.b.data(), p.N, 1,
                                            p.c.data(), p.N);
        p.bias_relu(0, p.M, 0, p.N);
        benchmark::DoNotOptimize(p.c.data());
        benchmark::ClobberMemory();
    }
    p.report(state);
}

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
void openblas_sgemm(benchmark::State& state, bool bias_relu) {
    problem p(state);
    const auto i = [](std::int64_t v) { return static_cast<blasint>(v); };
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(p.M), i(p.N), i(p.K), 1.0f,
                    p.a.data(), i(p.K), p.b.data(), i(p.N), 0.0f, p.c.data(), i(p.N));
        if (bias_relu)
            p.bias_relu(0, p.M, 0, p.N);
        benchmark::DoNotOptimize(p.c.data());
        benchmark::ClobberMemory();
    }
    p.report(state);
}
void openblas_gemm(benchmark::State& state) {
    openblas_sgemm(state, false);
}
void openblas_gemm_then_bias_relu(benchmark::State& state) {
    openblas_sgemm(state, true);
}
#endif

#if defined(STATICPY_BENCH_HAVE_EIGEN)
void eigen_gemm(benchmark::State& state) {
    problem p(state);
    using mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    Eigen::Map<const mat> a(p.a.data(), p.M, p.K), b(p.b.data(), p.K, p.N);
    Eigen::Map<mat> c(p.c.data(), p.M, p.N);
    for (auto _ : state) {
        c.noalias() = a * b;
        benchmark::DoNotOptimize(p.c.data());
        benchmark::ClobberMemory();
    }
    p.report(state);
}
#endif

/// Square sizes, then the MLP shapes {M, N, K}: [64 x 784] . [784 x 128] and [256 x 784] . ...
void shapes(benchmark::internal::Benchmark* b) {
    for (std::int64_t n : {64, 128, 256, 512, 1024, 2048})
        b->Args({n, n, n});
    b->Args({64, 128, 784});
    b->Args({256, 128, 784});
    b->ArgNames({"M", "N", "K"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

/// Bias + ReLU only matters at the MLP shapes (and one square size for scale).
void mlp_shapes(benchmark::internal::Benchmark* b) {
    b->Args({64, 128, 784});
    b->Args({256, 128, 784});
    b->Args({1024, 1024, 1024});
    b->ArgNames({"M", "N", "K"})->Unit(benchmark::kMicrosecond)->UseRealTime();
}

} // namespace

BENCHMARK(staticpy_gemm)->Apply(shapes);
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
BENCHMARK(openblas_gemm)->Apply(shapes);
#endif
#if defined(STATICPY_BENCH_HAVE_EIGEN)
BENCHMARK(eigen_gemm)->Apply(shapes);
#endif
BENCHMARK(staticpy_gemm_bias_relu_fused)->Apply(mlp_shapes);
BENCHMARK(staticpy_gemm_then_bias_relu)->Apply(mlp_shapes);
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
BENCHMARK(openblas_gemm_then_bias_relu)->Apply(mlp_shapes);
#endif

BENCHMARK_MAIN();
