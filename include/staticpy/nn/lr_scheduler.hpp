#pragma once
// staticpy::nn::optim::lr_scheduler: PyTorch's learning-rate schedules (torch.optim.lr_scheduler,
// 1.13's numbers) StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR and OneCycleLR.
// A schedule drives one optimiser's param_groups[0].lr (and, for OneCycleLR with cycle_momentum,
// its momentum or betas[0]).
//
//   nn::optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9});
//   nn::optim::lr_scheduler::StepLR sched(opt, {.step_size = 30, .gamma = 0.1});
//   for (int epoch = 0; epoch < 100; ++epoch) { train(opt); sched.step(); }
//
// As in PyTorch: construction sets the group's initial_lr (unless resuming, last_epoch != -1) and
// takes the first step, to last_epoch 0; each step() computes the next lr from the group's
// current one (the "chainable" form, PyTorch's get_lr()), so a change the user or another
// schedule makes to the lr carries on. state_dict() holds what resuming needs (last_epoch,
// _step_count, base_lrs.0, _last_lr.0 and the schedule's settings, PyTorch's attribute names) in
// the flat map the optimisers use.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <numbers>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/nn/optim.hpp"
#include "staticpy/tensor/creation.hpp"

namespace staticpy::nn::optim::lr_scheduler {

namespace detail {

/// Python's TypeError for a required argument left out: "StepLR.__init__() missing 1 required
/// positional argument: 'step_size'".
template <class V>
V required_argument(const std::optional<V>& value, std::string_view scheduler,
                    std::string_view name) {
    if (!value)
        throw TypeError(std::string(scheduler) +
                        ".__init__() missing 1 required positional argument: '" +
                        std::string(name) + "'");
    return *value;
}

/// Python's ZeroDivisionError, which staticpy reports as a ValueError (it has no
/// ZeroDivisionError): an integer modulo by zero (a schedule's period of 0), or a float division
/// by zero (LinearLR with start_factor 0).
[[noreturn]] inline void zero_division(std::string_view what, std::string_view why) {
    throw ValueError(std::string(what) + " by zero (" + std::string(why) + ")");
}

/// What the schedules share (PyTorch's _LRScheduler): the optimiser, last_epoch, base_lrs,
/// step(), get_last_lr(), state_dict() and load_state_dict(). Derived supplies
///   double get_lr()                               the next lr (PyTorch's chainable form)
///   static void for_each_setting(Self&, f)        f(name, std::int64_t&, double&, bool& or
///                                                 std::vector<std::int64_t>&): its attributes
/// and calls initial_step() at the end of its constructor, once its settings are set (PyTorch's
/// __init__ ends with self.step()).
template <class Derived, class O>
class lr_scheduler_base {
    static_assert(Optimizer<O>, "staticpy: TypeError: an lr scheduler's first argument is an "
                                "Optimizer (nn::optim::SGD, Adam, ...)");

public:
    /// The epoch (step) count: 0 after construction, as PyTorch's last_epoch.
    std::int64_t last_epoch;
    /// The initial lr of each param group (one here), as PyTorch's base_lrs.
    std::vector<double> base_lrs;

    /// The next epoch: increments last_epoch and sets the optimiser's lr.
    ///   opt.step(grads);
    ///   sched.step();
    void step() {
        ++step_count_;
        ++last_epoch;
        const double lr = static_cast<Derived&>(*this).get_lr();
        group().lr = lr;
        last_lr_ = {lr};
    }

    /// The lr the last step set, one per param group (PyTorch's get_last_lr()).
    ///   double lr = sched.get_last_lr()[0];
    [[nodiscard]] const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }

    /// The optimiser the schedule drives.   sched.optimizer().param_groups[0].lr
    [[nodiscard]] O& optimizer() const noexcept { return *optimizer_; }

    /// last_epoch, _step_count, base_lrs.0, _last_lr.0 and the schedule's settings (PyTorch's
    /// attribute names), in the optimisers' flat map.
    ///   auto sd = sched.state_dict();
    ///   sd.at("last_epoch").item<std::int64_t>();
    [[nodiscard]] state_dict_t state_dict() const {
        state_dict_t out;
        for_each_field(*this, [&](std::string_view name, const auto& value) {
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>,
                                         std::vector<std::int64_t>>)
                out.insert_or_assign(std::string(name), state_value(from_vector(value)));
            else
                out.insert_or_assign(std::string(name), state_value(value));
        });
        return out;
    }

    /// Restores what state_dict() returned (ValueError for a missing or unexpected entry). The
    /// optimiser's lr is the optimiser's state_dict's business, as in PyTorch.
    ///   sched.load_state_dict(saved);
    void load_state_dict(const state_dict_t& sd) {
        Derived loaded = static_cast<const Derived&>(*this);
        std::set<std::string_view> used;
        for_each_field(
            static_cast<lr_scheduler_base&>(loaded), [&](std::string_view name, auto& value) {
                const auto it = sd.find(name);
                if (it == sd.end())
                    throw ValueError("loaded state dict has no '" + std::string(name) + "'");
                used.insert(it->first);
                using V = std::remove_cvref_t<decltype(value)>;
                if constexpr (std::is_same_v<V, std::vector<std::int64_t>>) {
                    const auto t = it->second.template tensor<std::int64_t, 1>();
                    value.assign(t.data(), t.data() + t.numel());
                } else {
                    value = it->second.template item<V>();
                }
            });
        for (const auto& [key, value] : sd)
            if (!used.contains(key))
                throw ValueError("loaded state dict has an unexpected entry '" + key + "'");
        static_cast<Derived&>(*this) = loaded;
    }

protected:
    /// PyTorch's _LRScheduler.__init__ before its step(): sets the group's initial_lr when
    /// starting (last_epoch -1), requires it when resuming.
    lr_scheduler_base(O& optimizer, std::int64_t epoch)
        : last_epoch(epoch), optimizer_(&optimizer) {
        auto& g = group();
        if (epoch == -1) {
            if (!g.initial_lr)
                g.initial_lr = g.lr;
        } else if (!g.initial_lr) {
            throw KeyError("param 'initial_lr' is not specified in param_groups[0] when resuming "
                           "an optimizer");
        }
        base_lrs = {*g.initial_lr};
    }

    /// PyTorch's _initial_step: the step that makes last_epoch 0 (or last_epoch + 1 resuming).
    void initial_step() {
        step_count_ = 0;
        step();
    }

    /// The optimiser's param group, whose lr the schedule reads and writes.
    [[nodiscard]] auto& group() const { return optimizer_->param_groups[0]; }
    /// PyTorch's _step_count: the steps taken, the construction's included.
    [[nodiscard]] std::int64_t step_count() const noexcept { return step_count_; }

private:
    /// f(name, value) for each field of the state_dict, const with a const scheduler.
    template <class Self, class F>
    static void for_each_field(Self& self, F&& f) {
        f("last_epoch", self.last_epoch);
        f("_step_count", self.step_count_);
        f("base_lrs.0", self.base_lrs.at(0));
        f("_last_lr.0", self.last_lr_.at(0));
        using D = std::conditional_t<std::is_const_v<Self>, const Derived, Derived>;
        Derived::for_each_setting(static_cast<D&>(self), f);
    }

    O* optimizer_;
    std::int64_t step_count_ = 0;
    std::vector<double> last_lr_{};
};

} // namespace detail

// ---- StepLR -----------------------------------------------------------------------------------

/// StepLR's keyword arguments (torch.optim.lr_scheduler.StepLR); step_size is required.
///   StepLR sched(opt, {.step_size = 30, .gamma = 0.1});
struct StepLROptions {
    std::optional<std::int64_t> step_size{};
    double gamma = 0.1;
    std::int64_t last_epoch = -1;
};

/// torch.optim.lr_scheduler.StepLR: the lr times gamma every step_size epochs.
///   nn::optim::lr_scheduler::StepLR sched(opt, {.step_size = 2, .gamma = 0.5});
///   sched.step();   // epoch 1: lr unchanged; epoch 2: lr * 0.5
template <class O>
class StepLR : public detail::lr_scheduler_base<StepLR<O>, O> {
    using base = detail::lr_scheduler_base<StepLR<O>, O>;
    friend base;

public:
    std::int64_t step_size;
    double gamma;

    /// StepLR(optimizer, {.step_size = 30}): TypeError when step_size is left out.
    StepLR(O& optimizer, const StepLROptions& options)
        : base(optimizer, check(options).last_epoch),
          step_size(*options.step_size),
          gamma(options.gamma) {
        this->initial_step();
    }

private:
    static const StepLROptions& check(const StepLROptions& o) {
        if (detail::required_argument(o.step_size, "StepLR", "step_size") == 0)
            detail::zero_division("integer division or modulo", "StepLR's step_size is 0");
        return o;
    }
    double get_lr() const {
        const double lr = this->group().lr;
        if (this->last_epoch == 0 || this->last_epoch % step_size != 0)
            return lr;
        return lr * gamma;
    }
    template <class Self, class F>
    static void for_each_setting(Self& self, F&& f) {
        f("step_size", self.step_size);
        f("gamma", self.gamma);
    }
};

template <class O>
StepLR(O&, const StepLROptions&) -> StepLR<O>;

// ---- MultiStepLR ------------------------------------------------------------------------------

/// MultiStepLR's keyword arguments (torch.optim.lr_scheduler.MultiStepLR).
///   MultiStepLR sched(opt, {.milestones = {30, 80}, .gamma = 0.1});
struct MultiStepLROptions {
    std::vector<std::int64_t> milestones{};
    double gamma = 0.1;
    std::int64_t last_epoch = -1;
};

/// torch.optim.lr_scheduler.MultiStepLR: the lr times gamma at each milestone epoch (times
/// gamma^k at a milestone given k times, as PyTorch's Counter counts it).
///   nn::optim::lr_scheduler::MultiStepLR sched(opt, {.milestones = {2, 5}, .gamma = 0.1});
///   sched.step();
template <class O>
class MultiStepLR : public detail::lr_scheduler_base<MultiStepLR<O>, O> {
    using base = detail::lr_scheduler_base<MultiStepLR<O>, O>;
    friend base;

public:
    /// The milestones, sorted, each as many times as it was given (PyTorch's Counter).
    std::vector<std::int64_t> milestones;
    double gamma;

    MultiStepLR(O& optimizer, const MultiStepLROptions& options)
        : base(optimizer, options.last_epoch),
          milestones(sorted(options.milestones)),
          gamma(options.gamma) {
        this->initial_step();
    }

private:
    static std::vector<std::int64_t> sorted(std::vector<std::int64_t> v) {
        std::sort(v.begin(), v.end());
        return v;
    }
    double get_lr() const {
        const double lr = this->group().lr;
        const auto count = std::count(milestones.begin(), milestones.end(), this->last_epoch);
        if (count == 0)
            return lr;
        return lr * std::pow(gamma, static_cast<double>(count));
    }
    template <class Self, class F>
    static void for_each_setting(Self& self, F&& f) {
        f("milestones", self.milestones);
        f("gamma", self.gamma);
    }
};

template <class O>
MultiStepLR(O&, const MultiStepLROptions&) -> MultiStepLR<O>;

// ---- ExponentialLR ----------------------------------------------------------------------------

/// ExponentialLR's keyword arguments (torch.optim.lr_scheduler.ExponentialLR); gamma is
/// required.   ExponentialLR sched(opt, {.gamma = 0.9});
struct ExponentialLROptions {
    std::optional<double> gamma{};
    std::int64_t last_epoch = -1;
};

/// torch.optim.lr_scheduler.ExponentialLR: the lr times gamma every epoch.
///   nn::optim::lr_scheduler::ExponentialLR sched(opt, {.gamma = 0.9});
///   sched.step();   // lr * 0.9
template <class O>
class ExponentialLR : public detail::lr_scheduler_base<ExponentialLR<O>, O> {
    using base = detail::lr_scheduler_base<ExponentialLR<O>, O>;
    friend base;

public:
    double gamma;

    /// ExponentialLR(optimizer, {.gamma = 0.9}): TypeError when gamma is left out.
    ExponentialLR(O& optimizer, const ExponentialLROptions& options)
        : base(optimizer, check(options).last_epoch), gamma(*options.gamma) {
        this->initial_step();
    }

private:
    static const ExponentialLROptions& check(const ExponentialLROptions& o) {
        (void)detail::required_argument(o.gamma, "ExponentialLR", "gamma");
        return o;
    }
    double get_lr() const {
        const double lr = this->group().lr;
        return this->last_epoch == 0 ? lr : lr * gamma;
    }
    template <class Self, class F>
    static void for_each_setting(Self& self, F&& f) {
        f("gamma", self.gamma);
    }
};

template <class O>
ExponentialLR(O&, const ExponentialLROptions&) -> ExponentialLR<O>;

// ---- CosineAnnealingLR ------------------------------------------------------------------------

/// CosineAnnealingLR's keyword arguments (torch.optim.lr_scheduler.CosineAnnealingLR); T_max is
/// required.   CosineAnnealingLR sched(opt, {.T_max = 100, .eta_min = 1e-5});
struct CosineAnnealingLROptions {
    std::optional<std::int64_t> T_max{};
    double eta_min = 0;
    std::int64_t last_epoch = -1;
};

/// torch.optim.lr_scheduler.CosineAnnealingLR in PyTorch 1.13's recursive form (what its get_lr()
/// computes): each step moves the current lr along the cosine from base_lr to eta_min over T_max
/// epochs, and back up over the next T_max; the closed form is used on the first step when
/// resuming (last_epoch > 0).
///   nn::optim::lr_scheduler::CosineAnnealingLR sched(opt, {.T_max = 10});
///   sched.step();
template <class O>
class CosineAnnealingLR : public detail::lr_scheduler_base<CosineAnnealingLR<O>, O> {
    using base = detail::lr_scheduler_base<CosineAnnealingLR<O>, O>;
    friend base;

public:
    std::int64_t T_max;
    double eta_min;

    /// CosineAnnealingLR(optimizer, {.T_max = 10}): TypeError when T_max is left out.
    CosineAnnealingLR(O& optimizer, const CosineAnnealingLROptions& options)
        : base(optimizer, check(options).last_epoch),
          T_max(*options.T_max),
          eta_min(options.eta_min) {
        this->initial_step();
    }

private:
    static const CosineAnnealingLROptions& check(const CosineAnnealingLROptions& o) {
        if (detail::required_argument(o.T_max, "CosineAnnealingLR", "T_max") == 0)
            detail::zero_division("integer division or modulo", "CosineAnnealingLR's T_max is 0");
        return o;
    }
    double get_lr() const {
        constexpr double pi = std::numbers::pi;
        const double lr = this->group().lr;
        const double base_lr = this->base_lrs[0];
        const auto epoch = static_cast<double>(this->last_epoch);
        const auto t_max = static_cast<double>(T_max);
        if (this->last_epoch == 0)
            return lr;
        if (this->step_count() == 1 && this->last_epoch > 0)
            return eta_min + (base_lr - eta_min) * (1 + std::cos(epoch * pi / t_max)) / 2;
        if ((this->last_epoch - 1 - T_max) % (2 * T_max) == 0)
            return lr + (base_lr - eta_min) * (1 - std::cos(pi / t_max)) / 2;
        return (1 + std::cos(pi * epoch / t_max)) / (1 + std::cos(pi * (epoch - 1) / t_max)) *
                   (lr - eta_min) +
               eta_min;
    }
    template <class Self, class F>
    static void for_each_setting(Self& self, F&& f) {
        f("T_max", self.T_max);
        f("eta_min", self.eta_min);
    }
};

template <class O>
CosineAnnealingLR(O&, const CosineAnnealingLROptions&) -> CosineAnnealingLR<O>;

// ---- LinearLR ---------------------------------------------------------------------------------

/// LinearLR's keyword arguments (torch.optim.lr_scheduler.LinearLR), PyTorch's defaults.
///   LinearLR sched(opt, {.start_factor = 0.1, .total_iters = 10});
struct LinearLROptions {
    double start_factor = 1.0 / 3;
    double end_factor = 1.0;
    std::int64_t total_iters = 5;
    std::int64_t last_epoch = -1;
};

/// torch.optim.lr_scheduler.LinearLR: the lr scaled by a factor going linearly from start_factor
/// to end_factor over total_iters epochs (PyTorch 1.13's recursive form).
///   nn::optim::lr_scheduler::LinearLR sched(opt, {.start_factor = 0.5, .total_iters = 4});
///   sched.step();
template <class O>
class LinearLR : public detail::lr_scheduler_base<LinearLR<O>, O> {
    using base = detail::lr_scheduler_base<LinearLR<O>, O>;
    friend base;

public:
    double start_factor;
    double end_factor;
    std::int64_t total_iters;

    /// LinearLR(optimizer, {...}): ValueError with PyTorch's text for a factor outside [0, 1].
    LinearLR(O& optimizer, const LinearLROptions& options = {})
        : base(optimizer, check(options).last_epoch),
          start_factor(options.start_factor),
          end_factor(options.end_factor),
          total_iters(options.total_iters) {
        this->initial_step();
    }

private:
    static const LinearLROptions& check(const LinearLROptions& o) {
        if (o.start_factor > 1.0 || o.start_factor < 0)
            throw ValueError("Starting multiplicative factor expected to be between 0 and 1.");
        if (o.end_factor > 1.0 || o.end_factor < 0)
            throw ValueError("Ending multiplicative factor expected to be between 0 and 1.");
        return o;
    }
    double get_lr() const {
        const double lr = this->group().lr;
        if (this->last_epoch == 0)
            return lr * start_factor;
        if (this->last_epoch > total_iters)
            return lr;
        const double denominator =
            static_cast<double>(total_iters) * start_factor +
            static_cast<double>(this->last_epoch - 1) * (end_factor - start_factor);
        if (denominator == 0)
            detail::zero_division("float division", "LinearLR's start_factor is 0");
        return lr * (1. + (end_factor - start_factor) / denominator);
    }
    template <class Self, class F>
    static void for_each_setting(Self& self, F&& f) {
        f("start_factor", self.start_factor);
        f("end_factor", self.end_factor);
        f("total_iters", self.total_iters);
    }
};

template <class O>
LinearLR(O&, const LinearLROptions&) -> LinearLR<O>;
template <class O>
LinearLR(O&) -> LinearLR<O>;

// ---- OneCycleLR -------------------------------------------------------------------------------

/// OneCycleLR's keyword arguments (torch.optim.lr_scheduler.OneCycleLR), PyTorch's defaults;
/// max_lr is required, and total_steps or epochs and steps_per_epoch.
///   OneCycleLR sched(opt, {.max_lr = 0.1, .total_steps = 1000});
struct OneCycleLROptions {
    std::optional<double> max_lr{};
    std::optional<std::int64_t> total_steps{};
    std::optional<std::int64_t> epochs{};
    std::optional<std::int64_t> steps_per_epoch{};
    double pct_start = 0.3;
    std::string anneal_strategy = "cos";
    bool cycle_momentum = true;
    double base_momentum = 0.85;
    double max_momentum = 0.95;
    double div_factor = 25.;
    double final_div_factor = 1e4;
    bool three_phase = false;
    std::int64_t last_epoch = -1;
};

/// torch.optim.lr_scheduler.OneCycleLR: the 1cycle policy. The lr anneals (cosine or linear) from
/// initial_lr = max_lr / div_factor up to max_lr over pct_start of total_steps, then down to
/// min_lr = initial_lr / final_div_factor (three_phase: back to initial_lr first, then to min_lr);
/// with cycle_momentum, the optimiser's momentum (SGD, RMSprop) or betas[0] (Adam, AdamW) anneals
/// the other way between max_momentum and base_momentum. Stepping past total_steps is PyTorch's
/// ValueError.
///   nn::optim::lr_scheduler::OneCycleLR sched(opt, {.max_lr = 0.1, .total_steps = 100});
///   for (int i = 0; i < 100; ++i) { opt.step(grads(i)); sched.step(); }
template <class O>
class OneCycleLR : public detail::lr_scheduler_base<OneCycleLR<O>, O> {
    using base = detail::lr_scheduler_base<OneCycleLR<O>, O>;
    friend base;

    using group_type = std::remove_cvref_t<decltype(std::declval<O&>().param_groups[0])>;
    static constexpr bool has_betas = requires(group_type & g) { g.betas[0] = 0.0; };
    static constexpr bool has_momentum = requires(group_type & g) { g.momentum = 0.0; };

    enum class anneal { cos, linear };
    /// Which value a phase starts or ends at (PyTorch names them by the group's keys).
    enum class lr_at { initial_lr, max_lr, min_lr };
    enum class momentum_at { max_momentum, base_momentum };
    struct phase {
        double end_step;
        lr_at start_lr, end_lr;
        momentum_at start_momentum, end_momentum;
    };

public:
    std::int64_t total_steps;
    bool cycle_momentum;
    bool use_beta1 = has_betas;
    double max_lr;
    double min_lr;
    double max_momentum;
    double base_momentum;

    /// OneCycleLR(optimizer, {.max_lr = 0.1, .total_steps = 100}): PyTorch's ValueErrors (and
    /// TypeError when max_lr is left out); with cycle_momentum, sets the optimiser's momentum or
    /// betas[0] to max_momentum.
    OneCycleLR(O& optimizer, const OneCycleLROptions& options)
        : base(start(optimizer, options), options.last_epoch),
          total_steps(total_steps_of(options)),
          cycle_momentum(options.cycle_momentum),
          max_lr(*options.max_lr),
          min_lr(*options.max_lr / options.div_factor / options.final_div_factor),
          max_momentum(options.max_momentum),
          base_momentum(options.base_momentum),
          anneal_(options.anneal_strategy == "cos" ? anneal::cos : anneal::linear),
          phases_(phases_of(options, static_cast<double>(total_steps))) {
        this->initial_step();
    }

private:
    /// The checks, then what PyTorch's __init__ does to the group before _LRScheduler's: the lr
    /// settings and, with cycle_momentum, the momentum.
    static O& start(O& optimizer, const OneCycleLROptions& o) {
        const double lr_max = detail::required_argument(o.max_lr, "OneCycleLR", "max_lr");
        (void)total_steps_of(o);
        if (o.pct_start < 0 || o.pct_start > 1)
            throw ValueError("Expected float between 0 and 1 pct_start, but got " +
                             repr(o.pct_start));
        if (o.anneal_strategy != "cos" && o.anneal_strategy != "linear")
            throw ValueError("anneal_strategy must by one of 'cos' or 'linear', instead got " +
                             o.anneal_strategy);
        if (o.cycle_momentum && !has_betas && !has_momentum)
            throw ValueError(
                "optimizer must support momentum with `cycle_momentum` option enabled");
        auto& g = optimizer.param_groups[0];
        if (o.last_epoch == -1) {
            g.initial_lr = lr_max / o.div_factor;
            if (o.cycle_momentum)
                set_momentum(g, o.max_momentum);
        }
        return optimizer;
    }

    static std::int64_t total_steps_of(const OneCycleLROptions& o) {
        if (!o.total_steps && !o.epochs && !o.steps_per_epoch)
            throw ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)");
        if (o.total_steps) {
            if (*o.total_steps <= 0)
                throw ValueError("Expected positive integer total_steps, but got " +
                                 std::to_string(*o.total_steps));
            return *o.total_steps;
        }
        if (!o.epochs || !o.steps_per_epoch)
            throw ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)");
        if (*o.epochs <= 0)
            throw ValueError("Expected positive integer epochs, but got " +
                             std::to_string(*o.epochs));
        if (*o.steps_per_epoch <= 0)
            throw ValueError("Expected positive integer steps_per_epoch, but got " +
                             std::to_string(*o.steps_per_epoch));
        return *o.epochs * *o.steps_per_epoch;
    }

    static std::vector<phase> phases_of(const OneCycleLROptions& o, double total) {
        const double up = o.pct_start * total - 1;
        if (o.three_phase)
            return {{up, lr_at::initial_lr, lr_at::max_lr, momentum_at::max_momentum,
                     momentum_at::base_momentum},
                    {2 * o.pct_start * total - 2, lr_at::max_lr, lr_at::initial_lr,
                     momentum_at::base_momentum, momentum_at::max_momentum},
                    {total - 1, lr_at::initial_lr, lr_at::min_lr, momentum_at::max_momentum,
                     momentum_at::max_momentum}};
        return {{up, lr_at::initial_lr, lr_at::max_lr, momentum_at::max_momentum,
                 momentum_at::base_momentum},
                {total - 1, lr_at::max_lr, lr_at::min_lr, momentum_at::base_momentum,
                 momentum_at::max_momentum}};
    }

    template <class Group>
    static void set_momentum(Group& g, double momentum) {
        if constexpr (has_betas)
            g.betas[0] = momentum;
        else if constexpr (has_momentum)
            g.momentum = momentum;
    }

    double value(lr_at which) const {
        switch (which) {
        case lr_at::initial_lr:
            return *this->group().initial_lr;
        case lr_at::max_lr:
            return max_lr;
        default:
            return min_lr;
        }
    }
    double value(momentum_at which) const {
        return which == momentum_at::max_momentum ? max_momentum : base_momentum;
    }

    double anneal_between(double start, double end, double pct) const {
        if (anneal_ == anneal::cos) {
            const double cos_out = std::cos(std::numbers::pi * pct) + 1;
            return end + (start - end) / 2.0 * cos_out;
        }
        return (end - start) * pct + start;
    }

    double get_lr() const {
        const std::int64_t step_num = this->last_epoch;
        if (step_num > total_steps)
            throw ValueError("Tried to step " + std::to_string(step_num + 1) +
                             " times. The specified number of total steps is " +
                             std::to_string(total_steps));
        double start_step = 0;
        for (std::size_t i = 0; i < phases_.size(); ++i) {
            const phase& p = phases_[i];
            if (static_cast<double>(step_num) <= p.end_step || i + 1 == phases_.size()) {
                if (p.end_step == start_step)
                    detail::zero_division("float division", "a OneCycleLR phase has no steps");
                const double pct =
                    (static_cast<double>(step_num) - start_step) / (p.end_step - start_step);
                if (cycle_momentum)
                    set_momentum(this->group(), anneal_between(value(p.start_momentum),
                                                               value(p.end_momentum), pct));
                return anneal_between(value(p.start_lr), value(p.end_lr), pct);
            }
            start_step = p.end_step;
        }
        return this->group().lr; // not reached: the last phase always applies
    }

    template <class Self, class F>
    static void for_each_setting(Self& self, F&& f) {
        f("total_steps", self.total_steps);
        f("cycle_momentum", self.cycle_momentum);
        f("use_beta1", self.use_beta1);
        f("max_lr", self.max_lr);
        f("min_lr", self.min_lr);
        f("max_momentum", self.max_momentum);
        f("base_momentum", self.base_momentum);
        for (std::size_t i = 0; i < self.phases_.size(); ++i)
            f("_schedule_phases." + std::to_string(i) + ".end_step", self.phases_[i].end_step);
    }

    anneal anneal_;
    std::vector<phase> phases_;
};

template <class O>
OneCycleLR(O&, const OneCycleLROptions&) -> OneCycleLR<O>;

} // namespace staticpy::nn::optim::lr_scheduler
