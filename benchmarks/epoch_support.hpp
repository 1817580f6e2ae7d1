#pragma once
// What the C++ programs of the epoch benchmarks (issue 11: epoch_staticpy, epoch_libtorch,
// epoch_dlib) share: their command line and the one JSON line each prints per epoch, which
// run_epoch_benchmarks.sh collects (epoch_pytorch.py prints the same fields). No dependency
// beyond the standard library, so that the staticpy program pulls in nothing a peer needs.
//
// Command line (every program; a program ignores what does not apply to it):
//   --net mlp|cnn        the MLP 784-128-10 or the LeNet-5-style CNN
//   --epochs N           epochs to train (default 1); the test accuracy is measured after each
//   --threads T          the library's own thread count (staticpy / torch intra-op), default 1
//   --blas-threads B     OpenBLAS's threads (libtorch's and dlib's GEMMs), default 1
//   --workers W          DataLoader workers (staticpy), default 0
//   --variant NAME       the program's way of feeding or stepping (see each program)
//   --seed S             the initial weights' seed and the shuffling's (default 0; the run
//                        script gives each round its own, so that accuracies are medians over
//                        several initialisations and orders)
//   --root DIR           Fashion-MNIST's IDX files (default: Debian's dataset-fashion-mnist)
//
// Output: per epoch one line on stdout,
//   {"peer": "libtorch", "variant": "memory", "net": "mlp", "setting": "torch:1/blas:2",
//    "seed": 0, "epoch": 1, "train_s": 0.61, "eval_s": 0.05, "setup_s": 0.4, "train_loss": 0.55,
//    "test_acc": 0.8412, "samples": 60000}
// train_s is the epoch's training alone, every batch's loading and shuffling included; eval_s
// the test set's accuracy afterwards (not in train_s); setup_s reading the files and building the
// model (once, repeated on every line).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

namespace epoch_bench {

/// Fashion-MNIST's training-set mean and standard deviation (torchvision's figures): every peer
/// normalises the pixels as (x / 255 - mean) / std.
inline constexpr float kMean = 0.2860F;
inline constexpr float kStd = 0.3530F;
inline constexpr std::int64_t kBatch = 64;
inline constexpr double kLearningRate = 0.1;
inline constexpr std::int64_t kTestBatch = 1000;
inline constexpr const char* kDefaultRoot = "/usr/share/datasets/fashion-mnist";

struct options {
    std::string net = "mlp";
    int epochs = 1;
    int threads = 1;
    int blas_threads = 1;
    int workers = 0;
    int seed = 0;
    std::string variant;
    std::string root = kDefaultRoot;
};

/// Parses the command line above; `variants` lists the program's --variant values (the first is
/// the default), `nets` the networks it trains. Exits with status 2 and a usage line on an error.
inline options parse(int argc, char** argv, std::string_view variants, std::string_view nets) {
    options o;
    o.variant = std::string(variants.substr(0, variants.find('|')));
    const auto usage = [&](std::string_view why) {
        std::cerr << argv[0] << ": " << why << "\nusage: " << argv[0] << " [--net " << nets
                  << "] [--epochs N] [--threads T] [--blas-threads B] [--workers W] [--variant "
                  << variants << "] [--seed S] [--root DIR]\n";
        std::exit(2);
    };
    const auto one_of = [](std::string_view list, std::string_view value) {
        std::size_t start = 0;
        while (start <= list.size()) {
            const std::size_t end = std::min(list.find('|', start), list.size());
            if (list.substr(start, end - start) == value)
                return true;
            start = end + 1;
        }
        return false;
    };
    const auto positive = [&](const char* text) {
        const int v = std::atoi(text);
        if (v < 1)
            usage(std::string("expected a positive number, got ") + text);
        return v;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (i + 1 >= argc)
            usage("missing value after " + std::string(arg));
        const char* value = argv[++i];
        if (arg == "--net")
            o.net = value;
        else if (arg == "--epochs")
            o.epochs = positive(value);
        else if (arg == "--threads")
            o.threads = positive(value);
        else if (arg == "--blas-threads")
            o.blas_threads = positive(value);
        else if (arg == "--workers")
            o.workers = std::atoi(value);
        else if (arg == "--seed")
            o.seed = std::atoi(value);
        else if (arg == "--variant")
            o.variant = value;
        else if (arg == "--root")
            o.root = value;
        else
            usage("unknown argument " + std::string(arg));
    }
    if (!one_of(nets, o.net))
        usage("unknown --net " + o.net);
    if (!one_of(variants, o.variant))
        usage("unknown --variant " + o.variant);
    if (o.workers < 0)
        usage("--workers must not be negative");
    if (o.seed < 0)
        usage("--seed must not be negative");
    return o;
}

/// Seconds since `start` on the steady clock.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// One epoch's results, as run_epoch_benchmarks.sh reads them.
struct epoch_record {
    std::string peer, variant, net, setting;
    int seed = 0;
    int epoch = 0;
    double train_s = 0, eval_s = 0, setup_s = 0, train_loss = 0, test_acc = 0;
    std::int64_t samples = 0;
};

/// Prints `r` as one JSON line on stdout (the names are plain words: nothing to escape) and a
/// readable line on stderr.
inline void emit(const epoch_record& r) {
    std::printf(
        "{\"peer\": \"%s\", \"variant\": \"%s\", \"net\": \"%s\", \"setting\": \"%s\", "
        "\"seed\": %d, \"epoch\": %d, \"train_s\": %.6f, \"eval_s\": %.6f, \"setup_s\": %.6f, "
        "\"train_loss\": %.6f, \"test_acc\": %.6f, \"samples\": %lld}\n",
        r.peer.c_str(), r.variant.c_str(), r.net.c_str(), r.setting.c_str(), r.seed, r.epoch,
        r.train_s, r.eval_s, r.setup_s, r.train_loss, r.test_acc,
        static_cast<long long>(r.samples));
    std::fflush(stdout);
    std::fprintf(stderr, "%s %s %s [%s] epoch %d: %.3f s, loss %.4f, test accuracy %.2f %%\n",
                 r.peer.c_str(), r.variant.c_str(), r.net.c_str(), r.setting.c_str(), r.epoch,
                 r.train_s, r.train_loss, 100 * r.test_acc);
}

} // namespace epoch_bench
