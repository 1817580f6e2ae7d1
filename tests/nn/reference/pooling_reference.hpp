#pragma once
// The records of pooling_reference.txt (make_pooling_reference.py: PyTorch 1.13's pooling in
// float64), its inputs as tensors, and its cases as calls of staticpy's functions: what
// tests/nn/pooling_test.cpp (values eagerly and traced, gradients on the tape) and
// tests/autodiff/pooling_test.cpp (gradients through grad in both modes) share.

#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

#include "tensor_records.hpp"

namespace pooling_reference {

using namespace staticpy;
using namespace staticpy::literals;

/// The records of pooling_reference.txt.
inline const reference::tensor_records& records() {
    static const reference::tensor_records r("pooling_reference.txt");
    return r;
}
inline const std::vector<double>& record(const std::string& name) {
    return records().record(name);
}

template <class T = double, class... E>
auto input(const std::string& name, E... extents) {
    return records().input<T>(name, extents...);
}

using reference::values;

/// got agrees with want within tol relative to 1 + |want| (NaN with NaN, infinities exactly).
inline void require_matches(const std::vector<double>& got, const std::vector<double>& want,
                            double tol = 1e-12) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": " << got[i] << ", expected " << want[i]);
        CHECK((got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])) ||
               std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i]))));
    }
}

/// A result against the records <call>/shape and <call>/value.
template <class T, class S>
void check_value(const std::string& call, const Tensor<T, S>& y) {
    INFO(call);
    require_matches(std::vector<double>(y.sizes().begin(), y.sizes().end()),
                    record(call + "/shape"));
    require_matches(values(y), record(call + "/value"));
}

/// The record <call>/cotangent as a tensor like y.
template <class T, class S>
Tensor<T, S> cotangent_like(const std::string& call, const Tensor<T, S>& y) {
    Tensor<T, S> c{y.shape()};
    const auto& numbers = record(call + "/cotangent");
    REQUIRE(static_cast<std::int64_t>(numbers.size()) == c.numel());
    for (std::int64_t i = 0; i < c.numel(); ++i)
        c.data()[i] = static_cast<T>(numbers[static_cast<std::size_t>(i)]);
    return c;
}

/// The gradient of scalar f at x on the autodiff tape, as PYNATIVE_MODE's grad computes it
/// (without grad's GRAPH_MODE instantiation, seconds of compile each).
template <class F, class T, class S>
Tensor<T, S> tape_gradient(const F& f, const Tensor<T, S>& x) {
    auto leaf = autograd::leaf(x);
    const auto y = f(leaf);
    autograd::backward(y, ones_like(y.value));
    return autograd::gradient(leaf);
}

/// [2, 3, 6, 7] without ties; [1, 2, 4, 5] with ties, NaN and -inf; [3, 5, 5] unbatched.
inline const auto X = input("X", 2_c, 3_c, 6_c, 7_c);
inline const auto XT = input("XT", 1_c, 2_c, 4_c, 5_c);
inline const auto X3 = input("X3", 3_c, 5_c, 5_c);

/// One call of the script: its name (the records' prefix), the pooling (a generic lambda, run on
/// tensors, traced values and the tape's alike) and its input.
template <class Pool, class X>
struct pool_case {
    const char* call;
    Pool pool;
    const X& input;
};
template <class Pool, class X>
pool_case(const char*, Pool, const X&) -> pool_case<Pool, X>;

// The script's floating cases, each once (an int64 avg_pool2d one is pooling_test.cpp's).
inline const pool_case max_2{"max_pool2d(X,2)", [](const auto& x) { return max_pool2d(x, 2_c); },
                             X};
inline const pool_case max_3_2_1{"max_pool2d(X,3,2,1)",
                                 [](const auto& x) { return max_pool2d(x, 3_c, 2_c, 1_c); }, X};
inline const pool_case max_dilated{
    "max_pool2d(X,3,1,1,2)", [](const auto& x) { return max_pool2d(x, 3_c, 1_c, 1_c, 2_c); }, X};
inline const pool_case max_ceil{
    "max_pool2d(X,2,2,0,1,True)",
    [](const auto& x) { return max_pool2d(x, 2_c, 2_c, 0_c, 1_c, True); }, X};
// run-time numbers: run-time H and W, the same numbers; ceil_mode drops the last window
inline const pool_case max_ceil_drops{
    "max_pool2d(X,3,4,1,1,True)", [](const auto& x) { return max_pool2d(x, 3, 4, 1, 1, true); }, X};
inline const pool_case max_pairs{"max_pool2d(X,(3,2),(2,1),(1,0),(1,2),True)",
                                 [](const auto& x) {
                                     return max_pool2d(x, std::tuple{3_c, 2_c},
                                                       std::tuple{2_c, 1_c}, std::tuple{1_c, 0_c},
                                                       std::pair{1_c, 2_c}, True);
                                 },
                                 X};
// ties: the first of equal values is the max; NaN wins and the last NaN takes the gradient; an
// all -inf window's gradient goes to its first tap
inline const pool_case max_ties{"max_pool2d(XT,2,1)",
                                [](const auto& x) { return max_pool2d(x, 2_c, 1_c); }, XT};
inline const pool_case max_ties_padded{
    "max_pool2d(XT,2,2,1,1,True)",
    [](const auto& x) { return max_pool2d(x, 2_c, 2_c, 1_c, 1_c, True); }, XT};
inline const pool_case max_unbatched{"max_pool2d(X3,2,1)",
                                     [](const auto& x) { return max_pool2d(x, 2_c, 1_c); }, X3};

inline const pool_case avg_2{"avg_pool2d(X,2)", [](const auto& x) { return avg_pool2d(x, 2_c); },
                             X};
inline const pool_case avg_3_2_1{"avg_pool2d(X,3,2,1)",
                                 [](const auto& x) { return avg_pool2d(x, 3_c, 2_c, 1_c); }, X};
inline const pool_case avg_exclude_pad{
    "avg_pool2d(X,3,2,1,False,False)",
    [](const auto& x) { return avg_pool2d(x, 3_c, 2_c, 1_c, False, false); }, X};
inline const pool_case avg_ceil{
    "avg_pool2d(X,3,2,1,True,True)",
    [](const auto& x) { return avg_pool2d(x, 3_c, 2_c, 1_c, True, true); }, X};
inline const pool_case avg_ceil_exclude_pad{
    "avg_pool2d(X,3,2,1,True,False)",
    [](const auto& x) { return avg_pool2d(x, 3, 2, 1, true, false); }, X};
inline const pool_case avg_ceil_wide_pad{
    "avg_pool2d(X,4,3,2,True,True)",
    [](const auto& x) { return avg_pool2d(x, 4_c, 3_c, 2_c, True); }, X};
inline const pool_case avg_divisor{
    "avg_pool2d(X,(2,3),(1,2),(1,1),False,True,5)",
    [](const auto& x) {
        return avg_pool2d(x, std::tuple{2_c, 3_c}, std::tuple{1_c, 2_c}, 1_c, False, true, 5);
    },
    X};
inline const pool_case avg_unbatched{"avg_pool2d(X3,2,1)",
                                     [](const auto& x) { return avg_pool2d(x, 2_c, 1_c); }, X3};

inline const pool_case adaptive_3_4{"adaptive_avg_pool2d(X,(3,4))",
                                    [](const auto& x) {
                                        return adaptive_avg_pool2d(x, std::tuple{3_c, 4_c});
                                    },
                                    X};
inline const pool_case adaptive_overlapping{"adaptive_avg_pool2d(X,(4,5))",
                                            [](const auto& x) {
                                                return adaptive_avg_pool2d(x, std::pair{4, 5});
                                            },
                                            X};
inline const pool_case adaptive_mean{"adaptive_avg_pool2d(X,1)",
                                     [](const auto& x) { return adaptive_avg_pool2d(x, 1_c); }, X};
inline const pool_case adaptive_none{"adaptive_avg_pool2d(X,(None,3))",
                                     [](const auto& x) {
                                         return adaptive_avg_pool2d(x, std::tuple{None, 3_c});
                                     },
                                     X};
inline const pool_case adaptive_larger{"adaptive_avg_pool2d(X3,(8,9))",
                                       [](const auto& x) {
                                           return adaptive_avg_pool2d(x, std::tuple{8_c, 9_c});
                                       },
                                       X3};

/// visit(case) for each case of one function.
template <class Visit>
void for_each_max_case(const Visit& visit) {
    visit(max_2), visit(max_3_2_1), visit(max_dilated), visit(max_ceil), visit(max_ceil_drops);
    visit(max_pairs), visit(max_ties), visit(max_ties_padded), visit(max_unbatched);
}
template <class Visit>
void for_each_avg_case(const Visit& visit) {
    visit(avg_2), visit(avg_3_2_1), visit(avg_exclude_pad), visit(avg_ceil);
    visit(avg_ceil_exclude_pad), visit(avg_ceil_wide_pad), visit(avg_divisor), visit(avg_unbatched);
}
template <class Visit>
void for_each_adaptive_case(const Visit& visit) {
    visit(adaptive_3_4), visit(adaptive_overlapping), visit(adaptive_mean), visit(adaptive_none);
    visit(adaptive_larger);
}

} // namespace pooling_reference
