// Run-time cost of a dict: the same chain of update / setitem / getitem on a staticpy::dict, on a
// hand-written struct and on a raw hana::map, side by side in one run. With compile-time keys every
// lookup is resolved by the compiler, so the three should take the same time (zero_overhead.sh
// shows that the staticpy and struct versions are the same machine code).
//
//   cmake -S . -B build/bench -DSTATICPY_BUILD_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build/bench --target dict_runtime_bench &&
//   build/bench/benchmarks/dict_runtime_bench

#include <benchmark/benchmark.h>

#include "zero_overhead/chain_hana.hpp"
#include "zero_overhead/chain_staticpy.hpp"
#include "zero_overhead/chain_struct.hpp"

namespace {

using chain_fn = double (*)(double, long long, double, double);

template <chain_fn Chain>
void run_chain(benchmark::State& state) {
    double lr = 0.1;
    double momentum = 0.9;
    double grad = 0.01;
    long long epochs = state.range(0);
    for (auto _ : state) {
        // The inputs may change behind the compiler's back: nothing is folded at compile time.
        benchmark::DoNotOptimize(lr);
        benchmark::DoNotOptimize(momentum);
        benchmark::DoNotOptimize(grad);
        benchmark::DoNotOptimize(epochs);
        double result = Chain(lr, epochs, momentum, grad);
        benchmark::DoNotOptimize(result);
    }
    state.SetItemsProcessed(state.iterations() * (epochs > 0 ? epochs : 1));
}

void BM_dict_chain_hand_struct(benchmark::State& state) {
    run_chain<zo::struct_chain>(state);
}
void BM_dict_chain_staticpy(benchmark::State& state) {
    run_chain<zo::staticpy_chain>(state);
}
void BM_dict_chain_hana_map(benchmark::State& state) {
    run_chain<zo::hana_chain>(state);
}

// Argument: the number of loop iterations (epochs); 0 leaves only the update and the reads.
BENCHMARK(BM_dict_chain_hand_struct)->Arg(0)->Arg(1)->Arg(64);
BENCHMARK(BM_dict_chain_staticpy)->Arg(0)->Arg(1)->Arg(64);
BENCHMARK(BM_dict_chain_hana_map)->Arg(0)->Arg(1)->Arg(64);

} // namespace

BENCHMARK_MAIN();
