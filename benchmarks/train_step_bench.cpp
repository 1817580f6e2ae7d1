// Issue 10: one training step (forward, cross-entropy, backward, SGD) of an MLP, in steps/s.
//
//   staticpy_graph      nn::TrainOneStep(loss, opt) with nn::optim::SGD(params, {.lr = 0.01}):
//                       forward and backward as one graph, then SGD's fused loop per parameter
//   staticpy_eager      the same code in PYNATIVE_MODE (the graph op by op, then the same loop)
//   staticpy_grad_only  jit(value_and_grad(loss, 0_c)) alone: the graph without the update
//                       (where the time goes)
//   staticpy_forward    the forward graph alone, jit(loss) (where the time goes)
//   gemm_staticpy       the step's GEMMs alone through staticpy's matmul (eager, on the same
//                       operands and transposed views PyTorch multiplies): the floor
//   gemm_openblas       the same GEMMs through OpenBLAS's cblas_sgemm (when CMake found OpenBLAS)
//
// Models: 784-128-10 at batch 64 and 784-512-512-10 at batch 256 (ReLU between the layers),
// float32, weights in PyTorch's layout ([out, in]) from the fixed pattern that
// train_step_libtorch.cpp and train_step_pytorch.py use too (init_value below: U(-1/sqrt(in),
// 1/sqrt(in)) as nn.Linear's, from a hash instead of a generator), one fixed batch in memory.
// Every case is registered for 1 and 2 threads (".../threads:N": staticpy::set_num_threads, and
// openblas_set_num_threads for the OpenBLAS floor); run each library and thread setting in its own
// process (benchmarks/run_train_step_benchmarks.sh does): OpenMP's and OpenBLAS's idle threads
// spin after a parallel region and slow whatever runs next on 2 cores.
//
//   train_step_bench --trajectory=5   prints the first 5 losses of the graph and eager steps
//                                     (the run script compares them with PyTorch's and libtorch's)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <staticpy/grad.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/nn/functional.hpp>
#include <staticpy/nn/optim.hpp>
#include <staticpy/nn/train_step.hpp>
#include <staticpy/tensor.hpp>

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif

using namespace staticpy;
using namespace staticpy::literals;

namespace {

// ---- the data and initial weights, identical in the three programs ---------------------------

/// Element i of stream `seed`: lo + (hi - lo) * u, u = ((i + seed * 1000003) * 2654435761 mod 2^32)
/// / 2^32 rounded to float, computed in double and rounded to float (train_step_pytorch.py
/// computes the same in float64 tensors, train_step_libtorch.cpp with this very function).
float init_value(std::int64_t i, std::int64_t seed, double lo, double hi) {
    const auto h = static_cast<std::uint64_t>(i + seed * 1000003) * 2654435761ULL % 4294967296ULL;
    const auto u = static_cast<double>(static_cast<float>(static_cast<double>(h) / 4294967296.0));
    return static_cast<float>(lo + (hi - lo) * u);
}

template <class T>
void fill(T& t, std::int64_t seed, double lo, double hi) {
    float* p = t.data();
    for (std::int64_t i = 0; i < t.numel(); ++i)
        p[i] = init_value(i, seed, lo, hi);
}

/// nn.Linear(in, out)'s weight [out, in] or bias [out]: U(-1/sqrt(in), 1/sqrt(in)); layer l
/// (from 1) uses seeds 2l - 1 (weight) and 2l (bias).
template <class... E>
auto layer_tensor(std::int64_t seed, std::int64_t in, E... extents) {
    auto t = empty<float>(extents...);
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    fill(t, seed, -bound, bound);
    return t;
}

/// Label of sample i: (i * 7 + 3) mod 10 (the inputs are the pattern above, seed 100, in [0, 1)).
constexpr std::int64_t label(std::int64_t i) {
    return (i * 7 + 3) % 10;
}

// ---- the two models ---------------------------------------------------------------------------

// The loss is nn::functional::cross_entropy with class indices, mean over the batch (one fused
// op forward and backward: no probability tensor), as F.cross_entropy in the peers.

struct mlp_small { // 784-128-10, batch 64
    static constexpr const char* name = "784-128-10/b64";
    static constexpr auto batch = 64_c;
    static constexpr std::int64_t widths[] = {784, 128, 10};
    static auto make_params() {
        return dict("fc1.weight"_s = layer_tensor(1, 784, 128_c, 784_c),
                    "fc1.bias"_s = layer_tensor(2, 784, 128_c),
                    "fc2.weight"_s = layer_tensor(3, 128, 10_c, 128_c),
                    "fc2.bias"_s = layer_tensor(4, 128, 10_c));
    }
    template <class P, class X>
    static auto logits(const P& p, const X& x) {
        auto h = relu(linear(x, p["fc1.weight"_s], p["fc1.bias"_s]));
        return linear(h, p["fc2.weight"_s], p["fc2.bias"_s]);
    }
};

struct mlp_large { // 784-512-512-10, batch 256
    static constexpr const char* name = "784-512-512-10/b256";
    static constexpr auto batch = 256_c;
    static constexpr std::int64_t widths[] = {784, 512, 512, 10};
    static auto make_params() {
        return dict("fc1.weight"_s = layer_tensor(1, 784, 512_c, 784_c),
                    "fc1.bias"_s = layer_tensor(2, 784, 512_c),
                    "fc2.weight"_s = layer_tensor(3, 512, 512_c, 512_c),
                    "fc2.bias"_s = layer_tensor(4, 512, 512_c),
                    "fc3.weight"_s = layer_tensor(5, 512, 10_c, 512_c),
                    "fc3.bias"_s = layer_tensor(6, 512, 10_c));
    }
    template <class P, class X>
    static auto logits(const P& p, const X& x) {
        auto h1 = relu(linear(x, p["fc1.weight"_s], p["fc1.bias"_s]));
        auto h2 = relu(linear(h1, p["fc2.weight"_s], p["fc2.bias"_s]));
        return linear(h2, p["fc3.weight"_s], p["fc3.bias"_s]);
    }
};

/// loss(params, x, labels): the mean cross-entropy (see above).
template <class Model>
struct loss_fn {
    template <class P, class X, class T>
    auto operator()(const P& p, const X& x, const T& labels) const {
        return nn::functional::cross_entropy(Model::logits(p, x), labels);
    }
};

template <class Model>
struct problem {
    decltype(Model::make_params()) params = Model::make_params();
    decltype(empty<float>(Model::batch, 784_c)) x = empty<float>(Model::batch, 784_c);
    decltype(empty<std::int64_t>(Model::batch)) labels = empty<std::int64_t>(Model::batch);
    problem() {
        fill(x, 100, 0.0, 1.0);
        for (std::int64_t i = 0; i < decltype(Model::batch)::value; ++i)
            labels.data()[i] = label(i);
    }
};

// ---- the cases ----------------------------------------------------------------------------------

void finish(benchmark::State& state) {
    state.SetItemsProcessed(state.iterations()); // items_per_second = steps/s
}

/// The graph (or, with eager, the PYNATIVE_MODE) training step.
template <class Model, bool Update>
void staticpy_step(benchmark::State& state, bool eager) {
    set_num_threads(static_cast<int>(state.range(0)));
    set_context(eager ? PYNATIVE_MODE : GRAPH_MODE);
    problem<Model> pb;
    if constexpr (Update) {
        nn::optim::SGD opt(pb.params, {.lr = 0.01});
        nn::TrainOneStep step(loss_fn<Model>{}, opt);
        for (auto _ : state) {
            auto loss = step(pb.x, pb.labels);
            benchmark::DoNotOptimize(loss.data());
        }
    } else {
        auto vg = jit(value_and_grad(loss_fn<Model>{}, 0_c));
        for (auto _ : state) {
            auto [loss, grads] = vg(pb.params, pb.x, pb.labels);
            benchmark::DoNotOptimize(loss.data());
        }
    }
    set_context(GRAPH_MODE);
    finish(state);
}

template <class Model>
void staticpy_forward(benchmark::State& state) {
    set_num_threads(static_cast<int>(state.range(0)));
    problem<Model> pb;
    auto f = jit(loss_fn<Model>{}); // the forward graph alone, for the breakdown
    for (auto _ : state) {
        auto out = f(pb.params, pb.x, pb.labels);
        benchmark::DoNotOptimize(out.data());
    }
    finish(state);
}

/// The operands of the step's GEMMs, as PyTorch multiplies them (per layer l, input X [B, in],
/// weight W [out, in], output gradient dY [B, out]): forward Y = X W^T, backward dW = dY^T X and,
/// below the first layer, dX = dY W. Dynamic shapes; values from the same pattern.
struct gemm_operands {
    using mat = decltype(empty<float>(std::int64_t{1}, std::int64_t{1}));
    std::vector<mat> X, W, dY;
    std::vector<std::int64_t> in, out;
    std::int64_t B = 0;
    template <class Model>
    static gemm_operands make() {
        gemm_operands g;
        g.B = decltype(Model::batch)::value;
        constexpr std::size_t layers = std::size(Model::widths) - 1;
        for (std::size_t l = 0; l < layers; ++l) {
            const std::int64_t i = Model::widths[l], o = Model::widths[l + 1];
            g.in.push_back(i);
            g.out.push_back(o);
            g.X.push_back(empty<float>(g.B, i));
            g.W.push_back(empty<float>(o, i));
            g.dY.push_back(empty<float>(g.B, o));
            const auto s = static_cast<std::int64_t>(10 * l);
            fill(g.X.back(), 200 + s, 0.0, 1.0);
            fill(g.W.back(), 201 + s, -0.05, 0.05);
            fill(g.dY.back(), 202 + s, -0.01, 0.01);
        }
        return g;
    }
};

template <class Model>
void gemm_staticpy(benchmark::State& state) {
    set_num_threads(static_cast<int>(state.range(0)));
    auto g = gemm_operands::make<Model>();
    for (auto _ : state) {
        for (std::size_t l = 0; l < g.X.size(); ++l) {
            auto y = matmul(g.X[l], g.W[l].t());
            auto dw = matmul(g.dY[l].t(), g.X[l]);
            benchmark::DoNotOptimize(y.data());
            benchmark::DoNotOptimize(dw.data());
            if (l > 0) {
                auto dx = matmul(g.dY[l], g.W[l]);
                benchmark::DoNotOptimize(dx.data());
            }
        }
    }
    finish(state);
}

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
template <class Model>
void gemm_openblas(benchmark::State& state) {
    openblas_set_num_threads(static_cast<int>(state.range(0)));
    auto g = gemm_operands::make<Model>();
    std::vector<std::vector<float>> y, dw, dx;
    for (std::size_t l = 0; l < g.X.size(); ++l) {
        y.emplace_back(static_cast<std::size_t>(g.B * g.out[l]));
        dw.emplace_back(static_cast<std::size_t>(g.out[l] * g.in[l]));
        dx.emplace_back(static_cast<std::size_t>(g.B * g.in[l]));
    }
    for (auto _ : state) {
        for (std::size_t l = 0; l < g.X.size(); ++l) {
            const auto B = static_cast<int>(g.B), in = static_cast<int>(g.in[l]),
                       out = static_cast<int>(g.out[l]);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, out, in, 1.0F, g.X[l].data(),
                        in, g.W[l].data(), in, 0.0F, y[l].data(), out);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, B, 1.0F, g.dY[l].data(),
                        out, g.X[l].data(), in, 0.0F, dw[l].data(), in);
            if (l > 0)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, in, out, 1.0F,
                            g.dY[l].data(), out, g.W[l].data(), in, 0.0F, dx[l].data(), in);
            benchmark::DoNotOptimize(y[l].data());
        }
        benchmark::ClobberMemory();
    }
    finish(state);
}
#endif

template <class Fn>
void add(const std::string& name, Fn fn) {
    for (int threads : {1, 2})
        benchmark::RegisterBenchmark(name.c_str(), fn)
            ->Arg(threads)
            ->ArgName("threads")
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
}

template <class Model>
void register_model() {
    const std::string m = Model::name;
    add(m + "/staticpy_graph", [](benchmark::State& s) { staticpy_step<Model, true>(s, false); });
    add(m + "/staticpy_eager", [](benchmark::State& s) { staticpy_step<Model, true>(s, true); });
    add(m + "/staticpy_grad_only",
        [](benchmark::State& s) { staticpy_step<Model, false>(s, false); });
    add(m + "/staticpy_forward", [](benchmark::State& s) { staticpy_forward<Model>(s); });
    add(m + "/gemm_staticpy", [](benchmark::State& s) { gemm_staticpy<Model>(s); });
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
    add(m + "/gemm_openblas", [](benchmark::State& s) { gemm_openblas<Model>(s); });
#endif
}

/// --trajectory=N: the first N losses of the graph and the eager step, one line each:
///   trajectory <model> <variant> <step> <loss>
template <class Model>
void print_trajectory(int steps) {
    for (const bool eager : {false, true}) {
        set_context(eager ? PYNATIVE_MODE : GRAPH_MODE);
        problem<Model> pb;
        nn::optim::SGD opt(pb.params, {.lr = 0.01});
        nn::TrainOneStep step(loss_fn<Model>{}, opt);
        for (int i = 0; i < steps; ++i)
            std::printf("trajectory %s %s %d %.9g\n", Model::name,
                        eager ? "staticpy_eager" : "staticpy_graph", i,
                        static_cast<double>(step(pb.x, pb.labels).item()));
    }
    set_context(GRAPH_MODE);
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--trajectory=", 0) == 0) {
            const int steps = std::stoi(arg.substr(13));
            print_trajectory<mlp_small>(steps);
            print_trajectory<mlp_large>(steps);
            return 0;
        }
    }
    register_model<mlp_small>();
    register_model<mlp_large>();
    benchmark::AddCustomContext("staticpy_cross_entropy", "nn::functional::cross_entropy");
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
    benchmark::AddCustomContext("openblas", OPENBLAS_VERSION);
#endif
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
