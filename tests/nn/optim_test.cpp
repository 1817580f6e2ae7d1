// nn::optim: SGD, Adam, AdamW, RMSprop and Adagrad against PyTorch 1.13's numbers
// (tests/nn/reference/optim_reference.txt, written by make_reference.py), over every kind of
// parameter container, strided and threaded; their errors (PyTorch's texts); state_dict() names
// and load_state_dict(): resuming is bitwise equal to not stopping.

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers.hpp>
#include <staticpy/nn/optim.hpp>
#include <staticpy/tensor.hpp>

#include "../test_errors.hpp"
#include "reference/reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace optim = staticpy::nn::optim;
using test_errors::error_of;

namespace {

const auto& references() {
    static const auto records = reference::read("optim_reference.txt");
    return records;
}

// ---- the problem of make_reference.py --------------------------------------------------------

/// w[k] = sin(1.3 k + 0.2) as a [3, 4] tensor (static shape), b[k] = cos(0.7 k + 0.1) as [4]
/// (dynamic shape).
template <class T = double>
Tensor<T, static_shape<3, 4>> initial_w() {
    auto w = zeros<T>(3_c, 4_c);
    for (int k = 0; k < 12; ++k)
        w.data()[k] = static_cast<T>(std::sin(1.3 * k + 0.2));
    return w;
}
template <class T = double>
Tensor<T, dynamic_shape<1>> initial_b() {
    auto b = zeros<T>(4);
    for (int k = 0; k < 4; ++k)
        b.data()[k] = static_cast<T>(std::cos(0.7 * k + 0.1));
    return b;
}

/// The gradient at step t: 0.5 * p[k] + sin(0.37 (t + 1) + 0.11 k + offset), k the row-major
/// index (p may be strided; the gradient is contiguous).
template <class T, class S>
Tensor<T, S> gradient(const Tensor<T, S>& p, int t, double offset) {
    auto g = p.clone();
    for (std::int64_t k = 0; k < g.numel(); ++k) {
        const double noise = std::sin(0.37 * (t + 1) + 0.11 * static_cast<double>(k) + offset);
        g.data()[k] = static_cast<T>(0.5 * static_cast<double>(g.data()[k]) + noise);
    }
    return g;
}

template <class T, class S>
std::vector<double> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

constexpr int steps = 10;

/// Runs a case over dict("w", "b") in float64 and compares with PyTorch's parameters.
template <class Make>
double run_reference_case(const std::string& name, Make make) {
    auto w = initial_w();
    auto b = initial_b();
    auto opt = make(dict("w"_s = w, "b"_s = b));
    for (int t = 0; t < steps; ++t)
        opt.step(dict("w"_s = gradient(w, t, 0.0), "b"_s = gradient(b, t, 1.0)));
    INFO(name);
    REQUIRE(references().count(name + "/w") == 1);
    const double worst =
        std::max(reference::max_relative_difference(references().at(name + "/w"), values(w)),
                 reference::max_relative_difference(references().at(name + "/b"), values(b)));
    CHECK(worst <= reference::tolerance);
    return worst;
}

/// Every case of make_reference.py, under its name there. f(name, make) for each.
template <class F>
void for_each_reference_case(F f) {
    using optim::Adagrad, optim::Adam, optim::AdamW, optim::RMSprop, optim::SGD;
    f("SGD(lr=0.1)", [](auto p) { return SGD(p, {.lr = 0.1}); });
    f("SGD(lr=0.1,momentum=0.9)", [](auto p) { return SGD(p, {.lr = 0.1, .momentum = 0.9}); });
    f("SGD(lr=0.1,momentum=0.9,dampening=0.5)",
      [](auto p) { return SGD(p, {.lr = 0.1, .momentum = 0.9, .dampening = 0.5}); });
    f("SGD(lr=0.1,momentum=0.9,nesterov=True)",
      [](auto p) { return SGD(p, {.lr = 0.1, .momentum = 0.9, .nesterov = true}); });
    f("SGD(lr=0.1,weight_decay=0.01)",
      [](auto p) { return SGD(p, {.lr = 0.1, .weight_decay = 0.01}); });
    f("SGD(lr=0.1,momentum=0.9,weight_decay=0.01,maximize=True)", [](auto p) {
        return SGD(p, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01, .maximize = true});
    });
    f("SGD(lr=0.05,momentum=0.8,dampening=0.1,weight_decay=0.1)", [](auto p) {
        return SGD(p, {.lr = 0.05, .momentum = 0.8, .dampening = 0.1, .weight_decay = 0.1});
    });
    f("Adam()", [](auto p) { return Adam(p); });
    f("Adam(lr=0.01,betas=(0.8,0.99))", [](auto p) {
        return Adam(p, {.lr = 0.01, .betas = {0.8, 0.99}});
    });
    f("Adam(lr=0.01,amsgrad=True)", [](auto p) { return Adam(p, {.lr = 0.01, .amsgrad = true}); });
    f("Adam(lr=0.01,weight_decay=0.1)",
      [](auto p) { return Adam(p, {.lr = 0.01, .weight_decay = 0.1}); });
    f("Adam(lr=0.01,weight_decay=0.1,amsgrad=True,maximize=True)", [](auto p) {
        return Adam(p, {.lr = 0.01, .weight_decay = 0.1, .amsgrad = true, .maximize = true});
    });
    f("Adam(lr=0.1,eps=0.001)", [](auto p) { return Adam(p, {.lr = 0.1, .eps = 0.001}); });
    f("AdamW()", [](auto p) { return AdamW(p); });
    f("AdamW(lr=0.01,weight_decay=0.1)",
      [](auto p) { return AdamW(p, {.lr = 0.01, .weight_decay = 0.1}); });
    f("AdamW(lr=0.01,amsgrad=True)",
      [](auto p) { return AdamW(p, {.lr = 0.01, .amsgrad = true}); });
    f("AdamW(lr=0.01,weight_decay=0.0,maximize=True)",
      [](auto p) { return AdamW(p, {.lr = 0.01, .weight_decay = 0.0, .maximize = true}); });
    f("RMSprop()", [](auto p) { return RMSprop(p); });
    f("RMSprop(centered=True)", [](auto p) { return RMSprop(p, {.centered = true}); });
    f("RMSprop(momentum=0.9)", [](auto p) { return RMSprop(p, {.momentum = 0.9}); });
    f("RMSprop(momentum=0.9,centered=True,weight_decay=0.1)",
      [](auto p) { return RMSprop(p, {.weight_decay = 0.1, .momentum = 0.9, .centered = true}); });
    f("RMSprop(alpha=0.9,eps=0.0001,maximize=True)",
      [](auto p) { return RMSprop(p, {.alpha = 0.9, .eps = 0.0001, .maximize = true}); });
    f("Adagrad()", [](auto p) { return Adagrad(p); });
    f("Adagrad(lr_decay=0.1)", [](auto p) { return Adagrad(p, {.lr_decay = 0.1}); });
    f("Adagrad(weight_decay=0.1,initial_accumulator_value=0.5)",
      [](auto p) { return Adagrad(p, {.weight_decay = 0.1, .initial_accumulator_value = 0.5}); });
    f("Adagrad(lr=0.1,lr_decay=0.05,eps=1e-06,maximize=True)", [](auto p) {
        return Adagrad(p, {.lr = 0.1, .lr_decay = 0.05, .eps = 1e-06, .maximize = true});
    });
}

template <class T, class S>
bool bitwise_equal(const Tensor<T, S>& a, const Tensor<T, S>& b) {
    const auto x = values(a), y = values(b);
    return x.size() == y.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [](double u, double v) {
               return std::bit_cast<std::uint64_t>(u) == std::bit_cast<std::uint64_t>(v);
           });
}

} // namespace

TEST_CASE("optimisers match PyTorch 1.13 in float64 over 10 steps", "[nn][optim]") {
    std::size_t cases = 0;
    double worst = 0;
    for_each_reference_case([&](const std::string& name, auto make) {
        worst = std::max(worst, run_reference_case(name, make));
        ++cases;
    });
    CAPTURE(worst); // shown with -s: the largest relative difference from PyTorch
    CHECK(worst <= reference::tolerance);
    std::size_t records = 0;
    for (const auto& record : references())
        records += record.first.find('(') != std::string::npos ? 1 : 0;
    CHECK(records == 2 * cases); // every case of the file is one here
}

TEST_CASE("optimisers in float32 follow the float64 reference", "[nn][optim]") {
    // Not PyTorch's float32 numbers: the float path's arithmetic, checked loosely against float64.
    for_each_reference_case([&](const std::string& name, auto make) {
        auto w = initial_w<float>();
        auto b = initial_b<float>();
        auto opt = make(dict("w"_s = w, "b"_s = b));
        for (int t = 0; t < steps; ++t)
            opt.step(dict("w"_s = gradient(w, t, 0.0), "b"_s = gradient(b, t, 1.0)));
        INFO(name);
        const auto expected = references().at(name + "/w");
        const auto actual = values(w);
        for (std::size_t k = 0; k < expected.size(); ++k)
            CHECK(std::abs(actual[k] - expected[k]) <= 1e-4 * std::abs(expected[k]) + 1e-5);
    });
}

TEST_CASE("every container of parameters, strided parameters and gradients", "[nn][optim]") {
    const std::string name = "Adam(lr=0.01,weight_decay=0.1,amsgrad=True,maximize=True)";
    const optim::AdamOptions options{
        .lr = 0.01, .weight_decay = 0.1, .amsgrad = true, .maximize = true};
    const auto& expected_w = references().at(name + "/w");
    const auto& expected_b = references().at(name + "/b");
    // The dict run, which the other containers must equal bit for bit.
    auto w0 = initial_w();
    auto b0 = initial_b();
    optim::Adam by_dict(dict("w"_s = w0, "b"_s = b0), options);
    for (int t = 0; t < steps; ++t)
        by_dict.step(dict("b"_s = gradient(b0, t, 1.0), "w"_s = gradient(w0, t, 0.0)));
    CHECK(reference::max_relative_difference(expected_w, values(w0)) <= reference::tolerance);
    CHECK(reference::max_relative_difference(expected_b, values(b0)) <= reference::tolerance);

    SECTION("a std::tuple, and std::tie of the caller's tensors") {
        auto w = initial_w();
        auto b = initial_b();
        optim::Adam opt(std::tie(w, b), options);
        static_assert(
            std::is_same_v<decltype(opt)::params_type, std::tuple<decltype(w), decltype(b)>>);
        for (int t = 0; t < steps; ++t)
            opt.step(std::tuple(gradient(w, t, 0.0), gradient(b, t, 1.0)));
        CHECK(bitwise_equal(w, w0));
        CHECK(bitwise_equal(b, b0));
        CHECK(std::get<0>(opt.state).step == steps);
    }
    SECTION("a list, and one tensor alone") {
        auto w = initial_w();
        auto b = initial_b();
        optim::Adam for_w(w, options);
        auto for_b = optim::Adam(list(b), options);
        for (int t = 0; t < steps; ++t) {
            for_w.step(gradient(w, t, 0.0));
            for_b.step(list(gradient(b, t, 1.0)));
        }
        CHECK(bitwise_equal(w, w0));
        CHECK(bitwise_equal(b, b0));
        CHECK(for_w.state.exp_avg.defined());
        CHECK(for_b.state[0_c].step == steps);
    }
    SECTION("nested containers") {
        auto w = initial_w();
        auto b = initial_b();
        optim::Adam opt(dict("fc"_s = dict("weight"_s = w), "biases"_s = list(b)), options);
        for (int t = 0; t < steps; ++t)
            opt.step(dict("fc"_s = dict("weight"_s = gradient(w, t, 0.0)),
                          "biases"_s = list(gradient(b, t, 1.0))));
        CHECK(bitwise_equal(w, w0));
        CHECK(bitwise_equal(b, b0));
        const auto sd = opt.state_dict();
        CHECK(sd.count("state.fc.weight.exp_avg") == 1);
        CHECK(sd.count("state.biases.0.exp_avg") == 1);
    }
    SECTION("a transposed parameter and a strided gradient: the strided walk") {
        auto storage = initial_w().t().contiguous(); // [4, 3]: its transpose has w's values
        auto w = storage.t();                        // a strided [3, 4] view
        REQUIRE(!w.is_contiguous());
        auto b = initial_b();
        optim::Adam opt(dict("w"_s = w, "b"_s = b), options);
        for (int t = 0; t < steps; ++t) {
            auto gb = zeros<double>(8);
            auto strided_gb = gb[slice(None, None, 2_c)]; // every other element
            strided_gb.copy_(gradient(b, t, 1.0));
            opt.step(dict("w"_s = gradient(w.contiguous(), t, 0.0).t().contiguous().t(),
                          "b"_s = strided_gb));
        }
        CHECK(bitwise_equal(w.contiguous(), w0));
        CHECK(bitwise_equal(b, b0));
    }
}

TEST_CASE("a large parameter is split across threads with the same result", "[nn][optim]") {
    // 2^18 elements: above the kernels' threshold, so the contiguous loop runs in chunks (when
    // the build has OpenMP); a strided view of the same values takes the one-thread walk.
    const std::int64_t n = std::int64_t{1} << 18;
    auto flat = zeros<double>(n);
    for (std::int64_t k = 0; k < n; ++k)
        flat.data()[k] = std::sin(0.001 * static_cast<double>(k));
    auto twice = zeros<double>(2 * n);
    auto strided = twice[slice(None, None, 2_c)];
    strided.copy_(flat);
    optim::Adam contiguous_opt(flat, {.lr = 0.01, .amsgrad = true});
    optim::Adam strided_opt(strided, {.lr = 0.01, .amsgrad = true});
    for (int t = 0; t < 3; ++t) {
        const auto g = gradient(flat, t, 0.0); // the same gradient for both
        contiguous_opt.step(g);
        strided_opt.step(g);
    }
    CHECK(bitwise_equal(flat, strided.contiguous()));
}

TEST_CASE("step: a None or undefined gradient skips its parameter", "[nn][optim]") {
    auto w = initial_w();
    auto b = initial_b();
    const auto b_before = b.clone();
    optim::Adam opt(dict("w"_s = w, "b"_s = b));
    opt.step(dict("w"_s = gradient(w, 0, 0.0), "b"_s = None));
    opt.step(dict("w"_s = gradient(w, 1, 0.0), "b"_s = Tensor<double, dynamic_shape<1>>()));
    CHECK(bitwise_equal(b, b_before));
    CHECK(opt.state["w"_s].step == 2);
    CHECK(opt.state["b"_s].step == 0);
    CHECK(!opt.state["b"_s].exp_avg.defined());
    const auto sd = opt.state_dict();
    CHECK(sd.count("state.w.step") == 1);
    CHECK(sd.count("state.b.step") == 0); // no state yet, as PyTorch's
    CHECK(sd.count("param_groups.0.params.b") == 1);
}

TEST_CASE("param_groups[0] holds the hyperparameters, which may change between steps",
          "[nn][optim]") {
    auto w = ones<double>(2);
    optim::SGD opt(w, {.lr = 0.5});
    CHECK(opt.param_groups[0].lr == 0.5);
    CHECK(!opt.param_groups[0].initial_lr.has_value());
    opt.step(ones<double>(2));
    CHECK(w(0) == 0.5);
    opt.param_groups[0].lr = 0.25;
    opt.step(ones<double>(2));
    CHECK(w(0) == 0.25);
    // Momentum turned on after some steps: the buffer starts from that step, as PyTorch's.
    opt.param_groups[0].momentum = 0.9;
    CHECK(opt.state.empty());
    opt.step(ones<double>(2));
    CHECK(!opt.state.empty());
    CHECK(opt.state.momentum_buffer(0) == 1.0);
    static_assert(optim::Optimizer<decltype(opt)>);
    static_assert(!optim::Optimizer<int>);
}

TEST_CASE("invalid hyperparameters: ValueError with PyTorch's text", "[nn][optim]") {
    auto w = ones<double>(2);
    using optim::Adagrad, optim::Adam, optim::AdamW, optim::RMSprop, optim::SGD;
    CHECK(error_of<ValueError>([&] { (void)SGD(w, {.lr = -0.1}); }) ==
          "Invalid learning rate: -0.1");
    CHECK(error_of<ValueError>([&] { (void)SGD(w, {.momentum = 0.9}); }) ==
          "parameter group didn't specify a value of required optimization parameter lr");
    CHECK(error_of<ValueError>([&] { (void)SGD(w); }) ==
          "parameter group didn't specify a value of required optimization parameter lr");
    CHECK(error_of<ValueError>([&] { (void)SGD(w, {.lr = 0.1, .momentum = -1}); }) ==
          "Invalid momentum value: -1.0");
    CHECK(error_of<ValueError>([&] { (void)SGD(w, {.lr = 0.1, .weight_decay = -1e-5}); }) ==
          "Invalid weight_decay value: -1e-05");
    CHECK(error_of<ValueError>([&] { (void)SGD(w, {.lr = 0.1, .nesterov = true}); }) ==
          "Nesterov momentum requires a momentum and zero dampening");
    CHECK(error_of<ValueError>([&] {
              (void)SGD(w, {.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = true});
          }) == "Nesterov momentum requires a momentum and zero dampening");
    CHECK(error_of<ValueError>([&] { (void)Adam(w, {.lr = -1}); }) ==
          "Invalid learning rate: -1.0");
    CHECK(error_of<ValueError>([&] { (void)Adam(w, {.lr = NAN}); }) ==
          "Invalid learning rate: nan");
    CHECK(error_of<ValueError>([&] {
              (void)Adam(w, {.betas = {1.0, 0.999}});
          }) == "Invalid beta parameter at index 0: 1.0");
    CHECK(error_of<ValueError>([&] {
              (void)AdamW(w, {.betas = {0.9, -0.5}});
          }) == "Invalid beta parameter at index 1: -0.5");
    CHECK(error_of<ValueError>([&] { (void)AdamW(w, {.eps = -1e-8}); }) ==
          "Invalid epsilon value: -1e-08");
    CHECK(error_of<ValueError>([&] { (void)Adam(w, {.weight_decay = -0.1}); }) ==
          "Invalid weight_decay value: -0.1");
    CHECK(error_of<ValueError>([&] { (void)RMSprop(w, {.alpha = -0.5}); }) ==
          "Invalid alpha value: -0.5");
    CHECK(error_of<ValueError>([&] { (void)RMSprop(w, {.momentum = -0.5}); }) ==
          "Invalid momentum value: -0.5");
    CHECK(error_of<ValueError>([&] { (void)Adagrad(w, {.lr_decay = -0.5}); }) ==
          "Invalid lr_decay value: -0.5");
    CHECK(error_of<ValueError>([&] { (void)Adagrad(w, {.initial_accumulator_value = -1}); }) ==
          "Invalid initial_accumulator_value value: -1.0");
    CHECK(error_of<ValueError>([&] { (void)Adagrad(w, {.eps = -1}); }) ==
          "Invalid epsilon value: -1.0");
    // SGD's check is lr < 0, so a NaN lr passes there, as in PyTorch (and is not `required`).
    CHECK(error_of<ValueError>([&] { (void)SGD(w, {.lr = NAN}); }) == "<no exception>");
}

TEST_CASE("step: a gradient of another size is a RuntimeError naming the parameter",
          "[nn][optim]") {
    auto w = initial_w();
    auto b = initial_b();
    optim::SGD opt(dict("fc.weight"_s = w, "fc.bias"_s = b), {.lr = 0.1});
    CHECK(error_of<RuntimeError>([&] {
              opt.step(dict("fc.weight"_s = gradient(w, 0, 0.0), "fc.bias"_s = zeros<double>(5)));
          }) == "assigned grad has data of a different size (parameter 'fc.bias' has size [4], its "
                "gradient [5])");
    auto dynamic_w = zeros<double>(3, 4);
    auto opt2 = optim::SGD(std::tuple(dynamic_w), {.lr = 0.1});
    CHECK(error_of<RuntimeError>([&] { opt2.step(std::tuple(zeros<double>(4, 3))); }) ==
          "assigned grad has data of a different size (parameter '0' has size [3, 4], its "
          "gradient [4, 3])");
}

TEST_CASE("a parameter whose elements share memory is PyTorch's in-place RuntimeError",
          "[nn][optim]") {
    auto row = zeros<double>(1, 3);
    auto expanded = row.expand(4, 3); // four rows, one memory
    CHECK(error_of<RuntimeError>([&] { (void)optim::SGD(dict("w"_s = expanded), {.lr = 0.1}); }) ==
          "unsupported operation: more than one element of the written-to tensor refers to a "
          "single memory location. Please clone() the tensor before performing the operation. "
          "(parameter 'w')");
}

TEST_CASE("state_dict: the names of the hyperparameters, parameters and state", "[nn][optim]") {
    auto w = initial_w();
    auto b = initial_b();
    SECTION("Adam") {
        optim::Adam opt(dict("fc1.weight"_s = w, "fc1.bias"_s = b), {.lr = 0.01});
        opt.param_groups[0].initial_lr = 0.02;
        opt.step(dict("fc1.weight"_s = gradient(w, 0, 0.0), "fc1.bias"_s = gradient(b, 0, 1.0)));
        const auto sd = opt.state_dict();
        std::vector<std::string> names;
        for (const auto& [name, value] : sd)
            names.push_back(name);
        CHECK(names == std::vector<std::string>{
                           "param_groups.0.amsgrad", "param_groups.0.betas.0",
                           "param_groups.0.betas.1", "param_groups.0.eps",
                           "param_groups.0.initial_lr", "param_groups.0.lr",
                           "param_groups.0.maximize", "param_groups.0.params.fc1.bias",
                           "param_groups.0.params.fc1.weight", "param_groups.0.weight_decay",
                           "state.fc1.bias.exp_avg", "state.fc1.bias.exp_avg_sq",
                           "state.fc1.bias.step", "state.fc1.weight.exp_avg",
                           "state.fc1.weight.exp_avg_sq", "state.fc1.weight.step"});
        CHECK(sd.at("param_groups.0.lr").item<double>() == 0.01);
        CHECK(sd.at("param_groups.0.lr").dtype() == float64);
        CHECK(sd.at("param_groups.0.lr").dim() == 0);
        CHECK(sd.at("param_groups.0.amsgrad").dtype() == boolean);
        CHECK(sd.at("param_groups.0.params.fc1.weight").item<std::int64_t>() == 0);
        CHECK(sd.at("param_groups.0.params.fc1.bias").item<std::int64_t>() == 1);
        CHECK(sd.at("state.fc1.weight.step").dtype() == int64);
        CHECK(sd.at("state.fc1.weight.step").item<std::int64_t>() == 1);
        const auto& exp_avg = sd.at("state.fc1.weight.exp_avg");
        CHECK(exp_avg.sizes() == std::vector<std::int64_t>{3, 4});
        CHECK(exp_avg.nbytes() == 12 * 8);
        // The optimiser's own tensor, as PyTorch's state_dict() gives.
        CHECK(exp_avg.data() == opt.state["fc1.weight"_s].exp_avg.data());
        CHECK(values(exp_avg.tensor<double, 2>()) == values(opt.state["fc1.weight"_s].exp_avg));
    }
    SECTION("SGD without momentum has no state; Adagrad has it from the start") {
        optim::SGD sgd(std::tuple(w, b), {.lr = 0.1});
        sgd.step(std::tuple(gradient(w, 0, 0.0), gradient(b, 0, 1.0)));
        for (const auto& [name, value] : sgd.state_dict())
            CHECK(name.rfind("param_groups.0.", 0) == 0);
        optim::Adagrad adagrad(std::tuple(w, b), {.initial_accumulator_value = 0.25});
        const auto sd = adagrad.state_dict();
        CHECK(sd.at("state.0.step").item<std::int64_t>() == 0);
        CHECK(sd.at("state.1.sum").tensor<double, 1>()(3) == 0.25);
    }
}

namespace {

/// Steps 2 * half times without stopping, and half times, state_dict(), a fresh optimiser over
/// copies of the parameters, load_state_dict(), half times more: the parameters must be equal
/// bit for bit.
template <class Make>
void check_resume(const std::string& what, Make make, int half = 4) {
    INFO(what);
    auto w = initial_w();
    auto b = initial_b();
    auto uninterrupted = make(dict("w"_s = w, "b"_s = b));
    for (int t = 0; t < 2 * half; ++t)
        uninterrupted.step(dict("w"_s = gradient(w, t, 0.0), "b"_s = gradient(b, t, 1.0)));

    auto w1 = initial_w();
    auto b1 = initial_b();
    auto first = make(dict("w"_s = w1, "b"_s = b1));
    for (int t = 0; t < half; ++t)
        first.step(dict("w"_s = gradient(w1, t, 0.0), "b"_s = gradient(b1, t, 1.0)));
    const auto saved = first.state_dict();
    auto w2 = w1.clone(); // the checkpoint's parameters
    auto b2 = b1.clone();
    auto resumed = make(dict("w"_s = w2, "b"_s = b2));
    resumed.param_groups[0].lr = 123.0; // overwritten by the load
    resumed.load_state_dict(saved);
    CHECK(resumed.param_groups[0].lr == first.param_groups[0].lr);
    first.step(dict("w"_s = gradient(w1, 0, 0.0), "b"_s = gradient(b1, 0, 1.0))); // no effect on
    for (int t = half; t < 2 * half; ++t) // the copies the resumed optimiser loaded
        resumed.step(dict("w"_s = gradient(w2, t, 0.0), "b"_s = gradient(b2, t, 1.0)));
    CHECK(bitwise_equal(w2, w));
    CHECK(bitwise_equal(b2, b));
}

} // namespace

TEST_CASE("load_state_dict: resuming is bitwise equal to not stopping", "[nn][optim]") {
    using optim::Adagrad, optim::Adam, optim::AdamW, optim::RMSprop, optim::SGD;
    check_resume("SGD", [](auto p) {
        return SGD(p, {.lr = 0.05, .momentum = 0.8, .dampening = 0.1, .weight_decay = 0.1});
    });
    check_resume("SGD nesterov",
                 [](auto p) { return SGD(p, {.lr = 0.1, .momentum = 0.9, .nesterov = true}); });
    check_resume("Adam", [](auto p) { return Adam(p, {.lr = 0.01, .amsgrad = true}); });
    check_resume("AdamW", [](auto p) { return AdamW(p, {.lr = 0.01, .weight_decay = 0.1}); });
    check_resume("RMSprop", [](auto p) {
        return RMSprop(p, {.weight_decay = 0.1, .momentum = 0.9, .centered = true});
    });
    check_resume("Adagrad", [](auto p) { return Adagrad(p, {.lr_decay = 0.1}); });
    check_resume(
        "Adagrad after no step", [](auto p) { return Adagrad(p); }, 0);
}

TEST_CASE("load_state_dict: hyperparameters, initial_lr, casts and partial state", "[nn][optim]") {
    auto w = initial_w();
    auto b = initial_b();
    optim::Adam source(dict("w"_s = w, "b"_s = b), {.lr = 0.02, .betas = {0.8, 0.9}});
    source.param_groups[0].initial_lr = 0.5;
    source.step(dict("w"_s = gradient(w, 0, 0.0), "b"_s = None)); // b has no state
    const auto sd = source.state_dict();

    SECTION("into float parameters: the state is cast to float, as PyTorch casts it") {
        auto wf = initial_w<float>();
        auto bf = initial_b<float>();
        optim::Adam target(dict("w"_s = wf, "b"_s = bf));
        target.load_state_dict(sd);
        CHECK(target.param_groups[0].lr == 0.02);
        CHECK(target.param_groups[0].betas[0] == 0.8);
        CHECK(target.param_groups[0].initial_lr == 0.5);
        CHECK(target.state["w"_s].step == 1);
        CHECK(target.state["w"_s].exp_avg(1, 2) ==
              static_cast<float>(source.state["w"_s].exp_avg(1, 2)));
        CHECK(target.state["b"_s].empty());
        // The loaded state is a copy: stepping the source leaves it alone.
        const float before = target.state["w"_s].exp_avg(0, 0);
        source.step(dict("w"_s = gradient(w, 1, 0.0), "b"_s = None));
        CHECK(target.state["w"_s].exp_avg(0, 0) == before);
    }
    SECTION("a state_dict without initial_lr clears it, and unstepped parameters lose state") {
        optim::Adam target(dict("w"_s = initial_w(), "b"_s = initial_b()));
        target.param_groups[0].initial_lr = 1.0;
        target.step(dict("w"_s = gradient(w, 0, 0.0), "b"_s = gradient(b, 0, 1.0)));
        auto without = sd;
        without.erase("param_groups.0.initial_lr");
        target.load_state_dict(without);
        CHECK(!target.param_groups[0].initial_lr.has_value());
        CHECK(target.state["b"_s].empty());
    }
}

TEST_CASE("load_state_dict: a state_dict of another structure is a ValueError", "[nn][optim]") {
    auto w = initial_w();
    auto b = initial_b();
    optim::Adam opt(dict("w"_s = w, "b"_s = b));
    opt.step(dict("w"_s = gradient(w, 0, 0.0), "b"_s = gradient(b, 0, 1.0)));
    const auto sd = opt.state_dict();
    auto load = [&](const optim::state_dict_t& d) {
        return error_of<ValueError>([&] {
            optim::Adam fresh(dict("w"_s = initial_w(), "b"_s = initial_b()));
            fresh.load_state_dict(d);
        });
    };
    CHECK(load(sd) == "<no exception>");

    optim::Adam one(dict("w"_s = initial_w()));
    CHECK(error_of<ValueError>([&] { one.load_state_dict(sd); }) ==
          "loaded state dict contains a parameter group that doesn't match the size of "
          "optimizer's group");
    optim::Adam renamed(dict("weight"_s = initial_w(), "b"_s = initial_b()));
    CHECK(error_of<ValueError>([&] { renamed.load_state_dict(sd); }) ==
          "loaded state dict has no 'param_groups.0.params.weight'");
    optim::SGD sgd(dict("w"_s = initial_w(), "b"_s = initial_b()), {.lr = 0.1});
    CHECK(error_of<ValueError>([&] { sgd.load_state_dict(sd); }) ==
          "loaded state dict has no 'param_groups.0.momentum'");

    auto two_groups = sd;
    two_groups.emplace("param_groups.1.lr", 0.1);
    CHECK(load(two_groups) == "loaded state dict has a different number of parameter groups");
    CHECK(load({}) == "loaded state dict has a different number of parameter groups");
    auto extra = sd;
    extra.emplace("state.w.momentum_buffer", optim::state_value(zeros<double>(3, 4)));
    CHECK(load(extra) == "loaded state dict has an unexpected entry 'state.w.momentum_buffer'");
    auto partial = sd;
    partial.erase("state.w.exp_avg_sq");
    CHECK(load(partial) ==
          "loaded state dict has state for parameter 'w' but no 'state.w.exp_avg_sq'");
    auto resized = sd;
    resized.insert_or_assign("state.b.exp_avg", optim::state_value(zeros<double>(5)));
    CHECK(load(resized) ==
          "loaded state dict's 'state.b.exp_avg' has size [5], but parameter 'b' has size [4]");
    // Nothing was changed by a failed load.
    CHECK(opt.state["w"_s].step == 1);
}

TEST_CASE("state_value: numbers are 0-dim tensors, tensors are shared", "[nn][optim]") {
    const optim::state_value lr = 0.1;
    CHECK(lr.defined());
    CHECK(lr.dtype() == float64);
    CHECK(lr.sizes().empty());
    CHECK(lr.numel() == 1);
    CHECK(lr.item<double>() == 0.1);
    CHECK(optim::state_value(3).dtype() == int64);
    CHECK(optim::state_value(true).item<bool>());
    CHECK(optim::state_value(2.5f).dtype() == float32);
    CHECK(!optim::state_value().defined());

    auto m = tensor<float>({{1, 2, 3}, {4, 5, 6}});
    const optim::state_value shared(m);
    CHECK(shared.data() == m.data());
    auto view = shared.tensor<float, 2>();
    view(1, 2) = 60;
    CHECK(m(1, 2) == 60);
    const optim::state_value transposed(m.t()); // not contiguous: a contiguous copy
    CHECK(transposed.sizes() == std::vector<std::int64_t>{3, 2});
    CHECK(transposed.tensor<float, 2>()(2, 1) == 60);
    auto into = zeros<double>(3, 2);
    transposed.copy_to(into);
    CHECK(into(0, 1) == 4.0);

    CHECK(error_of<TypeError>([&] { (void)shared.tensor<double, 2>(); }) ==
          "expected a float64 tensor, but the state_dict value is float32");
    CHECK(error_of<ValueError>([&] { (void)shared.tensor<float, 1>(); }) ==
          "expected a tensor of 1 dimensions, but the state_dict value has 2");
    CHECK(error_of<RuntimeError>([&] { (void)shared.item<double>(); }) ==
          "a Tensor with 6 elements cannot be converted to Scalar");
    CHECK(error_of<RuntimeError>([&] { (void)optim::state_value(1e300).item<std::int64_t>(); }) ==
          "value cannot be converted to type int64 without overflow");
    auto wrong = zeros<double>(2, 2);
    CHECK(error_of<RuntimeError>([&] { transposed.copy_to(wrong); }) ==
          "copy_to: the state_dict value has size [3, 2], the tensor [2, 2]");
}
