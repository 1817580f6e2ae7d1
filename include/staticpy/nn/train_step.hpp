#pragma once
// nn::TrainOneStep: one training step, MindSpore's nn.TrainOneStepCell. Given a loss function of
// the parameters and a batch, and an optimiser holding those parameters, each call computes the
// loss, its gradients with respect to the parameters and the update as one compiled graph when
// the optimiser is SGD without momentum or weight decay: the graph writes each new parameter over
// the parameter, in one flat pass after the GEMM that produces its gradient. With
// any other optimiser (or SGD's momentum, weight decay) the graph is jit(value_and_grad(loss_fn))
// (forward and backward fused), then the optimiser's fused loop per parameter.
//
//   auto loss_fn = [](const auto& p, const auto& x, const auto& y) { ... return scalar; };
//   nn::optim::SGD opt(params, {.lr = 0.1});
//   nn::TrainOneStep step(loss_fn, opt);
//   for (...) { auto loss = step(x, y); }
//
// In PYNATIVE_MODE the same graphs run op by op (jit.hpp).

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/grad.hpp"
#include "staticpy/jit.hpp"
#include "staticpy/nn/optim.hpp"

namespace staticpy::nn {

namespace detail {

/// Whether Opt is an nn::optim::SGD (whose plain update a compiled step runs in its graph).
template <class Opt>
struct is_sgd : std::false_type {};
template <class Params>
struct is_sgd<optim::SGD<Params>> : std::true_type {};

/// The whole step as one traced function: the loss, its gradients and each parameter's plain SGD
/// update (optim::SGD::plain_update), returned as (loss, new parameters) for jit's into() to
/// write over the parameters.
template <class LossFn, class Opt>
struct sgd_graph_step {
    LossFn loss_fn;
    template <class P, class Scale, class... Batch>
    auto operator()(const P& params, const Scale& scale, const Batch&... batch) const {
        auto [loss, grads] = value_and_grad(loss_fn)(params, batch...);
        const auto grad_leaves = graph::roots_of(grads);
        auto updated = staticpy::detail::map_leaves<graph::is_tracer_leaf, 0>(
            params, [&](auto k, const auto& p) {
                return Opt::plain_update(p, scale, graph::traced(std::get<k()>(grad_leaves)));
            });
        return std::tuple{loss, updated};
    }
};

} // namespace detail

/// loss_fn(params, batch...) returns a scalar tensor; the optimiser holds the parameters (its
/// params(), handles the step updates in place). The step keeps a reference to the optimiser.
template <class LossFn, class Opt>
class TrainOneStep {
public:
    TrainOneStep(LossFn loss_fn, Opt& optimizer)
        : whole_step_(detail::sgd_graph_step<LossFn, Opt>{loss_fn}),
          forward_backward_(jit(value_and_grad(std::move(loss_fn)))),
          optimizer_(&optimizer) {}

    /// One step on a batch: the loss before the update.
    template <class... Batch>
    auto operator()(const Batch&... batch) {
        if constexpr (detail::is_sgd<Opt>::value) {
            if (get_context() == GRAPH_MODE && optimizer_->plain_update()) {
                using loss_t = std::remove_cvref_t<decltype(std::get<0>(
                    forward_backward_(optimizer_->params(), batch...)))>;
                loss_t loss(typename loss_t::shape_type{});
                auto outputs = std::tuple{loss, optimizer_->params()}; // handles: written through
                whole_step_.into(outputs, optimizer_->params(), optimizer_->plain_scale(),
                                 batch...);
                return loss;
            }
        }
        auto [loss, grads] = forward_backward_(optimizer_->params(), batch...);
        optimizer_->step(grads);
        return loss;
    }

    [[nodiscard]] Opt& optimizer() const noexcept { return *optimizer_; }

    /// The program a GRAPH_MODE call runs on this batch, with the kernels its nodes fuse into
    /// (staticpy::dump's text): the whole step with SGD's plain update, else the forward and
    /// backward graph.
    template <class... Batch>
    [[nodiscard]] std::string dump(const Batch&... batch) const {
        if constexpr (detail::is_sgd<Opt>::value)
            if (optimizer_->plain_update())
                return staticpy::dump(whole_step_, optimizer_->params(), optimizer_->plain_scale(),
                                      batch...);
        return staticpy::dump(forward_backward_, optimizer_->params(), batch...);
    }

private:
    using whole_step_type = decltype(jit(std::declval<detail::sgd_graph_step<LossFn, Opt>>()));
    using forward_backward_type = decltype(jit(value_and_grad(std::declval<LossFn>())));
    whole_step_type whole_step_;
    forward_backward_type forward_backward_;
    Opt* optimizer_;
};

template <class LossFn, class Opt>
TrainOneStep(LossFn, Opt&) -> TrainOneStep<LossFn, Opt>;

} // namespace staticpy::nn
