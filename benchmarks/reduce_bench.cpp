// Reductions on float32: the sum of 1e3 .. 1e8 elements, and softmax along the rows of a
// [rows x 1024] matrix (rows 64 .. 65536); staticpy (eager and graph
// mode) beside Eigen, xtensor and libtorch, and beside the machine's
// bandwidth (memcpy, OpenMP sum / triad), all in one run. GB/s = the bytes a one-pass kernel
// moves (sum: the input read once; softmax: the input read once, the output written once) / time.
//
//   benchmarks/run_tensor_benchmarks.sh        (configure, build, run, Markdown table)

// GCC 12.2's AVX-512 headers trip its own -Wmaybe-uninitialized once Eigen's packet math is
// inlined (`__m512 __Y = __Y;`, GCC bug 105593, fixed in 12.3). Included first with that warning
// off, so the suppression covers those header lines only, not staticpy's code.
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif

#include <cstdint>
#include <string>

#include "bench_support.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/tensor.hpp"

#ifdef STATICPY_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif
#ifdef STATICPY_BENCH_HAVE_XTENSOR
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xtensor.hpp>
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
#include <ATen/ATen.h>
#endif
// Graph mode: staticpy::jit (<staticpy/jit.hpp>). -DSTATICPY_BENCH_NO_JIT or
// -DSTATICPY_BENCH_NO_JIT_REDUCTIONS leaves these cases out.
#if !defined(STATICPY_BENCH_NO_JIT) && !defined(STATICPY_BENCH_NO_JIT_REDUCTIONS)
#define STATICPY_BENCH_HAVE_JIT 1
#include <staticpy/jit.hpp>
#endif

namespace {

using namespace staticpy_bench;
using namespace staticpy::literals;
using tensor1d = staticpy::Tensor<float, staticpy::shape<std::int64_t>>;
using tensor2d = staticpy::Tensor<float, staticpy::shape<std::int64_t, std::int64_t>>;

double sum_bytes(std::int64_t n) {
    return 4.0 * static_cast<double>(n);
}
double softmax_bytes(std::int64_t rows) {
    return 8.0 * static_cast<double>(rows * kRowLength);
}

// ---- sum ----------------------------------------------------------------------------------------

void sum_staticpy_eager(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 1, n))
        return;
    tensor1d x = staticpy::empty<float>(n);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    for (auto _ : state) {
        auto r = staticpy::sum(x);
        sink(r.data());
    }
    set_bytes(state, sum_bytes(n), n);
}

#ifdef STATICPY_BENCH_HAVE_JIT
template <int Threads>
void sum_staticpy_graph(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 1, n))
        return;
    const omp_threads_scope threads(Threads);
    tensor1d x = staticpy::empty<float>(n);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    auto f = staticpy::jit([](auto x) { return sum(x); });
    for (auto _ : state) {
        auto r = f(x);
        sink(r.data());
    }
    set_bytes(state, sum_bytes(n), n);
}
#endif

#ifdef STATICPY_BENCH_HAVE_EIGEN
void sum_eigen(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 1, n))
        return;
    Eigen::ArrayXf x(n);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    for (auto _ : state) {
        float r = x.sum();
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    set_bytes(state, sum_bytes(n), n);
}
#endif

#ifdef STATICPY_BENCH_HAVE_XTENSOR
void sum_xtensor(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 1, n))
        return;
    xt::xtensor<float, 1> x(xt::xtensor<float, 1>::shape_type{static_cast<std::size_t>(n)});
    fill(x.data(), static_cast<std::size_t>(n), 1);
    for (auto _ : state) {
        auto r = xt::sum(x, xt::evaluation_strategy::immediate);
        float v = r();
        benchmark::DoNotOptimize(v);
        benchmark::ClobberMemory();
    }
    set_bytes(state, sum_bytes(n), n);
}
#endif

#ifdef STATICPY_BENCH_HAVE_TORCH
template <torch_threads Threads>
void sum_torch(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 1, n))
        return;
    const torch_threads_scope threads(Threads);
    at::Tensor x = at::empty({n}, at::kFloat);
    fill(x.data_ptr<float>(), static_cast<std::size_t>(n), 1);
    for (auto _ : state) {
        at::Tensor r = x.sum();
        sink(r.data_ptr());
    }
    set_bytes(state, sum_bytes(n), n);
}
#endif

// ---- softmax along rows of [rows x 1024] ------------------------------------------------------

void softmax_staticpy_eager(benchmark::State& state, std::int64_t rows) {
    if (!fits_in_memory(state, 2, rows * kRowLength))
        return;
    tensor2d x = staticpy::empty<float>(rows, kRowLength);
    fill(x.data(), static_cast<std::size_t>(rows * kRowLength), 1);
    for (auto _ : state) {
        auto y = staticpy::softmax(x, 1_c);
        sink(y.data());
    }
    set_bytes(state, softmax_bytes(rows), rows * kRowLength);
}

#ifdef STATICPY_BENCH_HAVE_JIT
template <int Threads>
void softmax_staticpy_graph(benchmark::State& state, std::int64_t rows) {
    if (!fits_in_memory(state, 2, rows * kRowLength))
        return;
    const omp_threads_scope threads(Threads);
    tensor2d x = staticpy::empty<float>(rows, kRowLength);
    tensor2d y = staticpy::empty<float>(rows, kRowLength);
    fill(x.data(), static_cast<std::size_t>(rows * kRowLength), 1);
    fill(y.data(), static_cast<std::size_t>(rows * kRowLength), 2);
    auto f = staticpy::jit([](auto x) { return softmax(x, 1_c); });
    for (auto _ : state) {
        f.into(y, x);
        sink(y.data());
    }
    set_bytes(state, softmax_bytes(rows), rows * kRowLength);
}
#endif

#ifdef STATICPY_BENCH_HAVE_EIGEN
/// Row by row: a row of a row-major array is contiguous, so each of the three passes is a
/// vectorised loop.
void softmax_eigen(benchmark::State& state, std::int64_t rows) {
    if (!fits_in_memory(state, 2, rows * kRowLength))
        return;
    using array2d = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    array2d x(rows, kRowLength), y(rows, kRowLength);
    fill(x.data(), static_cast<std::size_t>(rows * kRowLength), 1);
    fill(y.data(), static_cast<std::size_t>(rows * kRowLength), 2);
    for (auto _ : state) {
        for (Eigen::Index r = 0; r < rows; ++r) {
            const float m = x.row(r).maxCoeff();
            y.row(r) = (x.row(r) - m).exp();
            y.row(r) /= y.row(r).sum();
        }
        sink(y.data());
    }
    set_bytes(state, softmax_bytes(rows), rows * kRowLength);
}
#endif

#ifdef STATICPY_BENCH_HAVE_XTENSOR
/// Whole-tensor expressions: the row max and row sum (evaluated, keep_dims) broadcast back.
void softmax_xtensor(benchmark::State& state, std::int64_t rows) {
    if (!fits_in_memory(state, 2, rows * kRowLength))
        return;
    using xt2 = xt::xtensor<float, 2>;
    const xt2::shape_type shape = {static_cast<std::size_t>(rows),
                                   static_cast<std::size_t>(kRowLength)};
    xt2 x(shape), y(shape);
    fill(x.data(), static_cast<std::size_t>(rows * kRowLength), 1);
    fill(y.data(), static_cast<std::size_t>(rows * kRowLength), 2);
    for (auto _ : state) {
        const xt2 m = xt::amax(x, {1}, xt::keep_dims | xt::evaluation_strategy::immediate);
        xt::noalias(y) = xt::exp(x - m);
        const xt2 s = xt::sum(y, {1}, xt::keep_dims | xt::evaluation_strategy::immediate);
        y /= s;
        sink(y.data());
    }
    set_bytes(state, softmax_bytes(rows), rows * kRowLength);
}
#endif

#ifdef STATICPY_BENCH_HAVE_TORCH
template <torch_threads Threads>
void softmax_torch(benchmark::State& state, std::int64_t rows) {
    if (!fits_in_memory(state, 2, rows * kRowLength))
        return;
    const torch_threads_scope threads(Threads);
    at::Tensor x = at::empty({rows, kRowLength}, at::kFloat);
    fill(x.data_ptr<float>(), static_cast<std::size_t>(rows * kRowLength), 1);
    for (auto _ : state) {
        at::Tensor y = at::softmax(x, 1);
        sink(y.data_ptr());
    }
    set_bytes(state, softmax_bytes(rows), rows * kRowLength);
}
#endif

void add_sum(std::int64_t n) {
    add("sum/memcpy", bandwidth_memcpy, n);
#ifdef _OPENMP
    add("sum/omp_sum", bandwidth_omp_sum, n);
#endif
    add("sum/staticpy_eager", sum_staticpy_eager, n);
#ifdef STATICPY_BENCH_HAVE_JIT
    add("sum/staticpy_graph", sum_staticpy_graph<0>, n);
    add("sum/staticpy_graph_1thread", sum_staticpy_graph<1>, n);
#endif
#ifdef STATICPY_BENCH_HAVE_EIGEN
    add("sum/eigen", sum_eigen, n);
#endif
#ifdef STATICPY_BENCH_HAVE_XTENSOR
    add("sum/xtensor", sum_xtensor, n);
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
    add("sum/torch", sum_torch<torch_threads::library_default>, n);
    add("sum/torch_allcores", sum_torch<torch_threads::all_cores>, n);
#endif
}

void add_softmax(std::int64_t rows) {
    add(
        "softmax/memcpy",
        [](benchmark::State& state, std::int64_t r) { bandwidth_memcpy(state, r * kRowLength); },
        rows);
#ifdef _OPENMP
    add(
        "softmax/omp_triad",
        [](benchmark::State& state, std::int64_t r) { bandwidth_omp_triad(state, r * kRowLength); },
        rows);
#endif
    add("softmax/staticpy_eager", softmax_staticpy_eager, rows);
#ifdef STATICPY_BENCH_HAVE_JIT
    add("softmax/staticpy_graph", softmax_staticpy_graph<0>, rows);
    add("softmax/staticpy_graph_1thread", softmax_staticpy_graph<1>, rows);
#endif
#ifdef STATICPY_BENCH_HAVE_EIGEN
    add("softmax/eigen", softmax_eigen, rows);
#endif
#ifdef STATICPY_BENCH_HAVE_XTENSOR
    add("softmax/xtensor", softmax_xtensor, rows);
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
    add("softmax/torch", softmax_torch<torch_threads::library_default>, rows);
    add("softmax/torch_allcores", softmax_torch<torch_threads::all_cores>, rows);
#endif
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
#ifdef STATICPY_BENCH_HAVE_JIT
    add_context(true);
#else
    add_context(false);
#endif
    for (std::int64_t n : kElementSizes)
        add_sum(n);
    for (std::int64_t rows : kRowCounts)
        add_softmax(rows);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
