#pragma once
// What the loss derivative tests share (loss_class_test.cpp, loss_elementwise_test.cpp): the
// inputs of tests/nn/reference/loss_reference.txt, and check_case, which compares grad in both
// modes with PyTorch's gradients and with finite differences.

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <staticpy/staticpy.hpp>

#include "../nn/reference/loss_reference.hpp"
#include "autodiff_test_support.hpp"

namespace loss_test {

using namespace autodiff_test;
namespace F = staticpy::nn::functional;
using loss_reference::input;

/// got agrees with want within 1e-6 relative to 1 + |want| (infinities equal).
inline void require_matches(const std::vector<double>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": " << got[i] << ", expected " << want[i]);
        CHECK((got[i] == want[i] || std::abs(got[i] - want[i]) <= 1e-6 * (1 + std::abs(want[i]))));
    }
}

/// grad(f) with respect to arguments Ks, in both modes, against the reference gradients
/// grad/<name>/d<wrt[i]>, and, with finite_differences, against central differences of f.
template <std::size_t... Ks, class Fn, class... A>
void check_case(const std::string& name, const std::array<const char*, sizeof...(Ks)>& wrt,
                bool finite_differences, const Fn& f, const A&... args) {
    for_each_gradient<Ks...>(
        f,
        [&](auto p, auto k, const auto& gradient) {
            INFO("d" << wrt[p()]);
            const auto got = loss_reference::values(gradient);
            require_matches(got, loss_reference::record("grad/" + name + "/d" + wrt[p()]));
            if (finite_differences)
                require_matches(got, numeric_gradient<k()>(f, args...));
        },
        args...);
}

inline const auto X = input("X", 4_c, 5_c);
inline const auto T = input<std::int64_t>("T", 4_c);
inline const auto TI = input<std::int64_t>("TI", 4);
inline const auto W = input("W", 5);
inline const auto P = input("P", 4_c, 5_c);
inline const auto C = input("C", 4);
inline const auto A = input("A", 3, 4);
inline const auto B = input("B", 3, 4);
inline const auto PR = input("PR", 3_c, 4_c);
inline const auto Q = input("Q", 3_c, 4_c);
inline const auto BW = input("BW", 4_c);
inline const auto PW = input("PW", 4);
inline const auto L = input("L", 3, 4);

} // namespace loss_test
