// Issue 11's training-epoch benchmark, staticpy's side: the demo's training
// (examples/train_fashion_mnist.cpp) timed epoch by epoch. The MLP 784-128-10 (nn::Sequential of
// nn::Linear and nn::ReLU, PyTorch's default initialisation from Generator(seed)), SGD lr 0.1,
// batch 64, Fashion-MNIST through a shuffled DataLoader (Generator(42 + seed)) with the pixels
// normalised per batch as the loader gathers them (ToFloat), each step one compiled graph and
// SGD's loop (nn::TrainOneStep: forward, cross-entropy and backward, then the update); the test
// accuracy after each epoch (batches of 1000, the forward as one jit graph).
//
//   epoch_staticpy [--net mlp|cnn] [--epochs N] [--threads T] [--workers W] [--variant graph|eager]
//                  [--seed S]
//
// --threads: staticpy::set_num_threads; --workers: the DataLoader's num_workers (0: batches made
// on the training thread; 1: on a worker thread, which claims a core: the kernels use the
// others); --variant eager: the same step in PYNATIVE_MODE. One JSON line per epoch
// (epoch_support.hpp); `epoch_staticpy --list-nets` prints the networks this build trains.
//
// Not Google Benchmark, although the other *_bench programs are: an epoch is the unit the issue
// asks about (seconds, and the accuracy reached after it), it lasts about a second, and the
// accuracy and time-to-accuracy need the epochs in sequence, one model trained across them,
// which Google Benchmark's repeated, independent iterations do not give. The rounds and the
// choice of the fastest setting are run_epoch_benchmarks.sh's.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

#include <staticpy/data.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/nn.hpp>
#include <staticpy/staticpy.hpp>

#include "epoch_support.hpp"

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

namespace {

/// The networks this program trains (run_epoch_benchmarks.sh asks with --list-nets). The peers'
/// CNN is the same LeNet-5: epoch_pytorch.py, epoch_libtorch.cpp, epoch_dlib.cpp.
constexpr const char* kNets = "mlp|cnn";

/// Trains `model` for the requested epochs, printing one record per epoch. `as_input(x, n)`
/// shapes a batch of n [28, 28] images as the model's input.
template <class Model, class AsInput>
int train(Model& model, const epoch_bench::options& o,
          std::chrono::steady_clock::time_point setup_start, AsInput as_input) {
    const ToFloat normalise{.mean = epoch_bench::kMean, .std = epoch_bench::kStd};
    FashionMNIST train_set(o.root, true, normalise);
    FashionMNIST test_set(o.root, false, normalise);
    Generator shuffle(42 + static_cast<std::uint64_t>(o.seed));
    DataLoader train_loader(train_set, {.batch_size = epoch_bench::kBatch,
                                        .shuffle = true,
                                        .num_workers = o.workers,
                                        .generator = &shuffle});
    DataLoader test_loader(test_set, {.batch_size = epoch_bench::kTestBatch});

    nn::optim::SGD optimizer(model.parameters(), {.lr = epoch_bench::kLearningRate});
    auto loss_fn = [&](const auto& params, const auto& images, const auto& labels) {
        return F::cross_entropy(nn::functional_call(model, params, images), labels);
    };
    nn::TrainOneStep step(loss_fn, optimizer);
    auto predict = jit([&](const auto& params, const auto& images) {
        return nn::functional_call(model, params, images).argmax(1_c);
    });
    const double setup_s = epoch_bench::seconds_since(setup_start);

    epoch_bench::epoch_record r{.peer = "staticpy",
                                .variant = o.variant + "_w" + std::to_string(o.workers),
                                .net = o.net,
                                .setting = "threads:" + std::to_string(o.threads)};
    r.setup_s = setup_s;
    r.seed = o.seed;
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        const auto start = std::chrono::steady_clock::now();
        double loss_sum = 0;
        std::int64_t samples = 0, batches = 0;
        for (auto& [x, y] : train_loader) {
            const std::int64_t n = x.sizes()[0];
            loss_sum += step(as_input(x, n), y).item();
            samples += n;
            ++batches;
        }
        r.train_s = epoch_bench::seconds_since(start);

        const auto eval_start = std::chrono::steady_clock::now();
        std::int64_t correct = 0, seen = 0;
        for (auto& [x, y] : test_loader) {
            const std::int64_t n = x.sizes()[0];
            correct += (predict(model.parameters(), as_input(x, n)) == y).sum().item();
            seen += n;
        }
        r.eval_s = epoch_bench::seconds_since(eval_start);
        r.epoch = epoch;
        r.samples = samples;
        r.train_loss = loss_sum / static_cast<double>(batches);
        r.test_acc = static_cast<double>(correct) / static_cast<double>(seen);
        epoch_bench::emit(r);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--list-nets") == 0) {
        std::cout << kNets << '\n';
        return 0;
    }
    const auto setup_start = std::chrono::steady_clock::now();
    const epoch_bench::options o = epoch_bench::parse(argc, argv, "graph|eager", kNets);
    if (!std::filesystem::exists(std::filesystem::path(o.root) / "train-images-idx3-ubyte.gz") &&
        !std::filesystem::exists(std::filesystem::path(o.root) / "train-images-idx3-ubyte")) {
        std::cerr << "epoch_staticpy: Fashion-MNIST not found in " << o.root
                  << " (apt-get install dataset-fashion-mnist)\n";
        return 1;
    }
    set_num_threads(o.threads);
    set_context(o.variant == "eager" ? PYNATIVE_MODE : GRAPH_MODE);

    Generator init(static_cast<std::uint64_t>(o.seed));
    if (o.net == "cnn") {
        nn::Sequential lenet(nn::Conv2d<1, 6, 5, 1, 2>(init), nn::ReLU{}, nn::MaxPool2d<2>{},
                             nn::Conv2d<6, 16, 5>(init), nn::ReLU{}, nn::MaxPool2d<2>{},
                             nn::Flatten{}, nn::Linear<400, 120>(init), nn::ReLU{},
                             nn::Linear<120, 84>(init), nn::ReLU{}, nn::Linear<84, 10>(init));
        return train(lenet, o, setup_start,
                     [](const auto& x, std::int64_t n) { return x.view(n, 1_c, 28_c, 28_c); });
    }
    nn::Sequential mlp(nn::Linear<784, 128>(init), nn::ReLU{}, nn::Linear<128, 10>(init));
    return train(mlp, o, setup_start,
                 [](const auto& x, std::int64_t n) { return x.view(n, 784_c); });
}
