#pragma once
// Helpers of the autodiff tests: random inputs, float64 central finite differences of a function
// run eagerly, and a check of grad's results against them.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/grad.hpp>
#include <staticpy/staticpy.hpp>

namespace autodiff_test {

using namespace staticpy;
using namespace staticpy::literals;

/// A double tensor of the given extents, uniform in [lo, hi), from a fixed seed.
template <class... E>
auto random_tensor(std::uint64_t seed, double lo, double hi, E... extents) {
    auto t = zeros<double>(extents...);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    for (std::int64_t i = 0; i < t.numel(); ++i)
        t.data()[i] = u(rng);
    return t;
}

template <class T, class S>
std::vector<double> flat(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.numel(); ++i)
        v.push_back(static_cast<double>(c.data()[i]));
    return v;
}

/// f's scalar output, run eagerly on tensors.
template <class F, class... A>
double value_of(const F& f, const A&... args) {
    return static_cast<double>(f(args...).item());
}

/// The central finite-difference gradient of f with respect to argument K (a double tensor),
/// element by element (in row-major order).
template <std::size_t K, class F, class... A>
std::vector<double> numeric_gradient(const F& f, const A&... args) {
    constexpr double h = 1e-6;
    std::tuple<A...> copies{args.clone()...};
    auto& x = std::get<K>(copies);
    std::vector<double> g(static_cast<std::size_t>(x.numel()));
    for (std::int64_t i = 0; i < x.numel(); ++i) {
        const double saved = x.data()[i];
        auto at = [&](double v) {
            x.data()[i] = v;
            return std::apply([&](const auto&... a) { return value_of(f, a...); }, copies);
        };
        g[static_cast<std::size_t>(i)] = (at(saved + h) - at(saved - h)) / (2 * h);
        x.data()[i] = saved;
    }
    return g;
}

/// got agrees with want to `tol`, relative to 1 + |want|.
template <class T, class S>
void require_close(const Tensor<T, S>& got, const std::vector<double>& want, double tol = 1e-6) {
    const auto v = flat(got);
    REQUIRE(v.size() == want.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        INFO("element " << i << ": " << v[i] << ", expected " << want[i]);
        CHECK(std::abs(v[i] - want[i]) <= tol * (1 + std::abs(want[i])));
    }
}

/// Restores GRAPH_MODE when a check leaves, whatever it switched to.
struct mode_guard {
    ~mode_guard() { set_context(GRAPH_MODE); }
};

/// The gradients of f's scalar output with respect to arguments Positions (a std::array), on the
/// autodiff tape itself (tensor/autograd.hpp): those arguments made leaves, f run on them, the
/// tape run back from the output. A std::tuple of tensors, as grad with a tuple of argnums.
template <auto Positions, class F, class... A>
auto tape_gradients(const F& f, const A&... args) {
    const auto inputs = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::tuple{[&] {
            const auto& arg = std::get<I>(std::tuple<const A&...>(args...));
            if constexpr (std::find(Positions.begin(), Positions.end(), I) != Positions.end())
                return autograd::leaf(arg);
            else
                return arg;
        }()...};
    }
    (std::index_sequence_for<A...>{});
    const auto y = std::apply(f, inputs);
    autograd::backward(y, ones_like(y.value));
    return [&]<std::size_t... P>(std::index_sequence<P...>) {
        return std::tuple{autograd::gradient(std::get<Positions[P]>(inputs))...};
    }
    (std::make_index_sequence<Positions.size()>{});
}

/// grad(f, (Ks...))(args...) in both modes, GRAPH_MODE (the backward graph derived from the traced
/// type, fused) and PYNATIVE_MODE (the same graph op by op), then on the autodiff tape
/// (tape_gradients): check(p, k, gradient) for the p-th selected argument, argument k (both
/// integral_constants).
template <std::size_t... Ks, class F, class Check, class... A>
void for_each_gradient(const F& f, const Check& check, const A&... args) {
    constexpr std::array<std::size_t, sizeof...(Ks)> selected{Ks...};
    const auto check_each = [&](const auto& grads) {
        [&]<std::size_t... P>(std::index_sequence<P...>) {
            (check(std::integral_constant<std::size_t, P>{},
                   std::integral_constant<std::size_t, selected[P]>{}, std::get<P>(grads)),
             ...);
        }
        (std::make_index_sequence<sizeof...(Ks)>{});
    };
    {
        const mode_guard restore;
        for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
            INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
            set_context(mode);
            check_each(grad(f, std::tuple{int_<static_cast<long long>(Ks)>{}...})(args...));
        }
    }
    INFO("the tape");
    check_each(tape_gradients<selected>(f, args...));
}

/// grad(f, (Ks...)) against finite differences, for every argument K in Ks, in both modes and on
/// the tape.
template <std::size_t... Ks, class F, class... A>
void check_gradients(const F& f, const A&... args) {
    for_each_gradient<Ks...>(
        f,
        [&](auto, auto k, const auto& gradient) {
            INFO("argument " << k());
            require_close(gradient, numeric_gradient<k()>(f, args...));
        },
        args...);
}

/// The gradient of sum(f(x) * w) for x [2, 5] in [0.2, 2) (where log, sqrt and rsqrt are
/// defined) and random weights w, so that every element's derivative counts differently: a unary
/// op's derivative, in both modes and on the tape.
template <class F>
void check_unary(const F& f) {
    const auto x = random_tensor(2, 0.2, 2.0, 2_c, 5_c);
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    check_gradients<0>([f](auto v, auto c) { return (f(v) * c).sum(); }, x, w);
}

/// H·1, the Hessian of scalar f at `at` times ones, in both modes, against the analytic `want`.
/// (Second derivatives: the graph-mode types of a second derivative grow fast, docs/autodiff.md
/// "Higher order", so the tests keep to this one-argument form.)
template <class F, class X>
void check_hessian_row_sums(const F& f, const X& at, const std::vector<double>& want) {
    const mode_guard restore;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        const auto h = grad([f](auto y) { return grad(f)(y).sum(); })(at);
        require_close(h, want, 1e-10);
    }
}

/// For f = sum(phi(x)): H·1 = phi''(x).
template <class X, class Phi2>
std::vector<double> separable(const X& at, const Phi2& phi2) {
    std::vector<double> out;
    for (double e : flat(at))
        out.push_back(phi2(e));
    return out;
}
} // namespace autodiff_test
