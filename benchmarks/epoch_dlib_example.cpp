// dlib 19.24's equivalent of examples/train_fashion_mnist.cpp, for issue 11's compile-cost
// comparison (compile_cost.sh compiles both, with g++ and clang++, in the same run): the
// same program written the way dlib's own examples write it. The two models of the example, the
// MLP 784-128-10 and LeNet-5, as dlib network types, SGD lr 0.1 (sgd(0, 0): no weight decay, no
// momentum), batch 64, Fashion-MNIST from the .gz files (zlib) normalised as torchvision's
// ToTensor + Normalize, shuffled each epoch, dnn_trainer::train_one_step per batch, a progress
// line (loss, samples/s) every 100 steps, the test accuracy after each epoch and a CSV log per
// model.
//
//   epoch_dlib_example [--model mlp|cnn|both] [--epochs N] [--root DIR]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "epoch_fashion_mnist.hpp"
#include <dlib/dnn.h>

using namespace dlib;

namespace {

// The models, defined at compile time. dlib's types read from the output down to the input.
using mlp_net = loss_multiclass_log<fc<10, relu<fc<128, input<matrix<float>>>>>>;

/// A k x k convolution with stride 1 and padding `pad` (dlib's con<> pads k/2 itself at stride 1).
template <long Filters, long K, int Pad, class Subnet>
using conv = add_layer<con_<Filters, K, K, 1, 1, Pad, Pad>, Subnet>;
using lenet_net = loss_multiclass_log<fc<
    10,
    relu<fc<84,
            relu<fc<120,
                    max_pool<2, 2, 2, 2,
                             relu<conv<16, 5, 0,
                                       max_pool<2, 2, 2, 2,
                                                relu<conv<6, 5, 2, input<matrix<float>>>>>>>>>>>>>>;

struct arguments {
    std::string model = "both";
    int epochs = 1;
    std::filesystem::path root = "/usr/share/datasets/fashion-mnist";
};

arguments parse(int argc, char** argv) {
    arguments a;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--model" && has_value) {
            a.model = argv[++i];
        } else if (arg == "--epochs" && has_value) {
            a.epochs = std::atoi(argv[++i]);
        } else if (arg == "--root" && has_value) {
            a.root = argv[++i];
        } else {
            std::cerr << "usage: " << argv[0]
                      << " [--model mlp|cnn|both] [--epochs N] [--root DIR]\n";
            std::exit(2);
        }
    }
    if (a.epochs < 1 || (a.model != "mlp" && a.model != "cnn" && a.model != "both")) {
        std::cerr << "--epochs must be at least 1, --model mlp, cnn or both\n";
        std::exit(2);
    }
    return a;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void load(const std::filesystem::path& root, bool train, std::vector<matrix<float>>& images,
          std::vector<unsigned long>& labels) {
    const auto split = epoch_bench::load_fashion_mnist(root, train, 0.2860F, 0.3530F);
    images.resize(static_cast<std::size_t>(split.n));
    labels.resize(static_cast<std::size_t>(split.n));
    for (std::size_t i = 0; i < images.size(); ++i) {
        images[i].set_size(28, 28);
        std::copy_n(split.pixels.data() + i * 784, 784, &images[i](0, 0));
        labels[i] = static_cast<unsigned long>(split.labels[i]);
    }
}

struct data {
    std::vector<matrix<float>> train_images, test_images;
    std::vector<unsigned long> train_labels, test_labels;
};

/// Trains a Net for the epochs asked, logging to <name>.csv.
template <class Net>
void train(const std::string& name, const char* description, const data& d, const arguments& args) {
    Net net;
    dnn_trainer<Net, sgd> trainer(net, sgd(0, 0));
    trainer.set_learning_rate(0.1);
    trainer.set_mini_batch_size(64);
    trainer.set_learning_rate_shrink_factor(1);
    trainer.be_quiet();

    const std::string log_path = "train_fashion_mnist_dlib_" + name + ".csv";
    std::ofstream log(log_path);
    log << "epoch,step,train_loss,test_accuracy,samples_per_s\n";
    std::cout << name << ": " << description << ", SGD lr 0.1, batch 64, " << args.epochs
              << " epoch(s)\n";

    std::vector<std::size_t> order(d.train_images.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937 rng(42);
    std::vector<matrix<float>> batch_images;
    std::vector<unsigned long> batch_labels;
    std::int64_t global_step = 0;
    for (int epoch = 1; epoch <= args.epochs; ++epoch) {
        trainer.clear_average_loss();
        const auto start = std::chrono::steady_clock::now();
        std::shuffle(order.begin(), order.end(), rng);
        std::int64_t samples = 0, steps = 0;
        const auto total = static_cast<std::int64_t>((order.size() + 63) / 64);
        for (std::size_t b = 0; b < order.size(); b += 64) {
            batch_images.clear();
            batch_labels.clear();
            for (std::size_t i = b; i < std::min(b + 64, order.size()); ++i) {
                batch_images.push_back(d.train_images[order[i]]);
                batch_labels.push_back(d.train_labels[order[i]]);
            }
            trainer.train_one_step(batch_images, batch_labels);
            samples += static_cast<std::int64_t>(batch_images.size());
            ++steps;
            ++global_step;
            if (steps % 100 == 0) {
                const double rate = static_cast<double>(samples) / seconds_since(start);
                const double loss = trainer.get_average_loss();
                std::printf("\repoch %d: %lld/%lld, loss=%.3f, %.1fk samples/s", epoch,
                            static_cast<long long>(steps), static_cast<long long>(total), loss,
                            rate / 1000);
                std::fflush(stdout);
                log << epoch << ',' << global_step << ',' << loss << ",," << rate << '\n';
            }
        }
        trainer.get_net(); // waits for the trainer's thread to finish the epoch
        const double train_seconds = seconds_since(start);

        const std::vector<unsigned long> predicted = net(d.test_images, 1000);
        std::int64_t correct = 0;
        for (std::size_t i = 0; i < predicted.size(); ++i)
            correct += predicted[i] == d.test_labels[i] ? 1 : 0;
        const double accuracy =
            static_cast<double>(correct) / static_cast<double>(predicted.size());
        const double rate = static_cast<double>(samples) / train_seconds;
        log << epoch << ',' << global_step << ',' << trainer.get_average_loss() << ',' << accuracy
            << ',' << rate << '\n';
        std::printf("\nepoch %d: train loss %.4f, test accuracy %.2f %%, %.2f s (%.1fk samples/s, "
                    "data loading included)\n",
                    epoch, trainer.get_average_loss(), 100 * accuracy, train_seconds, rate / 1000);
    }
    std::cout << "log: " << log_path << '\n';
}

} // namespace

int main(int argc, char** argv) try {
    const arguments args = parse(argc, argv);
    if (!std::filesystem::exists(args.root / "train-images-idx3-ubyte.gz") &&
        !std::filesystem::exists(args.root / "train-images-idx3-ubyte")) {
        std::cout << "Fashion-MNIST not found in " << args.root
                  << " (apt-get install dataset-fashion-mnist): nothing to train on\n";
        return 1;
    }
    data d;
    load(args.root, true, d.train_images, d.train_labels);
    load(args.root, false, d.test_images, d.test_labels);
    if (args.model != "cnn")
        train<mlp_net>("mlp", "fc(784 -> 128) -> relu -> fc(128 -> 10)", d, args);
    if (args.model != "mlp")
        train<lenet_net>("cnn",
                         "LeNet-5: con(6, 5x5, pad 2) -> relu -> max_pool(2) -> con(16, 5x5) -> "
                         "relu -> max_pool(2) -> fc(120) -> relu -> fc(84) -> relu -> fc(10)",
                         d, args);
    return 0;
} catch (const std::exception& e) {
    std::cerr << "epoch_dlib_example: " << e.what() << '\n';
    return 1;
}
