#pragma once
// Helpers of the graph tests: run a jit function in both modes and compare.

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/jit.hpp>
#include <staticpy/staticpy.hpp>

namespace graph_test {

/// Restores GRAPH_MODE when a test leaves, whatever it switched to.
struct mode_guard {
    ~mode_guard() { staticpy::set_context(staticpy::GRAPH_MODE); }
};

template <class T, class S>
std::vector<double> flat(const staticpy::Tensor<T, S>& t) {
    auto c = t.contiguous();
    std::vector<double> v;
    for (std::int64_t i = 0; i < c.numel(); ++i)
        v.push_back(static_cast<double>(c.data()[i]));
    return v;
}

/// a and b have the same dtype, sizes and values (NaN equal to NaN; floats within rtol/atol).
template <class T, class S, class U, class S2>
void require_same(const staticpy::Tensor<T, S>& a, const staticpy::Tensor<U, S2>& b,
                  double rtol = 1e-5, double atol = 1e-6) {
    STATIC_REQUIRE(std::is_same_v<T, U>);
    REQUIRE(std::vector<std::int64_t>(a.sizes().begin(), a.sizes().end()) ==
            std::vector<std::int64_t>(b.sizes().begin(), b.sizes().end()));
    const auto x = flat(a), y = flat(b);
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i]) || std::isnan(y[i])) {
            CHECK((std::isnan(x[i]) && std::isnan(y[i])));
        } else if (std::isinf(x[i]) || std::isinf(y[i])) {
            CHECK(x[i] == y[i]);
        } else {
            INFO("element " << i << ": " << x[i] << " vs " << y[i]);
            CHECK(std::abs(x[i] - y[i]) <= atol + rtol * std::abs(y[i]));
        }
    }
}

/// both_modes with an absolute tolerance: sums of many terms that cancel are exact in eager mode
/// (double accumulators) and within float rounding of the terms' size in graph mode.
template <class F, class... Args>
auto both_modes_within(double atol, const F& f, const Args&... args) {
    mode_guard guard;
    staticpy::set_context(staticpy::GRAPH_MODE);
    auto graph = f(args...);
    staticpy::set_context(staticpy::PYNATIVE_MODE);
    auto eager = f(args...);
    require_same(graph, eager, 1e-5, atol);
    return graph;
}

/// f in graph mode and in PyNative mode gives the same result type and numbers; returns the
/// graph-mode result.
template <class F, class... Args>
auto both_modes(const F& f, const Args&... args) {
    mode_guard guard;
    staticpy::set_context(staticpy::GRAPH_MODE);
    auto graph = f(args...);
    staticpy::set_context(staticpy::PYNATIVE_MODE);
    auto eager = f(args...);
    STATIC_REQUIRE(std::is_same_v<decltype(graph), decltype(eager)>);
    require_same(graph, eager);
    return graph;
}

} // namespace graph_test
