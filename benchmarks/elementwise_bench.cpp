// Fused elementwise expressions on float32 vectors of 1e3 .. 1e8 elements: staticpy (eager, and
// graph mode) beside Eigen, xtensor and libtorch, and beside
// the machine's bandwidth (memcpy, OpenMP triad), all in one run. GB/s = the bytes a fused kernel
// moves (inputs read once, output written once) / time.
//
//   triad   y = a*x + b
//   chain   y = tanh(a*x + b) * c
//   chain5  y = sigmoid(x*a + b) * c - d / (1 + abs(x))
//
// x, c are tensors, a, b, d scalars. Eigen and xtensor assign into a preallocated array;
// staticpy eager (each op one kernel of the loop graph mode runs, on every core or on one) and
// libtorch eager return a new tensor per call (with their temporaries),
// staticpy graph mode writes into a preallocated tensor (f.into(y, x, c)).
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
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/tensor.hpp"

#ifdef STATICPY_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#endif
#ifdef STATICPY_BENCH_HAVE_XTENSOR
#include <xtensor/xmath.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
#include <ATen/ATen.h>
#endif
// Graph mode: staticpy::jit (<staticpy/jit.hpp>). -DSTATICPY_BENCH_NO_JIT leaves these cases out.
#if !defined(STATICPY_BENCH_NO_JIT)
#define STATICPY_BENCH_HAVE_JIT 1
#include <staticpy/jit.hpp>
#endif

namespace {

using namespace staticpy_bench;
using tensor1d = staticpy::Tensor<float, staticpy::shape<std::int64_t>>;

enum class expr { triad, chain, chain5 };

const char* name_of(expr e) {
    switch (e) {
    case expr::triad:
        return "triad";
    case expr::chain:
        return "chain";
    default:
        return "chain5";
    }
}

/// Tensor inputs of an expression (x, and c for the chains).
constexpr int tensor_inputs(expr e) {
    return e == expr::triad ? 1 : 2;
}

/// Bytes a fused kernel moves per call: each tensor input read, the output written.
double fused_bytes(expr e, std::int64_t n) {
    return 4.0 * static_cast<double>(n) * (tensor_inputs(e) + 1);
}

/// Arrays alive at once in an eager evaluation (inputs, output and every temporary of the
/// full expression), for the memory check.
constexpr double eager_arrays(expr e) {
    return e == expr::triad ? 4 : e == expr::chain ? 6 : 11;
}

/// The scalars, opaque to the optimiser (nothing is folded at compile time).
struct scalars {
    float a = 1.5f;
    float b = 0.25f;
    float d = 0.5f;
    scalars() {
        benchmark::DoNotOptimize(a);
        benchmark::DoNotOptimize(b);
        benchmark::DoNotOptimize(d);
    }
};

// ---- staticpy eager ---------------------------------------------------------------------------

/// Threads = 0: every core (the kernels' OpenMP above its size threshold); 1: one thread.
template <expr E, int Threads>
void staticpy_eager(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, eager_arrays(E), n))
        return;
    const omp_threads_scope threads(Threads);
    tensor1d x = staticpy::empty<float>(n);
    tensor1d c = staticpy::empty<float>(n);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    fill(c.data(), static_cast<std::size_t>(n), 2);
    const scalars s;
    for (auto _ : state) {
        if constexpr (E == expr::triad) {
            auto y = s.a * x + s.b;
            sink(y.data());
        } else if constexpr (E == expr::chain) {
            auto y = staticpy::tanh(s.a * x + s.b) * c;
            sink(y.data());
        } else {
            auto y = staticpy::sigmoid(x * s.a + s.b) * c - s.d / (1.0f + staticpy::abs(x));
            sink(y.data());
        }
    }
    set_bytes(state, fused_bytes(E, n), n);
}

// ---- staticpy graph mode (staticpy::jit), compiled in once the header exists ----------------

#ifdef STATICPY_BENCH_HAVE_JIT
/// Threads = 0: every core (the backend's OpenMP above its size threshold); 1: one thread.
template <expr E, int Threads>
void staticpy_graph(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 3, n))
        return;
    const omp_threads_scope threads(Threads);
    tensor1d x = staticpy::empty<float>(n);
    tensor1d c = staticpy::empty<float>(n);
    tensor1d y = staticpy::empty<float>(n);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    fill(c.data(), static_cast<std::size_t>(n), 2);
    fill(y.data(), static_cast<std::size_t>(n), 3);
    const scalars s;
    const float a = s.a;
    const float b = s.b;
    const float d = s.d;
    if constexpr (E == expr::triad) {
        auto f = staticpy::jit([a, b](auto x) { return a * x + b; });
        for (auto _ : state) {
            f.into(y, x);
            sink(y.data());
        }
    } else if constexpr (E == expr::chain) {
        auto f = staticpy::jit([a, b](auto x, auto c) { return tanh(a * x + b) * c; });
        for (auto _ : state) {
            f.into(y, x, c);
            sink(y.data());
        }
    } else {
        auto f = staticpy::jit(
            [a, b, d](auto x, auto c) { return sigmoid(x * a + b) * c - d / (1.0f + abs(x)); });
        for (auto _ : state) {
            f.into(y, x, c);
            sink(y.data());
        }
    }
    set_bytes(state, fused_bytes(E, n), n);
}
#endif

// ---- Eigen: array expressions assigned into a preallocated array ----------------------------

#ifdef STATICPY_BENCH_HAVE_EIGEN
template <expr E>
void eigen(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 3, n))
        return;
    Eigen::ArrayXf x(n), c(n), y(n);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    fill(c.data(), static_cast<std::size_t>(n), 2);
    fill(y.data(), static_cast<std::size_t>(n), 3);
    const scalars s;
    for (auto _ : state) {
        if constexpr (E == expr::triad)
            y = s.a * x + s.b;
        else if constexpr (E == expr::chain)
            y = (s.a * x + s.b).tanh() * c;
        else
            y = (x * s.a + s.b).logistic() * c - s.d / (1.0f + x.abs());
        sink(y.data());
    }
    set_bytes(state, fused_bytes(E, n), n);
}
#endif

// ---- xtensor (with xsimd): noalias assignment into a preallocated xtensor -------------------

#ifdef STATICPY_BENCH_HAVE_XTENSOR
template <expr E>
void xtensor(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 3, n))
        return;
    using xt1 = xt::xtensor<float, 1>;
    const xt1::shape_type shape = {static_cast<std::size_t>(n)};
    xt1 x(shape), c(shape), y(shape);
    fill(x.data(), static_cast<std::size_t>(n), 1);
    fill(c.data(), static_cast<std::size_t>(n), 2);
    fill(y.data(), static_cast<std::size_t>(n), 3);
    const scalars s;
    for (auto _ : state) {
        if constexpr (E == expr::triad)
            xt::noalias(y) = s.a * x + s.b;
        else if constexpr (E == expr::chain)
            xt::noalias(y) = xt::tanh(s.a * x + s.b) * c;
        else // xtensor has no sigmoid: its definition
            xt::noalias(y) =
                1.0f / (1.0f + xt::exp(-(x * s.a + s.b))) * c - s.d / (1.0f + xt::abs(x));
        sink(y.data());
    }
    set_bytes(state, fused_bytes(E, n), n);
}
#endif

// ---- libtorch eager (ATen ops, a new tensor per call) ---------------------------------------

#ifdef STATICPY_BENCH_HAVE_TORCH
template <expr E, torch_threads Threads>
void torch_eager(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, eager_arrays(E), n))
        return;
    const torch_threads_scope threads(Threads);
    at::Tensor x = at::empty({n}, at::kFloat);
    at::Tensor c = at::empty({n}, at::kFloat);
    fill(x.data_ptr<float>(), static_cast<std::size_t>(n), 1);
    fill(c.data_ptr<float>(), static_cast<std::size_t>(n), 2);
    const scalars s;
    for (auto _ : state) {
        if constexpr (E == expr::triad) {
            at::Tensor y = s.a * x + s.b;
            sink(y.data_ptr());
        } else if constexpr (E == expr::chain) {
            at::Tensor y = at::tanh(s.a * x + s.b) * c;
            sink(y.data_ptr());
        } else {
            at::Tensor y = at::sigmoid(x * s.a + s.b) * c - s.d / (1 + at::abs(x));
            sink(y.data_ptr());
        }
    }
    set_bytes(state, fused_bytes(E, n), n);
}
#endif

template <expr E>
void add_expr(std::int64_t n) {
    const std::string e = name_of(E);
    add(e + "/staticpy_eager", staticpy_eager<E, 0>, n);
    add(e + "/staticpy_eager_1thread", staticpy_eager<E, 1>, n);
#ifdef STATICPY_BENCH_HAVE_JIT
    add(e + "/staticpy_graph", staticpy_graph<E, 0>, n);
    add(e + "/staticpy_graph_1thread", staticpy_graph<E, 1>, n);
#endif
#ifdef STATICPY_BENCH_HAVE_EIGEN
    add(e + "/eigen", eigen<E>, n);
#endif
#ifdef STATICPY_BENCH_HAVE_XTENSOR
    add(e + "/xtensor", xtensor<E>, n);
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
    add(e + "/torch", torch_eager<E, torch_threads::library_default>, n);
    add(e + "/torch_allcores", torch_eager<E, torch_threads::all_cores>, n);
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
    for (std::int64_t n : kElementSizes) {
        add("bandwidth/memcpy", bandwidth_memcpy, n);
#ifdef _OPENMP
        add("bandwidth/omp_triad", bandwidth_omp_triad, n);
#endif
        add_expr<expr::triad>(n);
        add_expr<expr::chain>(n);
        add_expr<expr::chain5>(n);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
