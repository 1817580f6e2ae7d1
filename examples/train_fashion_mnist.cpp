// Trains two models on Fashion-MNIST, each defined at compile time (nn::Sequential): an MLP
// 784-128-10 and a LeNet-5-style CNN. Each is fed by a shuffled DataLoader with a progress bar
// (loss, samples/s); each step's forward, cross-entropy and backward run as one compiled graph,
// then SGD's update (nn::TrainOneStep); after each epoch the test accuracy; at the end a
// checkpoint of the model and its optimiser (safetensors, reloaded into a fresh model to check
// it), a CSV log and an SVG picture of the loss and accuracy curves.
//
//   build/demo/examples/example_train_fashion_mnist [--epochs N] [--model mlp|cnn|both]
//                                                   [--root DIR] [--out DIR] [--distributed]
//   mpirun -np 2 build/demo/examples/example_train_fashion_mnist --distributed
//
// --distributed trains data-parallel on MPI (staticpy::distributed; built where CMake finds MPI):
// each rank takes its DistributedSampler share of every epoch, in batches of 64 / ranks (so the
// global batch, the learning rate and the curves stay the single process's), the gradients are
// averaged across the ranks each step (DistributedDataParallel's buckets), the reported loss and
// accuracy are reduced over the ranks, and only rank 0 draws the progress bar and writes the log,
// the curves and the checkpoints.
//
// --epochs defaults to 1, --model to both, --root to /usr/share/datasets/fashion-mnist (apt-get
// install dataset-fashion-mnist), --out to the working directory: train_fashion_mnist.csv (one
// row per 100 steps and per epoch), train_fashion_mnist.svg, <model>.safetensors and
// <model>_optimizer.safetensors. SGD with lr 0.1 and batch 64, as in PyTorch's tutorials; the
// images normalised as torchvision's ToTensor() + Normalize((0.2860,), (0.3530,)).

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <staticpy/data.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/nn.hpp>
#include <staticpy/staticpy.hpp>

#ifdef STATICPY_EXAMPLE_DISTRIBUTED
#include <staticpy/distributed.hpp>
#endif

#include "training_curves.hpp"

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

namespace {

struct arguments {
    int epochs = 1;
    bool mlp = true, cnn = true;
    std::filesystem::path root = fashion_mnist_root;
    std::filesystem::path out = ".";
    bool distributed = false;
};

[[noreturn]] void usage(const char* program) {
    std::cerr << "usage: " << program
              << " [--epochs N] [--model mlp|cnn|both] [--root DIR] [--out DIR] [--distributed]\n";
    std::exit(2);
}

arguments parse(int argc, char** argv) {
    arguments a;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--epochs" && has_value) {
            a.epochs = std::atoi(argv[++i]);
        } else if (arg == "--model" && has_value) {
            const std::string_view m = argv[++i];
            if (m != "mlp" && m != "cnn" && m != "both")
                usage(argv[0]);
            a.mlp = m != "cnn";
            a.cnn = m != "mlp";
        } else if (arg == "--root" && has_value) {
            a.root = argv[++i];
        } else if (arg == "--out" && has_value) {
            a.out = argv[++i];
        } else if (arg == "--distributed") {
            a.distributed = true;
        } else {
            usage(argv[0]);
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

/// This process's place among the training processes: one, or a rank of the MPI job.
struct ranks {
    std::int64_t rank = 0, size = 1;
    [[nodiscard]] bool main() const { return rank == 0; }
    [[nodiscard]] bool distributed() const { return size > 1; }
};

/// A number summed (or averaged) over the ranks: itself in a single process.
double reduced(const ranks& r, double value, bool mean) {
#ifdef STATICPY_EXAMPLE_DISTRIBUTED
    if (r.distributed())
        return distributed::all_reduce_value(value, mean ? distributed::ReduceOp::AVG
                                                         : distributed::ReduceOp::SUM);
#endif
    (void)r;
    (void)mean;
    return value;
}

/// What the models share: the data, the log and the curves, and the ranks.
template <class Dataset>
struct session {
    const arguments& args;
    Dataset& train_set;
    Dataset& test_set;
    std::ofstream& log;
    training_curves& curves;
    ranks world;
};

/// The fraction of the test set that model (with these parameters) classifies right; as_input
/// shapes a batch of images [n, 28, 28] for the model. Over ranks, each counts its share (images
/// rank, rank + size, ...) and the counts are summed.
template <class Model, class Dataset, class AsInput>
double test_accuracy(const Model& model, Dataset& test_set, const AsInput& as_input,
                     const ranks& world) {
    std::vector<std::int64_t> share;
    for (std::int64_t i = world.rank; i < static_cast<std::int64_t>(test_set.size());
         i += world.size)
        share.push_back(i);
    DataLoader test_loader(Subset(test_set, std::move(share)), {.batch_size = 1000});
    auto predict = jit([&](const auto& params, const auto& images) {
        return nn::functional_call(model, params, images).argmax(1_c);
    });
    std::int64_t correct = 0, seen = 0;
    for (auto& [x, y] : test_loader) {
        correct += (predict(model.parameters(), as_input(x)) == y).sum().item();
        seen += x.sizes()[0];
    }
    return reduced(world, static_cast<double>(correct), false) /
           reduced(world, static_cast<double>(seen), false);
}

/// Trains model for the session's epochs with SGD (lr 0.1, batch 64), logging as it goes, then
/// writes its checkpoint and reloads it into fresh_model to check that the file holds the model.
template <class Dataset, class Model, class AsInput>
void train(session<Dataset>& s, const std::string& name, const std::string& description,
           Model& model, Model fresh_model, const AsInput& as_input) {
    const ranks& world = s.world;
    Generator shuffle(42);
    // Over ranks: each its DistributedSampler share of the epoch, in batches of 64 / ranks.
    DistributedSampler shard(s.train_set, world.size, world.rank, true, 42);
    const std::int64_t batch = std::max<std::int64_t>(1, 64 / world.size);
    // One worker: the step's kernels use the other core (a worker's core is reserved while
    // it runs, so that the kernels' threads do not spin on it).
    DataLoader train_loader(
        s.train_set,
        world.distributed()
            ? DataLoaderOptions<>{.batch_size = batch, .sampler = shard, .num_workers = 1}
            : DataLoaderOptions<>{
                  .batch_size = 64, .shuffle = true, .num_workers = 1, .generator = &shuffle});
    // One training step: forward, loss and gradients as one compiled graph, then SGD's update
    // over the model's parameters; over ranks, the gradients averaged between the backward pass
    // and the update.
    nn::optim::SGD optimizer(model.parameters(), {.lr = 0.1});
    auto loss_fn = [&](const auto& params, const auto& images, const auto& labels) {
        return F::cross_entropy(nn::functional_call(model, params, images), labels);
    };
    nn::TrainOneStep single_step(loss_fn, optimizer);
#ifdef STATICPY_EXAMPLE_DISTRIBUTED
    std::optional<distributed::DistributedDataParallel<Model>> ddp;
    std::optional<distributed::TrainOneStep<Model, decltype(loss_fn), decltype(optimizer)>>
        ranked_step;
    if (world.distributed()) {
        ddp.emplace(model); // every rank starts from rank 0's weights
        ranked_step.emplace(*ddp, loss_fn, optimizer);
    }
#endif
    auto step = [&](const auto& images, const auto& labels) {
#ifdef STATICPY_EXAMPLE_DISTRIBUTED
        if (ranked_step)
            return (*ranked_step)(images, labels).item();
#endif
        return single_step(images, labels).item();
    };

    if (world.main())
        std::cout << name << ": " << description << ", SGD lr 0.1, batch 64"
                  << (world.distributed() ? " (" + std::to_string(batch) + " on each of " +
                                                std::to_string(world.size) + " ranks)"
                                          : std::string())
                  << ", " << s.args.epochs << " epoch(s)\n";
    std::int64_t global_step = 0;
    double accuracy = 0;
    for (int epoch = 1; epoch <= s.args.epochs; ++epoch) {
        const auto start = std::chrono::steady_clock::now();
        double loss_sum = 0, window_sum = 0;
        std::int64_t samples = 0, batches = 0, window = 0;
        shard.set_epoch(epoch);
        ProgressOptions bar_options{.desc = name + " epoch " + std::to_string(epoch)};
        if (!world.main())
            bar_options.enabled = false;
        auto bar = progress(train_loader, bar_options);
        for (auto& [x, y] : bar) {
            const float loss = step(as_input(x), y);
            loss_sum += loss;
            window_sum += loss;
            ++batches;
            ++window;
            ++global_step;
            samples += x.sizes()[0] * world.size; // every rank's share of the step
            if (window == 100) {
                const double rate = static_cast<double>(samples) / seconds_since(start);
                const double window_loss = reduced(world, window_sum / 100, true);
                if (world.main()) {
                    bar.set_postfix_str("loss=" + fixed(window_loss, 3) + ", " +
                                        fixed(rate / 1000, 1) + "k samples/s");
                    s.log << name << ',' << epoch << ',' << global_step << ',' << window_loss
                          << ",," << rate << '\n';
                    s.curves.add_loss(name, static_cast<double>(global_step), window_loss);
                }
                window_sum = 0;
                window = 0;
            }
        }
        const double train_seconds = seconds_since(start);
        accuracy = test_accuracy(model, s.test_set, as_input, world);
        const double rate = static_cast<double>(samples) / train_seconds;
        const double epoch_loss = reduced(world, loss_sum / static_cast<double>(batches), true);
        if (world.main()) {
            s.log << name << ',' << epoch << ',' << global_step << ',' << epoch_loss << ','
                  << accuracy << ',' << rate << '\n';
            s.curves.add_accuracy(name, epoch, accuracy);
            std::cout << name << " epoch " << epoch << ": train loss " << fixed(epoch_loss, 4)
                      << ", test accuracy " << fixed(100 * accuracy, 2) << " %, "
                      << fixed(train_seconds, 2) << " s (" << fixed(rate / 1000, 1) << "k samples/s"
                      << (world.distributed() ? " over all ranks" : "")
                      << ", data loading included)\n";
        }
    }

    // The checkpoint: the model's state_dict and the optimiser's, as safetensors files; a fresh
    // model loaded from the first must classify exactly as the trained one.
    // Over ranks every rank holds the same model; rank 0 writes, and each rank reloads rank 0's
    // file once it is there.
    const auto model_file = s.args.out / (name + ".safetensors");
    const auto optimizer_file = s.args.out / (name + "_optimizer.safetensors");
    if (world.main()) {
        nn::save(model.state_dict(), model_file.string());
        nn::save(optimizer.state_dict(), optimizer_file.string());
    }
#ifdef STATICPY_EXAMPLE_DISTRIBUTED
    if (world.distributed())
        distributed::barrier();
#endif
    fresh_model.load_state_dict(nn::load(model_file.string()));
    const double reloaded = test_accuracy(fresh_model, s.test_set, as_input, world);
    if (!world.main()) {
        if (reloaded != accuracy)
            throw RuntimeError("the reloaded checkpoint does not reproduce the trained model");
        return;
    }
    std::cout << name << " checkpoint: " << model_file.string() << " and "
              << optimizer_file.filename().string()
              << "; reloaded into a fresh model: test accuracy " << fixed(100 * reloaded, 2) << " %"
              << (reloaded == accuracy ? " (the same)" : " (DIFFERS)") << "\n";
    if (reloaded != accuracy)
        throw RuntimeError("the reloaded checkpoint does not reproduce the trained model");
}

} // namespace

int main(int argc, char** argv) {
    const arguments args = parse(argc, argv);
    ranks world;
    if (args.distributed) {
#ifdef STATICPY_EXAMPLE_DISTRIBUTED
        distributed::init_process_group("mpi");
        world.rank = distributed::get_rank();
        world.size = distributed::get_world_size();
#else
        std::cerr << "--distributed: this build has no MPI (apt-get install libopenmpi-dev "
                     "openmpi-bin, then configure again)\n";
        return 2;
#endif
    }
    if (!std::filesystem::exists(args.root / "train-images-idx3-ubyte.gz") &&
        !std::filesystem::exists(args.root / "train-images-idx3-ubyte")) {
        std::cout << "Fashion-MNIST not found in " << args.root
                  << " (apt-get install dataset-fashion-mnist): nothing to train on\n";
        return 1;
    }
    std::filesystem::create_directories(args.out);
    const ToFloat normalise{.mean = 0.2860F, .std = 0.3530F};
    FashionMNIST train_set(args.root, true, normalise);
    FashionMNIST test_set(args.root, false, normalise);
    const auto log_file = args.out / "train_fashion_mnist.csv";
    const auto plot_file = args.out / "train_fashion_mnist.svg";
    std::ofstream log; // rank 0's
    if (world.main()) {
        log.open(log_file);
        log << "model,epoch,step,train_loss,test_accuracy,samples_per_s\n";
    }
    training_curves curves;
    session<decltype(train_set)> s{args, train_set, test_set, log, curves, world};

    // The models, defined at compile time: their shapes are in their types, and a layer whose
    // input does not fit the previous layer's output is a compile error. Each model draws its
    // initial weights from its own generator: the same with --model cnn as after the MLP.
    if (args.mlp) {
        Generator init(0);
        auto mlp = [&] {
            return nn::Sequential(nn::Linear<784, 128>(init), nn::ReLU{},
                                  nn::Linear<128, 10>(init));
        };
        auto model = mlp();
        train(s, "mlp", "Linear(784, 128) -> ReLU -> Linear(128, 10)", model, mlp(),
              [](const auto& x) { return x.view(x.sizes()[0], 784_c); });
    }
    if (args.cnn) {
        Generator init(0);
        auto lenet = [&] {
            return nn::Sequential(nn::Conv2d<1, 6, 5, 1, 2>(init), nn::ReLU{}, nn::MaxPool2d<2>{},
                                  nn::Conv2d<6, 16, 5>(init), nn::ReLU{}, nn::MaxPool2d<2>{},
                                  nn::Flatten{}, nn::Linear<400, 120>(init), nn::ReLU{},
                                  nn::Linear<120, 84>(init), nn::ReLU{}, nn::Linear<84, 10>(init));
        };
        auto model = lenet();
        train(s, "cnn",
              "LeNet-5: Conv2d(1, 6, 5, padding 2) -> ReLU -> MaxPool2d(2) -> Conv2d(6, 16, 5) -> "
              "ReLU -> MaxPool2d(2) -> Flatten -> Linear(400, 120) -> ReLU -> Linear(120, 84) -> "
              "ReLU -> Linear(84, 10)",
              model, lenet(), [](const auto& x) { return x.view(x.sizes()[0], 1_c, 28_c, 28_c); });
    }
    if (world.main()) {
        curves.write_svg(plot_file.string());
        std::cout << "log: " << log_file.string() << ", curves: " << plot_file.string() << '\n';
    }
#ifdef STATICPY_EXAMPLE_DISTRIBUTED
    if (args.distributed)
        distributed::destroy_process_group();
#endif
    return 0;
}
