// Issue 11's training-epoch benchmark, libtorch 1.13's side (Debian's libtorch-dev): the MLP
// 784-128-10 or the LeNet-5-style CNN as torch::nn modules (PyTorch's default initialisation
// after torch::manual_seed(seed), which seeds the shuffling too), torch::optim::SGD(lr 0.1), batch
// 64, cross_entropy (class indices, mean). In-memory batching, the C++ spelling of what PyTorch
// users write without a DataLoader: the normalised set as one [60000, 1, 28, 28] tensor, each epoch
// a torch::randperm of the indices, each batch index_select'ed from it (the last batch has 32
// samples). Each step sets the gradients to none (Python's zero_grad(set_to_none=True)), then
// forward, backward, step. The test accuracy after each epoch (batches of 1000, NoGradGuard).
//
//   epoch_libtorch [--net mlp|cnn] [--epochs N] [--threads T] [--blas-threads B] [--seed S]
//
// --threads: at::set_num_threads (intra-op); --blas-threads: openblas_set_num_threads (libtorch's
// GEMMs go to Debian's libblas.so.3, OpenBLAS when libopenblas-dev is installed). One JSON line per
// epoch (epoch_support.hpp).
//
// C++17, as the other libtorch programs here: clang++ 14 rejects libtorch 1.13's headers in C++20
// (std::vector<c10::IValue> of an incomplete type, whose destructor C++20 makes constexpr).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
extern "C" void openblas_set_num_threads(int); // OpenBLAS's own, beside its cblas.h
#endif

#include "epoch_fashion_mnist.hpp"
#include "epoch_support.hpp"

namespace {

struct MLPImpl : torch::nn::Module {
    torch::nn::Linear fc1{nullptr}, fc2{nullptr};
    MLPImpl()
        : fc1(register_module("fc1", torch::nn::Linear(784, 128))),
          fc2(register_module("fc2", torch::nn::Linear(128, 10))) {}
    torch::Tensor forward(const torch::Tensor& x) {
        return fc2(torch::relu(fc1(x.view({x.size(0), 784}))));
    }
};
TORCH_MODULE(MLP);

/// LeNet-5 as in the issue: conv 1->6 k5 pad 2, ReLU, max-pool 2, conv 6->16 k5, ReLU, max-pool
/// 2, flatten, 400->120, ReLU, 120->84, ReLU, 84->10.
struct LeNetImpl : torch::nn::Module {
    torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
    torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
    LeNetImpl()
        : conv1(register_module("conv1",
                                torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 6, 5).padding(2)))),
          conv2(register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(6, 16, 5)))),
          fc1(register_module("fc1", torch::nn::Linear(400, 120))),
          fc2(register_module("fc2", torch::nn::Linear(120, 84))),
          fc3(register_module("fc3", torch::nn::Linear(84, 10))) {}
    torch::Tensor forward(const torch::Tensor& x) {
        auto h = torch::max_pool2d(torch::relu(conv1(x)), 2);
        h = torch::max_pool2d(torch::relu(conv2(h)), 2).flatten(1);
        return fc3(torch::relu(fc2(torch::relu(fc1(h)))));
    }
};
TORCH_MODULE(LeNet);

/// The split as tensors: images [n, 1, 28, 28] float, labels [n] int64 (copies: the tensors own
/// their memory).
std::pair<torch::Tensor, torch::Tensor> as_tensors(const epoch_bench::fashion_mnist_split& s) {
    auto images =
        torch::from_blob(const_cast<float*>(s.pixels.data()), {s.n, 1, 28, 28}, torch::kFloat32)
            .clone();
    auto labels =
        torch::from_blob(const_cast<std::int64_t*>(s.labels.data()), {s.n}, torch::kInt64).clone();
    return {images, labels};
}

template <class Net>
int train(Net net, const epoch_bench::options& o,
          std::chrono::steady_clock::time_point setup_start) {
    const auto [train_x, train_y] = as_tensors(
        epoch_bench::load_fashion_mnist(o.root, true, epoch_bench::kMean, epoch_bench::kStd));
    const auto [test_x, test_y] = as_tensors(
        epoch_bench::load_fashion_mnist(o.root, false, epoch_bench::kMean, epoch_bench::kStd));
    torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(epoch_bench::kLearningRate));
    auto params = net->parameters();
    const std::int64_t n = train_x.size(0), n_test = test_x.size(0);

    epoch_bench::epoch_record r;
    r.peer = "libtorch";
    r.variant = o.variant;
    r.net = o.net;
    r.setting = "torch:" + std::to_string(o.threads) + "/blas:" + std::to_string(o.blas_threads);
    r.setup_s = epoch_bench::seconds_since(setup_start);
    r.seed = o.seed;
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        const auto start = std::chrono::steady_clock::now();
        const auto perm = torch::randperm(n, torch::kInt64);
        double loss_sum = 0;
        std::int64_t batches = 0;
        for (std::int64_t b = 0; b < n; b += epoch_bench::kBatch) {
            const auto idx = perm.slice(0, b, std::min(b + epoch_bench::kBatch, n));
            const auto x = train_x.index_select(0, idx);
            const auto y = train_y.index_select(0, idx);
            for (auto& p : params)
                p.mutable_grad().reset(); // set_to_none
            torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), y);
            loss.backward();
            opt.step();
            loss_sum += loss.item<double>();
            ++batches;
        }
        r.train_s = epoch_bench::seconds_since(start);

        const auto eval_start = std::chrono::steady_clock::now();
        std::int64_t correct = 0;
        {
            torch::NoGradGuard no_grad;
            for (std::int64_t b = 0; b < n_test; b += epoch_bench::kTestBatch) {
                const std::int64_t e = std::min(b + epoch_bench::kTestBatch, n_test);
                const torch::Tensor predicted = net->forward(test_x.slice(0, b, e)).argmax(1);
                correct += predicted.eq(test_y.slice(0, b, e)).sum().item<std::int64_t>();
            }
        }
        r.eval_s = epoch_bench::seconds_since(eval_start);
        r.epoch = epoch;
        r.samples = n;
        r.train_loss = loss_sum / static_cast<double>(batches);
        r.test_acc = static_cast<double>(correct) / static_cast<double>(n_test);
        epoch_bench::emit(r);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) try {
    const auto setup_start = std::chrono::steady_clock::now();
    const epoch_bench::options o = epoch_bench::parse(argc, argv, "memory", "mlp|cnn");
    at::set_num_threads(o.threads);
#if defined(STATICPY_BENCH_HAVE_OPENBLAS)
    openblas_set_num_threads(o.blas_threads);
#else
    std::cerr << "epoch_libtorch: built without OpenBLAS (libopenblas-dev, pkg-config): "
                 "--blas-threads has no effect\n";
#endif
    torch::manual_seed(static_cast<std::uint64_t>(o.seed));
    if (o.net == "cnn")
        return train(LeNet(), o, setup_start);
    return train(MLP(), o, setup_start);
} catch (const std::exception& e) {
    std::cerr << "epoch_libtorch: " << e.what() << '\n';
    return 1;
}
