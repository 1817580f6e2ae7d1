// Trains an MLP 784-128-10 on Fashion-MNIST: the model defined at compile time (nn::Sequential),
// fed by a shuffled DataLoader, each step (forward, cross-entropy, backward, SGD update) one
// compiled graph (nn::TrainOneStep), the test accuracy after each epoch, and a CSV log.
//
//   build/demo/examples/example_train_fashion_mnist [--epochs N] [--root DIR] [--log FILE]
//
// --epochs defaults to 1, --root to /usr/share/datasets/fashion-mnist (apt-get install
// dataset-fashion-mnist), --log to train_fashion_mnist.csv (one row per 100 steps and per epoch).
// SGD with lr 0.1 and batch 64, as in PyTorch's tutorials; the images normalised as torchvision's
// ToTensor() + Normalize((0.2860,), (0.3530,)).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include <staticpy/data.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/nn.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

namespace {

struct arguments {
    int epochs = 1;
    std::filesystem::path root = fashion_mnist_root;
    std::filesystem::path log = "train_fashion_mnist.csv";
};

arguments parse(int argc, char** argv) {
    arguments a;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--epochs" && has_value) {
            a.epochs = std::atoi(argv[++i]);
        } else if (arg == "--root" && has_value) {
            a.root = argv[++i];
        } else if (arg == "--log" && has_value) {
            a.log = argv[++i];
        } else {
            std::cerr << "usage: " << argv[0] << " [--epochs N] [--root DIR] [--log FILE]\n";
            std::exit(2);
        }
    }
    if (a.epochs < 1) {
        std::cerr << "--epochs must be at least 1\n";
        std::exit(2);
    }
    return a;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace

int main(int argc, char** argv) {
    const arguments args = parse(argc, argv);
    if (!std::filesystem::exists(args.root / "train-images-idx3-ubyte.gz") &&
        !std::filesystem::exists(args.root / "train-images-idx3-ubyte")) {
        std::cout << "Fashion-MNIST not found in " << args.root
                  << " (apt-get install dataset-fashion-mnist): nothing to train on\n";
        return 1;
    }
    const ToFloat normalise{.mean = 0.2860F, .std = 0.3530F};
    FashionMNIST train_set(args.root, true, normalise);
    FashionMNIST test_set(args.root, false, normalise);
    Generator shuffle(42);
    // One worker: the step's kernels use the other core (a worker's core is reserved while
    // it runs, so that the kernels' threads do not spin on it).
    DataLoader train_loader(
        train_set, {.batch_size = 64, .shuffle = true, .num_workers = 1, .generator = &shuffle});
    DataLoader test_loader(test_set, {.batch_size = 1000});

    // The model, defined at compile time: its shapes are in its type.
    Generator init(0);
    nn::Sequential model(nn::Linear<784, 128>(init), nn::ReLU{}, nn::Linear<128, 10>(init));

    // One training step as one graph: forward, loss, gradients and the SGD update, written over
    // the model's parameters.
    nn::optim::SGD optimizer(model.parameters(), {.lr = 0.1});
    auto loss_fn = [&](const auto& params, const auto& images, const auto& labels) {
        return F::cross_entropy(nn::functional_call(model, params, images), labels);
    };
    nn::TrainOneStep step(loss_fn, optimizer);
    auto predict = jit([&](const auto& params, const auto& images) {
        return nn::functional_call(model, params, images).argmax(1_c);
    });

    std::ofstream log(args.log);
    log << "epoch,step,train_loss,test_accuracy,samples_per_s\n";
    std::cout << "model: Linear(784, 128) -> ReLU -> Linear(128, 10), "
              << "SGD lr 0.1, batch 64, " << args.epochs << " epoch(s)\n";

    std::int64_t global_step = 0;
    double accuracy = 0;
    for (int epoch = 1; epoch <= args.epochs; ++epoch) {
        const auto start = std::chrono::steady_clock::now();
        double loss_sum = 0, window_sum = 0;
        std::int64_t samples = 0, batches = 0, window = 0;
        auto bar = progress(train_loader, {.desc = "epoch " + std::to_string(epoch)});
        for (auto& [x, y] : bar) {
            const std::int64_t n = x.sizes()[0];
            const float loss = step(x.view(n, 784_c), y).item();
            loss_sum += loss;
            window_sum += loss;
            ++batches;
            ++window;
            ++global_step;
            samples += n;
            if (window == 100) {
                const double rate = static_cast<double>(samples) / seconds_since(start);
                bar.set_postfix_str("loss=" + fixed(window_sum / 100, 3) + ", " +
                                    fixed(rate / 1000, 1) + "k samples/s");
                log << epoch << ',' << global_step << ',' << window_sum / 100 << ",," << rate
                    << '\n';
                window_sum = 0;
                window = 0;
            }
        }
        const double train_seconds = seconds_since(start);

        std::int64_t correct = 0, seen = 0;
        for (auto& [x, y] : test_loader) {
            const std::int64_t n = x.sizes()[0];
            const auto predicted = predict(model.parameters(), x.view(n, 784_c));
            correct += (predicted == y).sum().item();
            seen += n;
        }
        accuracy = static_cast<double>(correct) / static_cast<double>(seen);
        const double rate = static_cast<double>(samples) / train_seconds;
        log << epoch << ',' << global_step << ',' << loss_sum / static_cast<double>(batches) << ','
            << accuracy << ',' << rate << '\n';
        std::cout << "epoch " << epoch << ": train loss " << fixed(loss_sum / batches, 4)
                  << ", test accuracy " << fixed(100 * accuracy, 2) << " %, "
                  << fixed(train_seconds, 2) << " s (" << fixed(rate / 1000, 1)
                  << "k samples/s, data loading included)\n";
    }
    std::cout << "log: " << args.log.string() << '\n';
    return 0;
}
