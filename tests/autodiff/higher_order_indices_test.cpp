// Second derivatives of the ops that select values and give their indices (max along a dim,
// topk, sort: op_objects_index.hpp), in both modes, against their analytic values: the values are
// gather(x, dim, indices), whose derivative is a scatter onto zeros at the indices, and the
// derivative of that is gather again. (The first derivatives are indices_test.cpp's.)

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// Rows with ties: max along dim 1 picks indices 1 and 0, topk(2) [1, 2] and [1, 3], sort
/// [0, 3, 1, 2] and [2, 0, 1, 3] (indices_test.cpp).
const auto ties = tensor<double>({{1, 3, 3, 2}, {5, 5, 1, 5}});
} // namespace

TEST_CASE("second derivatives of max along a dim, topk and sort") {
    // f = sum(selected^2): grad f = 2 x at the selected elements, so H·1 is 2 there, 0 elsewhere.
    check_hessian_row_sums([](auto v) { return max(v, 1_c).values.square().sum(); }, ties,
                           {0, 2, 0, 0, 2, 0, 0, 0});
    // along the only dim: a zero-dim value (the tape records the rule of its squeeze's rule, a
    // reshape to zero dims)
    check_hessian_row_sums([](auto v) { return max(v, 0_c).values.square(); },
                           tensor<double>({1, 3, 3, 2}), {0, 2, 0, 0});
    check_hessian_row_sums([](auto v) { return topk(v, 2_c).values.square().sum(); }, ties,
                           {0, 2, 2, 0, 0, 2, 0, 2});
    // every element is selected by sort: H·1 = 2 everywhere, weighted by where it lands
    const auto w = tensor<double>({{1, 2, 3, 4}, {5, 6, 7, 8}});
    check_hessian_row_sums([w](auto v) { return (sort(v).values.square() * w).sum(); }, ties,
                           {2, 6, 8, 4, 12, 14, 10, 16});
}
