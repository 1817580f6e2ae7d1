// The second derivative of prod, grad(grad(f)), against its analytic value, in both modes:
// GRAPH_MODE differentiates the traced backward graph again; PYNATIVE_MODE's inner grad records
// its backward pass on the outer grad's tape. Each check is the gradient of x -> sum(grad(f)(x)),
// the Hessian's row sums (check_hessian_row_sums). (Alone in its file: it takes clang
// 6.4 GB; higher_order_test.cpp has the others.)

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

TEST_CASE("second derivative of prod") {
    // d^2 prod / dx_i dx_j = prod / (x_i x_j) for i != j, 0 for i == j.
    const auto xs = flat(x);
    double p = 1;
    for (double e : xs)
        p *= e;
    std::vector<double> want;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        double s = 0;
        for (std::size_t j = 0; j < xs.size(); ++j)
            if (j != i)
                s += p / (xs[i] * xs[j]);
        want.push_back(s);
    }
    check_hessian_row_sums([](auto y) { return prod(y); }, x, want);
}
