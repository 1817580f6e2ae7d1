// nn::functional::dropout and nn::Dropout: PyTorch's semantics (kept elements scaled by
// 1 / (1 - p), p = 1 gives x * 0, the identity in evaluation or with p = 0, the ValueError), masks
// drawn from a Generator and the same in every mode, in the forward pass and in its derivative,
// and a mask per call (two traced dropouts are not merged). nn::functional::embedding and
// nn::Embedding against PyTorch 1.13 (tests/nn/reference/norm_reference.txt): values, the
// weight's gradient (padding_idx's row none) in both autodiff modes, initialisation, errors.

#include <cmath>
#include <cstdint>
#include <limits>
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

/// Restores GRAPH_MODE when a test leaves.
struct graph_mode_after {
    ~graph_mode_after() { set_context(GRAPH_MODE); }
};

} // namespace

TEST_CASE("dropout keeps 1 - p of the elements, scaled by 1 / (1 - p), as PyTorch's") {
    const auto x = ones<double>(200_c, 50_c);
    Generator gen(5);
    const auto y = F::dropout(x, 0.3, true, gen);
    STATIC_REQUIRE(std::is_same_v<decltype(y), const std::remove_cvref_t<decltype(x)>>);
    std::int64_t kept = 0;
    bool only_two_values = true;
    for (std::int64_t i = 0; i < y.numel(); ++i) {
        const double v = y.data()[i];
        kept += v != 0.0;
        only_two_values = only_two_values && (v == 0.0 || v == 1.0 / 0.7);
    }
    CHECK(only_two_values);
    // 10000 draws: the kept fraction's standard deviation is sqrt(0.21 / 10000) = 0.0046
    CHECK(std::abs(static_cast<double>(kept) / 10000.0 - 0.7) < 0.02);
    // the scale in the tensor's type, PyTorch's noise.div_(1 - p)
    Generator gen32(5);
    const auto y32 = F::dropout(ones<float>(100_c), 0.3, true, gen32);
    CHECK(max(y32).item() == 1.0f / static_cast<float>(1.0 - 0.3));

    // a seed gives the same mask; another seed another one; each call draws a new one
    Generator same(5), other(6);
    CHECK(max(abs(F::dropout(x, 0.3, true, same) - y)).item() == 0.0);
    CHECK(max(abs(F::dropout(x, 0.3, true, other) - y)).item() > 0.0);
    CHECK(max(abs(F::dropout(x, 0.3, true, same) - y)).item() > 0.0);
    // the default generator, reseeded by manual_seed
    manual_seed(3);
    const auto first = F::dropout(x);
    manual_seed(3);
    CHECK(max(abs(F::dropout(x) - first)).item() == 0.0);
    CHECK(first.sum().item() > 0.0);
}

TEST_CASE("dropout in evaluation or with p = 0 is the input itself, with p = 1 the input times 0") {
    const auto x = tensor<float>({1.0f, -2.0f, std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN()});
    Generator gen(1);
    const auto eval = F::dropout(x, 0.5, false, gen);
    CHECK(eval.data() == x.data());
    CHECK(F::dropout(x, 0.0, true, gen).data() == x.data());
    const auto none_kept = F::dropout(x, 1.0, true, gen);
    CHECK(none_kept(0) == 0.0f);
    CHECK(none_kept(1) == 0.0f);
    CHECK(std::isnan(none_kept(2))); // inf * 0, as PyTorch's
    CHECK(std::isnan(none_kept(3)));
    // evaluation draws nothing from the generator
    Generator a(9), b(9);
    (void)F::dropout(x, 0.5, false, a);
    CHECK(a.next_u64() == b.next_u64());
}

TEST_CASE("dropout's probability outside 0 to 1 is PyTorch's ValueError") {
    const auto x = ones<float>(3_c);
    CHECK(error_of<ValueError>([&] { (void)F::dropout(x, 1.5); }) ==
          "dropout probability has to be between 0 and 1, but got 1.5");
    CHECK(error_of<ValueError>([&] { (void)F::dropout(x, -0.1); }) ==
          "dropout probability has to be between 0 and 1, but got -0.1");
    CHECK(error_of<ValueError>([&] { nn::Dropout bad(2.0); }) ==
          "dropout probability has to be between 0 and 1, but got 2.0");
    CHECK(error_of<ValueError>([&] { (void)jit([](auto v) { return F::dropout(v, 1.5); })(x); }) ==
          "dropout probability has to be between 0 and 1, but got 1.5");
}

TEST_CASE("dropout's mask is the same eagerly, traced and on the tape, forward and backward") {
    const graph_mode_after restore;
    const auto x = autodiff_test::random_tensor(1, 0.5, 2.0, 8_c, 9_c);
    const auto c = autodiff_test::random_tensor(2, -1.0, 1.0, 8_c, 9_c);
    Generator gen(11);
    auto f = [&](auto v) { return (F::dropout(v, 0.4, true, gen) * c).sum(); };
    gen.manual_seed(11);
    const auto eager = F::dropout(x, 0.4, true, gen);
    // mask / (1 - p): what the forward pass multiplied x by
    const auto scale = eager / x;
    gen.manual_seed(11);
    CHECK(max(abs(jit([&](auto v) { return F::dropout(v, 0.4, true, gen); })(x) - eager)).item() ==
          0.0);
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        gen.manual_seed(11);
        const auto [value, g] = value_and_grad(f)(x);
        CHECK(std::abs(value.item() - (eager * c).sum().item()) < 1e-12);
        // the derivative, g * mask / (1 - p), with the forward pass's mask
        CHECK(max(abs(g - scale * c)).item() < 1e-12);
    }
    // evaluation: the identity, and its derivative
    set_context(GRAPH_MODE);
    const auto g_eval = grad([&](auto v) { return (F::dropout(v, 0.4, false, gen) * c).sum(); })(x);
    CHECK(max(abs(g_eval - c)).item() == 0.0);
}

TEST_CASE("two dropouts of the same p draw two masks, traced too (their nodes are not merged)") {
    const auto x = ones<double>(64_c);
    Generator gen(21);
    const auto eager_first = F::dropout(x, 0.5, true, gen);
    const auto eager_second = F::dropout(x, 0.5, true, gen);
    CHECK(max(abs(eager_first - eager_second)).item() > 0.0);
    gen.manual_seed(21);
    const auto both = jit([&](auto v) {
        return std::tuple{F::dropout(v, 0.5, true, gen), F::dropout(v, 0.5, true, gen),
                          F::dropout(v, 0.5, true, gen) + F::dropout(v, 0.5, true, gen)};
    })(x);
    CHECK(max(abs(std::get<0>(both) - eager_first)).item() == 0.0);
    CHECK(max(abs(std::get<1>(both) - eager_second)).item() == 0.0);
    CHECK(max(abs(std::get<2>(both) - std::get<0>(both) * 2.0)).item() > 0.0);
}

TEST_CASE("nn::Dropout: p, the module's mode, its own generator") {
    nn::Dropout half;
    CHECK(half.p == 0.5);
    CHECK(half.training);
    CHECK(repr(half.parameters().keys()) == "[]");
    Generator gen(4), same(4);
    nn::Dropout seeded(0.25, gen);
    const auto x = ones<float>(10_c, 10_c);
    const auto y = seeded(x);
    CHECK(max(abs(y - F::dropout(x, 0.25, true, same))).item() == 0.0f);
    seeded.eval();
    CHECK(seeded(x).data() == x.data());
    seeded.train();
    CHECK(max(abs(seeded(x) - F::dropout(x, 0.25, true, same))).item() == 0.0f);
}

TEST_CASE("embedding matches PyTorch 1.13, eagerly and traced") {
    const auto EW = input("EW", 5_c, 3_c);
    const auto EI = input<std::int64_t>("EI", 2_c, 3_c);
    for (int traced : {0, 1}) {
        INFO((traced ? "jit" : "eager"));
        auto f = [](auto i, auto w) {
            return std::tuple{F::embedding(i, w), F::embedding(i[0], w, 1)};
        };
        const auto ys = traced ? jit(f)(EI, EW) : f(EI, EW);
        STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(ys))>,
                                      Tensor<double, shape<int_<2>, int_<3>, int_<3>>>>);
        CHECK(difference("embedding(EI,EW)/value", std::get<0>(ys)) == 0.0);
        CHECK(difference("embedding(EI[0],EW,padding_idx=1)/value", std::get<1>(ys)) == 0.0);
    }
    // int32 indices, a 0-dim index, a run-time sized weight
    const auto w = input("EW", std::int64_t{5}, std::int64_t{3});
    const auto row = F::embedding(tensor<std::int32_t>({4, 0}), w);
    CHECK(max(abs(row[0] - w[4])).item() == 0.0);
    const auto one = F::embedding(full(shape<>{}, std::int64_t{2}), w);
    STATIC_REQUIRE(decltype(one)::rank == 1);
    CHECK(max(abs(one - w[2])).item() == 0.0);
}

TEST_CASE("embedding's gradient for the weight: index_add of the rows, none for padding_idx") {
    const auto EW = input("EW", 5_c, 3_c);
    const auto EI = input<std::int64_t>("EI", 2_c, 3_c);
    const auto CE = input("CE", 2_c, 3_c, 3_c);
    // (with padding_idx the padding row's gradient is zero by definition, not the function's
    // slope: no finite differences)
    auto check = [&](const std::string& name, bool finite_differences, const auto& f) {
        autodiff_test::for_each_gradient<0>(
            f,
            [&](auto, auto, const auto& gradient) {
                CHECK(difference("grad/" + name + "/dEW", gradient) <= 1e-12);
                if (finite_differences)
                    autodiff_test::require_close(gradient,
                                                 autodiff_test::numeric_gradient<0>(f, EW));
            },
            EW);
    };
    check("emb", true, [&](auto w) { return (F::embedding(EI, w) * CE).sum(); });
    check("emb_padding", false, [&](auto w) { return (F::embedding(EI, w, -4) * CE).sum(); });
}

TEST_CASE("embedding's errors are PyTorch's, eagerly and traced") {
    const auto w = zeros<float>(3_c, 2_c);
    for (int traced : {0, 1}) {
        INFO((traced ? "jit" : "eager"));
        auto run = [&](const auto& indices, auto padding) {
            auto f = [&](auto i) { return F::embedding(i, w, padding); };
            return traced ? jit(f)(indices) : f(indices);
        };
        CHECK(error_of<IndexError>([&] {
                  run(tensor<std::int64_t>({0, 5}), None);
              }) == "index out of range in self");
        CHECK(error_of<IndexError>([&] { run(tensor<std::int64_t>({-1}), None); }) ==
              "index out of range in self");
        CHECK(error_of<ValueError>([&] { run(tensor<std::int64_t>({1}), 3); }) ==
              "Padding_idx must be within num_embeddings");
        CHECK(error_of<ValueError>([&] { run(tensor<std::int64_t>({1}), -4); }) ==
              "Padding_idx must be within num_embeddings");
    }
    CHECK(error_of<ValueError>([] { nn::Embedding<3, 2> bad({.padding_idx = 3}); }) ==
          "Padding_idx must be within num_embeddings");
}

TEST_CASE("nn::Embedding: N(0, 1) weights from a Generator, padding_idx's row zeros") {
    Generator gen(7);
    nn::Embedding<1000, 20> emb(gen);
    STATIC_REQUIRE(std::is_same_v<decltype(emb.weight), decltype(empty<float>(1000_c, 20_c))>);
    CHECK(repr(emb.parameters().keys()) == "['weight']");
    CHECK(std::abs(emb.weight.mean().item()) < 0.02);
    CHECK(std::abs(emb.weight.to<double>().square().mean().item() - 1.0) < 0.03);
    Generator same(7);
    nn::Embedding<1000, 20> again(same);
    CHECK(max(abs(again.weight - emb.weight)).item() == 0.0f);

    Generator g2(8);
    nn::Embedding<5, 3, double> padded({.padding_idx = -2}, g2);
    REQUIRE(padded.padding_idx.has_value());
    CHECK(*padded.padding_idx == 3);
    CHECK(max(abs(padded.weight[3])).item() == 0.0);
    CHECK(max(abs(padded.weight[2])).item() > 0.0);
    const auto ids = tensor<std::int64_t>({{3, 1}, {3, 3}});
    CHECK(max(abs(padded(ids) - F::embedding(ids, padded.weight))).item() == 0.0);
    // the padding row gets no gradient through the module either
    const auto g = grad([&](const auto& p) { return nn::functional_call(padded, p, ids).sum(); })(
        padded.parameters());
    CHECK(max(abs(g["weight"_s][3])).item() == 0.0);
    CHECK(max(abs(g["weight"_s][1] - 1.0)).item() == 0.0);
}
