// The CUDA backend's kernels against the device's own limit, in one run (issue 12's targets): a
// device-to-device copy (cuMemcpyDtoD: the bandwidth floor every bandwidth-bound kernel is held
// to), a fused elementwise graph with the same traffic (one read and one write a float), a fused
// graph of three inputs, and a full and a per-row sum (one read a float). Sizes up to 1e8 floats.
// Then a float matmul on cuBLAS alone and as a dense layer (relu(x @ w + b)), whose epilogue runs
// in the next fused kernel, at 1024 and 4096; TFLOP/s from 2n^3 flops.
// Each is timed by CUDA events around the launches (manual time), after a warm-up call that
// compiles the kernels; bytes/s counts what each kernel must move. Without a GPU every benchmark
// is skipped with the reason.
//
//   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DSTATICPY_BUILD_BENCHMARKS=ON
//   make -C build/bench cuda_device_bench && build/bench/benchmarks/cuda_device_bench
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;

namespace {

bool skip_without_gpu(benchmark::State& state) {
    if (cuda::is_available())
        return false;
    state.SkipWithError(("no GPU: " + cuda::unavailable_reason()).c_str());
    return true;
}

/// Times `run` by events on the default stream, once per iteration; `bytes` it moves (0: not
/// reported).
template <class Run>
void timed(benchmark::State& state, std::int64_t bytes, Run&& run) {
    run(); // compiles the kernels, warms the allocator's cache
    cuda::synchronize();
    const cuda::Stream legacy_default = cuda::Stream::default_stream();
    for (auto _ : state) {
        cuda::Event start, end;
        start.record(legacy_default);
        run();
        end.record(legacy_default);
        end.synchronize();
        state.SetIterationTime(static_cast<double>(start.elapsed_time(end)) / 1e3);
    }
    if (bytes != 0)
        state.SetBytesProcessed(state.iterations() * bytes);
}

void copy_d2d(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n).cuda();
    auto y = empty<float>(n).cuda();
    timed(state, 2 * n * 4, [&] { y.copy_(x); });
}

void fused_scale_shift(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n).cuda();
    auto f = jit([](auto a) { return a * 2.0f + 1.0f; });
    timed(state, 2 * n * 4, [&] { benchmark::DoNotOptimize(f(x)); });
}

void fused_three_inputs(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n).cuda(), w = ones<float>(n).cuda(), b = ones<float>(n).cuda();
    auto f = jit([](auto a, auto c, auto d) { return sigmoid(a * c + d); });
    timed(state, 4 * n * 4, [&] { benchmark::DoNotOptimize(f(x, w, b)); });
}

void full_sum(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n).cuda();
    auto f = jit([](auto a) { return a.sum(); });
    timed(state, n * 4, [&] { benchmark::DoNotOptimize(f(x)); });
}

void row_sums(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n / 1000, 1000).cuda();
    auto f = jit([](auto a) { return sum(a, 1); });
    timed(state, n * 4, [&] { benchmark::DoNotOptimize(f(x)); });
}

/// An n x n x n float matmul alone (cuBLAS, through staticpy's eager matmul): the peer of the
/// dense layer below, in the same run.
void matmul_cublas(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n, n, kCUDA), w = ones<float>(n, n, kCUDA);
    timed(state, 0, [&] { benchmark::DoNotOptimize(matmul(x, w)); });
    state.counters["TFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(n * n) * n,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

/// relu(x @ w + b) as a jit graph: the same GEMM, then the bias and relu in one fused kernel
/// (issue 12's target: at least 90 % of matmul_cublas's rate).
void matmul_bias_relu(benchmark::State& state) {
    if (skip_without_gpu(state))
        return;
    const std::int64_t n = state.range(0);
    const auto x = ones<float>(n, n, kCUDA), w = ones<float>(n, n, kCUDA);
    const auto b = ones<float>(n, kCUDA);
    auto dense = jit([](auto p, auto q, auto r) { return relu(matmul(p, q) + r); });
    timed(state, 0, [&] { benchmark::DoNotOptimize(dense(x, w, b)); });
    state.counters["TFLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(n * n) * n,
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

BENCHMARK(matmul_cublas)->Arg(1024)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(matmul_bias_relu)->Arg(1024)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(copy_d2d)->Arg(1 << 20)->Arg(100'000'000)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(fused_scale_shift)
    ->Arg(1 << 20)
    ->Arg(100'000'000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(fused_three_inputs)
    ->Arg(1 << 20)
    ->Arg(100'000'000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(full_sum)->Arg(1 << 20)->Arg(100'000'000)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(row_sums)->Arg(1 << 20)->Arg(100'000'000)->UseManualTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
