// Training on the emulated device (emulated_device.hpp): tensors created there, eager reductions,
// the optimisers' steps (rules traced into kernels, backend/cuda/element_rule.hpp) and a small
// model trained by jit(value_and_grad) and Adam, each against the CPU backend's.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "emulated_device.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using emulated_device::check_on_device;
using emulated_device::fake_driver_selected;
using emulated_device::host_values;
using emulated_device::require_close;
using emulated_device::same;

TEST_CASE("emulated device: creation functions take a device, the _like ones keep the tensor's") {
    REQUIRE(fake_driver_selected);
    const auto z = zeros<float>(2, 3, kCUDA);
    CHECK(z.device() == Device("cuda:0"));
    CHECK(same(z.cpu(), zeros<float>(2, 3)));
    const auto o = ones<std::int32_t>(shape(4_c), Device("cuda:0"));
    static_assert(std::is_same_v<decltype(o), const Tensor<std::int32_t, shape<int_<4>>>>);
    CHECK(same(o.cpu(), ones<std::int32_t>(4_c)));
    const auto f = full<double>(2, 2, 1.5, kCUDA);
    CHECK(same(f.cpu(), full<double>(2, 2, 1.5)));
    CHECK(full<float>(shape(3), 2.5f, Device("cuda")).is_cuda());
    const auto e = empty<float>(3, Device("cuda"));
    CHECK((e.is_cuda() && e.sizes() == std::array<std::int64_t, 1>{3}));
    CHECK(zeros<float>(2, kCPU).is_cpu());
    CHECK(zeros<float>(kCUDA).is_cuda()); // zero-dim
    CHECK(test_errors::error_of<RuntimeError>([] { (void)zeros<float>(2, Device("cuda:1")); }) ==
          "staticpy: CUDA error: invalid device ordinal 1 (1 device)");

    CHECK(zeros_like(f).is_cuda());
    CHECK(same(ones_like(z).cpu(), ones<float>(2, 3)));
    CHECK(same(full_like(z, 7.0f).cpu(), full<float>(2, 3, 7.0f)));
    CHECK(empty_like(z).is_cuda());
    CHECK(ones_like(ones<float>(2)).is_cpu());

    // fill_ on the device, of a whole tensor and of a strided view.
    auto t = zeros<float>(2, 4, kCUDA);
    t.fill_(4.0f);
    t.slice(1, 0, 4, 2).fill_(9.0f);
    CHECK(same(t.cpu(), tensor<float>({{9, 4, 9, 4}, {9, 4, 9, 4}})));
    auto none = zeros<float>(0, 3, kCUDA);
    none.fill_(1.0f);
    CHECK(none.numel() == 0);
}

TEST_CASE("emulated device: eager reductions run there, over any dims, against the CPU's") {
    Generator g(15);
    const auto x = randn(4, 5, 6, g);
    const auto dx = x.cuda();
    require_close(sum(dx), sum(x), 1e-5);
    CHECK(sum(dx).is_cuda());
    require_close(sum(dx, 1), sum(x, 1), 1e-5);
    require_close(sum(dx, 0, True), sum(x, 0, True), 1e-5); // another mask, the same program
    require_close(mean(dx, std::array<int, 2>{0, 2}), mean(x, std::array<int, 2>{0, 2}), 1e-5);
    require_close(amax(dx, 2_c), amax(x, 2_c), 0.0);
    require_close(amin(dx.transpose(0, 2), -1), amin(x.transpose(0, 2), -1), 0.0);
    require_close(prod(dx, 1), prod(x, 1), 1e-5);
    require_close(dx.sum(), x.sum(), 1e-5);
    require_close(mean(dx), mean(x), 1e-5);
    const auto n = ones<std::int32_t>(3, 4);
    const auto dn = sum(n.cuda(), 1);
    static_assert(std::is_same_v<decltype(dn)::value_type, std::int64_t>);
    require_close(dn, sum(n, 1), 0.0);
    // An empty mean is NaN; amax of an empty dim is PyTorch's error.
    require_close(mean(zeros<float>(3, 0).cuda(), 1), mean(zeros<float>(3, 0), 1), 0.0);
    CHECK(test_errors::error_of<IndexError>([] { (void)amax(zeros<float>(3, 0).cuda(), 1); }) ==
          test_errors::error_of<IndexError>([] { (void)amax(zeros<float>(3, 0), 1); }));
}

TEST_CASE("emulated device: var, argmax, argmin and max's indices run there as on the CPU") {
    Generator g(17);
    // Rows longer than a block (300 > 256 threads), so each block combines its threads' parts.
    const auto x = randn(3, 300, 2, g);
    const auto dx = x.cuda();
    require_close(var(dx), var(x), 1e-6);
    CHECK(var(dx).is_cuda());
    require_close(var(dx, 1), var(x, 1), 1e-6);
    require_close(var(dx, std::array<int, 2>{0, 2}, True, 0),
                  var(x, std::array<int, 2>{0, 2}, True, 0), 1e-6);
    require_close(var(dx.transpose(0, 1), 0_c), var(x.transpose(0, 1), 0_c), 1e-6);
    const auto xd = randn<double>(4, 7, g).cuda();
    require_close(var(xd, 1, False, 3.5), var(xd.cpu(), 1, False, 3.5), 1e-12);
    // Too few elements: NaN for none or none to spare, infinity past the correction.
    const auto few = tensor<float>({{1, 1}, {1, 2}});
    require_close(var(few.cuda(), 1, False, 2), var(few, 1, False, 2), 0.0);
    require_close(var(few.cuda(), 1, False, 5), var(few, 1, False, 5), 0.0);
    require_close(var(zeros<float>(2, 0).cuda(), 1), var(zeros<float>(2, 0), 1), 0.0);

    // The first index of the extremum: ties, -0.0 beside 0.0, a NaN wins, integers and bools.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto t = tensor<float>({{1, 3, 3, 2}, {-0.0f, 0, -1, 0}, {5, nan, 7, nan}, {2, 2, 2, 2}});
    const auto same_indices = [](const auto& v) {
        const auto dv = v.cuda();
        require_close(argmax(dv, 1), argmax(v, 1), 0.0);
        require_close(argmin(dv, 1), argmin(v, 1), 0.0);
        require_close(argmax(dv, 0, True), argmax(v, 0, True), 0.0);
        require_close(argmin(dv), argmin(v), 0.0);
        const auto [values, indices] = max(dv, -1);
        require_close(values, max(v, -1).values, 0.0);
        require_close(indices, max(v, -1).indices, 0.0);
        require_close(min(dv, 0).indices, min(v, 0).indices, 0.0);
    };
    same_indices(t);
    same_indices(x.select(2, 0));
    same_indices(x.transpose(0, 1).reshape(300, 6));
    CHECK(argmax(dx, 1).is_cuda());
    static_assert(std::is_same_v<decltype(argmax(dx, 1))::value_type, std::int64_t>);
    const auto n = tensor<std::int64_t>({{4, -2, 9, 9}, {0, 0, -7, 3}});
    require_close(argmax(n.cuda(), 1), argmax(n, 1), 0.0);
    require_close(argmin(n.cuda(), 1), argmin(n, 1), 0.0);
    const auto b = tensor<bool>({{false, true, true}, {false, false, false}});
    require_close(argmax(b.cuda(), 1), argmax(b, 1), 0.0);
    CHECK(test_errors::error_of<IndexError>([] { (void)argmax(zeros<float>(3, 0).cuda(), 1); }) ==
          test_errors::error_of<IndexError>([] { (void)argmax(zeros<float>(3, 0), 1); }));

    // In a graph on the device: a classifier's predictions and accuracy.
    const auto labels = argmax(x.select(2, 1), 1);
    auto accuracy =
        jit([](const auto& logits, const auto& y) { return (logits.argmax(1_c) == y).sum(); });
    CHECK(accuracy(dx.select(2, 1), labels.cuda()).cpu().item() == 3);
    auto spread = jit([](const auto& v) { return var(v, 1) * 2.0f; });
    require_close(spread(dx.select(2, 0)), var(x.select(2, 0), 1) * 2.0f, 1e-6);
}

TEST_CASE(
    "emulated device: dropout drops there what it drops on the CPU, eager, traced, backward") {
    namespace F = nn::functional;
    Generator g(18);
    // 5 x 301: an odd count, so the last pair of elements has one; an infinity dropped is NaN.
    auto x = randn(5, 301, g);
    x.select(0, 0).fill_(std::numeric_limits<float>::infinity());
    x.select(1, 3).fill_(std::numeric_limits<float>::quiet_NaN());
    const auto dx = x.cuda();
    for (const double p : {0.0, 0.3, 0.5, 1.0}) {
        INFO("p = " << p);
        Generator on_host(7), on_device(7);
        const auto want = F::dropout(x, p, true, on_host);
        const auto got = F::dropout(dx, p, true, on_device);
        CHECK(got.is_cuda());
        require_close(got, want, 0.0);
    }
    require_close(F::dropout(dx.t(), 0.2, true, g.manual_seed(3)),
                  F::dropout(x.t(), 0.2, true, g.manual_seed(3)), 0.0); // a strided input
    CHECK(F::dropout(dx, 0.5, false).is_cuda());
    require_close(F::dropout(dx, 0.5, false), x, 0.0);

    // In a jit graph with its derivative (the same mask on the cotangent), drawn from one seed.
    const auto w = randn(5, 301, g);
    Generator seeded(9);
    auto step = jit(value_and_grad([&](const auto& v, const auto& u) {
        return (F::dropout(v, 0.4, true, seeded) * u).sum();
    }));
    seeded.manual_seed(9);
    const auto [device_loss, device_grad] = step(w.cuda(), dx);
    seeded.manual_seed(9);
    const auto [host_loss, host_grad] = step(w, x);
    CHECK(device_grad.is_cuda());
    require_close(device_grad, host_grad, 0.0);
    require_close(device_loss, host_loss, 1e-5);
}

TEST_CASE("emulated device: the elementwise losses and their gradients there, as on the CPU") {
    namespace F = nn::functional;
    Generator g(23);
    const auto x = randn(5, 7, g) * 2.0f, y = randn(5, 7, g);
    // Probabilities with the ends 0 and 1 (where the logs are clamped at -100) and a weight
    // that broadcasts; a pos_weight.
    auto p = sigmoid(x);
    p.select(0, 0).fill_(0.0f);
    p.select(0, 1).fill_(1.0f);
    const auto target = rand(5, 7, g);
    const auto w = rand(7, g) + 0.5f, pos = rand(7, g) + 0.5f;
    // The weights are constants of the graph (captured), one graph per device.
    auto losses_with = [](const auto& weight, const auto& pos_weight) {
        return jit(value_and_grad(
            [&weight, &pos_weight](const auto& in, const auto& t, const auto& probabilities,
                                   const auto& q) {
                return F::smooth_l1_loss(in, t, {.beta = 0.5}) +
                       F::huber_loss(in, t, str<"sum">{}, {.delta = 1.5}) +
                       F::binary_cross_entropy(probabilities, q) +
                       F::binary_cross_entropy(probabilities, q, str<"sum">{}, {.weight = weight}) +
                       F::binary_cross_entropy_with_logits(in, q, str<"mean">{},
                                                           {.pos_weight = pos_weight});
            },
            std::tuple{0_c, 1_c, 2_c, 3_c}));
    };
    const auto dw = w.cuda(), dpos = pos.cuda();
    auto on_host = losses_with(w, pos);
    auto on_device = losses_with(dw, dpos);
    const auto [loss, grads] = on_host(x, y, p, target);
    const auto [device_loss, device_grads] = on_device(x.cuda(), y.cuda(), p.cuda(), target.cuda());
    CHECK(std::get<0>(device_grads).is_cuda());
    require_close(device_loss, loss, 1e-5);
    require_close(std::get<0>(device_grads), std::get<0>(grads), 1e-4);
    require_close(std::get<1>(device_grads), std::get<1>(grads), 1e-4);
    require_close(std::get<2>(device_grads), std::get<2>(grads), 1e-4);
    require_close(std::get<3>(device_grads), std::get<3>(grads), 1e-4);
    require_close(F::binary_cross_entropy(p.cuda(), target.cuda(), str<"none">{}),
                  F::binary_cross_entropy(p, target, str<"none">{}), 1e-5);
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)F::binary_cross_entropy((p * 2.0f).cuda(), target.cuda());
          }) == "all elements of input should be between 0 and 1");
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)F::binary_cross_entropy(p.cuda(), target.cuda(), str<"mean">{}, {.weight = w});
          }) == "Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!");
}

TEST_CASE("emulated device: layer_norm and batch_norm run there as on the CPU, with their "
          "derivatives and running statistics") {
    namespace F = nn::functional;
    Generator g(19);
    // layer_norm: rows of 5 x 301 (longer than a block), with and without weight and bias, and
    // of one dim; a strided input.
    const auto x = randn(3, 5, 301, g) * 2.0f + 1.0f;
    const auto w = randn(5, 301, g);
    const auto b = randn(5, 301, g);
    const auto dx = x.cuda();
    const auto dw = w.cuda(), db = b.cuda();
    const auto shape = std::tuple{5_c, 301_c};
    CHECK(F::layer_norm(dx, shape, dw, db).is_cuda());
    require_close(F::layer_norm(dx, shape, dw, db), F::layer_norm(x, shape, w, b), 1e-5);
    require_close(F::layer_norm(dx, 301_c), F::layer_norm(x, 301_c), 1e-5);
    require_close(F::layer_norm(dx.transpose(0, 2), 3_c, None, db[0].narrow(0, 0, 3), 1e-3),
                  F::layer_norm(x.transpose(0, 2), 3_c, None, b[0].narrow(0, 0, 3), 1e-3), 1e-5);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)F::layer_norm(dx, shape, w, db); }) ==
          "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
          "and cpu!");

    // Its derivatives for the input, the weight and the bias, in a jit graph.
    const auto u = randn(3, 5, 301, g);
    auto layer_step = jit(value_and_grad(
        [](const auto& in, const auto& weight, const auto& bias, const auto& v) {
            return (F::layer_norm(in, std::tuple{5_c, 301_c}, weight, bias) * v).sum();
        },
        std::tuple{0_c, 1_c, 2_c}));
    const auto [layer_loss, layer_grads] = layer_step(x, w, b, u);
    const auto [device_layer_loss, device_layer_grads] = layer_step(dx, dw, db, u.cuda());
    CHECK(std::get<0>(device_layer_grads).is_cuda());
    require_close(device_layer_loss, layer_loss, 1e-4);
    require_close(std::get<0>(device_layer_grads), std::get<0>(layer_grads), 1e-4);
    require_close(std::get<1>(device_layer_grads), std::get<1>(layer_grads), 1e-4);
    require_close(std::get<2>(device_layer_grads), std::get<2>(layer_grads), 1e-4);
    // A narrow layer of many rows, on the tape: its weight and bias gradients sum the rows in
    // chunks (of 33 and 32 rows here: at least 32 rows each), then the chunks. (Few rows: each
    // is a group of the statistics' kernels, whose barriers make the emulation's time.)
    check_on_device(
        1e-5,
        [](const auto& in, const auto& weight, const auto& bias) {
            return F::layer_norm(in, 3_c, weight, bias);
        },
        randn(65, 3, g), randn(3, g), randn(3, g));

    // batch_norm in training: the output and the running statistics' update, of [N, C] (a
    // channel's elements one per row) and [N, C, H, W]; in evaluation, the running statistics.
    const auto y = randn(6, 4, 7, 9, g) + 3.0f;
    const auto gamma = randn(4, g), beta = randn(4, g);
    const auto dy = y.cuda();
    const auto dgamma = gamma.cuda(), dbeta = beta.cuda();
    for (const bool training : {true, false}) {
        INFO("training = " << training);
        auto rm = randn(4, g), rv = rand(4, g) + 0.5f;
        auto drm = rm.cuda(), drv = rv.cuda();
        const auto want = F::batch_norm(y, rm, rv, gamma, beta, training, 0.3);
        const auto got = F::batch_norm(dy, drm, drv, dgamma, dbeta, training, 0.3);
        CHECK(got.is_cuda());
        require_close(got, want, 1e-5);
        require_close(drm, rm, 1e-6);
        require_close(drv, rv, 1e-6);
        const auto flat = y.select(3, 0).select(2, 0);
        require_close(F::batch_norm(flat.cuda(), drm, drv, None, dbeta, training),
                      F::batch_norm(flat, rm, rv, None, beta, training), 1e-5);
        require_close(drm, rm, 1e-6);
        require_close(drv, rv, 1e-6);
    }
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)F::batch_norm(dy, None, None, gamma, dbeta, true);
          }) == "Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!");

    // Its derivatives, training and evaluating, in a jit graph.
    const auto v = randn(6, 4, 7, 9, g);
    for (const bool training : {true, false}) {
        INFO("training = " << training);
        auto rm = randn(4, g), rv = rand(4, g) + 0.5f;
        auto drm = rm.cuda(), drv = rv.cuda();
        auto batch_step = [training](auto& mean, auto& var) {
            return jit(value_and_grad(
                [training, &mean, &var](const auto& in, const auto& weight, const auto& bias,
                                        const auto& cotangent) {
                    return (F::batch_norm(in, mean, var, weight, bias, training) * cotangent).sum();
                },
                std::tuple{0_c, 1_c, 2_c}));
        };
        auto on_host = batch_step(rm, rv);
        auto on_device = batch_step(drm, drv);
        const auto [loss, grads] = on_host(y, gamma, beta, v);
        const auto [device_loss, device_grads] = on_device(dy, dgamma, dbeta, v.cuda());
        require_close(device_loss, loss, 1e-3);
        require_close(std::get<0>(device_grads), std::get<0>(grads), 1e-4);
        require_close(std::get<1>(device_grads), std::get<1>(grads), 1e-3);
        require_close(std::get<2>(device_grads), std::get<2>(grads), 1e-4);
        require_close(drm, rm, 1e-6);
    }

    // A module moved there, momentum None: num_batches_tracked counts on the device.
    nn::BatchNorm2d<4> host_bn({.momentum = std::nullopt});
    nn::BatchNorm2d<4> device_bn({.momentum = std::nullopt});
    device_bn.to(kCUDA);
    for (int step = 0; step < 3; ++step)
        require_close(device_bn(dy * float(step + 1)), host_bn(y * float(step + 1)), 1e-5);
    CHECK(device_bn.num_batches_tracked.is_cuda());
    CHECK(device_bn.num_batches_tracked.item() == 3);
    require_close(device_bn.running_mean, host_bn.running_mean, 1e-5);
    require_close(device_bn.running_var, host_bn.running_var, 1e-5);
    device_bn.eval();
    host_bn.eval();
    require_close(device_bn(dy), host_bn(y), 1e-5);
}

namespace {
/// Three steps of the optimiser make(params) on the CPU and on the device from the same
/// parameters and gradients: the same parameters after (each step one kernel traced from the
/// CPU's rule).
template <class Make>
void same_steps_on_the_device(Make make) {
    Generator g(16);
    auto w = randn(5, 3, g);
    auto b = randn(3, g);
    auto dw = w.cuda();
    auto db = b.cuda();
    auto host = make(dict("w"_s = w, "b"_s = b));
    auto device = make(dict("w"_s = dw, "b"_s = db));
    for (int step = 0; step < 3; ++step) {
        const auto gw = randn(5, 3, g);
        const auto gb = randn(3, g);
        host.step(dict("w"_s = gw, "b"_s = gb));
        device.step(dict("w"_s = gw.cuda(), "b"_s = gb.cuda()));
    }
    CHECK(dw.is_cuda());
    require_close(dw, w, 1e-5);
    require_close(db, b, 1e-5);
}
} // namespace

TEST_CASE("emulated device: the optimisers step parameters on the GPU as on the CPU") {
    same_steps_on_the_device([](auto p) { return nn::optim::SGD(p, {.lr = 0.1}); });
    same_steps_on_the_device([](auto p) {
        return nn::optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
    });
    same_steps_on_the_device([](auto p) {
        return nn::optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .nesterov = true, .maximize = true});
    });
    same_steps_on_the_device([](auto p) { return nn::optim::Adam(p, {.lr = 0.01}); });
    same_steps_on_the_device(
        [](auto p) { return nn::optim::Adam(p, {.lr = 0.01, .amsgrad = true}); });
    same_steps_on_the_device([](auto p) { return nn::optim::AdamW(p, {.lr = 0.01}); });
    same_steps_on_the_device([](auto p) { return nn::optim::RMSprop(p, {.lr = 0.01}); });
    same_steps_on_the_device([](auto p) {
        return nn::optim::RMSprop(p, {.lr = 0.01, .momentum = 0.5, .centered = true});
    });
    same_steps_on_the_device([](auto p) { return nn::optim::Adagrad(p, {.lr = 0.1}); });
    // A new learning rate each step: the same kernel, its numbers as parameters.
    const std::size_t compiles = cuda::detail::kernel_registry::process().compiles();
    same_steps_on_the_device([](auto p) { return nn::optim::SGD(p, {.lr = 0.3}); });
    CHECK(cuda::detail::kernel_registry::process().compiles() == compiles);
}

TEST_CASE("emulated device: a model trains on the GPU, forward, backward and step, as on the CPU") {
    Generator g(17);
    const auto x = randn(16, 4, g);
    const auto y = randn(16, 3, g);
    auto host = dict("w1"_s = randn(4, 8, g), "b1"_s = randn(8, g), "w2"_s = randn(8, 3, g));
    auto device = dict("w1"_s = host["w1"_s].cuda(), "b1"_s = host["b1"_s].cuda(),
                       "w2"_s = host["w2"_s].cuda());
    const auto dx = x.cuda(), dy = y.cuda();
    // One graph: the forward pass (cuBLAS, a fused bias and relu), the loss (a reduction) and the
    // backward pass (transposed matmuls, sum_to of the bias's gradient, count_ratio of mean).
    auto loss_and_grads = jit(value_and_grad([](const auto& p, const auto& in, const auto& t) {
        const auto h = relu(linear(in, p["w1"_s].t(), p["b1"_s]));
        const auto out = matmul(h, p["w2"_s]);
        return mean((out - t) * (out - t));
    }));
    nn::optim::Adam host_opt(host, {.lr = 0.05});
    nn::optim::Adam device_opt(device, {.lr = 0.05});
    float first = 0, last = 0;
    for (int step = 0; step < 5; ++step) {
        const auto [loss, grads] = loss_and_grads(host, x, y);
        const auto [device_loss, device_grads] = loss_and_grads(device, dx, dy);
        CHECK(device_loss.is_cuda());
        require_close(device_loss, loss, 1e-5);
        require_close(device_grads["w1"_s], grads["w1"_s], 1e-4);
        require_close(device_grads["b1"_s], grads["b1"_s], 1e-4);
        host_opt.step(grads);
        device_opt.step(device_grads);
        (step == 0 ? first : last) = device_loss.item();
    }
    CHECK(last < first);
    require_close(device["w2"_s], host["w2"_s], 1e-4);
}

TEST_CASE(
    "emulated device: cross_entropy and nll_loss, their gradients and errors, as on the CPU") {
    namespace F = nn::functional;
    Generator g(23);
    const auto x = randn(6, 5, g);
    const auto labels = from_vector(std::vector<std::int64_t>{1, 4, 0, -100, 2, 4});
    const auto w = rand(5, g) + 0.5f;
    const auto probs = softmax(randn(6, 5, g), 1_c);
    const auto x3 = randn(2, 5, 3, g); // [N, C, d1]: rows 5 apart
    const auto labels3 = from_vector(std::vector<std::int64_t>{0, 1, 2, 3, 4, 1}).reshape(2, 3);
    const auto dx = x.cuda();
    const auto dlabels = labels.cuda();
    const auto dw = w.cuda();
    const auto dprobs = probs.cuda();
    const auto dx3 = x3.cuda();
    const auto dlabels3 = labels3.cuda();

    SECTION("eager, each reduction and option") {
        require_close(F::cross_entropy(dx, dlabels), F::cross_entropy(x, labels));
        require_close(F::cross_entropy(dx, dlabels, "none"_s),
                      F::cross_entropy(x, labels, "none"_s));
        require_close(F::cross_entropy(dx, dlabels, "sum"_s), F::cross_entropy(x, labels, "sum"_s));
        require_close(
            F::cross_entropy(dx, dlabels, "mean"_s, {.weight = dw, .label_smoothing = 0.2}),
            F::cross_entropy(x, labels, "mean"_s, {.weight = w, .label_smoothing = 0.2}));
        const auto fours = from_vector(std::vector<std::int64_t>{1, 4, 0, 3, 2, 4});
        require_close(F::cross_entropy(dx, fours.cuda(), "none"_s, {.ignore_index = 4}),
                      F::cross_entropy(x, fours, "none"_s, {.ignore_index = 4}));
        require_close(
            F::cross_entropy(dx, dprobs, "mean"_s, {.weight = dw, .label_smoothing = 0.1}),
            F::cross_entropy(x, probs, "mean"_s, {.weight = w, .label_smoothing = 0.1}));
        require_close(F::cross_entropy(dx3, dlabels3, "none"_s),
                      F::cross_entropy(x3, labels3, "none"_s));
        require_close(F::nll_loss(log_softmax(x, 1_c).cuda(), dlabels, "sum"_s, {.weight = dw}),
                      F::nll_loss(log_softmax(x, 1_c), labels, "sum"_s, {.weight = w}));
        // An empty batch: 'mean' is 0 / 0, as PyTorch's.
        CHECK(std::isnan(
            F::cross_entropy(zeros<float>(0, 5, kCUDA), zeros<std::int64_t>(0, kCUDA)).item()));
    }
    SECTION("gradients in one jit graph: the inputs', and a probability target's") {
        // One graph (each distinct graph costs the stand-in NVRTC a compile): both ops'
        // derivatives, each reduction, weight= (a constant, so each device's tensor is captured
        // in its own function), label smoothing, rows d1 apart, a probability target.
        const auto losses = [](const auto& weight) {
            return jit(grad(
                [weight](const auto& in, const auto& t, const auto& in3, const auto& t3,
                         const auto& scale, const auto& p) {
                    return F::cross_entropy(in, t, "mean"_s,
                                            {.weight = weight, .label_smoothing = 0.3}) +
                           F::nll_loss(log_softmax(in, 1_c), t) +
                           sum(F::cross_entropy(in3, t3, "none"_s) * scale) +
                           F::cross_entropy(in, p, "sum"_s, {.label_smoothing = 0.1});
                },
                std::tuple{0_c, 2_c, 5_c}));
        };
        const auto scale = arange<float>(3);
        const auto [gx, gx3, gp] = losses(dw)(dx, dlabels, dx3, dlabels3, scale.cuda(), dprobs);
        const auto [hx, hx3, hp] = losses(w)(x, labels, x3, labels3, scale, probs);
        require_close(gx, hx);
        require_close(gx3, hx3);
        require_close(gp, hp);
    }
    SECTION("errors: a class out of range, tensors on two devices") {
        const auto bad = from_vector(std::vector<std::int64_t>{1, 4, 0, 7, 2, 9}).cuda();
        CHECK(test_errors::error_of<IndexError>([&] { (void)F::cross_entropy(dx, bad); }) ==
              "Target 7 is out of bounds.");
        CHECK(test_errors::error_of<IndexError>([&] {
                  (void)jit(grad([](const auto& in, const auto& t) {
                      return F::cross_entropy(in, t);
                  }))(dx, bad);
              }) == "Target 7 is out of bounds.");
        CHECK(test_errors::error_of<RuntimeError>([&] { (void)F::cross_entropy(dx, labels); }) ==
              "Expected all tensors to be on the same device, but found at least two devices, "
              "cuda:0 and cpu!");
    }
}

TEST_CASE("emulated device: model.to(kCUDA) moves a classifier, which trains there as on the CPU") {
    Generator g(29), host_init(31), device_init(31);
    auto host =
        nn::Sequential(nn::Linear<4, 8>(host_init), nn::ReLU{}, nn::Linear<8, 3>(host_init));
    auto device =
        nn::Sequential(nn::Linear<4, 8>(device_init), nn::ReLU{}, nn::Linear<8, 3>(device_init));
    CHECK(&device.to(kCUDA) == &device);
    CHECK(device[0_c].weight.is_cuda());
    CHECK(device.parameters()["2.bias"_s].device() == Device("cuda:0"));
    require_close(device[2_c].weight, host[2_c].weight, 0.0);

    emulated_device::train_side_by_side(host, device, randn(16, 4, g),
                                        emulated_device::cycling_labels(16, 7, 3), 0.5, 4, 1e-5);
    require_close(device[0_c].weight, host[0_c].weight, 1e-4);

    // Back to the CPU; buffers move too.
    device.cpu();
    CHECK(device[0_c].weight.is_cpu());
    require_close(device[2_c].bias, host[2_c].bias, 1e-4);
    auto norm = nn::Sequential(nn::Linear<4, 2>(host_init), nn::BatchNorm1d<2>{});
    norm.to(kCUDA);
    CHECK(norm[1_c].running_mean.is_cuda());
    CHECK(norm[1_c].num_batches_tracked.is_cuda());
    CHECK(norm.state_dict()["1.running_var"_s].is_cuda());
}
