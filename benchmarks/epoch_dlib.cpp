// Issue 11's training-epoch benchmark, dlib 19.24's side (Debian's libdlib-dev): the MLP
// 784-128-10 and the LeNet-5-style CNN as dlib network types, SGD lr 0.1, batch 64,
// loss_multiclass_log (softmax cross-entropy, mean over the batch), Fashion-MNIST normalised as
// the other peers (epoch_fashion_mnist.hpp), shuffled each epoch (std::mt19937(42 + seed), the
// batch's samples copied into a vector of matrix<float>, as dlib's examples build mini-batches);
// the test accuracy after each epoch (net(test images, 1000)).
//
//   epoch_dlib [--net mlp|cnn] [--epochs N] [--blas-threads B] [--variant trainer|loop] [--seed S]
//
// --variant trainer: dnn_trainer::train_one_step per batch, dlib's documented way. It converts
//   the batch to a tensor on the calling thread and runs the step on its own thread, so loading
//   the next batch overlaps the step. Its automatic learning-rate shrinking (by 0.1 when the
//   loss has not fallen for 2000 steps) is off (set_learning_rate_shrink_factor(1)), so the rate
//   stays 0.1 as in the other peers. The train loss is dnn_trainer's average over the epoch.
// --variant loop: the lower-level loop on one thread: to_tensor, compute_parameter_gradients,
//   update_parameters with one sgd per layer.
// --blas-threads: openblas_set_num_threads (dlib's fc and con layers multiply with the BLAS it was
// built with: Debian's libblas.so.3, OpenBLAS when libopenblas-dev is installed). dlib's CPU layers
// are otherwise single-threaded.
//
// Plain SGD: dlib's sgd() defaults to weight decay 0.0005 and momentum 0.9; sgd(0, 0) makes its
// update v = -lr * grad, PyTorch's SGD(lr) without momentum or weight decay (biases: learning-rate
// multiplier 1, as the weights). What still differs is the initialisation: dlib draws fc and con
// weights from Glorot's uniform U(-a, a), a = sqrt(6 / (fan_in + fan_out)) (con: fan_in =
// k * k * in_channels, fan_out = out_channels), with zero biases, from dlib::rand seeded by
// std::rand() (std::srand(1 + seed) here: 1 is std::rand's own default); PyTorch's default is
// U(-b, b), b = 1 / sqrt(fan_in), for weights and biases. So the accuracy after an epoch differs a
// little from the PyTorch-initialised peers'.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <dlib/dnn.h>

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
// OpenBLAS's own function, declared here: its cblas.h conflicts with the cblas_* declarations of
// dlib's matrix_blas_bindings.h (clang++ rejects the pair).
extern "C" void openblas_set_num_threads(int);
#endif

#include "epoch_fashion_mnist.hpp"
#include "epoch_support.hpp"

namespace {

using dlib::fc;
using dlib::input;
using dlib::loss_multiclass_log;
using dlib::matrix;
using dlib::max_pool;
using dlib::relu;

using mlp_net = loss_multiclass_log<fc<10, relu<fc<128, input<matrix<float>>>>>>;

/// A k x k convolution with stride 1 and padding `pad` (dlib's con<> pads k/2 itself at stride 1).
template <long Filters, long K, int Pad, class Subnet>
using conv = dlib::add_layer<dlib::con_<Filters, K, K, 1, 1, Pad, Pad>, Subnet>;

/// LeNet-5 as in the issue: conv 1->6 k5 pad 2, ReLU, max-pool 2, conv 6->16 k5, ReLU, max-pool
/// 2, then 400->120, ReLU, 120->84, ReLU, 84->10 (fc flattens its 16 x 5 x 5 input). dlib's types
/// read from the output down to the input.
template <class Subnet>
using lenet_features =
    max_pool<2, 2, 2, 2, relu<conv<16, 5, 0, max_pool<2, 2, 2, 2, relu<conv<6, 5, 2, Subnet>>>>>>;
using lenet_net =
    loss_multiclass_log<fc<10, relu<fc<84, relu<fc<120, lenet_features<input<matrix<float>>>>>>>>>;

struct data_set {
    std::vector<matrix<float>> images;
    std::vector<unsigned long> labels;
};

data_set as_dlib(const epoch_bench::fashion_mnist_split& s) {
    data_set d;
    d.images.resize(static_cast<std::size_t>(s.n));
    d.labels.resize(static_cast<std::size_t>(s.n));
    for (std::size_t i = 0; i < d.images.size(); ++i) {
        d.images[i].set_size(28, 28);
        std::copy_n(s.pixels.data() + i * 784, 784, &d.images[i](0, 0));
        d.labels[i] = static_cast<unsigned long>(s.labels[i]);
    }
    return d;
}

template <class Net>
int train(const epoch_bench::options& o, std::chrono::steady_clock::time_point setup_start) {
    const data_set train_set = as_dlib(
        epoch_bench::load_fashion_mnist(o.root, true, epoch_bench::kMean, epoch_bench::kStd));
    const data_set test_set = as_dlib(
        epoch_bench::load_fashion_mnist(o.root, false, epoch_bench::kMean, epoch_bench::kStd));
    const std::size_t n = train_set.images.size();

    Net net;
    const dlib::sgd plain_sgd(0.0F, 0.0F); // weight decay 0, momentum 0
    dlib::dnn_trainer<Net, dlib::sgd> trainer(net, plain_sgd);
    trainer.set_learning_rate(epoch_bench::kLearningRate);
    trainer.set_mini_batch_size(epoch_bench::kBatch);
    trainer.set_learning_rate_shrink_factor(1); // no automatic shrinking
    trainer.be_quiet();
    std::vector<dlib::sgd> solvers(Net::num_computational_layers, plain_sgd);
    dlib::resizable_tensor x;
    const bool use_trainer = o.variant == "trainer";

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937 rng(42 + static_cast<unsigned>(o.seed));
    std::vector<matrix<float>> batch_x;
    std::vector<unsigned long> batch_y;

    epoch_bench::epoch_record r{.peer = "dlib",
                                .variant = o.variant,
                                .net = o.net,
                                .setting = "blas:" + std::to_string(o.blas_threads)};
    r.setup_s = epoch_bench::seconds_since(setup_start);
    r.seed = o.seed;
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        if (use_trainer)
            trainer.clear_average_loss(); // the epoch's mean (the trainer is idle here)
        const auto start = std::chrono::steady_clock::now();
        std::shuffle(order.begin(), order.end(), rng);
        double loss_sum = 0;
        std::int64_t batches = 0;
        for (std::size_t b = 0; b < n; b += epoch_bench::kBatch) {
            const std::size_t e = std::min<std::size_t>(b + epoch_bench::kBatch, n);
            batch_x.clear();
            batch_y.clear();
            for (std::size_t i = b; i < e; ++i) {
                batch_x.push_back(train_set.images[order[i]]);
                batch_y.push_back(train_set.labels[order[i]]);
            }
            if (use_trainer) {
                trainer.train_one_step(batch_x, batch_y);
            } else {
                net.to_tensor(batch_x.begin(), batch_x.end(), x);
                loss_sum += net.compute_parameter_gradients(x, batch_y.begin());
                net.update_parameters(solvers, epoch_bench::kLearningRate);
            }
            ++batches;
        }
        if (use_trainer) {
            trainer.get_net(); // waits for the trainer's thread to finish the epoch's steps
            loss_sum = trainer.get_average_loss() * static_cast<double>(batches);
        }
        r.train_s = epoch_bench::seconds_since(start);

        const auto eval_start = std::chrono::steady_clock::now();
        const std::vector<unsigned long> predicted =
            net(test_set.images, static_cast<std::size_t>(epoch_bench::kTestBatch));
        std::int64_t correct = 0;
        for (std::size_t i = 0; i < predicted.size(); ++i)
            correct += predicted[i] == test_set.labels[i] ? 1 : 0;
        r.eval_s = epoch_bench::seconds_since(eval_start);
        r.epoch = epoch;
        r.samples = static_cast<std::int64_t>(n);
        r.train_loss = loss_sum / static_cast<double>(batches);
        r.test_acc = static_cast<double>(correct) / static_cast<double>(predicted.size());
        epoch_bench::emit(r);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) try {
    const auto setup_start = std::chrono::steady_clock::now();
    const epoch_bench::options o = epoch_bench::parse(argc, argv, "trainer|loop", "mlp|cnn");
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
    openblas_set_num_threads(o.blas_threads);
#else
    std::cerr << "epoch_dlib: built without OpenBLAS (libopenblas-dev, pkg-config): "
                 "--blas-threads has no effect\n";
#endif
    std::srand(1 + static_cast<unsigned>(o.seed)); // dlib's layers seed their init from std::rand()
    if (o.net == "cnn")
        return train<lenet_net>(o, setup_start);
    return train<mlp_net>(o, setup_start);
} catch (const std::exception& e) {
    std::cerr << "epoch_dlib: " << e.what() << '\n';
    return 1;
}
