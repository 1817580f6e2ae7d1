// nn::Module's mode and state: train() and eval() through a user module, the Sequential inside
// it and the layers inside that; buffers() and state_dict() with PyTorch's keys in PyTorch's order
// (tests/nn/reference/norm_reference.txt's keys/ records, from make_norm_reference.py); the mode
// reaching the forward pass of BatchNorm1d and Dropout; and a training step run as one graph
// updating the running statistics once per step, as the tape does.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

#include "reference/norm_reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace F = staticpy::nn::functional;

namespace {

/// make_norm_reference.py's Block: a parameter and a buffer of its own, a Sequential with a
/// BatchNorm1d and a Dropout inside, a Linear, a LayerNorm.
struct Block : nn::Module<Block> {
    Tensor<float, shape<int_<3>>> scale = ones<float>(3_c);
    Tensor<std::int64_t, shape<>> count = zeros<std::int64_t>(shape<>{});
    nn::Sequential<nn::Linear<4, 3>, nn::BatchNorm1d<3>, nn::ReLU, nn::Dropout> body;
    nn::Linear<3, 2> head;
    nn::LayerNorm<2> norm;

    explicit Block(Generator& gen)
        : body(nn::Linear<4, 3>(gen), nn::BatchNorm1d<3>{}, nn::ReLU{}, nn::Dropout(0.2, gen)),
          head(gen) {}

    auto own_parameters() const { return dict("scale"_s = scale); }
    auto own_buffers() const { return dict("count"_s = count); }
    auto children() const { return dict("body"_s = &body, "head"_s = &head, "norm"_s = &norm); }

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        return self["norm"_s](self["head"_s](self["body"_s](x) * self["scale"_s]));
    }
};

/// The keys of a dict as strings.
template <class D>
std::vector<std::string> key_list(const D& d) {
    std::vector<std::string> out;
    boost::hana::unpack(d.entries, [&](const auto&... item) {
        (out.push_back(std::string(std::remove_cvref_t<decltype(item.key)>::text.view())), ...);
    });
    return out;
}

template <class A, class B>
double max_abs_diff(const A& a, const B& b) {
    return max(abs(a.template to<double>() - b.template to<double>())).item();
}

} // namespace

TEST_CASE("train() and eval() set the mode of the module and of every submodule") {
    Generator gen(1);
    Block net(gen);
    CHECK(net.training);
    CHECK(net.body[1_c].training);
    net.eval();
    CHECK_FALSE(net.training);
    CHECK_FALSE(net.body.training);
    CHECK_FALSE(net.body[1_c].training);
    CHECK_FALSE(net.body[3_c].training);
    CHECK_FALSE(net.head.training);
    CHECK_FALSE(net.norm.training);
    // a submodule alone: it and its children, not its parent or siblings
    net.body.train();
    CHECK(net.body.training);
    CHECK(net.body[1_c].training);
    CHECK(net.body[3_c].training);
    CHECK_FALSE(net.training);
    CHECK_FALSE(net.head.training);
    // train(false) is eval(); both return the module
    CHECK(&net.train(false) == &net);
    CHECK_FALSE(net.body[1_c].training);
    CHECK(net.train().body[3_c].training);
    CHECK(&net.eval() == &net);
}

TEST_CASE("buffers(), named_buffers() and state_dict(): PyTorch's keys, in PyTorch's order") {
    Generator gen(2);
    Block net(gen);
    CHECK(key_list(net.buffers()) == std::vector<std::string>{"count", "body.1.running_mean",
                                                              "body.1.running_var",
                                                              "body.1.num_batches_tracked"});
    CHECK(key_list(net.named_buffers()) == key_list(net.buffers()));
    // per module: its parameters, its buffers, then each child's, as _save_to_state_dict
    CHECK(key_list(net.state_dict()) == norm_reference::keys("Block"));
    CHECK(key_list(net.parameters()) ==
          std::vector<std::string>{"scale", "body.0.weight", "body.0.bias", "body.1.weight",
                                   "body.1.bias", "head.weight", "head.bias", "norm.weight",
                                   "norm.bias"});
    // handles of the modules' own tensors
    const auto state = net.state_dict();
    CHECK(state["count"_s].data() == net.count.data());
    CHECK(state["body.1.running_var"_s].data() == net.body[1_c].running_var.data());
    CHECK(state["body.1.num_batches_tracked"_s].data() == net.body[1_c].num_batches_tracked.data());
    CHECK(state["norm.bias"_s].data() == net.norm.bias.data());
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cvref_t<decltype(state["body.1.num_batches_tracked"_s])>,
                       Tensor<std::int64_t, shape<>>>);

    Generator gen2(3);
    nn::Sequential other(nn::Embedding<5, 4>(gen2), nn::LayerNorm<3, 4>{}, nn::BatchNorm1d<3>{});
    CHECK(key_list(other.state_dict()) ==
          norm_reference::keys("Sequential(Embedding,LayerNorm,BatchNorm1d)"));
    // a module without buffers has an empty dict of them
    CHECK(repr(nn::Linear<2, 2>(gen2).buffers().keys()) == "[]");
}

TEST_CASE("the mode reaches the forward pass: batch statistics and dropout in training only") {
    Generator gen(5);
    Block net(gen);
    const auto x = randn<float>(6_c, 4_c, gen);
    const auto a = net(x);
    const auto b = net(x);
    CHECK(max_abs_diff(a, b) > 0.0); // two dropout masks
    CHECK(net.body[1_c].num_batches_tracked.item() == 2);
    net.eval();
    const auto c = net(x);
    const auto d = net(x);
    CHECK(max_abs_diff(c, d) == 0.0);
    CHECK(net.body[1_c].num_batches_tracked.item() == 2);
    // evaluation by hand: the running statistics, no dropout
    const auto& bn = net.body[1_c];
    const auto h = relu((linear(x, net.body[0_c].weight, net.body[0_c].bias) - bn.running_mean) /
                            sqrt(bn.running_var + 1e-5f) * bn.weight +
                        bn.bias);
    const auto want = F::layer_norm(linear(h * net.scale, net.head.weight, net.head.bias), 2_c,
                                    net.norm.weight, net.norm.bias);
    CHECK(max_abs_diff(c, want) < 1e-5);
}

TEST_CASE("a training step as one graph updates the running statistics once, as the tape") {
    // The same steps in both modes from the same seeds: the graph of value_and_grad, whose
    // backward pass names the forward's batch norm and dropout nodes again (the second Linear's
    // weight gradient reads their output), and whose numbering falls back to the exact one (two
    // float scalars of different values), where each of those names is a node of its own; and
    // the tape. They must agree on the running statistics, num_batches_tracked and the parameters:
    // each batch counted once, each dropout mask drawn once.
    Generator data(8);
    const auto x = randn<float>(8_c, 4_c, data);
    const auto labels = tensor<std::int64_t>({0, 1, 1, 0, 1, 0, 0, 1});
    std::vector<std::vector<double>> results;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        Generator gen(9);
        nn::Sequential net(nn::Linear<4, 3>(gen), nn::BatchNorm1d<3>{}, nn::Dropout(0.2, gen),
                           nn::Linear<3, 2>(gen));
        nn::optim::SGD opt(net.parameters(), {.lr = 0.1});
        auto loss_fn = [&](const auto& p, const auto& in, const auto& target) {
            return F::cross_entropy(nn::functional_call(net, p, in) * 2.0f, target) * 0.5f;
        };
        auto step = jit(value_and_grad(loss_fn));
        for (int i = 0; i < 3; ++i) {
            auto [loss, grads] = step(net.parameters(), x, labels);
            opt.step(grads);
        }
        const auto& bn = net[1_c];
        CHECK(bn.num_batches_tracked.item() == 3);
        std::vector<double> r;
        auto append = [&](const auto& t) {
            const auto c = t.contiguous();
            for (std::int64_t i = 0; i < c.numel(); ++i)
                r.push_back(static_cast<double>(c.data()[i]));
        };
        append(bn.running_mean);
        append(bn.running_var);
        append(net[0_c].weight);
        append(net[3_c].weight);
        results.push_back(r);
    }
    set_context(GRAPH_MODE);
    REQUIRE(results[0].size() == results[1].size());
    for (std::size_t i = 0; i < results[0].size(); ++i) {
        INFO("element " << i);
        CHECK(std::abs(results[0][i] - results[1][i]) < 1e-5);
    }
}
