// Data loading: one epoch of the Fashion-MNIST training set (60000 x 28x28 uint8 -> float32,
// normalised), batches of 64, shuffled, as samples/s, staticpy beside libtorch 1.13's torch::data
// and the memcpy of the same bytes, measured in the same run (issue 4's benchmark). PyTorch's
// Python DataLoader is measured by dataloader_pytorch.py; run_data_benchmarks.sh runs both and
// prints the table.
//
// Cases, "<case>/<workers or threads>", one iteration = one epoch (indices drawn, every batch
// made and handed to the consuming thread):
//   memcpy_f32/T        the physical reference: each batch's 64 x 784 float32 rows gathered in the
//                       shuffled order with one memcpy per sample from a float32 copy of the set,
//                       on T threads (T = 1, 2): the bytes a batch holds
//   memcpy_u8/T         the same from the uint8 images: the bytes the fast path reads
//   staticpy_fast/W     DataLoader over FashionMNIST<ToFloat>, default collate: the contiguous
//                       fast path (gather: pixels converted straight into the batch), W workers
//   staticpy_generic/W  the same loader with a collate_fn of its own (default_collate in a
//                       lambda): one [28, 28] float tensor per sample, then stacked
//   libtorch/W          torch::data::datasets::MNIST (its reader already divides by 255) +
//                       Normalize + Stack, make_data_loader with a RandomSampler, W workers
//   transform/W         a CPU-heavy per-sample transform, torchvision's ToTensor, RandomCrop(24,
//                       padding=4), Normalize, drawing from the worker's generator; W = 0, 1, 2
//
// The dataset is read once per process (not timed). Without /usr/share/datasets/fashion-mnist
// (apt-get install dataset-fashion-mnist) every case is skipped with that message; without
// libtorch (or zlib, to unpack the .gz files torch's reader cannot read) the libtorch cases are.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>

#include <staticpy/data.hpp>

#ifdef STATICPY_HAS_ZLIB
#include <zlib.h>
#endif
#ifdef STATICPY_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {

using namespace staticpy;
using namespace staticpy::data;

constexpr std::int64_t kBatch = 64;
constexpr std::int64_t kPixels = 28 * 28;
constexpr float kMean = 0.2860F; // Fashion-MNIST's training-set mean and std (torchvision docs)
constexpr float kStd = 0.3530F;

const std::filesystem::path& root() {
    static const std::filesystem::path r = [] {
        const char* env = std::getenv("STATICPY_FASHION_MNIST");
        return env != nullptr ? std::filesystem::path(env) : fashion_mnist_root;
    }();
    return r;
}

bool have_dataset(benchmark::State& state) {
    if (std::filesystem::exists(root() / "train-images-idx3-ubyte.gz") ||
        std::filesystem::exists(root() / "train-images-idx3-ubyte"))
        return true;
    state.SkipWithError(("Fashion-MNIST not found in " + root().string() +
                         " (apt-get install dataset-fashion-mnist)")
                            .c_str());
    return false;
}

using Normalised = FashionMNIST<ToFloat>;
const Normalised& normalised() {
    static const Normalised ds(root(), true, ToFloat{.mean = kMean, .std = kStd});
    return ds;
}
const FashionMNIST<>& raw() {
    static const FashionMNIST<> ds(root(), true);
    return ds;
}

/// Reports one epoch per iteration as samples/s, and fails the case when an epoch did not see
/// the whole set.
void finish(benchmark::State& state, std::int64_t samples_seen, std::int64_t per_epoch) {
    const auto expected = per_epoch * static_cast<std::int64_t>(state.iterations());
    if (samples_seen != expected)
        state.SkipWithError(("saw " + std::to_string(samples_seen) + " samples, expected " +
                             std::to_string(expected))
                                .c_str());
    state.counters["samples_per_second"] =
        benchmark::Counter(static_cast<double>(samples_seen), benchmark::Counter::kIsRate);
}

/// Iterates a staticpy loader for one epoch per benchmark iteration.
template <class Loader>
void run_staticpy(benchmark::State& state, Loader& loader, std::int64_t n) {
    std::int64_t seen = 0;
    for (auto _ : state)
        for (auto& [x, y] : loader) {
            benchmark::DoNotOptimize(x.data());
            benchmark::DoNotOptimize(y.data());
            seen += x.sizes()[0];
        }
    finish(state, seen, n);
}

// ---- memcpy: the same bytes, no loader ------------------------------------------------------

/// The rows each batch is made of, in the shuffled order, copied with one memcpy per sample into
/// a batch buffer (reused: no allocation, no conversion), batches dealt round-robin to `threads`
/// threads. T = float: the batch's bytes, from a float32 copy of the set (188 MB); T = uint8: the
/// dataset's bytes (47 MB), what the fast path reads.
template <class T>
void memcpy_reference(benchmark::State& state, int threads) {
    if (!have_dataset(state))
        return;
    static const std::vector<T> source = [] {
        const auto& ds = raw();
        const auto* pixels = ds.data().data();
        const auto count = static_cast<std::size_t>(ds.size() * kPixels);
        if constexpr (std::is_same_v<T, float>) {
            std::vector<float> out(count);
            ToFloat{.mean = kMean, .std = kStd}.apply(pixels, out.data(),
                                                      static_cast<std::int64_t>(count));
            return out;
        } else {
            return std::vector<T>(pixels, pixels + count);
        }
    }();
    const std::int64_t n = raw().size();
    const std::int64_t batches = (n + kBatch - 1) / kBatch;
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::mt19937_64 rng(0);
    const auto worker = [&](int id) {
        std::vector<T> batch(static_cast<std::size_t>(kBatch * kPixels));
        for (std::int64_t b = id; b < batches; b += threads) {
            const std::int64_t first = b * kBatch;
            const std::int64_t last = std::min(n, first + kBatch);
            for (std::int64_t k = first; k < last; ++k)
                std::memcpy(batch.data() + (k - first) * kPixels,
                            source.data() + order[static_cast<std::size_t>(k)] * kPixels,
                            kPixels * sizeof(T));
            benchmark::DoNotOptimize(batch.data());
            benchmark::ClobberMemory();
        }
    };
    std::int64_t seen = 0;
    for (auto _ : state) {
        std::iota(order.begin(), order.end(), std::int64_t{0});
        std::shuffle(order.begin(), order.end(), rng);
        if (threads == 1) {
            worker(0);
        } else {
            std::vector<std::jthread> pool;
            for (int t = 0; t < threads; ++t)
                pool.emplace_back(worker, t);
        }
        seen += n;
    }
    finish(state, seen, n);
}

// ---- staticpy ---------------------------------------------------------------------------------

void staticpy_fast(benchmark::State& state, int workers) {
    if (!have_dataset(state))
        return;
    static_assert(GatherDataset<Normalised>, "the fast path is what this case measures");
    const auto& ds = normalised();
    Generator gen(0);
    DataLoader loader(
        ds, {.batch_size = kBatch, .shuffle = true, .num_workers = workers, .generator = &gen});
    run_staticpy(state, loader, ds.size());
}

void staticpy_generic(benchmark::State& state, int workers) {
    if (!have_dataset(state))
        return;
    const auto& ds = normalised();
    Generator gen(0);
    // Any collate_fn but DefaultCollate gets the samples: one ToFloat tensor each, then a stack.
    DataLoader loader(
        ds, {.batch_size = kBatch, .shuffle = true, .num_workers = workers, .generator = &gen},
        [](std::vector<sample_t<Normalised>> samples) { return default_collate(samples); });
    run_staticpy(state, loader, ds.size());
}

/// torchvision's Compose([ToTensor(), RandomCrop(24, padding=4), Normalize(m, s)]) on every
/// sample, each step a new tensor as torchvision makes them, the crop drawn from the calling
/// worker's generator (reproducible, different across workers).
struct RandomCropDataset {
    const FashionMNIST<>* base;

    [[nodiscard]] std::int64_t size() const { return base->size(); }
    [[nodiscard]] std::tuple<Tensor<float, static_shape<24, 24>>, std::int64_t>
    operator[](std::int64_t i) const {
        auto [image, label] = (*base)[i];
        constexpr int pad = 4;
        constexpr int side = 28 + 2 * pad;
        Tensor<float, static_shape<side, side>> padded{static_shape<side, side>{}};
        float* p = padded.data();
        std::fill(p, p + side * side, 0.0F);
        const std::uint8_t* src = image.data();
        for (int r = 0; r < 28; ++r)
            for (int c = 0; c < 28; ++c)
                p[(r + pad) * side + c + pad] = static_cast<float>(src[r * 28 + c]) / 255.0F;
        Generator& g = worker_generator();
        const auto top = g.randint(0, side - 24 + 1);
        const auto left = g.randint(0, side - 24 + 1);
        Tensor<float, static_shape<24, 24>> crop{static_shape<24, 24>{}};
        float* q = crop.data();
        for (int r = 0; r < 24; ++r)
            std::memcpy(q + r * 24, p + (top + r) * side + left, 24 * sizeof(float));
        Tensor<float, static_shape<24, 24>> out{static_shape<24, 24>{}};
        float* o = out.data();
        for (int k = 0; k < 24 * 24; ++k)
            o[k] = (q[k] - kMean) / kStd;
        return {std::move(out), label};
    }
};

void staticpy_transform(benchmark::State& state, int workers) {
    if (!have_dataset(state))
        return;
    const RandomCropDataset ds{&raw()};
    Generator gen(0);
    DataLoader loader(
        ds, {.batch_size = kBatch, .shuffle = true, .num_workers = workers, .generator = &gen});
    run_staticpy(state, loader, ds.size());
}

// ---- libtorch ---------------------------------------------------------------------------------

#ifdef STATICPY_BENCH_HAVE_TORCH
/// A directory with the uncompressed training files that torch's MNIST reader needs: the
/// dataset's own when it has them, else a temporary copy unpacked once with zlib. Empty when
/// neither works (the reason in `why`).
std::filesystem::path torch_root(std::string& why) {
    if (std::filesystem::exists(root() / "train-images-idx3-ubyte") &&
        std::filesystem::exists(root() / "train-labels-idx1-ubyte"))
        return root();
#ifdef STATICPY_HAS_ZLIB
    const auto dir = std::filesystem::temp_directory_path() / "staticpy-bench-fashion-mnist";
    std::filesystem::create_directories(dir);
    for (const char* name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte"}) {
        const auto out = dir / name;
        const auto tmp = dir / (std::string(name) + ".part");
        if (std::filesystem::exists(out))
            continue;
        const auto gz = root() / (std::string(name) + ".gz");
        gzFile in = gzopen(gz.c_str(), "rb");
        if (in == nullptr) {
            why = "cannot open " + gz.string();
            return {};
        }
        std::ofstream file(tmp, std::ios::binary);
        std::array<char, 1 << 16> buf{};
        int got = 0;
        while ((got = gzread(in, buf.data(), static_cast<unsigned>(buf.size()))) > 0)
            file.write(buf.data(), got);
        gzclose(in);
        file.close();
        if (got < 0 || !file) {
            why = "cannot unpack " + gz.string() + " into " + dir.string();
            return {};
        }
        std::filesystem::rename(tmp, out); // a complete file or none
    }
    return dir;
#else
    why = "torch's MNIST reader needs uncompressed files and staticpy was built without zlib";
    return {};
#endif
}

void libtorch_loader(benchmark::State& state, int workers) {
    if (!have_dataset(state))
        return;
    std::string why;
    static const std::filesystem::path dir = torch_root(why);
    if (dir.empty()) {
        state.SkipWithError(("libtorch: " + why).c_str());
        return;
    }
    torch::manual_seed(0);
    auto dataset = torch::data::datasets::MNIST(dir.string())
                       .map(torch::data::transforms::Normalize<>(kMean, kStd))
                       .map(torch::data::transforms::Stack<>());
    const auto n = static_cast<std::int64_t>(*dataset.size());
    auto loader = torch::data::make_data_loader<torch::data::samplers::RandomSampler>(
        std::move(dataset), torch::data::DataLoaderOptions().batch_size(kBatch).workers(
                                static_cast<std::size_t>(workers)));
    std::int64_t seen = 0;
    for (auto _ : state)
        for (auto& batch : *loader) {
            benchmark::DoNotOptimize(batch.data.data_ptr());
            benchmark::DoNotOptimize(batch.target.data_ptr());
            seen += batch.data.size(0);
        }
    finish(state, seen, n);
}
#endif

template <class Fn>
void add(const std::string& name, Fn fn, int arg) {
    benchmark::RegisterBenchmark((name + "/" + std::to_string(arg)).c_str(),
                                 [fn, arg](benchmark::State& state) { fn(state, arg); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("dataset", root().string());
    benchmark::AddCustomContext("hardware_threads",
                                std::to_string(std::thread::hardware_concurrency()));
#ifdef STATICPY_BENCH_HAVE_TORCH
    benchmark::AddCustomContext("libtorch", std::to_string(TORCH_VERSION_MAJOR) + "." +
                                                std::to_string(TORCH_VERSION_MINOR));
    benchmark::AddCustomContext("torch_intra_op_threads", std::to_string(at::get_num_threads()));
#else
    benchmark::AddCustomContext("libtorch", "none (libtorch not found)");
#endif
    // Grouped by thread count, so that a slow minute of a shared machine hits all loaders alike.
    for (int workers : {0, 2}) {
        add("memcpy_f32", memcpy_reference<float>, std::max(workers, 1));
        add("memcpy_u8", memcpy_reference<std::uint8_t>, std::max(workers, 1));
        add("staticpy_fast", staticpy_fast, workers);
        add("staticpy_generic", staticpy_generic, workers);
#ifdef STATICPY_BENCH_HAVE_TORCH
        add("libtorch", libtorch_loader, workers);
#endif
    }
    for (int workers : {0, 1, 2})
        add("transform", staticpy_transform, workers);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
