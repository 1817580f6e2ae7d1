// kernels/vmath.hpp's float32 exp, tanh, log, sigmoid beside xsimd's functions, std:: (a scalar
// loop) and, when found, Eigen's array functions, over 1e4-element arrays (in L1/L2), one thread;
// items/s = elements per second. Then the softmax row kernel alone (kernels::softmax_rows
// on one thread, into a preallocated output) beside Eigen's row loop of reduce_bench, so that the
// kernel's speed can be told apart from the graph evaluator's.
//
//   cmake -S . -B build/bench -DSTATICPY_BUILD_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build/bench --target vmath_bench && build/bench/benchmarks/vmath_bench

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "staticpy/kernels/softmax.hpp"
#include "staticpy/kernels/vmath.hpp"

#ifdef STATICPY_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif

namespace {

constexpr std::int64_t kN = 10'000;

/// kN values spread over [lo, hi], in an order that is not monotonic (so no branch predicts the
/// range of a whole batch better than real data would).
std::vector<float> inputs(float lo, float hi) {
    std::vector<float> v(kN);
    for (std::int64_t i = 0; i < kN; ++i)
        v[static_cast<std::size_t>(i)] =
            lo + (hi - lo) * static_cast<float>((i * 7919) % kN) / static_cast<float>(kN);
    return v;
}

struct domain {
    float lo, hi;
};

domain domain_of(const std::string& f) {
    if (f == "exp")
        return {-80.0f, 80.0f};
    if (f == "tanh")
        return {-6.0f, 6.0f};
    if (f == "log")
        return {1e-3f, 1e3f};
    return {-20.0f, 20.0f};   // sigmoid
}

#if STATICPY_HAS_XSIMD
using B = xsimd::batch<float>;

template <class F>
void run_batches(benchmark::State& state, const std::string& name, F f) {
    const domain d = domain_of(name);
    const auto x = inputs(d.lo, d.hi);
    std::vector<float> y(kN);
    constexpr auto W = static_cast<std::int64_t>(B::size);
    for (auto _ : state) {
        std::int64_t i = 0;
        for (; i + W <= kN; i += W)
            f(B::load_unaligned(x.data() + i)).store_unaligned(y.data() + i);
        for (; i < kN; ++i)   // kN is a multiple of every batch width; kept for safety
            y[static_cast<std::size_t>(i)] = f(B(x[static_cast<std::size_t>(i)])).get(0);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kN);
}

void ours(benchmark::State& state, const std::string& name) {
    namespace k = staticpy::kernels;
    if (name == "exp")
        run_batches(state, name, [](const B& v) { return k::exp(v); });
    else if (name == "tanh")
        run_batches(state, name, [](const B& v) { return k::tanh(v); });
    else if (name == "log")
        run_batches(state, name, [](const B& v) { return k::log(v); });
    else
        run_batches(state, name, [](const B& v) { return k::sigmoid(v); });
}

void xsimd_fn(benchmark::State& state, const std::string& name) {
    if (name == "exp")
        run_batches(state, name, [](const B& v) { return xsimd::exp(v); });
    else if (name == "tanh")
        run_batches(state, name, [](const B& v) { return xsimd::tanh(v); });
    else if (name == "log")
        run_batches(state, name, [](const B& v) { return xsimd::log(v); });
    else
        run_batches(state, name, [](const B& v) { return B(1.0f) / (B(1.0f) + xsimd::exp(-v)); });
}
#endif

template <class F>
void run_scalar(benchmark::State& state, const std::string& name, F f) {
    const domain d = domain_of(name);
    const auto x = inputs(d.lo, d.hi);
    std::vector<float> y(kN);
    for (auto _ : state) {
        for (std::size_t i = 0; i < x.size(); ++i)
            y[i] = f(x[i]);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kN);
}

void std_fn(benchmark::State& state, const std::string& name) {
    if (name == "exp")
        run_scalar(state, name, [](float v) { return std::exp(v); });
    else if (name == "tanh")
        run_scalar(state, name, [](float v) { return std::tanh(v); });
    else if (name == "log")
        run_scalar(state, name, [](float v) { return std::log(v); });
    else
        run_scalar(state, name, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}

#ifdef STATICPY_BENCH_HAVE_EIGEN
void eigen_fn(benchmark::State& state, const std::string& name) {
    const domain d = domain_of(name);
    const auto v = inputs(d.lo, d.hi);
    const Eigen::ArrayXf x = Eigen::Map<const Eigen::ArrayXf>(v.data(), kN);
    Eigen::ArrayXf y(kN);
    for (auto _ : state) {
        if (name == "exp")
            y = x.exp();
        else if (name == "tanh")
            y = x.tanh();
        else if (name == "log")
            y = x.log();
        else
            y = x.logistic();
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kN);
}
#endif

// ---- the softmax row kernel alone, [rows x 1024], one thread --------------------------------

constexpr std::int64_t kCols = 1024;

std::vector<float> softmax_input(std::int64_t rows) {
    std::vector<float> v(static_cast<std::size_t>(rows * kCols));
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f;
    return v;
}

void softmax_kernel(benchmark::State& state, std::int64_t rows) {
    const auto x = softmax_input(rows);
    std::vector<float> y(x.size(), 2.0f);
    for (auto _ : state) {
        for (std::int64_t r = 0; r < rows; ++r)
            staticpy::kernels::softmax_row<false>(x.data() + r * kCols, y.data() + r * kCols,
                                                       kCols);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * rows * kCols);
    state.SetBytesProcessed(state.iterations() * rows * kCols * 8);
}

#ifdef STATICPY_BENCH_HAVE_EIGEN
void softmax_eigen(benchmark::State& state, std::int64_t rows) {
    using array2d = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const auto v = softmax_input(rows);
    const array2d x = Eigen::Map<const array2d>(v.data(), rows, kCols);
    array2d y = array2d::Constant(rows, kCols, 2.0f);
    for (auto _ : state) {
        for (Eigen::Index r = 0; r < rows; ++r) {
            const float m = x.row(r).maxCoeff();
            y.row(r) = (x.row(r) - m).exp();
            y.row(r) /= y.row(r).sum();
        }
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * rows * kCols);
    state.SetBytesProcessed(state.iterations() * rows * kCols * 8);
}
#endif

template <class F, class A>
void add(const std::string& name, F f, A arg) {
    benchmark::RegisterBenchmark(name.c_str(), [f, arg](benchmark::State& s) { f(s, arg); });
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    for (const std::string name : {"exp", "tanh", "log", "sigmoid"}) {
#if STATICPY_HAS_XSIMD
        add(name + "/staticpy", ours, name);
        add(name + "/xsimd", xsimd_fn, name);
#endif
        add(name + "/std", std_fn, name);
#ifdef STATICPY_BENCH_HAVE_EIGEN
        add(name + "/eigen", eigen_fn, name);
#endif
    }
    for (std::int64_t rows : {64, 1024, 16384}) {
        add("softmax_rows/" + std::to_string(rows) + "/staticpy_kernel", softmax_kernel, rows);
#ifdef STATICPY_BENCH_HAVE_EIGEN
        add("softmax_rows/" + std::to_string(rows) + "/eigen", softmax_eigen, rows);
#endif
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
