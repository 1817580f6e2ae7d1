// Derivatives of the ops that select values and give their indices: max and min along a dim,
// topk and sort (op_objects_index.hpp). The gradient goes to the element each value was read
// from, zeros elsewhere (PyTorch's value_selecting_reduction_backward), ties as PyTorch picks
// them; first derivatives in both modes, against hand-computed values (ties make finite
// differences meaningless) and finite differences where there are none. (The second
// derivatives are higher_order_indices_test.cpp's: in one file with these, g++ took 6.3 GB.)

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// Rows with ties: max along dim 1 picks indices 1 and 0, the first of each tie.
const auto ties = tensor<double>({{1, 3, 3, 2}, {5, 5, 1, 5}});

template <class T, class S>
std::vector<std::int64_t> indices_of(const Tensor<T, S>& t) {
    std::vector<std::int64_t> out;
    for (double e : flat(t))
        out.push_back(static_cast<std::int64_t>(e));
    return out;
}

/// value_and_grad(f, 0_c, True)(x) in both modes, f returning (loss, values, indices): the
/// gradient, the values and the indices against the expected ones.
template <class F, class X>
void check_selection(const F& f, const X& x, const std::vector<double>& want_grad,
                     const std::vector<double>& want_values,
                     const std::vector<std::int64_t>& want_indices) {
    const mode_guard restore;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        const auto [out, g] = value_and_grad(f, 0_c, True)(x);
        require_close(g, want_grad, 1e-12);
        require_close(std::get<1>(out), want_values, 1e-12);
        CHECK(indices_of(std::get<2>(out)) == want_indices);
    }
}
} // namespace

TEST_CASE("max along a dim: the gradient goes to the first of tied maxima") {
    // torch.max(x, 1): values [3, 5], indices [1, 0]; the gradient of sum(values * [10, 20])
    check_selection(
        [](auto v) {
            const auto [values, indices] = max(v, 1_c);
            const auto w = tensor<double>({10, 20});
            return std::tuple{(values * w).sum(), values, indices};
        },
        ties, {0, 10, 0, 0, 20, 0, 0, 0}, {3, 5}, {1, 0});
}

TEST_CASE("max along a run-time dim with keepdim, as a method") {
    // columns [1, 5], [3, 5], [3, 1], [2, 5]: indices [[1, 1, 0, 1]]
    check_selection(
        [](auto v) {
            const auto m = v.max(0, True);
            const auto w = tensor<double>({{1, 2, 3, 4}});
            return std::tuple{(m.values * w).sum(), m.values, m.indices};
        },
        ties, {0, 0, 3, 0, 1, 2, 0, 4}, {5, 5, 3, 5}, {1, 1, 0, 1});
}

TEST_CASE("min along a dim: ties and keepdim") {
    const auto x = tensor<double>({{2, 1, 1, 4}, {0, 3, 0, 0}});
    check_selection(
        [](auto v) {
            const auto [values, indices] = min(v, -1_c, True);
            const auto w = tensor<double>({10, 20}).unsqueeze(1_c);
            return std::tuple{(values * w).sum(), values, indices};
        },
        x, {0, 10, 0, 0, 20, 0, 0, 0}, {1, 0}, {1, 0});
}

TEST_CASE("max and min along a dim against finite differences") {
    const auto x = random_tensor(41, -1, 1, 3_c, 4_c);
    const auto w = random_tensor(42, -1, 1, 4_c);
    check_gradients<0>([](auto v, auto c) { return (v.max(0_c).values * c).sum(); }, x, w);
    check_gradients<0>([](auto v, auto c) { return (min(v, 0).values * c).sum(); }, x, w);
}

TEST_CASE("topk: the gradient goes to the k selected elements") {
    // torch.topk(ties, 2): indices [[1, 2], [1, 3]]
    check_selection(
        [](auto v) {
            const auto [values, indices] = topk(v, 2_c);
            const auto w = tensor<double>({{1, 2}, {3, 4}});
            return std::tuple{(values * w).sum(), values, indices};
        },
        ties, {0, 1, 2, 0, 0, 3, 0, 4}, {3, 3, 5, 5}, {1, 2, 1, 3});
}

TEST_CASE("topk of the smallest, a run-time k, as a method, against finite differences") {
    const auto x = random_tensor(43, -1, 1, 3_c, 5_c);
    const auto w = random_tensor(44, -1, 1, 3_c, 3_c);
    check_gradients<0>(
        [](auto v, auto c) {
            return (v.topk(std::int64_t{3}, 1_c, false).values * c.reshape(3_c, -1_c)).sum();
        },
        x, w);
}

TEST_CASE("sort: each value's gradient goes back to where it came from") {
    // torch.sort(ties): indices [[0, 3, 1, 2], [2, 0, 1, 3]]
    check_selection(
        [](auto v) {
            const auto values = sort(v).values;
            const auto w = tensor<double>({{1, 2, 3, 4}, {5, 6, 7, 8}});
            // argsort (a method here) gives sort's indices: a tensor on the tape, a node traced
            return std::tuple{(values * w).sum(), values, v.argsort()};
        },
        ties, {1, 3, 4, 2, 6, 7, 5, 8}, {1, 2, 3, 3, 1, 5, 5, 5}, {0, 3, 1, 2, 2, 0, 1, 3});
}

TEST_CASE("sort descending along dim 0, as a method, against finite differences") {
    const auto x = random_tensor(45, -1, 1, 3_c, 4_c);
    const auto w = random_tensor(46, -1, 1, 3_c, 4_c);
    check_gradients<0>([](auto v, auto c) { return (v.sort(0_c, true).values * c).sum(); }, x, w);
}

TEST_CASE("on the tape, indices are plain tensors: argmax, argmin, detach, the indices of max") {
    const auto x = autograd::leaf(ties);
    const auto i = argmax(x, 1_c, True);
    STATIC_REQUIRE(is_tensor_v<std::remove_cvref_t<decltype(i)>>);
    CHECK(indices_of(i) == std::vector<std::int64_t>{1, 0});
    CHECK(indices_of(x.argmin(1_c)) == std::vector<std::int64_t>{0, 2});
    const auto d = x.detach();
    STATIC_REQUIRE(std::is_same_v<decltype(d), const Tensor<double, dynamic_shape<2>>>);
    CHECK(d.data() == ties.data()); // the value itself, as PyTorch's detach shares its storage
    const auto m = max(x, 1_c);
    STATIC_REQUIRE(is_var_v<decltype(m.values)>);
    STATIC_REQUIRE(is_tensor_v<decltype(m.indices)>);
    // indices computed from the detached value inside a differentiated function (both modes)
    const mode_guard restore;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        set_context(mode);
        const auto g = grad([](auto v) {
            return gather(v, 1_c, argmax(v.detach(), 1_c, True)).square().sum();
        })(ties);
        require_close(g, {0, 6, 0, 0, 10, 0, 0, 0}, 1e-12);
    }
}
