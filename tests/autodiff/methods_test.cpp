// The methods of traced and recorded values (PyTorch's Tensor methods: x.where, x.masked_fill,
// x.gather, ...) and the derivatives of select_scatter and slice_scatter
// (tensor/op_objects_index.hpp: x's gradient is g with the view's elements zeroed, src's the
// view of g), against finite differences in both modes.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
const auto x = random_tensor(61, -1, 1, 3_c, 4_c);
const auto w = random_tensor(62, -1, 1, 3_c, 4_c);
const auto row = random_tensor(63, -1, 1, 4_c);
const auto cols = random_tensor(64, -1, 1, 3_c, 2_c);
} // namespace

TEST_CASE("d/dx and d/dsrc of select_scatter") {
    check_gradients<0, 1>(
        [](auto v, auto s, auto c) { return (select_scatter(v, s.square(), 0_c, 1) * c).sum(); }, x,
        row, w);
}

TEST_CASE("d/dx and d/dsrc of slice_scatter with a step, as a method") {
    check_gradients<0, 1>(
        [](auto v, auto s, auto c) {
            return (v.slice_scatter(s * s, 1_c, 0_c, None, 2_c) * c).sum();
        },
        x, cols, w);
}

TEST_CASE(
    "where, masked_fill, gather, index_select, add and mul as methods of differentiated values") {
    check_gradients<0>(
        [](auto v, auto c) {
            const auto i = tensor<std::int64_t>({{2, 0}, {1, 1}, {3, 0}});
            const auto cols = tensor<std::int64_t>({0, 1});
            return v.where(v > 0.0, v.square())
                .masked_fill(v < -0.5, 0.25)
                .gather(1_c, i)
                .add(1.0)
                .mul(c.index_select(1_c, cols))
                .sum();
        },
        x, w);
}
