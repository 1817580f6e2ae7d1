// The readers beside the floor of what they do (issue 8): read_idx of Fashion-MNIST's training
// images (47 MB, 26 MB gzip-compressed) against zlib's gzread of the same file into a buffer
// made once (decompression alone: what any reader of the file pays), and the plain file (in the
// page cache) against memcpy of as many bytes; read_csv of a 100000 x 10 table of floats against
// std::from_chars over the text already in memory (parsing alone). The ratios say what the checks,
// the buffer grown as data arrives and the tensor cost on top.
//
//   cmake -S . -B build/bench -DSTATICPY_BUILD_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
//   cmake --build build/bench --target readers_bench && build/bench/benchmarks/readers_bench

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <staticpy/data/csv.hpp>
#include <staticpy/data/idx.hpp>
#include <staticpy/data/mnist.hpp>

#ifdef STATICPY_HAS_ZLIB
#include <zlib.h>
#endif

namespace {

const std::filesystem::path images_gz =
    staticpy::data::fashion_mnist_root / "train-images-idx3-ubyte.gz";

std::filesystem::path scratch(const std::string& name) {
    return std::filesystem::temp_directory_path() / ("staticpy_readers_bench_" + name);
}

/// The decompressed images file, written once per run.
const std::filesystem::path& images_plain() {
    static const std::filesystem::path p = [] {
        const auto out = scratch("images.idx");
        const auto t = staticpy::data::read_idx<std::uint8_t, 3>(images_gz);
        std::ofstream f(out, std::ios::binary);
        const unsigned char head[16] = {0, 0, 8, 3, 0, 0, 0xEA, 0x60, 0, 0, 0, 28, 0, 0, 0, 28};
        f.write(reinterpret_cast<const char*>(head), sizeof head);
        f.write(reinterpret_cast<const char*>(t.data()), t.numel());
        return out;
    }();
    return p;
}

/// A 100000 x 10 CSV of floats as numpy.savetxt(fmt="%.6g") writes them.
const std::filesystem::path& table_csv() {
    static const std::filesystem::path p = [] {
        const auto out = scratch("table.csv");
        std::mt19937 gen(1);
        std::uniform_real_distribution<float> u(-100.0F, 100.0F);
        std::FILE* f = std::fopen(out.c_str(), "w");
        for (int r = 0; r < 100000; ++r)
            for (int c = 0; c < 10; ++c)
                std::fprintf(f, "%.6g%c", static_cast<double>(u(gen)), c == 9 ? '\n' : ',');
        std::fclose(f);
        return out;
    }();
    return p;
}

bool have_images(benchmark::State& state) {
    if (std::filesystem::exists(images_gz) && staticpy::data::detail::has_zlib)
        return true;
    state.SkipWithError("Fashion-MNIST (dataset-fashion-mnist) or zlib missing");
    return false;
}

void BM_read_idx_gzip(benchmark::State& state) {
    if (!have_images(state))
        return;
    for (auto _ : state) {
        auto t = staticpy::data::read_idx<std::uint8_t, 3>(images_gz);
        benchmark::DoNotOptimize(t.data());
    }
    state.SetBytesProcessed(state.iterations() * 47040016);
}
BENCHMARK(BM_read_idx_gzip)->Unit(benchmark::kMillisecond)->UseRealTime();

#ifdef STATICPY_HAS_ZLIB
void BM_zlib_gzread_floor(benchmark::State& state) {
    if (!have_images(state))
        return;
    std::vector<unsigned char> buffer(47040016 + 1);
    for (auto _ : state) {
        gzFile f = gzopen(images_gz.c_str(), "rb");
        gzbuffer(f, 1U << 17);
        const int got = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()));
        gzclose(f);
        benchmark::DoNotOptimize(got);
    }
    state.SetBytesProcessed(state.iterations() * 47040016);
}
BENCHMARK(BM_zlib_gzread_floor)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

void BM_read_idx_plain(benchmark::State& state) {
    if (!have_images(state))
        return;
    const auto& p = images_plain();
    for (auto _ : state) {
        auto t = staticpy::data::read_idx<std::uint8_t, 3>(p);
        benchmark::DoNotOptimize(t.data());
    }
    state.SetBytesProcessed(state.iterations() * 47040016);
}
BENCHMARK(BM_read_idx_plain)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Moving the bytes at all: memcpy of 47 MB between two buffers made once (memory bandwidth).
void BM_memcpy_floor(benchmark::State& state) {
    std::vector<unsigned char> from(47040016, 1);
    std::vector<unsigned char> to(47040016, 0);
    for (auto _ : state) {
        std::memcpy(to.data(), from.data(), from.size());
        benchmark::DoNotOptimize(to.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * 47040016);
}
BENCHMARK(BM_memcpy_floor)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_read_csv(benchmark::State& state) {
    const auto& p = table_csv();
    for (auto _ : state) {
        auto t = staticpy::data::read_csv<float>(p);
        benchmark::DoNotOptimize(t.data());
    }
    state.SetItemsProcessed(state.iterations() * 1000000);
}
BENCHMARK(BM_read_csv)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Parsing alone: the text already in memory, std::from_chars between the delimiters, into a
/// vector reserved once; no checks of the row shape, no file.
void BM_from_chars_floor(benchmark::State& state) {
    std::ifstream f(table_csv(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<float> values;
    values.reserve(1000000);
    for (auto _ : state) {
        values.clear();
        const char* p = text.data();
        const char* end = p + text.size();
        while (p < end) {
            float v = 0;
            const auto r = std::from_chars(p, end, v);
            values.push_back(v);
            p = r.ptr + 1; // past ',' or '\n'
        }
        benchmark::DoNotOptimize(values.data());
    }
    state.SetItemsProcessed(state.iterations() * 1000000);
}
BENCHMARK(BM_from_chars_floor)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
