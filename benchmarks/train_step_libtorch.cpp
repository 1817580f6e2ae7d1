// Issue 10's libtorch 1.13 peer: one training step (forward, cross-entropy, backward, SGD) of
// the MLPs of train_step_bench.cpp, in steps/s: torch::nn::Linear layers with ReLU between them,
// torch::nn::functional::cross_entropy (class indices, mean), torch::optim::SGD(lr = 0.01). Each
// step first sets the gradients to none (Python's zero_grad(set_to_none=True): no memset; the
// C++ zero_grad() of 1.13 zeroes them), then forward, backward, step. The same initial weights and
// batch as train_step_bench.cpp and train_step_pytorch.py.
//
// Threads: every case is registered for torch intra-op threads 1 and 2 (at::set_num_threads) and
// OpenBLAS threads 1 and 2 (openblas_set_num_threads; libtorch's GEMMs go to the BLAS that Debian's
// libblas.so.3 alternative names, OpenBLAS when libopenblas-dev is installed). Run one setting per
// process (benchmarks/run_train_step_benchmarks.sh does): the idle threads of one setting spin
// after each call and slow the next one on 2 cores.
//
//   train_step_libtorch --trajectory=5    prints the first 5 losses of each model
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
#include <cblas.h>
#endif

namespace {

/// The pattern of train_step_bench.cpp: lo + (hi - lo) * u, u = ((i + seed * 1000003) *
/// 2654435761 mod 2^32) / 2^32 rounded to float.
float init_value(std::int64_t i, std::int64_t seed, double lo, double hi) {
    const auto h = static_cast<std::uint64_t>(i + seed * 1000003) * 2654435761ULL % 4294967296ULL;
    const auto u = static_cast<double>(static_cast<float>(static_cast<double>(h) / 4294967296.0));
    return static_cast<float>(lo + (hi - lo) * u);
}

torch::Tensor pattern(std::vector<std::int64_t> sizes, std::int64_t seed, double lo, double hi) {
    auto t = torch::empty(sizes, torch::kFloat32);
    float* p = t.data_ptr<float>();
    for (std::int64_t i = 0; i < t.numel(); ++i)
        p[i] = init_value(i, seed, lo, hi);
    return t;
}

struct model_spec {
    const char* name;
    std::int64_t batch;
    std::vector<std::int64_t> widths;
};

const model_spec kModels[] = {{"784-128-10/b64", 64, {784, 128, 10}},
                              {"784-512-512-10/b256", 256, {784, 512, 512, 10}}};

struct MLPImpl : torch::nn::Module {
    std::vector<torch::nn::Linear> layers;
    explicit MLPImpl(const std::vector<std::int64_t>& widths) {
        torch::NoGradGuard no_grad;
        for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
            const std::int64_t in = widths[l], out = widths[l + 1];
            auto fc = register_module("fc" + std::to_string(l + 1), torch::nn::Linear(in, out));
            const double bound = 1.0 / std::sqrt(static_cast<double>(in));
            const auto seed = static_cast<std::int64_t>(2 * l + 1);
            fc->weight.copy_(pattern({out, in}, seed, -bound, bound));
            fc->bias.copy_(pattern({out}, seed + 1, -bound, bound));
            layers.push_back(fc);
        }
    }
    torch::Tensor forward(torch::Tensor x) {
        for (std::size_t l = 0; l < layers.size(); ++l) {
            x = layers[l]->forward(x);
            if (l + 1 < layers.size())
                x = torch::relu(x);
        }
        return x;
    }
};
TORCH_MODULE(MLP);

struct problem {
    MLP net;
    torch::Tensor x, y;
    torch::optim::SGD opt;
    explicit problem(const model_spec& m)
        : net(m.widths),
          x(pattern({m.batch, 784}, 100, 0.0, 1.0)),
          y(torch::empty({m.batch}, torch::kInt64)),
          opt(net->parameters(), torch::optim::SGDOptions(0.01)) {
        auto* p = y.data_ptr<std::int64_t>();
        for (std::int64_t i = 0; i < m.batch; ++i)
            p[i] = (i * 7 + 3) % 10;
    }
    torch::Tensor step() {
        for (auto& p : net->parameters())
            p.mutable_grad().reset(); // set_to_none
        auto loss = torch::nn::functional::cross_entropy(net->forward(x), y);
        loss.backward();
        opt.step();
        return loss;
    }
};

void set_threads(int torch_threads, [[maybe_unused]] int blas_threads) {
    at::set_num_threads(torch_threads);
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
    openblas_set_num_threads(blas_threads);
#endif
}

void libtorch_step(benchmark::State& state, const model_spec& m) {
    set_threads(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    problem pb(m);
    for (int i = 0; i < 3; ++i) // first calls allocate the gradients and the caching state
        pb.step();
    for (auto _ : state) {
        auto loss = pb.step();
        benchmark::DoNotOptimize(loss.data_ptr());
    }
    state.SetItemsProcessed(state.iterations()); // items_per_second = steps/s
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--trajectory=", 0) == 0) {
            const int steps = std::stoi(arg.substr(13));
            set_threads(1, 1);
            for (const auto& m : kModels) {
                problem pb(m);
                for (int s = 0; s < steps; ++s)
                    std::printf("trajectory %s libtorch %d %.9g\n", m.name, s,
                                static_cast<double>(pb.step().item<float>()));
            }
            return 0;
        }
    }
    for (const auto& m : kModels)
        benchmark::RegisterBenchmark((std::string(m.name) + "/libtorch").c_str(),
                                     [&m](benchmark::State& s) { libtorch_step(s, m); })
            ->ArgsProduct({{1, 2}, {1, 2}})
            ->ArgNames({"torch_threads", "blas_threads"})
            ->Unit(benchmark::kMicrosecond)
            ->UseRealTime();
    benchmark::AddCustomContext("libtorch", TORCH_VERSION);
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
    benchmark::AddCustomContext("openblas", OPENBLAS_VERSION);
#else
    benchmark::AddCustomContext("openblas", "not linked: BLAS threads not set");
#endif
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
