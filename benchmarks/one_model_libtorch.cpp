// libtorch 1.13's side of model_compile_cost.sh's mlp-one (issue 44, goal 3): the demo's MLP
// 784-128-10 as torch::nn modules, torch::optim::SGD (lr 0.1) and one training step on a batch of
// 16, as a user of libtorch writes one model and its training step. Compiled alone (C++17, as
// epoch_libtorch.cpp says why); not linked.
#include <cstdio>

#include <torch/torch.h>

int main() {
    torch::manual_seed(0);
    torch::nn::Sequential model(torch::nn::Linear(784, 128), torch::nn::ReLU(),
                                torch::nn::Linear(128, 10));
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
    const auto images = torch::randn({16, 784});
    const auto labels = torch::zeros({16}, torch::kLong);
    optimizer.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(model->forward(images), labels);
    loss.backward();
    optimizer.step();
    std::printf("%g\n", loss.item<float>());
}
