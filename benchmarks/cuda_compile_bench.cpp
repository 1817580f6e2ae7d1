// The CUDA backend's compile path, measured without a GPU (issue 12): NVRTC's compile time per
// generated source, beside the toolkit's offline compiler (nvcc -ptx) on the same source, and a
// disk-cache hit, beside reading a file of the entry's size (the floor of a hit). The sources are
// what cuda::to_cuda generates for three graphs: one elementwise kernel, a block-per-output
// reduction with its partials kernel, and a larger elementwise kernel (GELU, tanh and a scaling
// over three broadcast operands).
//
//   cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DSTATICPY_BUILD_BENCHMARKS=ON
//   make -C build/bench cuda_compile_bench && build/bench/benchmarks/cuda_compile_bench
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

namespace fs = std::filesystem;
using namespace staticpy;

namespace {

struct source_case {
    const char* name;
    std::string text;
};

const std::vector<source_case>& sources() {
    static const std::vector<source_case> all = [] {
        Generator g(1);
        const auto x = randn(64, 512, g);
        const auto y = randn(512, g);
        const auto z = randn(64, 1, g);
        auto small = jit([](auto a, auto b) { return sigmoid(a * b + 1.0f) - exp(b); });
        auto reduction = jit([](auto a) { return sum(a * a, 1); });
        auto large = jit([](auto a, auto b, auto c) {
            return gelu(a * b + c) * tanh(b - c) + relu(a) * 0.5f - sigmoid(c * a);
        });
        const cuda::cuda_layout strided{.rank = 2};
        return std::vector<source_case>{
            {"elementwise", cuda::to_cuda(small, {strided}, x, y)},
            {"block_reduction",
             cuda::to_cuda(reduction, {{.contiguous = true, .block_reduce = true}}, x)},
            {"elementwise_large", cuda::to_cuda(large, {strided}, x, y, z)},
        };
    }();
    return all;
}

fs::path scratch() {
    const fs::path p = fs::temp_directory_path() / ("staticpy_cuda_bench_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
}

void nvrtc_compile(benchmark::State& state, const source_case& c) {
    const cuda::kernel_cache off{fs::path()};
    std::size_t bytes = 0;
    for (auto _ : state)
        bytes = cuda::compile_kernels(c.text, "compute_90", off).size();
    state.counters["ptx_bytes"] = static_cast<double>(bytes);
}

void nvcc_ptx(benchmark::State& state, const source_case& c) {
    const fs::path src = scratch() / (std::string(c.name) + ".cu");
    std::ofstream(src) << c.text;
    const std::string cmd = "/usr/local/cuda/bin/nvcc -ptx -arch=compute_90 --std=c++17 " +
                            src.string() + " -o " + (scratch() / "nvcc.ptx").string();
    for (auto _ : state)
        if (std::system(cmd.c_str()) != 0) {
            state.SkipWithError("nvcc failed");
            break;
        }
}

/// The size of the cache's one entry.
std::uintmax_t entry_bytes(const cuda::kernel_cache& cache) {
    std::uintmax_t size = 0;
    for (const auto& e : fs::directory_iterator(cache.directory()))
        size += e.file_size();
    return size;
}

void cache_hit(benchmark::State& state, const source_case& c) {
    const cuda::kernel_cache cache(scratch() / (std::string("cache_") + c.name));
    const std::string ptx = cuda::compile_kernels(c.text, "compute_90", cache); // stores it
    std::size_t bytes = 0;
    for (auto _ : state)
        bytes = cuda::compile_kernels(c.text, "compute_90", cache).size();
    state.counters["entry_bytes"] = static_cast<double>(entry_bytes(cache));
    benchmark::DoNotOptimize(bytes);
}

void read_file(benchmark::State& state, const source_case& c) {
    const cuda::kernel_cache cache(scratch() / (std::string("cache_") + c.name));
    (void)cuda::compile_kernels(c.text, "compute_90", cache);
    const fs::path file = scratch() / "plain";
    std::ofstream(file, std::ios::binary) << std::string(entry_bytes(cache), 'x');
    for (auto _ : state) {
        std::ifstream in(file, std::ios::binary);
        std::string s{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        benchmark::DoNotOptimize(s.data());
    }
}

} // namespace

int main(int argc, char** argv) {
    if (!cuda::detail::process_nvrtc().api) {
        std::printf("skipped: %s\n", cuda::detail::process_nvrtc().unavailable.c_str());
        return 0;
    }
    const bool have_nvcc = fs::exists("/usr/local/cuda/bin/nvcc");
    for (const source_case& c : sources()) {
        benchmark::RegisterBenchmark((std::string("nvrtc_compile/") + c.name).c_str(),
                                     [&c](benchmark::State& s) { nvrtc_compile(s, c); })
            ->Unit(benchmark::kMillisecond)
            ->Iterations(10);
        if (have_nvcc)
            benchmark::RegisterBenchmark((std::string("nvcc_ptx/") + c.name).c_str(),
                                         [&c](benchmark::State& s) { nvcc_ptx(s, c); })
                ->Unit(benchmark::kMillisecond)
                ->Iterations(5);
        benchmark::RegisterBenchmark((std::string("cache_hit/") + c.name).c_str(),
                                     [&c](benchmark::State& s) { cache_hit(s, c); })
            ->Unit(benchmark::kMicrosecond);
        benchmark::RegisterBenchmark((std::string("read_file/") + c.name).c_str(),
                                     [&c](benchmark::State& s) { read_file(s, c); })
            ->Unit(benchmark::kMicrosecond);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    std::error_code ec;
    fs::remove_all(scratch(), ec);
    return 0;
}
