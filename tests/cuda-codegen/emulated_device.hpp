// What the emulated-device tests share: the stand-ins selected before main (the driver,
// fake_libcuda.cpp; NVRTC, fake_nvrtc.cpp: kernels compiled for the host and run there; cuBLAS,
// fake_cublas.cpp), and comparisons of device tensors with the CPU backend's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

namespace emulated_device {

using namespace staticpy;

// Before main: the process's driver is loaded at its first use, from this variable.
// The stand-in NVRTC compiles kernels for the host, where the stand-in driver runs them. The
// emulated tests share one disk cache in the build tree, as a user's processes share theirs: a
// kernel that several test cases (each a process) run is compiled once. The stand-in keeps the
// libraries it makes there, which the cache's entries name (tests/cuda-codegen/CMakeLists.txt
// names the folder after the stand-in's and the emulation's sources, so an edit of either starts
// a new one).
inline const bool fake_driver_selected =
    ::setenv("STATICPY_CUDA_DRIVER_LIBRARY", STATICPY_TEST_FAKE_LIBCUDA, 1) == 0 &&
    ::setenv("STATICPY_NVRTC_LIBRARY", STATICPY_TEST_FAKE_NVRTC, 1) == 0 &&
    ::setenv("STATICPY_CUBLAS_LIBRARY", STATICPY_TEST_FAKE_CUBLAS, 1) == 0 &&
    ::setenv("STATICPY_KERNEL_CACHE_DIR", STATICPY_TEST_EMULATED_KERNEL_CACHE, 1) == 0 &&
    ::setenv("STATICPY_FAKE_NVRTC_OUTPUT_DIR", STATICPY_TEST_EMULATED_KERNEL_CACHE, 1) == 0;

/// Whether two host tensors have the same sizes and elements (torch.equal).
template <class T, class S1, class S2>
bool same(const Tensor<T, S1>& a, const Tensor<T, S2>& b) {
    if (!a.is_cpu() || !b.is_cpu() || a.sizes() != b.sizes())
        return false;
    const auto ca = a.contiguous();
    const auto cb = b.contiguous();
    return std::vector<T>(ca.data(), ca.data() + ca.numel()) ==
           std::vector<T>(cb.data(), cb.data() + cb.numel());
}

template <class T, class S>
std::vector<double> host_values(const Tensor<T, S>& t) {
    const auto c = t.cpu().contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

/// got's elements within rtol of want's (NaN where want has NaN), same sizes.
template <class T1, class S1, class T2, class S2>
void require_close(const Tensor<T1, S1>& got, const Tensor<T2, S2>& want, double rtol = 1e-6) {
    REQUIRE(got.sizes() == want.sizes());
    const auto g = host_values(got), w = host_values(want);
    for (std::size_t i = 0; i < g.size(); ++i) {
        INFO("element " << i << ": " << g[i] << " against " << w[i]);
        if (std::isnan(w[i]))
            CHECK(std::isnan(g[i]));
        else if (std::isinf(w[i]))
            CHECK(g[i] == w[i]);
        else
            CHECK(std::abs(g[i] - w[i]) <= rtol * std::abs(w[i]) + 1e-6);
    }
}

/// Labels 0, 1, 2, ... for n samples: sample i's class (i * step) % classes.
inline auto cycling_labels(std::int64_t n, std::int64_t step, std::int64_t classes) {
    std::vector<std::int64_t> labels(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        labels[static_cast<std::size_t>(i)] = (i * step) % classes;
    return from_vector(labels);
}

/// Trains a classifier on the CPU and its twin (the same initial parameters) moved to the device
/// side by side: `steps` steps of jit(value_and_grad) of cross_entropy, then SGD with momentum
/// 0.9 (made after the move, as PyTorch advises: it holds the moved tensors), each step's loss on
/// the device within rtol of the CPU's, and the loss going down.
template <class Model, class X, class Y>
void train_side_by_side(Model& host, Model& device, const X& x, const Y& y, double lr, int steps,
                        double rtol) {
    namespace F = nn::functional;
    const auto dx = x.cuda();
    const auto dy = y.cuda();
    nn::optim::SGD host_opt(host.parameters(), {.lr = lr, .momentum = 0.9});
    nn::optim::SGD device_opt(device.parameters(), {.lr = lr, .momentum = 0.9});
    const auto step = [](auto& model, auto& opt, const auto& in, const auto& labels) {
        const auto [loss, grads] =
            jit(value_and_grad([&](const auto& p, const auto& a, const auto& t) {
                return F::cross_entropy(nn::functional_call(model, p, a), t);
            }))(model.parameters(), in, labels);
        opt.step(grads);
        return loss;
    };
    float first = 0, last = 0;
    for (int i = 0; i < steps; ++i) {
        const auto loss = step(host, host_opt, x, y);
        const auto device_loss = step(device, device_opt, dx, dy);
        CHECK(device_loss.is_cuda());
        require_close(device_loss, loss, rtol);
        (i == 0 ? first : last) = device_loss.item();
    }
    CHECK(last < first);
}

/// f's result and the gradients of sum(f(xs...) * weights) for each of xs, on the tape: each op's
/// eager form and its derivative ops', on whichever device the tensors are.
template <class F, class C, class... X>
auto tape_gradients(const F& f, const C& weights, const X&... xs) {
    auto leaves = std::tuple{autograd::leaf(xs)...};
    auto y = std::apply(f, leaves);
    auto loss = (y * weights).sum();
    autograd::backward(loss, ones_like(loss.value));
    return std::apply(
        [&](const auto&... v) {
            return std::tuple{y.value, autograd::gradient(v)...};
        },
        leaves);
}

/// f's value and its tape gradients on the device, each against the CPU's.
template <class F, class... X>
void check_on_device(double rtol, const F& f, const X&... xs) {
    Generator g(3);
    const auto weights = randn_like(f(xs...), g);
    const auto want = tape_gradients(f, weights, xs...);
    const auto got = tape_gradients(f, weights.cuda(), xs.cuda()...);
    CHECK(std::get<0>(got).is_cuda());
    std::apply(
        [&](const auto&... w) {
            std::apply([&](const auto&... d) { (require_close(d, w, rtol), ...); }, got);
        },
        want);
}

} // namespace emulated_device
