// nn modules: Linear, the activations and Sequential: their parameters (PyTorch's names, shapes,
// default initialisation), forward passes in both modes and under jit, gradients through
// functional_call, and a model trained by an optimiser that holds its parameters.

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/nn/modules.hpp>
#include <staticpy/nn/train_step.hpp>
#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

namespace {

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    return max(abs(a - b)).item();
}

} // namespace

TEST_CASE("str + str is the concatenated compile-time str, as Python's") {
    STATIC_REQUIRE(std::is_same_v<decltype("fc1."_s + "weight"_s),
                                  std::remove_cvref_t<decltype("fc1.weight"_s)>>);
    STATIC_REQUIRE(("a"_s + ""_s) == "a"_s);
    STATIC_REQUIRE(decimal_fixed_string<0>().view() == "0");
    STATIC_REQUIRE(decimal_fixed_string<10>().view() == "10");
    STATIC_REQUIRE(decimal_fixed_string<907>().view() == "907");
}

TEST_CASE("nn::Linear: PyTorch's parameter names, shapes and default initialisation") {
    Generator gen(3);
    nn::Linear<784, 128> fc(gen);
    STATIC_REQUIRE(std::is_same_v<decltype(fc.weight), decltype(empty<float>(128_c, 784_c))>);
    STATIC_REQUIRE(std::is_same_v<decltype(fc.bias), decltype(empty<float>(128_c))>);
    STATIC_REQUIRE(decltype(fc)::in_features == 784);
    STATIC_REQUIRE(decltype(fc)::out_features == 128);
    const auto params = fc.parameters();
    STATIC_REQUIRE(decltype(params)::size() == 2);
    CHECK(repr(params.keys()) == "['weight', 'bias']");
    // the dict holds handles: the layer's own tensors
    CHECK(params["weight"_s].data() == fc.weight.data());
    CHECK(params["bias"_s].data() == fc.bias.data());
    // kaiming_uniform_(a = sqrt(5)) gives U(-1/sqrt(784), 1/sqrt(784)); the bias the same bound
    const double bound = 1.0 / std::sqrt(784.0);
    CHECK(max(abs(fc.weight)).item() <= bound);
    CHECK(max(abs(fc.bias)).item() <= bound);
    // spread over the whole interval: the uniform's standard deviation is bound / sqrt(3)
    const double sd = std::sqrt(((fc.weight - fc.weight.mean()).square()).mean().item());
    CHECK(sd == Approx(bound / std::sqrt(3.0)).epsilon(0.02));
    CHECK(std::abs(fc.weight.mean().item()) < 0.01 * bound);
    CHECK(max(abs(fc.weight)).item() > 0.99 * bound);

    // a seed gives the same layer; another seed another one
    Generator same(3), other(4);
    nn::Linear<784, 128> again(same), different(other);
    CHECK(max_abs_diff(again.weight, fc.weight) == 0.0);
    CHECK(max_abs_diff(again.bias, fc.bias) == 0.0);
    CHECK(max_abs_diff(different.weight, fc.weight) > 0.0);
    // the default constructor draws from the default generator, as PyTorch's layers do
    manual_seed(11);
    nn::Linear<4, 3> a;
    manual_seed(11);
    nn::Linear<4, 3> b;
    CHECK(max_abs_diff(a.weight, b.weight) == 0.0);
    CHECK(max_abs_diff(a.bias, b.bias) == 0.0);
}

TEST_CASE("nn::Linear without bias, and with double parameters") {
    Generator gen(5);
    nn::Linear<3, 2, false> fc(gen);
    const auto params = fc.parameters();
    CHECK(repr(params.keys()) == "['weight']");
    const auto x = tensor<float>({{1.f, 2.f, 3.f}});
    CHECK(max_abs_diff(fc(x), matmul(x, fc.weight.t())) == 0.0);

    nn::Linear<3, 2, true, double> fc64(gen);
    STATIC_REQUIRE(std::is_same_v<decltype(fc64.weight)::value_type, double>);
    const auto x64 = tensor<double>({{1.0, -2.0, 0.5}, {0.0, 1.0, 1.0}});
    CHECK(max_abs_diff(fc64(x64), linear(x64, fc64.weight, fc64.bias)) == 0.0);
}

TEST_CASE("nn::Linear: an input of the wrong run-time size is PyTorch's RuntimeError") {
    Generator gen(1);
    nn::Linear<4, 3> fc(gen);
    const auto x = ones<float>(std::int64_t{2}, std::int64_t{5});
    CHECK_THROWS_MATCHES(fc(x), RuntimeError,
                         Catch::Message("mat1 and mat2 shapes cannot be multiplied (2x5 and 4x3)"));
}

TEST_CASE("nn activations: each is its function, without parameters") {
    const auto x = tensor<float>({{-2.f, -0.5f, 0.f, 0.5f, 3.f}});
    CHECK(nn::ReLU{}.parameters().size() == 0);
    CHECK(max_abs_diff(nn::ReLU{}(x), relu(x)) == 0.0);
    CHECK(max_abs_diff(nn::GELU{}(x), gelu(x)) == 0.0);
    CHECK(max_abs_diff(nn::Tanh{}(x), tanh(x)) == 0.0);
    CHECK(max_abs_diff(nn::Sigmoid{}(x), sigmoid(x)) == 0.0);
    CHECK(max_abs_diff(nn::SiLU{}(x), silu(x)) == 0.0);
    CHECK(max_abs_diff(nn::Identity{}(x), x) == 0.0);
    CHECK(max_abs_diff(nn::LeakyReLU{}(x), leaky_relu(x, 0.01)) == 0.0);
    CHECK(max_abs_diff(nn::LeakyReLU{0.2}(x), leaky_relu(x, 0.2)) == 0.0);
    CHECK(nn::LeakyReLU{0.2}(x)(0, 0) == Approx(-0.4f));
    CHECK(max_abs_diff(nn::Softmax{1_c}(x), softmax(x, 1_c)) == 0.0);
    CHECK(max_abs_diff(nn::LogSoftmax{-1_c}(x), log_softmax(x, -1_c)) == 0.0);
    CHECK(nn::Softmax{1_c}(x).sum().item() == Approx(1.0));
}

TEST_CASE("nn::Sequential: parameters named as PyTorch names them, handles of the layers'") {
    Generator gen(2);
    nn::Sequential model(nn::Linear<6, 5>(gen), nn::ReLU{}, nn::Linear<5, 3>(gen), nn::Tanh{},
                         nn::Linear<3, 2, false>(gen));
    STATIC_REQUIRE(decltype(model)::size == 5);
    auto params = model.parameters();
    CHECK(repr(params.keys()) == "['0.weight', '0.bias', '2.weight', '2.bias', '4.weight']");
    CHECK(params["0.weight"_s].data() == model[0_c].weight.data());
    CHECK(params["2.bias"_s].data() == model[2_c].bias.data());
    CHECK(params["4.weight"_s].data() == model[4_c].weight.data());
    CHECK(repr(model.named_parameters().keys()) == repr(params.keys()));
    CHECK(repr(model.state_dict().keys()) == repr(params.keys()));
    // writing through the dict writes the layer (as PyTorch's parameters are the module's)
    params["2.bias"_s].data()[1] = 42.f;
    CHECK(model[2_c].bias(1) == 42.f);

    // the forward pass is the layers one after the other
    const auto x = randn<float>(4_c, 6_c, gen);
    const auto by_hand = linear(tanh(linear(relu(linear(x, model[0_c].weight, model[0_c].bias)),
                                            model[2_c].weight, model[2_c].bias)),
                                model[4_c].weight);
    const auto y = model(x);
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cvref_t<decltype(y)>, decltype(empty<float>(4_c, 2_c))>);
    CHECK(max_abs_diff(y, by_hand) == 0.0);

    // nested: the names join with dots, "0.2.weight", as PyTorch's
    nn::Sequential nested(nn::Sequential(nn::Linear<6, 5>(gen), nn::ReLU{}, nn::Linear<5, 3>(gen)),
                          nn::Sigmoid{}, nn::Linear<3, 1>(gen));
    const auto nested_params = nested.parameters();
    CHECK(repr(nested_params.keys()) ==
          "['0.0.weight', '0.0.bias', '0.2.weight', '0.2.bias', '2.weight', '2.bias']");
    const auto inner = nested[0_c];
    CHECK(max_abs_diff(nested(x), nested[2_c](sigmoid(inner(x)))) == 0.0);
}

namespace {

/// A user's module: a plain struct with members, children() naming them, and a forward pass.
struct Block : nn::Module<Block> {
    nn::Linear<6, 4> fc;
    nn::ReLU act; // (not LeakyReLU: its backward graph alone costs a minute of g++ -O0)
    explicit Block(Generator& gen) : fc(gen) {}
    auto children() const { return dict("fc"_s = &fc, "act"_s = &act); }
    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        return self["act"_s](self["fc"_s](x));
    }
};

/// A module with children (one of them a user's module, one a Sequential) and a parameter of
/// its own, a learned scale.
struct Net : nn::Module<Net> {
    Block block;
    nn::Sequential<nn::Linear<4, 3>, nn::Tanh> head;
    decltype(ones<float>(3_c)) scale = ones<float>(3_c);
    explicit Net(Generator& gen) : block(gen), head(nn::Linear<4, 3>(gen), nn::Tanh{}) {}
    auto own_parameters() const { return dict("scale"_s = &scale); }
    auto children() const { return dict("block"_s = &block, "head"_s = &head); }
    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        return self["head"_s](self["block"_s](x)) * self["scale"_s];
    }
};

} // namespace

TEST_CASE("a user's module: members, children() and forward(self, x), composed") {
    Generator gen(13);
    Net net(gen);
    auto params = net.parameters();
    CHECK(repr(params.keys()) ==
          "['scale', 'block.fc.weight', 'block.fc.bias', 'head.0.weight', 'head.0.bias']");
    CHECK(params["block.fc.weight"_s].data() == net.block.fc.weight.data());
    CHECK(params["head.0.bias"_s].data() == net.head[0_c].bias.data());
    CHECK(params["scale"_s].data() == net.scale.data());
    CHECK(repr(net.block.parameters().keys()) == "['fc.weight', 'fc.bias']");
    // to() the device the tensors are on already: the same tensors (to() on a GPU: the
    // cuda-codegen tests), the module returned.
    CHECK(&net.to(kCPU) == &net);
    CHECK(&net.cpu() == &net);
    CHECK(net.parameters()["block.fc.weight"_s].data() == net.block.fc.weight.data());
    CHECK(net.parameters()["scale"_s].data() == net.scale.data());

    const auto x = randn<float>(5_c, 6_c, gen);
    net.scale.data()[2] = 2.f;
    const auto by_hand = tanh(linear(relu(linear(x, net.block.fc.weight, net.block.fc.bias)),
                                     net.head[0_c].weight, net.head[0_c].bias)) *
                         net.scale;
    CHECK(max_abs_diff(net(x), by_hand) == 0.0);

    // gradients with respect to every parameter, the own one included, in both modes
    auto loss_fn = [&](const auto& p, const auto& in) {
        return nn::functional_call(net, p, in).square().sum();
    };
    set_context(PYNATIVE_MODE);
    auto [want_loss, want] = value_and_grad(loss_fn)(params, x);
    set_context(GRAPH_MODE);
    auto [loss, grads] = jit(value_and_grad(loss_fn))(params, x);
    CHECK(repr(grads.keys()) == repr(params.keys()));
    CHECK(loss.item() == Approx(want_loss.item()).epsilon(1e-6));
    CHECK(max_abs_diff(grads["scale"_s], want["scale"_s]) < 1e-5);
    CHECK(max_abs_diff(grads["block.fc.weight"_s], want["block.fc.weight"_s]) < 1e-5);
    CHECK(max_abs_diff(grads["head.0.weight"_s], want["head.0.weight"_s]) < 1e-5);
    // d(sum(y^2))/d scale_j = sum_i 2 y_ij^2 / scale_j
    const auto y = net(x);
    CHECK(grads["scale"_s](2) == Approx((2.0f * y.square().sum(0_c) / net.scale)(2)).epsilon(1e-5));
}

TEST_CASE("nn::Sequential runs the same in both modes and under jit") {
    Generator gen(8);
    nn::Sequential model(nn::Linear<7, 16>(gen), nn::GELU{}, nn::Linear<16, 4>(gen),
                         nn::LogSoftmax{1_c});
    const auto x = randn<float>(5_c, 7_c, gen);
    const auto eager = model(x);
    auto compiled =
        jit([&](const auto& p, const auto& in) { return nn::functional_call(model, p, in); });
    const auto graph = compiled(model.parameters(), x);
    CHECK(max_abs_diff(graph, eager) < 1e-6);
    // jit of functional_call with a run-time batch size
    const auto xd = randn<float>(std::int64_t{3}, 7_c, gen);
    auto call =
        jit([&](const auto& p, const auto& in) { return nn::functional_call(model, p, in); });
    CHECK(max_abs_diff(call(model.parameters(), xd), model(xd)) < 1e-6);
}

TEST_CASE("gradients through nn::functional_call: a dict of the model's names, both modes") {
    Generator gen(21);
    nn::Sequential model(nn::Linear<5, 8>(gen), nn::ReLU{}, nn::Linear<8, 3>(gen));
    const auto x = randn<float>(6_c, 5_c, gen);
    const auto labels = tensor<std::int64_t>({0, 2, 1, 1, 0, 2});
    auto loss_fn = [&](const auto& p, const auto& in, const auto& target) {
        return F::cross_entropy(nn::functional_call(model, p, in), target);
    };
    // the same loss written by hand over a dict of the same names
    auto by_hand = [](const auto& p, const auto& in, const auto& target) {
        const auto h = relu(linear(in, p["0.weight"_s], p["0.bias"_s]));
        return F::cross_entropy(linear(h, p["2.weight"_s], p["2.bias"_s]), target);
    };
    set_context(PYNATIVE_MODE);
    auto [want_loss, want] = value_and_grad(by_hand)(model.parameters(), x, labels);
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        auto [loss, grads] = jit(value_and_grad(loss_fn))(model.parameters(), x, labels);
        CHECK(repr(grads.keys()) == "['0.weight', '0.bias', '2.weight', '2.bias']");
        CHECK(loss.item() == Approx(want_loss.item()).epsilon(1e-6));
        CHECK(max_abs_diff(grads["0.weight"_s], want["0.weight"_s]) < 1e-6);
        CHECK(max_abs_diff(grads["0.bias"_s], want["0.bias"_s]) < 1e-6);
        CHECK(max_abs_diff(grads["2.weight"_s], want["2.weight"_s]) < 1e-6);
        CHECK(max_abs_diff(grads["2.bias"_s], want["2.bias"_s]) < 1e-6);
        CHECK(max(abs(grads["0.weight"_s])).item() > 0.0);
    }
    set_context(GRAPH_MODE);
}

TEST_CASE("a model trained by TrainOneStep and SGD: the optimiser updates the model's layers") {
    // a separable problem: class = whether x0 + x1 > 0; 40 steps of SGD take the loss well down
    Generator gen(4);
    const auto x = randn<float>(32_c, 2_c, gen);
    auto labels = empty<std::int64_t>(32_c);
    for (std::int64_t i = 0; i < 32; ++i)
        labels.data()[i] = x(i, 0) + x(i, 1) > 0 ? 1 : 0;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        Generator init(9);
        nn::Sequential model(nn::Linear<2, 16>(init), nn::ReLU{}, nn::Linear<16, 2>(init));
        const auto first_weight = model[0_c].weight.clone();
        nn::optim::SGD opt(model.parameters(), {.lr = 0.5});
        auto loss_fn = [&](const auto& p, const auto& in, const auto& target) {
            return F::cross_entropy(nn::functional_call(model, p, in), target);
        };
        nn::TrainOneStep step(loss_fn, opt);
        const float initial = step(x, labels).item();
        float last = initial;
        for (int i = 0; i < 40; ++i)
            last = step(x, labels).item();
        CHECK(last < 0.5f * initial);
        CHECK(max_abs_diff(model[0_c].weight, first_weight) > 0.0);
        // the trained model classifies its training set
        const auto predicted = model(x).argmax(1_c);
        CHECK((predicted == labels).to<float>().mean().item() > 0.9);
    }
    set_context(GRAPH_MODE);
}
