// One epoch of Fashion-MNIST through a two-worker, shuffled DataLoader with a progress bar, each
// batch fed to a jit-compiled linear layer (random weights) + softmax: batch shapes, throughput,
// the mean pixel and the label histogram at the end.
//
//   build/demo/examples/example_fashion_mnist [root]
//
// root defaults to /usr/share/datasets/fashion-mnist (apt-get install dataset-fashion-mnist).
// The graph's kernels use OpenMP and the loader's workers are threads: while the workers run,
// their cores are reserved (staticpy::reserve_threads) and the kernels use the rest, so idle
// OpenMP threads do not spin on the cores the workers need.

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>

#include <staticpy/data.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;

int main(int argc, char** argv) {
    const std::filesystem::path root = argc > 1 ? argv[1] : fashion_mnist_root;
    if (!std::filesystem::exists(root / "train-images-idx3-ubyte.gz") &&
        !std::filesystem::exists(root / "train-images-idx3-ubyte")) {
        std::cout << "Fashion-MNIST not found in " << root
                  << " (apt-get install dataset-fashion-mnist): nothing to do\n";
        return 0;
    }

    // torchvision's ToTensor() + Normalize((0.2860,), (0.3530,)), applied in the batch gather.
    FashionMNIST train(root, true, ToFloat{.mean = 0.2860F, .std = 0.3530F});
    Generator gen(42);
    DataLoader loader(train,
                      {.batch_size = 64, .shuffle = true, .num_workers = 2, .generator = &gen});

    auto w = randn(10_c, 784_c, gen) * 0.01F; // an untrained linear layer 784 -> 10
    auto b = randn(10_c, gen) * 0.01F;
    auto model = jit([](auto x, auto w, auto b) { // the graph is a type; each call runs its kernels
        return list(softmax(linear(x, w, b), -1_c), x.mean());
    });

    std::int64_t batches = 0, samples = 0;
    double pixel_sum = 0, confidence = 0;
    std::array<std::int64_t, 10> histogram{};
    const auto start = std::chrono::steady_clock::now();
    for (auto& [x, y] : progress(loader, {.desc = "epoch 1"})) {
        if (batches == 0)
            std::cout << "first batch: images " << x.shape() << ' ' << dtype_name(x.dtype())
                      << ", labels " << y.shape() << ' ' << dtype_name(y.dtype()) << '\n';
        const std::int64_t n = x.sizes()[0];
        auto out = model(x.view(n, 784_c), w, b);
        pixel_sum += static_cast<double>(out[1_c].item()) * static_cast<double>(n);
        confidence += static_cast<double>(out[0_c].amax(1_c).sum().item());
        for (std::int64_t i = 0; i < n; ++i)
            ++histogram[static_cast<std::size_t>(y(i))];
        ++batches;
        samples += n;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::cout << "batches: " << batches << " (len(loader) = " << loader.size()
              << "), samples: " << samples << ", " << static_cast<double>(samples) / seconds
              << " samples/s\n"
              << "mean normalised pixel: " << pixel_sum / static_cast<double>(samples)
              << " (about 0 after Normalize)\n"
              << "mean top softmax probability of the untrained layer: "
              << confidence / static_cast<double>(samples) << '\n'
              << "labels:\n";
    for (std::size_t c = 0; c < histogram.size(); ++c)
        std::cout << "  " << c << ' ' << FashionMNIST<>::classes[c] << ": " << histogram[c] << '\n';
    return samples == train.size() ? 0 : 1;
}
