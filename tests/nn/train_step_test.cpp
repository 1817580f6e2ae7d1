// nn::TrainOneStep: forward, loss, backward and the optimiser's update per call, in both modes,
// against PyTorch 1.13's numbers for the same problem.

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
