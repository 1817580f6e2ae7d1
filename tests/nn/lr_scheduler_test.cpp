// nn::optim::lr_scheduler: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LinearLR and
// OneCycleLR against PyTorch 1.13's learning rates (and OneCycleLR's momenta) over 20 epochs
// (tests/nn/reference/lr_scheduler_reference.txt, written by make_reference.py); their errors
// (PyTorch's texts); state_dict() and resuming.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers.hpp>
#include <staticpy/nn/lr_scheduler.hpp>
#include <staticpy/nn/optim.hpp>
#include <staticpy/tensor.hpp>

#include "../test_errors.hpp"
#include "reference/reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace optim = staticpy::nn::optim;
namespace lr_scheduler = staticpy::nn::optim::lr_scheduler;
using test_errors::error_of;

namespace {

const auto& references() {
    static const auto records = reference::read("lr_scheduler_reference.txt");
    return records;
}

constexpr int epochs = 20;

/// The optimiser's momentum as OneCycleLR cycles it: betas[0], momentum, or 0 for neither.
template <class Group>
double momentum_of(const Group& g) {
    if constexpr (requires { g.betas[0]; })
        return g.betas[0];
    else if constexpr (requires { g.momentum; })
        return g.momentum;
    else
        return 0.0;
}

/// The lr (and momentum) of each epoch 0..19: after construction, then after optimiser step +
/// schedule step, as make_reference.py records them.
struct trace {
    std::vector<double> lr, momentum;
};

template <class O, class MakeSchedule>
trace run_schedule(O& opt, MakeSchedule make_schedule) {
    auto sched = make_schedule(opt);
    trace out;
    for (int epoch = 0; epoch < epochs; ++epoch) {
        if (epoch > 0) {
            opt.step(zeros<double>(2));
            sched.step();
        }
        out.lr.push_back(sched.get_last_lr()[0]);
        out.momentum.push_back(momentum_of(opt.param_groups[0]));
    }
    return out;
}

/// Runs one case of make_reference.py and compares with PyTorch: the lr, and for OneCycleLR the
/// momentum. Returns the largest relative difference.
template <class MakeOptimizer, class MakeSchedule>
double run_reference_case(const std::string& name, MakeOptimizer make_optimizer,
                          MakeSchedule make_schedule, std::optional<double> initial_lr = {}) {
    auto opt = make_optimizer(zeros<double>(2));
    opt.param_groups[0].initial_lr = initial_lr;
    const trace t = run_schedule(opt, make_schedule);
    INFO(name);
    REQUIRE(references().count(name + "/lr") == 1);
    double worst = reference::max_relative_difference(references().at(name + "/lr"), t.lr);
    if (name.rfind("OneCycleLR", 0) == 0)
        worst = std::max(worst, reference::max_relative_difference(
                                    references().at(name + "/momentum"), t.momentum));
    CHECK(worst <= reference::tolerance);
    return worst;
}

auto sgd(double lr, double momentum = 0) {
    return [=](auto p) { return optim::SGD(p, {.lr = lr, .momentum = momentum}); };
}

} // namespace

TEST_CASE("schedules match PyTorch 1.13's learning rates over 20 epochs", "[nn][lr_scheduler]") {
    using namespace lr_scheduler;
    double worst = 0;
    std::size_t cases = 0;
    auto run = [&](const std::string& name, auto make_optimizer, auto make_schedule,
                   std::optional<double> initial_lr = {}) {
        worst =
            std::max(worst, run_reference_case(name, make_optimizer, make_schedule, initial_lr));
        ++cases;
    };
    run("StepLR(step_size=3)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) { return StepLR(o, {.step_size = 3}); });
    run("StepLR(step_size=4,gamma=0.5)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) { return StepLR(o, {.step_size = 4, .gamma = 0.5}); });
    run("MultiStepLR(milestones=(2,5,5,11),gamma=0.3)@SGD(lr=0.1)", sgd(0.1), [](auto& o) {
        return MultiStepLR(o, {.milestones = {11, 5, 2, 5}, .gamma = 0.3});
    });
    run("ExponentialLR(gamma=0.9)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) { return ExponentialLR(o, {.gamma = 0.9}); });
    run("CosineAnnealingLR(T_max=10)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) { return CosineAnnealingLR(o, {.T_max = 10}); });
    run("CosineAnnealingLR(T_max=7,eta_min=0.001)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) { return CosineAnnealingLR(o, {.T_max = 7, .eta_min = 0.001}); });
    run(
        "CosineAnnealingLR(T_max=10,eta_min=0.01,last_epoch=5)@SGD(lr=0.05)", sgd(0.05),
        [](auto& o) {
            return CosineAnnealingLR(o, {.T_max = 10, .eta_min = 0.01, .last_epoch = 5});
        },
        0.1);
    run("LinearLR()@SGD(lr=0.1)", sgd(0.1), [](auto& o) { return LinearLR(o); });
    run("LinearLR(start_factor=0.5,end_factor=0.1,total_iters=8)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) {
            return LinearLR(o, {.start_factor = 0.5, .end_factor = 0.1, .total_iters = 8});
        });
    run("OneCycleLR(max_lr=0.5,total_steps=20)@SGD(lr=0.1,momentum=0.9)", sgd(0.1, 0.9),
        [](auto& o) { return OneCycleLR(o, {.max_lr = 0.5, .total_steps = 20}); });
    run("OneCycleLR(max_lr=0.5,total_steps=20,pct_start=0.25,anneal_strategy='linear',"
        "div_factor=10.0,final_div_factor=100.0,three_phase=True)@SGD(lr=0.1,momentum=0.9)",
        sgd(0.1, 0.9), [](auto& o) {
            return OneCycleLR(o, {.max_lr = 0.5,
                                  .total_steps = 20,
                                  .pct_start = 0.25,
                                  .anneal_strategy = "linear",
                                  .div_factor = 10.0,
                                  .final_div_factor = 100.0,
                                  .three_phase = true});
        });
    run(
        "OneCycleLR(max_lr=0.01,epochs=4,steps_per_epoch=5,base_momentum=0.8)@Adam()",
        [](auto p) { return optim::Adam(p); },
        [](auto& o) {
            return OneCycleLR(
                o, {.max_lr = 0.01, .epochs = 4, .steps_per_epoch = 5, .base_momentum = 0.8});
        });
    run("OneCycleLR(max_lr=0.5,total_steps=20,cycle_momentum=False)@SGD(lr=0.1)", sgd(0.1),
        [](auto& o) {
            return OneCycleLR(o, {.max_lr = 0.5, .total_steps = 20, .cycle_momentum = false});
        });
    run(
        "OneCycleLR(max_lr=0.2,total_steps=25,three_phase=True)@RMSprop()",
        [](auto p) { return optim::RMSprop(p); },
        [](auto& o) {
            return OneCycleLR(o, {.max_lr = 0.2, .total_steps = 25, .three_phase = true});
        });
    CAPTURE(worst); // shown with -s: the largest relative difference from PyTorch
    CHECK(worst <= reference::tolerance);
    std::size_t lr_records = 0;
    for (const auto& record : references())
        lr_records += record.first.ends_with("/lr") ? 1 : 0;
    CHECK(lr_records == cases); // every case of the file is one here
}

TEST_CASE("construction sets initial_lr and takes the first step", "[nn][lr_scheduler]") {
    optim::SGD opt(zeros<double>(2), {.lr = 0.1});
    lr_scheduler::LinearLR sched(opt, {.start_factor = 0.5});
    CHECK(sched.last_epoch == 0);
    CHECK(sched.base_lrs == std::vector<double>{0.1});
    CHECK(opt.param_groups[0].initial_lr == 0.1);
    CHECK(opt.param_groups[0].lr == 0.05);
    CHECK(sched.get_last_lr() == std::vector<double>{0.05});
    CHECK(&sched.optimizer() == &opt);
    // The optimiser's state_dict carries initial_lr, as PyTorch's param group does.
    CHECK(opt.state_dict().at("param_groups.0.initial_lr").item<double>() == 0.1);
    // A second schedule keeps the first one's initial_lr (PyTorch's setdefault).
    lr_scheduler::ExponentialLR second(opt, {.gamma = 0.5});
    CHECK(second.base_lrs == std::vector<double>{0.1});
}

TEST_CASE("schedules are chainable: each step starts from the current lr", "[nn][lr_scheduler]") {
    optim::SGD opt(zeros<double>(2), {.lr = 1.0});
    lr_scheduler::StepLR sched(opt, {.step_size = 2, .gamma = 0.5});
    sched.step(); // epoch 1: 1.0
    opt.param_groups[0].lr = 0.4;
    sched.step(); // epoch 2: 0.4 * 0.5
    CHECK(opt.param_groups[0].lr == 0.2);
    // Two schedules on one optimiser multiply their factors, as in PyTorch.
    lr_scheduler::ExponentialLR exponential(opt, {.gamma = 0.5});
    sched.step();       // epoch 3: 0.2
    exponential.step(); // 0.1
    CHECK(opt.param_groups[0].lr == 0.1);
}

TEST_CASE("OneCycleLR cycles SGD's momentum and Adam's beta1", "[nn][lr_scheduler]") {
    optim::SGD sgd(zeros<double>(2), {.lr = 0.1}); // no momentum: OneCycleLR turns it on
    lr_scheduler::OneCycleLR on_sgd(sgd, {.max_lr = 1.0, .total_steps = 10});
    CHECK(sgd.param_groups[0].momentum == 0.95);
    CHECK(sgd.param_groups[0].initial_lr == 0.04);
    sgd.step(ones<double>(2));
    CHECK(!sgd.state.empty()); // the momentum buffer started with the first step
    optim::AdamW adamw(zeros<double>(2));
    lr_scheduler::OneCycleLR on_adamw(adamw, {.max_lr = 1.0, .total_steps = 10});
    CHECK(adamw.param_groups[0].betas[0] == 0.95);
    CHECK(adamw.param_groups[0].betas[1] == 0.999);
    CHECK(on_adamw.use_beta1);
    CHECK(!on_sgd.use_beta1);
    for (int i = 0; i < 10; ++i)
        on_adamw.step();
    CHECK(error_of<ValueError>([&] { on_adamw.step(); }) ==
          "Tried to step 12 times. The specified number of total steps is 10");
}

TEST_CASE("schedule arguments: PyTorch's errors", "[nn][lr_scheduler]") {
    using namespace lr_scheduler;
    optim::SGD opt(zeros<double>(2), {.lr = 0.1, .momentum = 0.9});
    CHECK(error_of<TypeError>([&] { (void)StepLR(opt, {}); }) ==
          "StepLR.__init__() missing 1 required positional argument: 'step_size'");
    CHECK(error_of<TypeError>([&] { (void)ExponentialLR(opt, {}); }) ==
          "ExponentialLR.__init__() missing 1 required positional argument: 'gamma'");
    CHECK(error_of<TypeError>([&] { (void)CosineAnnealingLR(opt, {}); }) ==
          "CosineAnnealingLR.__init__() missing 1 required positional argument: 'T_max'");
    CHECK(error_of<TypeError>([&] { (void)OneCycleLR(opt, {.total_steps = 10}); }) ==
          "OneCycleLR.__init__() missing 1 required positional argument: 'max_lr'");
    CHECK(error_of<ValueError>([&] { (void)StepLR(opt, {.step_size = 0}); }) ==
          "integer division or modulo by zero (StepLR's step_size is 0)");
    CHECK(error_of<ValueError>([&] { (void)CosineAnnealingLR(opt, {.T_max = 0}); }) ==
          "integer division or modulo by zero (CosineAnnealingLR's T_max is 0)");
    CHECK(error_of<ValueError>([&] { (void)LinearLR(opt, {.start_factor = 1.5}); }) ==
          "Starting multiplicative factor expected to be between 0 and 1.");
    CHECK(error_of<ValueError>([&] { (void)LinearLR(opt, {.end_factor = -0.5}); }) ==
          "Ending multiplicative factor expected to be between 0 and 1.");
    CHECK(error_of<ValueError>([&] {
              LinearLR zero(opt, {.start_factor = 0});
              zero.step();
          }) == "float division by zero (LinearLR's start_factor is 0)");
    CHECK(error_of<ValueError>([&] { (void)OneCycleLR(opt, {.max_lr = 1}); }) ==
          "You must define either total_steps OR (epochs AND steps_per_epoch)");
    CHECK(error_of<ValueError>([&] { (void)OneCycleLR(opt, {.max_lr = 1, .epochs = 3}); }) ==
          "You must define either total_steps OR (epochs AND steps_per_epoch)");
    CHECK(error_of<ValueError>([&] { (void)OneCycleLR(opt, {.max_lr = 1, .total_steps = 0}); }) ==
          "Expected positive integer total_steps, but got 0");
    CHECK(error_of<ValueError>([&] {
              (void)OneCycleLR(opt, {.max_lr = 1, .epochs = -1, .steps_per_epoch = 3});
          }) == "Expected positive integer epochs, but got -1");
    CHECK(error_of<ValueError>([&] {
              (void)OneCycleLR(opt, {.max_lr = 1, .epochs = 2, .steps_per_epoch = 0});
          }) == "Expected positive integer steps_per_epoch, but got 0");
    CHECK(error_of<ValueError>([&] {
              (void)OneCycleLR(opt, {.max_lr = 1, .total_steps = 10, .pct_start = 1.5});
          }) == "Expected float between 0 and 1 pct_start, but got 1.5");
    CHECK(error_of<ValueError>([&] {
              (void)OneCycleLR(opt, {.max_lr = 1, .total_steps = 10, .anneal_strategy = "exp"});
          }) == "anneal_strategy must by one of 'cos' or 'linear', instead got exp");
    optim::Adagrad adagrad(zeros<double>(2));
    CHECK(error_of<ValueError>([&] {
              (void)OneCycleLR(adagrad, {.max_lr = 1, .total_steps = 10});
          }) == "optimizer must support momentum with `cycle_momentum` option enabled");
    CHECK(error_of<ValueError>([&] {
              (void)OneCycleLR(adagrad, {.max_lr = 1, .total_steps = 10, .cycle_momentum = false});
          }) == "<no exception>");
    // Resuming (last_epoch != -1) needs the group's initial_lr.
    optim::SGD fresh(zeros<double>(2), {.lr = 0.1});
    CHECK(
        error_of<KeyError>([&] { (void)ExponentialLR(fresh, {.gamma = 0.9, .last_epoch = 3}); }) ==
        "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer");
    CHECK(!fresh.param_groups[0].initial_lr.has_value()); // nothing was changed
}

TEST_CASE("state_dict: names, and resuming equals not stopping", "[nn][lr_scheduler]") {
    using namespace lr_scheduler;
    SECTION("the names") {
        optim::SGD opt(zeros<double>(2), {.lr = 0.1});
        StepLR sched(opt, {.step_size = 3, .gamma = 0.5});
        sched.step();
        const auto sd = sched.state_dict();
        std::vector<std::string> names;
        for (const auto& [name, value] : sd)
            names.push_back(name);
        CHECK(names == std::vector<std::string>{"_last_lr.0", "_step_count", "base_lrs.0", "gamma",
                                                "last_epoch", "step_size"});
        CHECK(sd.at("last_epoch").item<std::int64_t>() == 1);
        CHECK(sd.at("_step_count").item<std::int64_t>() == 2);
        MultiStepLR multi(opt, {.milestones = {5, 2, 5}});
        CHECK(multi.state_dict().at("milestones").tensor<std::int64_t, 1>()(2) == 5);
    }
    // Steps the optimiser and schedule 14 times, or 7, saves both, builds new ones (as a program
    // restarted from a checkpoint does), loads, and steps 7 more: the lrs are bitwise equal.
    auto check_resume = [](const std::string& what, auto make_optimizer, auto make_schedule) {
        INFO(what);
        auto opt = make_optimizer(zeros<double>(2));
        auto sched = make_schedule(opt);
        std::vector<double> uninterrupted;
        for (int i = 0; i < 14; ++i) {
            opt.step(zeros<double>(2));
            sched.step();
            uninterrupted.push_back(sched.get_last_lr()[0]);
            uninterrupted.push_back(momentum_of(opt.param_groups[0]));
        }
        auto first = make_optimizer(zeros<double>(2));
        auto first_sched = make_schedule(first);
        std::vector<double> resumed;
        for (int i = 0; i < 7; ++i) {
            first.step(zeros<double>(2));
            first_sched.step();
            resumed.push_back(first_sched.get_last_lr()[0]);
            resumed.push_back(momentum_of(first.param_groups[0]));
        }
        const auto opt_sd = first.state_dict();
        const auto sched_sd = first_sched.state_dict();
        auto second = make_optimizer(zeros<double>(2));
        auto second_sched = make_schedule(second);
        second.load_state_dict(opt_sd);
        second_sched.load_state_dict(sched_sd);
        CHECK(second_sched.last_epoch == 7);
        for (int i = 0; i < 7; ++i) {
            second.step(zeros<double>(2));
            second_sched.step();
            resumed.push_back(second_sched.get_last_lr()[0]);
            resumed.push_back(momentum_of(second.param_groups[0]));
        }
        CHECK(resumed == uninterrupted);
    };
    check_resume("StepLR", sgd(0.1), [](auto& o) { return StepLR(o, {.step_size = 3}); });
    check_resume("MultiStepLR", sgd(0.1), [](auto& o) {
        return MultiStepLR(o, {.milestones = {3, 9}, .gamma = 0.5});
    });
    check_resume("CosineAnnealingLR", sgd(0.1),
                 [](auto& o) { return CosineAnnealingLR(o, {.T_max = 5, .eta_min = 0.01}); });
    check_resume("LinearLR", sgd(0.1), [](auto& o) { return LinearLR(o, {.total_iters = 10}); });
    check_resume(
        "OneCycleLR", [](auto p) { return optim::Adam(p); },
        [](auto& o) { return OneCycleLR(o, {.max_lr = 0.1, .total_steps = 20}); });
}

TEST_CASE("load_state_dict: a missing or unexpected entry is a ValueError", "[nn][lr_scheduler]") {
    optim::SGD opt(zeros<double>(2), {.lr = 0.1});
    lr_scheduler::StepLR sched(opt, {.step_size = 3});
    auto sd = sched.state_dict();
    auto missing = sd;
    missing.erase("gamma");
    CHECK(error_of<ValueError>([&] { sched.load_state_dict(missing); }) ==
          "loaded state dict has no 'gamma'");
    auto extra = sd;
    extra.emplace("T_max", 3);
    CHECK(error_of<ValueError>([&] { sched.load_state_dict(extra); }) ==
          "loaded state dict has an unexpected entry 'T_max'");
    sd.insert_or_assign("last_epoch", optim::state_value(12));
    sched.load_state_dict(sd);
    CHECK(sched.last_epoch == 12);
}

namespace {
/// A user's optimiser: what the Optimizer concept asks for is enough for a schedule.
struct constant_optimizer {
    struct group {
        double lr = 1.0;
        std::optional<double> initial_lr{};
    };
    std::array<group, 1> param_groups{};
};
} // namespace

TEST_CASE("a schedule drives any Optimizer", "[nn][lr_scheduler]") {
    static_assert(optim::Optimizer<constant_optimizer>);
    constant_optimizer opt;
    lr_scheduler::ExponentialLR sched(opt, {.gamma = 0.5});
    sched.step();
    CHECK(opt.param_groups[0].lr == 0.5);
    CHECK(error_of<ValueError>([&] {
              (void)lr_scheduler::OneCycleLR(opt, {.max_lr = 1, .total_steps = 5});
          }) == "optimizer must support momentum with `cycle_momentum` option enabled");
}
