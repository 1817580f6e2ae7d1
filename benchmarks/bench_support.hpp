#pragma once
// Shared pieces of the tensor benchmarks (elementwise_bench.cpp, reduce_bench.cpp): the sizes,
// deterministic inputs, the memory check that skips a case this machine cannot hold, the GB/s
// counter, and the physical references measured in the same run (memcpy, an OpenMP triad, an
// OpenMP sum).
//
// Every case reports `bytes_per_second` (Google Benchmark's SetBytesProcessed): the bytes a fused
// kernel has to move per call (each input read once, the output written once) divided by the
// time. An eager library that makes temporaries moves more than that; its figure is then an
// effective bandwidth, directly comparable with the others and with memcpy.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
#include <ATen/Parallel.h>
#endif

namespace staticpy_bench {

#ifdef _OPENMP
/// OpenMP's thread count as the process started. libtorch shares OpenMP's setting: its first use
/// sets it to libtorch's own default for the whole process (one thread on a 2-vCPU VM), so every
/// OpenMP reference says num_threads(kOmpThreads) and the libtorch cases restore it.
inline const int kOmpThreads = omp_get_max_threads();
inline void restore_omp_threads() {
    omp_set_num_threads(kOmpThreads);
}
#else
inline constexpr int kOmpThreads = 1;
inline void restore_omp_threads() {}
#endif

/// Runs one case on `threads` OpenMP threads (0: every core), then restores the start-up setting.
class omp_threads_scope {
public:
    explicit omp_threads_scope([[maybe_unused]] int threads) {
#ifdef _OPENMP
        omp_set_num_threads(threads > 0 ? threads : kOmpThreads);
#endif
    }
    ~omp_threads_scope() {
        restore_omp_threads();
    }
    omp_threads_scope(const omp_threads_scope&) = delete;
    omp_threads_scope& operator=(const omp_threads_scope&) = delete;
};

/// The element counts of the elementwise cases and of sum: 1e3 .. 1e8.
inline const std::vector<std::int64_t> kElementSizes = {1'000,     10'000,     100'000,
                                                        1'000'000, 10'000'000, 100'000'000};

/// The row counts of softmax over [rows x kRowLength]: 64 .. 65536.
inline constexpr std::int64_t kRowLength = 1024;
inline const std::vector<std::int64_t> kRowCounts = {64, 256, 1024, 4096, 16384, 65536};

/// Input element i of stream `seed`: a cheap hash mapped to [-2, 2), the same for every library.
inline float input_value(std::size_t i, std::uint32_t seed) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u + seed * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return static_cast<float>(h & 0xFFFFu) / 16384.0f - 2.0f;
}

/// Fills p[0, n) with input stream `seed` (this also faults the pages in).
inline void fill(float* p, std::size_t n, std::uint32_t seed) {
    for (std::size_t i = 0; i < n; ++i)
        p[i] = input_value(i, seed);
}

/// MemAvailable from /proc/meminfo, in bytes (0 when it cannot be read: no check then).
inline double available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    double kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:")
            return kib * 1024.0;
    return 0;
}

/// Skips the case (with a message in the report) unless `arrays` float arrays of n elements
/// fit in the available memory with a 25 % margin. Returns whether the case may run.
inline bool fits_in_memory(benchmark::State& state, double arrays, std::int64_t n) {
    const double need = arrays * static_cast<double>(n) * sizeof(float);
    const double avail = available_memory_bytes();
    if (avail > 0 && need * 1.25 > avail) {
        const std::string msg = "skipped: needs " + std::to_string(need / 1e9) + " GB, " +
                                std::to_string(avail / 1e9) + " GB available";
        state.SkipWithError(msg.c_str());
        return false;
    }
    return true;
}

/// Reports `bytes_per_call` per iteration as bytes_per_second, and the element count.
inline void set_bytes(benchmark::State& state, double bytes_per_call, std::int64_t n) {
    state.SetBytesProcessed(
        static_cast<std::int64_t>(static_cast<double>(state.iterations()) * bytes_per_call));
    state.counters["n"] = static_cast<double>(n);
}

/// Keeps the result of a call alive and makes the next call re-read memory.
inline void sink(const void* p) {
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
}

// ---- the physical references --------------------------------------------------------------

/// memcpy of n floats: n*4 read + n*4 written per call.
inline void bandwidth_memcpy(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 2, n))
        return;
    std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    fill(x.data(), x.size(), 1);
    for (auto _ : state) {
        std::memcpy(y.data(), x.data(), x.size() * sizeof(float));
        sink(y.data());
    }
    set_bytes(state, 8.0 * static_cast<double>(n), n);
}

#ifdef _OPENMP
/// y = a*x + b over n floats with `#pragma omp parallel for` on all cores: 8n bytes per call.
inline void bandwidth_omp_triad(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 2, n))
        return;
    std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    fill(x.data(), x.size(), 1);
    float a = 1.5f;
    float b = 0.25f;
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    float* py = y.data();
    const float* px = x.data();
    for (auto _ : state) {
#pragma omp parallel for schedule(static) num_threads(kOmpThreads)
        for (std::int64_t i = 0; i < n; ++i)
            py[i] = a * px[i] + b;
        sink(py);
    }
    set_bytes(state, 8.0 * static_cast<double>(n), n);
}

/// The sum of n floats with `#pragma omp parallel for reduction(+)` on all cores: 4n bytes.
inline void bandwidth_omp_sum(benchmark::State& state, std::int64_t n) {
    if (!fits_in_memory(state, 1, n))
        return;
    std::vector<float> x(static_cast<std::size_t>(n));
    fill(x.data(), x.size(), 1);
    const float* px = x.data();
    for (auto _ : state) {
        float s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) num_threads(kOmpThreads)
        for (std::int64_t i = 0; i < n; ++i)
            s += px[i];
        benchmark::DoNotOptimize(s);
        benchmark::ClobberMemory();
    }
    set_bytes(state, 4.0 * static_cast<double>(n), n);
}
#endif

/// Registers fn(state, arg) as "<name>/<arg>", timed by the wall clock (the threaded peers use
/// every core). The callers register size by size, every library at one size before the next
/// size, so that a slow minute of this shared machine hits all libraries alike.
template <class Fn>
void add(const std::string& name, Fn fn, std::int64_t arg) {
    benchmark::RegisterBenchmark(name.c_str(),
                                 [fn](benchmark::State& state) { fn(state, state.range(0)); })
        ->Arg(arg)
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
}

#ifdef STATICPY_BENCH_HAVE_TORCH
/// libtorch's own choice of intra-op threads (at::get_num_threads() on first use), read once.
inline int torch_default_threads() {
    static const int n = [] {
        const int t = at::get_num_threads();
        restore_omp_threads();
        return t;
    }();
    return n;
}

/// How many threads a libtorch case runs on: libtorch's default, or every core OpenMP sees.
enum class torch_threads { library_default, all_cores };

/// Sets libtorch's threads for one case, and gives OpenMP its start-up setting back afterwards
/// (libtorch's setting is OpenMP's, and the cases that follow use OpenMP too).
class torch_threads_scope {
public:
    explicit torch_threads_scope(torch_threads t) {
        at::set_num_threads(t == torch_threads::all_cores ? kOmpThreads : torch_default_threads());
    }
    ~torch_threads_scope() { restore_omp_threads(); }
    torch_threads_scope(const torch_threads_scope&) = delete;
    torch_threads_scope& operator=(const torch_threads_scope&) = delete;
};
#endif

/// Records in the report's context what the table needs to say about threads and graph mode.
inline void add_context(bool graph_mode) {
    benchmark::AddCustomContext("omp_threads", std::to_string(kOmpThreads));
#ifdef STATICPY_BENCH_HAVE_TORCH
    benchmark::AddCustomContext("torch_default_threads", std::to_string(torch_default_threads()));
#else
    benchmark::AddCustomContext("torch_default_threads", "none (libtorch not found)");
#endif
    benchmark::AddCustomContext("staticpy_graph", graph_mode ? "yes" : "no (pending)");
}

} // namespace staticpy_bench
