// nn::functional's losses against PyTorch 1.13 (tests/nn/reference/loss_reference.txt, written by
// make_loss_reference.py): every loss and option, eagerly and under jit (each group of cases is
// one jit function returning a tuple); float32 too; every run-time error's type and text, eagerly
// and, for the checks a traced graph runs, under jit; the traced cross_entropy is one node.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "reference/loss_reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;
using test_errors::error_of;

namespace {

using loss_reference::input;
using loss_reference::record;
using loss_reference::values;

/// Each result of a group against its reference: "<call>/value".
template <class Results>
void check_results(const std::vector<std::string>& calls, const Results& results,
                   double tolerance) {
    REQUIRE(calls.size() == std::tuple_size_v<Results>);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
        (
            [&] {
                INFO(calls[I]);
                const auto got = values(std::get<I>(results));
                CHECK(reference::max_relative_difference(record(calls[I] + "/value"), got) <=
                      tolerance);
            }(),
            ...);
    }
    (std::make_index_sequence<std::tuple_size_v<Results>>{});
}

/// A group of cases, f returning one result per call: eagerly, then as one traced graph.
template <class Fn, class... A>
void check_group(const std::vector<std::string>& calls, const Fn& f, const A&... args) {
    {
        INFO("eager");
        check_results(calls, f(args...), reference::tolerance);
    }
    {
        INFO("jit");
        check_results(calls, jit(f)(args...), reference::tolerance);
    }
}

// The inputs (shapes as make_loss_reference.py's; static extents for some, dynamic for others, so
// that both kinds of checks run).
const auto X = input("X", 4_c, 5_c);
const auto T = input<std::int64_t>("T", 4_c);
const auto TI = input<std::int64_t>("TI", 4);
const auto TN = input<std::int64_t>("TN", 4);
const auto W = input("W", 5);
const auto P = input("P", 4_c, 5_c);
const auto X3 = input("X3", 2, 3, 4);
const auto T3 = input<std::int64_t>("T3", 2, 4);
const auto X1 = input("X1", 5_c);
const auto T1 = input<std::int64_t>("T1");
const auto A = input("A", 3, 4);
const auto B = input("B", 3, 4);
const auto C = input("C", 4);
const auto PR = input("PR", 3_c, 4_c);
const auto Q = input("Q", 3_c, 4_c);
const auto BW = input("BW", 4_c);
const auto PW = input("PW", 4);
const auto L = input("L", 3, 4);

} // namespace

TEST_CASE("cross_entropy with class indices matches PyTorch 1.13", "[nn][functional]") {
    const auto W3 = W.slice(0, 0, 3);
    check_group(
        {"cross_entropy(X,T)", "cross_entropy(X,T,reduction='sum')",
         "cross_entropy(X,T,reduction='none')", "cross_entropy(X,TI)",
         "cross_entropy(X,T,weight=W)", "cross_entropy(X,TI,weight=W,reduction='none')",
         "cross_entropy(X,T,ignore_index=2)", "cross_entropy(X,T,label_smoothing=0.1)",
         "cross_entropy(X,TI,label_smoothing=0.1)",
         "cross_entropy(X,TI,weight=W,label_smoothing=0.2)",
         "cross_entropy(X,TI,weight=W,reduction='sum',label_smoothing=0.2)",
         "cross_entropy(X,TI,weight=W,reduction='none',label_smoothing=0.2)",
         "cross_entropy(X,T,label_smoothing=-0.5)", "cross_entropy(X,TN)",
         "cross_entropy(X,TN,reduction='sum')"},
        [&](auto x, auto t, auto ti, auto tn) {
            return std::tuple{
                F::cross_entropy(x, t),
                F::cross_entropy(x, t, "sum"_s),
                F::cross_entropy(x, t, "none"_s),
                F::cross_entropy(x, ti),
                F::cross_entropy(x, t, {.weight = W}),
                F::cross_entropy(x, ti, "none"_s, {.weight = W}),
                F::cross_entropy(x, t, {.ignore_index = 2}),
                F::cross_entropy(x, t, {.label_smoothing = 0.1}),
                F::cross_entropy(x, ti, {.label_smoothing = 0.1}),
                F::cross_entropy(x, ti, {.weight = W, .label_smoothing = 0.2}),
                F::cross_entropy(x, ti, "sum"_s, {.weight = W, .label_smoothing = 0.2}),
                F::cross_entropy(x, ti, "none"_s, {.weight = W, .label_smoothing = 0.2}),
                F::cross_entropy(x, t, {.label_smoothing = -0.5}),
                F::cross_entropy(x, tn),
                F::cross_entropy(x, tn, "sum"_s)};
        },
        X, T, TI, TN);
    check_group(
        {"cross_entropy(X3,T3)", "cross_entropy(X3,T3,weight=W[:3],reduction='none')",
         "cross_entropy(X3,T3,label_smoothing=0.25)", "cross_entropy(X1,T1)",
         "cross_entropy(X1,T1,weight=W,reduction='none',label_smoothing=0.1)"},
        [&](auto x3, auto t3, auto x1, auto t1) {
            return std::tuple{
                F::cross_entropy(x3, t3), F::cross_entropy(x3, t3, "none"_s, {.weight = W3}),
                F::cross_entropy(x3, t3, {.label_smoothing = 0.25}), F::cross_entropy(x1, t1),
                F::cross_entropy(x1, t1, "none"_s, {.weight = W, .label_smoothing = 0.1})};
        },
        X3, T3, X1, T1);
}

TEST_CASE("cross_entropy with class probabilities and nll_loss match PyTorch 1.13",
          "[nn][functional]") {
    const auto W3 = W.slice(0, 0, 3);
    const auto LS = log_softmax(X, 1_c);
    check_group(
        {"cross_entropy(X,P)", "cross_entropy(X,P,reduction='sum')",
         "cross_entropy(X,P,weight=W,reduction='none',label_smoothing=0.3)",
         "cross_entropy(X,P,weight=W,label_smoothing=0.3)"},
        [&](auto x, auto p) {
            return std::tuple{
                F::cross_entropy(x, p), F::cross_entropy(x, p, "sum"_s),
                F::cross_entropy(x, p, "none"_s, {.weight = W, .label_smoothing = 0.3}),
                F::cross_entropy(x, p, {.weight = W, .label_smoothing = 0.3})};
        },
        X, P);
    check_group(
        {"nll_loss(LS,T)", "nll_loss(X,TI,weight=W)", "nll_loss(X,TI,weight=W,reduction='none')",
         "nll_loss(X,T,ignore_index=0,reduction='sum')", "nll_loss(X3,T3,weight=W[:3])",
         "nll_loss(X1,T1)"},
        [&](auto ls, auto x, auto t, auto ti, auto x3, auto t3, auto x1, auto t1) {
            return std::tuple{F::nll_loss(ls, t),
                              F::nll_loss(x, ti, {.weight = W}),
                              F::nll_loss(x, ti, "none"_s, {.weight = W}),
                              F::nll_loss(x, t, "sum"_s, {.ignore_index = 0}),
                              F::nll_loss(x3, t3, {.weight = W3}),
                              F::nll_loss(x1, t1)};
        },
        LS, X, T, TI, X3, T3, X1, T1);
}

TEST_CASE("mse_loss, l1_loss, smooth_l1_loss and huber_loss match PyTorch 1.13",
          "[nn][functional]") {
    check_group(
        {"mse_loss(A,B)", "mse_loss(A,B,reduction='none')", "mse_loss(A,C,reduction='sum')",
         "l1_loss(A,B)", "l1_loss(A,B,reduction='none')", "smooth_l1_loss(A,B)",
         "smooth_l1_loss(A,B,reduction='none',beta=0.5)",
         "smooth_l1_loss(A,B,reduction='sum',beta=0.0)", "huber_loss(A,B)",
         "huber_loss(A,B,reduction='none',delta=0.5)", "huber_loss(A,B,reduction='sum',delta=2.0)"},
        [](auto a, auto b, auto c) {
            return std::tuple{F::mse_loss(a, b),
                              F::mse_loss(a, b, "none"_s),
                              F::mse_loss(a, c, "sum"_s),
                              F::l1_loss(a, b),
                              F::l1_loss(a, b, "none"_s),
                              F::smooth_l1_loss(a, b),
                              F::smooth_l1_loss(a, b, "none"_s, {.beta = 0.5}),
                              F::smooth_l1_loss(a, b, "sum"_s, {.beta = 0.0}),
                              F::huber_loss(a, b),
                              F::huber_loss(a, b, "none"_s, {.delta = 0.5}),
                              F::huber_loss(a, b, "sum"_s, {.delta = 2.0})};
        },
        A, B, C);
}

TEST_CASE("binary_cross_entropy and binary_cross_entropy_with_logits match PyTorch 1.13",
          "[nn][functional]") {
    check_group(
        {"binary_cross_entropy(PR,Q)", "binary_cross_entropy(PR,Q,reduction='none')",
         "binary_cross_entropy(PR,Q,weight=BW,reduction='sum')"},
        [&](auto pr, auto q) {
            return std::tuple{F::binary_cross_entropy(pr, q),
                              F::binary_cross_entropy(pr, q, "none"_s),
                              F::binary_cross_entropy(pr, q, "sum"_s, {.weight = BW})};
        },
        PR, Q);
    check_group(
        {"binary_cross_entropy_with_logits(L,Q)",
         "binary_cross_entropy_with_logits(L,Q,reduction='none')",
         "binary_cross_entropy_with_logits(L,Q,weight=BW,reduction='sum')",
         "binary_cross_entropy_with_logits(L,Q,reduction='none',pos_weight=PW)",
         "binary_cross_entropy_with_logits(L,Q,weight=BW,pos_weight=PW)"},
        [&](auto l, auto q) {
            return std::tuple{
                F::binary_cross_entropy_with_logits(l, q),
                F::binary_cross_entropy_with_logits(l, q, "none"_s),
                F::binary_cross_entropy_with_logits(l, q, "sum"_s, {.weight = BW}),
                F::binary_cross_entropy_with_logits(l, q, "none"_s, {.pos_weight = PW}),
                F::binary_cross_entropy_with_logits(l, q, {.weight = BW, .pos_weight = PW})};
        },
        L, Q);
}

TEST_CASE("the losses of float32 tensors agree with PyTorch's float64 to float precision",
          "[nn][functional]") {
    const auto Xf = input<float>("X", 4_c, 5_c);
    const auto Pf = input<float>("P", 4_c, 5_c);
    const auto Wf = input<float>("W", 5);
    const auto Af = input<float>("A", 3, 4);
    const auto Bf = input<float>("B", 3, 4);
    const auto Lf = input<float>("L", 3, 4);
    const auto Qf = input<float>("Q", 3, 4);
    auto f = [&](auto x, auto ti, auto p, auto a, auto b, auto l, auto q) {
        return std::tuple{F::cross_entropy(x, ti, {.weight = Wf, .label_smoothing = 0.2}),
                          F::cross_entropy(x, p), F::smooth_l1_loss(a, b),
                          F::binary_cross_entropy_with_logits(l, q, "none"_s)};
    };
    const std::vector<std::string> calls{"cross_entropy(X,TI,weight=W,label_smoothing=0.2)",
                                         "cross_entropy(X,P)", "smooth_l1_loss(A,B)",
                                         "binary_cross_entropy_with_logits(L,Q,reduction='none')"};
    check_results(calls, f(Xf, TI, Pf, Af, Bf, Lf, Qf), 1e-5);
    check_results(calls, jit(f)(Xf, TI, Pf, Af, Bf, Lf, Qf), 1e-5);
    static_assert(std::is_same_v<std::tuple_element_t<3, decltype(f(Xf, TI, Pf, Af, Bf, Lf, Qf))>,
                                 Tensor<float, shape<std::int64_t, std::int64_t>>>);
}

TEST_CASE("the reduction sets the result's shape type", "[nn][functional]") {
    static_assert(std::is_same_v<decltype(F::cross_entropy(X, T)), Tensor<double, shape<>>>);
    static_assert(
        std::is_same_v<decltype(F::cross_entropy(X, T, "none"_s)), Tensor<double, shape<int_<4>>>>);
    static_assert(std::is_same_v<decltype(F::cross_entropy(X3, T3, "none"_s)),
                                 Tensor<double, shape<std::int64_t, std::int64_t>>>);
    static_assert(
        std::is_same_v<decltype(F::cross_entropy(X1, T1, "none"_s)), Tensor<double, shape<>>>);
    static_assert(std::is_same_v<decltype(F::mse_loss(PR, Q, "none"_s)),
                                 Tensor<double, shape<int_<3>, int_<4>>>>);
    static_assert(std::is_same_v<decltype(F::binary_cross_entropy(PR, Q, "none"_s)),
                                 Tensor<double, shape<int_<3>, int_<4>>>>);
    CHECK(F::binary_cross_entropy(PR, Q, "sum"_s).dim() == 0);
}

TEST_CASE("traced, cross_entropy is one node: no probabilities or log-probabilities",
          "[nn][functional]") {
    auto f = jit([&](auto x, auto t) {
        return F::cross_entropy(x, t, {.weight = W, .label_smoothing = 0.1});
    });
    const std::string ir = dump(f, X, T);
    INFO(ir);
    CHECK(ir.find("cross_entropy(%0, %1, -100, 0.1, weight=[5]) : float64[]") != std::string::npos);
    for (const char* op : {"softmax", "exp", "log", "sub", "reduce"})
        CHECK(ir.find(op) == std::string::npos);
}

TEST_CASE("the class losses' run-time errors are PyTorch's", "[nn][functional]") {
    const auto x = zeros<double>(4, 5);
    auto with_target = [](std::initializer_list<std::int64_t> v) {
        return from_vector(std::vector<std::int64_t>(v));
    };
    CHECK(error_of<IndexError>([&] {
              F::cross_entropy(x, with_target({1, 10, 0, 0}));
          }) == "Target 10 is out of bounds.");
    CHECK(error_of<IndexError>([&] {
              F::nll_loss(x, with_target({1, -1, 0, 0}));
          }) == "Target -1 is out of bounds.");
    CHECK(error_of<IndexError>([&] {
              jit([](auto v, auto t) { return F::cross_entropy(v, t); })(x,
                                                                         with_target({5, 0, 0, 0}));
          }) == "Target 5 is out of bounds.");
    CHECK(error_of<ValueError>([&] {
              F::cross_entropy(x, with_target({1, 0, 0}));
          }) == "Expected input batch_size (4) to match target batch_size (3).");
    CHECK(error_of<ValueError>([&] {
              jit([](auto v, auto t) { return F::nll_loss(v, t, "none"_s); })(
                  x, with_target({1, 0, 0}));
          }) == "Expected input batch_size (4) to match target batch_size (3).");
    CHECK(error_of<RuntimeError>([&] {
              F::cross_entropy(zeros<double>(2, 3, 4), zeros<std::int64_t>(2, 5));
          }) == "Expected target size [2, 4], got [2, 5]");
    const std::string weight_text = "weight tensor should be defined either for all 5 classes or "
                                    "no classes but got weight tensor of shape: [4]";
    CHECK(error_of<RuntimeError>([&] {
              F::cross_entropy(x, with_target({1, 0, 0, 0}), {.weight = ones<double>(4)});
          }) == weight_text);
    CHECK(error_of<RuntimeError>([&] {
              F::cross_entropy(x, zeros<double>(4, 5), {.weight = ones<double>(4)});
          }) == "cross_entropy: " + weight_text);
    CHECK(error_of<RuntimeError>([&] {
              F::cross_entropy(x, with_target({1, 0, 0, 0}), {.label_smoothing = 1.5});
          }) == "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
    CHECK(error_of<RuntimeError>([&] {
              F::cross_entropy(x, zeros<double>(4, 5), {.ignore_index = 0});
          }) == "ignore_index is not supported for floating point target");
    CHECK(error_of<RuntimeError>([&] { F::cross_entropy(x, zeros<double>(4, 3)); }) ==
          "0D or 1D target tensor expected, multi-target not supported");
    CHECK(error_of<RuntimeError>([&] {
              F::cross_entropy(zeros<double>(2, 3, 4), zeros<double>(2, 3, 5));
          }) == "Expected target size [2, 4], got [2, 3, 5]");
    CHECK(error_of<RuntimeError>([&] { F::cross_entropy(zeros<double>(5), zeros<double>(4)); }) ==
          "size mismatch (got input: [5], target: [4])");
}

TEST_CASE("the elementwise losses' run-time errors are PyTorch's", "[nn][functional]") {
    const auto x = full<double>(3, 4, 0.5);
    const auto t = zeros<double>(4, 3);
    CHECK(error_of<ValueError>([&] { F::binary_cross_entropy(x, t); }) ==
          "Using a target size (torch.Size([4, 3])) that is different to the input size "
          "(torch.Size([3, 4])) is deprecated. Please ensure they have the same size.");
    CHECK(error_of<ValueError>([&] {
              jit([](auto v, auto u) { return F::binary_cross_entropy(v, u); })(x, t);
          }) == "Using a target size (torch.Size([4, 3])) that is different to the input size "
                "(torch.Size([3, 4])) is deprecated. Please ensure they have the same size.");
    CHECK(error_of<ValueError>([&] { F::binary_cross_entropy_with_logits(x, t); }) ==
          "Target size (torch.Size([4, 3])) must be the same as input size (torch.Size([3, 4]))");
    CHECK(error_of<ValueError>([&] {
              jit([](auto v, auto u) { return F::binary_cross_entropy_with_logits(v, u); })(x, t);
          }) == "Target size (torch.Size([4, 3])) must be the same as input size "
                "(torch.Size([3, 4]))");
    const auto y = zeros<double>(3, 4);
    auto outside = x.clone();
    outside.data()[5] = 1.5;
    CHECK(error_of<RuntimeError>([&] { F::binary_cross_entropy(outside, y); }) ==
          "all elements of input should be between 0 and 1");
    outside.data()[5] = std::numeric_limits<double>::quiet_NaN();
    CHECK(error_of<RuntimeError>([&] {
              jit([](auto v, auto u) { return F::binary_cross_entropy(v, u); })(outside, y);
          }) == "all elements of input should be between 0 and 1");
    CHECK(error_of<RuntimeError>([&] {
              F::binary_cross_entropy(x, y, {.weight = ones<double>(3)});
          }) == "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
                "dimension 1");
    CHECK(error_of<RuntimeError>([&] {
              F::binary_cross_entropy_with_logits(x, y, {.pos_weight = ones<double>(3)});
          }) == "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                "dimension 1");
    CHECK(error_of<RuntimeError>([&] {
              F::binary_cross_entropy(zeros<double>(1, 4), zeros<double>(1, 4),
                                      {.weight = ones<double>(3, 4)});
          }) == "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
    CHECK(error_of<RuntimeError>([&] { F::smooth_l1_loss(x, y, {.beta = -1.0}); }) ==
          "smooth_l1_loss does not support negative values for beta.");
    CHECK(error_of<RuntimeError>([&] { F::huber_loss(x, y, {.delta = 0.0}); }) ==
          "huber_loss does not support non-positive values for delta.");
    CHECK(error_of<RuntimeError>([&] { F::mse_loss(zeros<double>(3), zeros<double>(2)); }) ==
          "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
          "dimension 0");
}
