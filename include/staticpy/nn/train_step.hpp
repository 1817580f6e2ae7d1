#pragma once
// nn::TrainOneStep: one training step, MindSpore's nn.TrainOneStepCell. Given a loss function of
// the parameters and a batch, and an optimiser holding those parameters, each call computes the
// loss and its gradients with respect to the parameters as one compiled graph,
// jit(value_and_grad(loss_fn)) (forward and backward fused), then runs the optimiser's fused loop
// per parameter.
//
//   auto loss_fn = [](const auto& p, const auto& x, const auto& y) { ... return scalar; };
//   nn::optim::SGD opt(params, {.lr = 0.1});
//   nn::TrainOneStep step(loss_fn, opt);
//   for (...) { auto loss = step(x, y); }
//
// In PYNATIVE_MODE the same graph runs op by op (jit.hpp).
//
// One graph whatever the optimiser: tracing SGD's plain update into a program of its own
// (forward, backward and update) would compile the forward and backward a second time, since
// whether an update is plain is known only at run time, for an update that runs no faster inside
// the graph than in SGD's loop (benchmarks/README.md, section 7).

#include <string>
#include <utility>

#include "staticpy/grad.hpp"
#include "staticpy/jit.hpp"
#include "staticpy/nn/optim.hpp"

namespace staticpy::nn {

/// loss_fn(params, batch...) returns a scalar tensor; the optimiser holds the parameters (its
/// params(), handles the step updates in place). The step keeps a reference to the optimiser.
template <class LossFn, class Opt>
class TrainOneStep {
public:
    TrainOneStep(LossFn loss_fn, Opt& optimizer)
        : forward_backward_(jit(value_and_grad(std::move(loss_fn)))), optimizer_(&optimizer) {}

    /// One step on a batch: the loss before the update.
    template <class... Batch>
    auto operator()(const Batch&... batch) {
        auto [loss, grads] = forward_backward_(optimizer_->params(), batch...);
        optimizer_->step(grads);
        return loss;
    }

    [[nodiscard]] Opt& optimizer() const noexcept { return *optimizer_; }

    /// The program a GRAPH_MODE call runs on this batch, the forward and backward graph, with the
    /// kernels its nodes fuse into (staticpy::dump's text).
    template <class... Batch>
    [[nodiscard]] std::string dump(const Batch&... batch) const {
        return staticpy::dump(forward_backward_, optimizer_->params(), batch...);
    }

private:
    using forward_backward_type = decltype(jit(value_and_grad(std::declval<LossFn>())));
    forward_backward_type forward_backward_;
    Opt* optimizer_;
};

template <class LossFn, class Opt>
TrainOneStep(LossFn, Opt&) -> TrainOneStep<LossFn, Opt>;

} // namespace staticpy::nn
