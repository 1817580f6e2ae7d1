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
// A gradient reducer runs between the backward pass and the update, as TrainOneStepCell's
// grad_reducer: the identity by default, distributed::DistributedGradReducer (the ranks' average)
// in data-parallel training, which distributed::TrainOneStep passes.
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

/// TrainOneStepCell's grad_reducer outside data-parallel training (F.identity): the gradients as
/// the backward pass gave them. A reducer is called before each forward pass (before_forward) and
/// on the gradients before the update.
struct identity_grad_reducer {
    void before_forward() const noexcept {}
    template <class Grads>
    void operator()(const Grads&) const noexcept {}
};

/// loss_fn(params, batch...) returns a scalar tensor; the optimiser holds the parameters (its
/// params(), handles the step updates in place). The step keeps a reference to the optimiser.
template <class LossFn, class Opt, class GradReducer = identity_grad_reducer>
class TrainOneStep {
public:
    TrainOneStep(LossFn loss_fn, Opt& optimizer, GradReducer grad_reducer = {})
        : forward_backward_(jit(value_and_grad(std::move(loss_fn)))),
          optimizer_(&optimizer),
          grad_reducer_(std::move(grad_reducer)) {}

    /// One step on a batch: the loss before the update.
    template <class... Batch>
    auto operator()(const Batch&... batch) {
        grad_reducer_.before_forward();
        auto [loss, grads] = forward_backward_(optimizer_->params(), batch...);
        grad_reducer_(grads);
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
    GradReducer grad_reducer_;
};

template <class LossFn, class Opt>
TrainOneStep(LossFn, Opt&) -> TrainOneStep<LossFn, Opt>;

} // namespace staticpy::nn
