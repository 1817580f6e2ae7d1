// nn::TrainOneStep: forward, loss, backward and the optimiser's update per call, in both modes,
// against PyTorch 1.13's numbers for the same problem.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/nn/train_step.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

TEST_CASE("TrainOneStep: three SGD steps with momentum on a linear model, as PyTorch's") {
    // PyTorch 1.13, float32:
    //   w = torch.tensor([[0.5, -0.5]], requires_grad=True); b = torch.zeros(1, requires_grad=True)
    //   x = torch.tensor([[1., 2.], [3., 4.], [-1., .5]]); y = torch.tensor([[1.], [2.], [0.]])
    //   opt = torch.optim.SGD([w, b], lr=0.05, momentum=0.9)
    //   three times: opt.zero_grad(); l = ((F.linear(x, w, b) - y) ** 2).mean(); l.backward();
    //                opt.step()
    const double losses[] = {3.0208332538604736, 0.17204998433589935, 2.6388697624206543};
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        auto params =
            dict("weight"_s = tensor<float>({{0.5f, -0.5f}}), "bias"_s = zeros<float>(1_c));
        const auto x = tensor<float>({{1.f, 2.f}, {3.f, 4.f}, {-1.f, 0.5f}});
        const auto y = tensor<float>({{1.f}, {2.f}, {0.f}});
        auto loss_fn = [](const auto& p, const auto& in, const auto& target) {
            return (linear(in, p["weight"_s], p["bias"_s]) - target).square().mean();
        };
        nn::optim::SGD opt(params, {.lr = 0.05, .momentum = 0.9});
        nn::TrainOneStep step(loss_fn, opt);
        for (double want : losses)
            CHECK(step(x, y).item() == Approx(want).epsilon(1e-6));
        // the caller's parameters were updated in place
        CHECK(params["weight"_s](0, 0) == Approx(0.8566302061080933).epsilon(1e-6));
        CHECK(params["weight"_s](0, 1) == Approx(0.2808781564235687).epsilon(1e-6));
        CHECK(params["bias"_s](0) == Approx(0.36175402998924255).epsilon(1e-6));
        CHECK(&step.optimizer() == &opt);
    }
    set_context(GRAPH_MODE);
}

TEST_CASE(
    "TrainOneStep with plain SGD: the graph's gradients, then SGD's loop, as the eager step") {
    // A two-layer MLP with cross-entropy: in GRAPH_MODE the loss and gradients come from one
    // compiled graph and SGD's fused loop updates each parameter in place; the parameters after
    // three steps are PYNATIVE_MODE's (the same graph op by op, then the same loop).
    auto make_params = [] {
        return dict(
            "fc1.weight"_s = randn<float>(8_c, 5_c) * 0.5f, "fc1.bias"_s = randn<float>(8_c),
            "fc2.weight"_s = randn<float>(3_c, 8_c) * 0.5f, "fc2.bias"_s = randn<float>(3_c));
    };
    manual_seed(7);
    const auto initial = make_params();
    const auto x = randn<float>(6_c, 5_c);
    const auto labels = tensor<std::int64_t>({0, 2, 1, 1, 0, 2});
    auto loss_fn = [](const auto& p, const auto& in, const auto& target) {
        const auto h = relu(linear(in, p["fc1.weight"_s], p["fc1.bias"_s]));
        return nn::functional::cross_entropy(linear(h, p["fc2.weight"_s], p["fc2.bias"_s]), target);
    };
    for (bool maximize : {false, true}) {
        INFO("maximize " << maximize);
        auto run = [&](int mode) {
            set_context(mode);
            auto params = dict("fc1.weight"_s = initial["fc1.weight"_s].clone(),
                               "fc1.bias"_s = initial["fc1.bias"_s].clone(),
                               "fc2.weight"_s = initial["fc2.weight"_s].clone(),
                               "fc2.bias"_s = initial["fc2.bias"_s].clone());
            nn::optim::SGD opt(params, {.lr = 0.1, .maximize = maximize});
            nn::TrainOneStep step(loss_fn, opt);
            std::vector<float> losses;
            for (int i = 0; i < 3; ++i)
                losses.push_back(step(x, labels).item());
            set_context(GRAPH_MODE);
            return std::pair{params, losses};
        };
        const auto [graph_params, graph_losses] = run(GRAPH_MODE);
        const auto [eager_params, eager_losses] = run(PYNATIVE_MODE);
        for (std::size_t i = 0; i < graph_losses.size(); ++i)
            CHECK(graph_losses[i] == Approx(eager_losses[i]).epsilon(1e-6));
        CHECK(max(abs(graph_params["fc1.weight"_s] - eager_params["fc1.weight"_s])).item() < 1e-6);
        CHECK(max(abs(graph_params["fc1.bias"_s] - eager_params["fc1.bias"_s])).item() < 1e-6);
        CHECK(max(abs(graph_params["fc2.weight"_s] - eager_params["fc2.weight"_s])).item() < 1e-6);
        CHECK(max(abs(graph_params["fc2.bias"_s] - eager_params["fc2.bias"_s])).item() < 1e-6);
        // the steps moved the parameters (down the loss, or up it to maximize)
        CHECK((maximize ? graph_losses[2] > graph_losses[0] : graph_losses[2] < graph_losses[0]));
    }
    // the dump shows the one graph a step runs, plain update or not: forward and backward, whose
    // outputs are the loss and the four gradients (the learning rate is not in it)
    auto params = make_params();
    for (double momentum : {0.0, 0.9}) {
        INFO("momentum " << momentum);
        nn::optim::SGD opt(params, {.lr = 0.1, .momentum = momentum});
        nn::TrainOneStep step(loss_fn, opt);
        const std::string ir = step.dump(x, labels);
        INFO(ir);
        const std::string returned =
            ir.substr(ir.find("return "), ir.find('\n', ir.find("return ")) - ir.find("return "));
        CHECK(std::count(returned.begin(), returned.end(), '%') == 5);
        CHECK(ir.find("scalar -0.1") == std::string::npos);
        CHECK(ir.find("grad_input") == std::string::npos);
    }
}

/// A gradient reducer that halves the gradient and counts its calls, as TrainOneStepCell's
/// grad_reducer sees them.
struct halving_reducer {
    int* forwards;
    int* reductions;
    void before_forward() const { ++*forwards; }
    template <class Grads>
    void operator()(const Grads& grads) const {
        ++*reductions;
        auto g = grads["weight"_s]; // a handle: in place
        g.copy_(g * 0.5f);
    }
};

TEST_CASE("TrainOneStep's grad_reducer runs before each forward pass and on the gradients before "
          "the update") {
    // One SGD step (lr 0.1) of ((x @ w^T) - y)^2 summed, with w = [[1, 1]], x = [[1, 2]], y =
    // [[0]]: loss 9, d/dw = 2 * 3 * [1, 2] = [6, 12], halved by the reducer: w - 0.1 * [3, 6].
    auto params = dict("weight"_s = tensor<float>({{1.f, 1.f}}));
    const auto x = tensor<float>({{1.f, 2.f}});
    const auto y = tensor<float>({{0.f}});
    auto loss_fn = [](const auto& p, const auto& in, const auto& target) {
        return (linear(in, p["weight"_s]) - target).square().sum();
    };
    nn::optim::SGD opt(params, {.lr = 0.1});
    int forwards = 0, reductions = 0;
    nn::TrainOneStep step(loss_fn, opt, halving_reducer{&forwards, &reductions});
    CHECK(step(x, y).item() == 9.0f);
    CHECK(forwards == 1);
    CHECK(reductions == 1);
    CHECK(params["weight"_s](0, 0) == Approx(0.7f));
    CHECK(params["weight"_s](0, 1) == Approx(0.4f));
}
