// nn::functional::batch_norm and layer_norm, nn::BatchNorm1d, BatchNorm2d and LayerNorm against
// PyTorch 1.13 (tests/nn/reference/norm_reference.txt, written by make_norm_reference.py): values
// in training (the running statistics updated once per call) and evaluation, eagerly and under
// jit; the modules' parameters, buffers and running statistics over training steps; gradients
// in both autodiff modes against PyTorch's and finite differences; the float32 kernels on larger
// inputs against a double computation; run-time errors eagerly and under jit.

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

#include "../autodiff/autodiff_test_support.hpp"
#include "../test_errors.hpp"
#include "reference/norm_reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;
using norm_reference::difference;
using norm_reference::input;
using test_errors::error_of;

namespace {

constexpr double tolerance = 1e-9;

const auto X2 = input("X2", 4_c, 3_c);
const auto X3 = input("X3", 4, 3, 5);
const auto X4 = input("X4", 2_c, 3_c, 4_c, 5_c);
const auto W = input("W", 3_c);
const auto B = input("B", 3);
const auto RM = input("RM", 3_c);
const auto RV = input("RV", 3);
const auto C2 = input("C2", 4_c, 3_c);
const auto C3 = input("C3", 4, 3, 5);
const auto C4 = input("C4", 2_c, 3_c, 4_c, 5_c);
const auto XL = input("XL", 2_c, 3_c, 4_c);
const auto WL = input("WL", 4_c);
const auto BL = input("BL", 4);
const auto WL2 = input("WL2", 3_c, 4_c);
const auto BL2 = input("BL2", 3, 4);
const auto CL = input("CL", 2_c, 3_c, 4_c);

/// The mode a check runs in: eagerly, or each call traced (jit).
enum class run { eager, jit };

template <class Fn, class... A>
auto call(run how, const Fn& f, const A&... args) {
    if (how == run::eager)
        return f(args...);
    return jit(f)(args...);
}

/// grad(f) in both modes against the reference gradients grad/<name>/d<wrt[i]>, and against
/// float64 central finite differences.
template <std::size_t... Ks, class Fn, class... A>
void check_gradients(const std::string& name, const std::array<const char*, sizeof...(Ks)>& wrt,
                     const Fn& f, const A&... args) {
    autodiff_test::for_each_gradient<Ks...>(
        f,
        [&](auto p, auto k, const auto& gradient) {
            INFO("d" << wrt[p()]);
            CHECK(difference("grad/" + name + "/d" + wrt[p()], gradient) <= 1e-9);
            autodiff_test::require_close(gradient, autodiff_test::numeric_gradient<k()>(f, args...),
                                         1e-6);
        },
        args...);
}

} // namespace

TEST_CASE(
    "batch_norm in training: the batch's statistics, the running ones updated once per call") {
    for (run how : {run::eager, run::jit}) {
        INFO((how == run::eager ? "eager" : "jit"));
        auto check = [&](const std::string& call_name, const auto& y, const auto& rm,
                         const auto& rv) {
            INFO(call_name);
            CHECK(difference(call_name + "/value", y) <= tolerance);
            CHECK(difference(call_name + "/running_mean", rm) <= tolerance);
            CHECK(difference(call_name + "/running_var", rv) <= tolerance);
        };
        {
            auto rm = RM.clone();
            auto rv = RV.clone();
            const auto y = call(
                how, [&](auto x, auto w, auto b) { return F::batch_norm(x, rm, rv, w, b, true); },
                X2, W, B);
            STATIC_REQUIRE(std::is_same_v<decltype(y), const std::remove_cvref_t<decltype(X2)>>);
            check("batch_norm(X2,RM,RV,W,B,training=True)", y, rm, rv);
        }
        {
            auto rm = RM.clone();
            auto rv = RV.clone();
            const auto y = call(
                how,
                [&](auto x, auto w, auto b) { return F::batch_norm(x, rm, rv, w, b, true, 0.3); },
                X3, W, B);
            check("batch_norm(X3,RM,RV,W,B,training=True,momentum=0.3)", y, rm, rv);
        }
        {
            auto rm = RM.clone();
            auto rv = RV.clone();
            const auto y = call(
                how,
                [&](auto x, auto w, auto b) {
                    return F::batch_norm(x, rm, rv, w, b, true, 0.5, 1e-3);
                },
                X4, W, B);
            check("batch_norm(X4,RM,RV,W,B,training=True,momentum=0.5,eps=0.001)", y, rm, rv);
        }
        {
            auto rm = RM.clone();
            auto rv = RV.clone();
            const auto y = call(
                how, [&](auto x) { return F::batch_norm(x, rm, rv, None, None, true); }, X4);
            check("batch_norm(X4,RM,RV,training=True)", y, rm, rv);
        }
    }
}

TEST_CASE("batch_norm in evaluation, and without running statistics") {
    for (run how : {run::eager, run::jit}) {
        INFO((how == run::eager ? "eager" : "jit"));
        const auto ys = call(
            how,
            [&](auto x2, auto x3, auto x4, auto w, auto b) {
                return std::tuple{F::batch_norm(x2, RM, RV, w, b),
                                  F::batch_norm(x4, RM, RV, w, b, false, 0.1, 0.1),
                                  F::batch_norm(x3, RM, RV),
                                  F::batch_norm(x3, None, None, w, b, true),
                                  F::batch_norm(x2, None, None, None, b, true)};
            },
            X2, X3, X4, W, B);
        CHECK(difference("batch_norm(X2,RM,RV,W,B)/value", std::get<0>(ys)) <= tolerance);
        CHECK(difference("batch_norm(X4,RM,RV,W,B,eps=0.1)/value", std::get<1>(ys)) <= tolerance);
        CHECK(difference("batch_norm(X3,RM,RV)/value", std::get<2>(ys)) <= tolerance);
        CHECK(difference("batch_norm(X3,None,None,W,B,training=True)/value", std::get<3>(ys)) <=
              tolerance);
        CHECK(difference("batch_norm(X2,None,None,bias=B,training=True)/value", std::get<4>(ys)) <=
              tolerance);
    }
    // evaluation reads the running statistics and leaves them alone
    CHECK(difference("input/RM", RM) == 0.0);
    CHECK(difference("input/RV", RV) == 0.0);
}

TEST_CASE("nn::BatchNorm1d and BatchNorm2d: PyTorch's parameters, buffers and defaults") {
    nn::BatchNorm1d<3> bn1;
    STATIC_REQUIRE(std::is_same_v<decltype(bn1.weight), decltype(empty<float>(3_c))>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(bn1.num_batches_tracked), Tensor<std::int64_t, shape<>>>);
    STATIC_REQUIRE(decltype(bn1)::num_features == 3);
    CHECK(repr(bn1.parameters().keys()) == "['weight', 'bias']");
    CHECK(repr(bn1.buffers().keys()) == "['running_mean', 'running_var', 'num_batches_tracked']");
    CHECK(repr(bn1.state_dict().keys()) ==
          "['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']");
    CHECK(bn1.buffers()["running_mean"_s].data() == bn1.running_mean.data());
    CHECK(repr(bn1.weight) == "tensor([1., 1., 1.])");
    CHECK(repr(bn1.bias) == "tensor([0., 0., 0.])");
    CHECK(repr(bn1.running_mean) == "tensor([0., 0., 0.])");
    CHECK(repr(bn1.running_var) == "tensor([1., 1., 1.])");
    CHECK(repr(bn1.num_batches_tracked) == "tensor(0)");
    CHECK(bn1.eps == 1e-5);
    CHECK(bn1.momentum == std::optional<double>(0.1));
    CHECK(bn1.training);

    nn::BatchNorm2d<4> bn2({.eps = 1e-3, .momentum = std::nullopt});
    CHECK(bn2.eps == 1e-3);
    CHECK(!bn2.momentum.has_value());

    // affine=False: no parameters; track_running_stats=False: no buffers
    nn::BatchNorm1d<3, false> plain;
    CHECK(repr(plain.parameters().keys()) == "[]");
    CHECK(repr(plain.state_dict().keys()) ==
          "['running_mean', 'running_var', 'num_batches_tracked']");
    nn::BatchNorm2d<3, true, false> untracked;
    CHECK(repr(untracked.buffers().keys()) == "[]");
    CHECK(repr(untracked.state_dict().keys()) == "['weight', 'bias']");
}

TEST_CASE("nn::BatchNorm2d over training steps and evaluation, as PyTorch's module") {
    const auto M0 = input("M0", 4, 3_c, 2_c, 2_c);
    const auto M1 = input("M1", 4, 3_c, 2_c, 2_c);
    const auto M2 = input("M2", 4, 3_c, 2_c, 2_c);
    for (run how : {run::eager, run::jit}) {
        INFO((how == run::eager ? "eager" : "jit"));
        auto step = [&](const auto& bn, const auto& x) {
            return call(
                how, [&](const auto& p, const auto& in) { return nn::functional_call(bn, p, in); },
                bn.parameters(), x);
        };
        nn::BatchNorm2d<3, true, true, double> bn;
        step(bn, M0);
        step(bn, M1);
        CHECK(bn.num_batches_tracked.item() == 2);
        bn.eval();
        const auto y = step(bn, M2);
        CHECK(bn.num_batches_tracked.item() == 2); // evaluation counts nothing
        CHECK(difference("module/bn2d_eval_output", y) <= tolerance);
        CHECK(difference("module/bn2d/running_mean", bn.running_mean) <= tolerance);
        CHECK(difference("module/bn2d/running_var", bn.running_var) <= tolerance);
        CHECK(difference("module/bn2d/num_batches_tracked", bn.num_batches_tracked) == 0.0);

        // momentum=None: the cumulative average, 1 / num_batches_tracked
        nn::BatchNorm2d<3, true, true, double> cumulative({.momentum = std::nullopt});
        step(cumulative, M0);
        step(cumulative, M1);
        const auto last = step(cumulative, M2);
        CHECK(difference("module/bn2d_cumulative_output", last) <= tolerance);
        CHECK(difference("module/bn2d_cumulative/running_mean", cumulative.running_mean) <=
              tolerance);
        CHECK(difference("module/bn2d_cumulative/running_var", cumulative.running_var) <=
              tolerance);
        CHECK(cumulative.num_batches_tracked.item() == 3);
    }
}

TEST_CASE("nn::BatchNorm1d on 2-D and 3-D inputs, and without running statistics the batch's") {
    nn::BatchNorm1d<3, true, true, double> bn;
    bn.weight.copy_(W);
    bn.bias.copy_(B);
    bn.running_mean.copy_(RM);
    bn.running_var.copy_(RV);
    bn.momentum = 0.3;
    const auto y = bn(X3);
    CHECK(difference("batch_norm(X3,RM,RV,W,B,training=True,momentum=0.3)/value", y) <= tolerance);
    CHECK(difference("batch_norm(X3,RM,RV,W,B,training=True,momentum=0.3)/running_mean",
                     bn.running_mean) <= tolerance);
    bn.eval();
    bn.running_mean.copy_(RM);
    bn.running_var.copy_(RV);
    CHECK(difference("batch_norm(X2,RM,RV,W,B)/value", bn(X2)) <= tolerance);

    nn::BatchNorm1d<3, true, false, double> untracked;
    untracked.weight.copy_(W);
    untracked.bias.copy_(B);
    untracked.eval();
    CHECK(difference("batch_norm(X3,None,None,W,B,training=True)/value", untracked(X3)) <=
          tolerance);
}

TEST_CASE("layer_norm matches PyTorch 1.13, whatever spells normalized_shape") {
    for (run how : {run::eager, run::jit}) {
        INFO((how == run::eager ? "eager" : "jit"));
        const auto ys = call(
            how,
            [&](auto x, auto w, auto b, auto w2, auto b2) {
                return std::tuple{F::layer_norm(x, 4_c, w, b),
                                  F::layer_norm(x, std::array<std::int64_t, 1>{4}, w, b),
                                  F::layer_norm(x, 4),
                                  F::layer_norm(x, std::tuple{3_c, 4}, w2, b2, 1e-3),
                                  F::layer_norm(x, list(3, 4_c), w2, b2, 1e-3),
                                  F::layer_norm(x, XL.shape(), None, x)};
            },
            XL, WL, BL, WL2, BL2);
        CHECK(difference("layer_norm(XL,[4],WL,BL)/value", std::get<0>(ys)) <= tolerance);
        CHECK(difference("layer_norm(XL,[4],WL,BL)/value", std::get<1>(ys)) <= tolerance);
        CHECK(difference("layer_norm(XL,[4])/value", std::get<2>(ys)) <= tolerance);
        CHECK(difference("layer_norm(XL,[3,4],WL2,BL2,eps=0.001)/value", std::get<3>(ys)) <=
              tolerance);
        CHECK(difference("layer_norm(XL,[3,4],WL2,BL2,eps=0.001)/value", std::get<4>(ys)) <=
              tolerance);
        CHECK(difference("layer_norm(XL,[2,3,4],bias=XL)/value", std::get<5>(ys)) <= tolerance);
    }
}

TEST_CASE("nn::LayerNorm: PyTorch's parameters, its functional form") {
    nn::LayerNorm<3, 4> ln;
    STATIC_REQUIRE(std::is_same_v<decltype(ln.weight), decltype(empty<float>(3_c, 4_c))>);
    CHECK(repr(ln.state_dict().keys()) == "['weight', 'bias']");
    CHECK(ln.eps == 1e-5);
    CHECK(max(abs(ln.weight - 1.0f)).item() == 0.0f);
    CHECK(max(abs(ln.bias)).item() == 0.0f);
    nn::basic_layer_norm<double, true, 3, 4> affine(1e-3);
    affine.weight.copy_(WL2);
    affine.bias.copy_(BL2);
    CHECK(difference("layer_norm(XL,[3,4],WL2,BL2,eps=0.001)/value", affine(XL)) <= tolerance);
    nn::basic_layer_norm<double, false, 4> plain;
    CHECK(repr(plain.parameters().keys()) == "[]");
    CHECK(difference("layer_norm(XL,[4])/value", plain(XL)) <= tolerance);
    // a run-time batch size
    const auto xd = input("XL", std::int64_t{2}, 3_c, 4_c);
    CHECK(difference("layer_norm(XL,[4])/value", plain(xd)) <= tolerance);
}

TEST_CASE("batch_norm's gradients in training and evaluation, both modes") {
    check_gradients<0, 1, 2>(
        "bn_train_4d", {"X4", "W", "B"},
        [](auto x, auto w, auto b) {
            return (F::batch_norm(x, RM.clone(), RV.clone(), w, b, true, 0.1, 1e-3) * C4).sum();
        },
        X4, W, B);
    check_gradients<0, 1>(
        "bn_train_2d", {"X2", "W"},
        [](auto x, auto w) { return (F::batch_norm(x, None, None, w, None, true) * C2).sum(); }, X2,
        W);
    check_gradients<0, 1, 2>(
        "bn_eval_3d", {"X3", "W", "B"},
        [](auto x, auto w, auto b) { return (F::batch_norm(x, RM, RV, w, b) * C3).sum(); }, X3, W,
        B);
    check_gradients<0>(
        "bn_train_3d_plain", {"X3"},
        [](auto x) { return (F::batch_norm(x, None, None, None, None, true) * C3).sum(); }, X3);
}

TEST_CASE("layer_norm's gradients, both modes") {
    check_gradients<0, 1, 2>(
        "ln", {"XL", "WL", "BL"},
        [](auto x, auto w, auto b) { return (F::layer_norm(x, 4_c, w, b) * CL).sum(); }, XL, WL,
        BL);
    check_gradients<0, 1>(
        "ln_2d", {"XL", "WL2"},
        [](auto x, auto w) {
            return (F::layer_norm(x, std::tuple{3_c, 4_c}, w, None, 1e-3) * CL).sum();
        },
        XL, WL2);
    check_gradients<0>(
        "ln_plain", {"XL"}, [](auto x) { return (F::layer_norm(x, 4_c) * CL).sum(); }, XL);
}

TEST_CASE("the float32 kernels on larger inputs: runs longer than a lane block, threads") {
    Generator gen(3);
    // [N, C, H, W] with H * W = 1600 > the kernels' 1024-element blocks; an offset so that the
    // mean is not 0
    const auto x = randn<float>(6_c, 4_c, 40_c, 40_c, gen) * 3.0f + 5.0f;
    const auto w = randn<float>(4_c, gen);
    const auto b = randn<float>(4_c, gen);
    auto rm = zeros<float>(4_c);
    auto rv = ones<float>(4_c);
    const auto y = F::batch_norm(x, rm, rv, w, b, true);
    // the same by hand, in double
    const auto xd = x.to<double>();
    const auto mean = xd.mean(std::tuple{0_c, 2_c, 3_c}, True);
    const auto var = (xd - mean).square().mean(std::tuple{0_c, 2_c, 3_c}, True);
    const auto want = (xd - mean) / sqrt(var + 1e-5) * w.to<double>().reshape(4, 1, 1) +
                      b.to<double>().reshape(4, 1, 1);
    CHECK(max(abs(y.to<double>() - want)).item() < 2e-5);
    const double n = 6 * 40 * 40;
    const auto want_rv = 0.9 + 0.1 * var.flatten() * (n / (n - 1));
    CHECK(max(abs(rv.to<double>() - want_rv)).item() < 1e-5);
    CHECK(max(abs(rm.to<double>() - 0.1 * mean.flatten())).item() < 1e-5);
    // the backward kernels against the double ones
    const auto c = randn<float>(6_c, 4_c, 40_c, 40_c, gen);
    auto f = [&](auto in, auto ww) {
        using U = typename decltype(in)::value_type;
        return (F::batch_norm(in, None, None, ww, b.to<U>(), true) * c.to<U>()).sum();
    };
    const auto g = grad(f, std::tuple{0_c, 1_c})(x, w);
    const auto gd = grad(f, std::tuple{0_c, 1_c})(xd, w.to<double>());
    CHECK(max(abs(std::get<0>(g).to<double>() - std::get<0>(gd))).item() < 1e-5);
    CHECK(max(abs(std::get<1>(g).to<double>() - std::get<1>(gd))).item() < 1e-2);

    // layer norm over rows of 2000
    const auto xl = randn<float>(8_c, 2000_c, gen) + 10.0f;
    const auto yl = F::layer_norm(xl, 2000_c);
    const auto xld = xl.to<double>();
    const auto ml = xld.mean(1_c, True);
    const auto wantl = (xld - ml) / sqrt((xld - ml).square().mean(1_c, True) + 1e-5);
    CHECK(max(abs(yl.to<double>() - wantl)).item() < 1e-4);
}

TEST_CASE("a traced batch_norm or layer_norm is one node") {
    auto rm = RM.clone();
    auto rv = RV.clone();
    const std::string ir =
        dump(jit([&](auto x, auto w, auto b) {
                 return F::layer_norm(F::batch_norm(x, rm, rv, w, b, true), 5_c) + 1.0;
             }),
             X3, W, B);
    INFO(ir);
    CHECK(ir.find("batch_norm(") != std::string::npos);
    CHECK(ir.find("layer_norm(") != std::string::npos);
    CHECK(ir.find("running_mean=[3], running_var=[3], momentum=0.1, True, 1e-05") !=
          std::string::npos);
    CHECK(ir.find("normalized_shape=[5], 1e-05") != std::string::npos);
}

TEST_CASE("batch_norm's and layer_norm's run-time errors are PyTorch's, eagerly and under jit") {
    const auto x = zeros<double>(std::int64_t{4}, std::int64_t{3});
    const auto six = zeros<double>(std::int64_t{6});
    for (run how : {run::eager, run::jit}) {
        INFO((how == run::eager ? "eager" : "jit"));
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [](auto in) { return F::batch_norm(in, None, None); }, x);
              }) == "running_mean must be defined in evaluation mode");
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [&](auto in) { return F::batch_norm(in, six, RV); }, x);
              }) == "running_mean should contain 3 elements not 6");
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [&](auto in) { return F::batch_norm(in, RM, six); }, x);
              }) == "running_var should contain 3 elements not 6");
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [&](auto in) { return F::batch_norm(in, None, None, six, None, true); },
                      x);
              }) == "weight should contain 3 elements not 6");
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [&](auto in) { return F::batch_norm(in, None, None, None, six, true); },
                      x);
              }) == "bias should contain 3 elements not 6");
        CHECK(error_of<ValueError>([&] {
                  call(
                      how, [&](auto in) { return F::batch_norm(in, RM, RV, W, B, true); },
                      zeros<double>(std::int64_t{1}, std::int64_t{3}));
              }) == "Expected more than 1 value per channel when training, got input size "
                    "torch.Size([1, 3])");
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [](auto in) { return F::layer_norm(in, 5); },
                      zeros<double>(std::int64_t{2}, std::int64_t{3}, std::int64_t{4}));
              }) == "Given normalized_shape=[5], expected input with shape [*, 5], but got input "
                    "of size[2, 3, 4]");
        CHECK(error_of<RuntimeError>([&] {
                  call(
                      how, [&](auto in) { return F::layer_norm(in, 4, six); },
                      zeros<double>(std::int64_t{2}, std::int64_t{4}));
              }) == "Expected weight to be of same shape as normalized_shape, but got weight of "
                    "shape [6] and normalized_shape = [4]");
    }
    // the evaluation mode with one sample is fine (running statistics)
    const auto one = F::batch_norm(zeros<double>(1_c, 3_c), RM, RV);
    CHECK(one.numel() == 3);
}
