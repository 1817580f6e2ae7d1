// Second derivatives, grad(grad(f)), of elementwise ops and reductions against their analytic
// values, in both modes: GRAPH_MODE differentiates the traced backward graph again; PYNATIVE_MODE's
// inner grad records its backward pass on the outer grad's tape. Each check is the gradient of x ->
// sum(grad(f)(x)), the Hessian's row sums (check_hessian_row_sums). (Two files: one took clang 10.5
// GB.)

#include <cmath>
#include <cstddef>
#include <vector>

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// x [2, 3] in [0.3, 1.5).
const auto x = random_tensor(21, 0.3, 1.5, 2_c, 3_c);
} // namespace

TEST_CASE("second derivative of x sin x") {
    check_hessian_row_sums(
        [](auto y) { return (y * y.sin()).sum(); }, x,
        separable(x, [](double t) { return 2 * std::cos(t) - t * std::sin(t); }));
}

TEST_CASE("second derivative of x relu(x), at 0 too") {
    // relu'' is 0 and relu'(0) is 0 (PyTorch's), so (x relu x)'' = 2 [x > 0].
    auto at = x.clone();
    at.data()[1] = 0.0;
    at.data()[4] = -0.5;
    check_hessian_row_sums([](auto y) { return (y * relu(y)).sum(); }, at,
                           separable(at, [](double t) { return t > 0 ? 2.0 : 0.0; }));
}

TEST_CASE("second derivative of the square of a mean over a dim") {
    // f = sum over the 2 rows of mean(row)^2, 3 per row: H = 2/9 within a row, H·1 = 2/3.
    check_hessian_row_sums([](auto y) { return mean(y, 1_c).square().sum(); }, x,
                           std::vector<double>(6, 2.0 / 3.0));
}

TEST_CASE("second derivative of log-sum-exp") {
    // f = log(sum(exp(c x))) for constant weights c: H = diag(c) (diag(p) - p pᵀ) diag(c) with
    // p = softmax(c x), so H·1 = c p (c - p·c).
    const auto c = random_tensor(22, -1.5, 1.5, 2_c, 3_c);
    const auto xs = flat(x), cs = flat(c);
    double z = 0, pc = 0;
    for (std::size_t i = 0; i < 6; ++i)
        z += std::exp(cs[i] * xs[i]);
    std::vector<double> p;
    for (std::size_t i = 0; i < 6; ++i) {
        p.push_back(std::exp(cs[i] * xs[i]) / z);
        pc += p[i] * cs[i];
    }
    std::vector<double> want;
    for (std::size_t i = 0; i < 6; ++i)
        want.push_back(cs[i] * p[i] * (cs[i] - pc));
    check_hessian_row_sums([c](auto y) { return (y * c).exp().sum().log(); }, x, want);
}
