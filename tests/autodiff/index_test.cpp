// Derivatives of the indexing ops (tensor/op_objects_index.hpp): select, x[i], slice, narrow,
// x[slice] of a transposed (strided) input, index_select and gather, against finite differences
// in both modes, with duplicated indices (gradients accumulate), negative and run-time dims, an
// index that is a traced argument or a captured strided tensor; and an index out of range.
// (scatter_add, index_add, cat, stack, one_hot: index_join_test.cpp; one file of both took
// clang over 12 GB.)

#include <cstdint>
#include <tuple>

#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "autodiff_test_support.hpp"

using namespace autodiff_test;
using test_errors::error_of;

namespace {
using i64 = std::int64_t;
const auto x = random_tensor(41, -1, 1, 3_c, 4_c);
const auto xt = random_tensor(42, -1, 1, 4_c, 3_c);
const auto w3 = random_tensor(45, -1, 1, 3_c);
const auto w4 = random_tensor(46, -1, 1, 4_c);
const auto w24 = random_tensor(48, -1, 1, 2_c, 4_c);
const auto w44 = random_tensor(50, -1, 1, 4_c, 4_c);
/// Rows 2, 0, 2, 2 (duplicated: their gradients add up).
const auto rows = tensor<i64>({2, 0, 2, 2});
/// Columns 1, 3, 1 read with stride 2 (a strided index).
const auto strided_columns = tensor<i64>({1, 9, 3, 9, 1}).slice(0_c, 0_c, None, 2_c);
/// Per row, two labels out of 4 (row 1 picks 3 twice).
const auto labels = tensor<i64>({{0, 2}, {3, 3}, {1, 0}});
/// For gather along dim 0 of a [3, 4] value: [2, 4] row numbers, duplicated in column 1.
const auto row_numbers = tensor<i64>({{2, 1, 0, 0}, {0, 1, 2, 1}});
/// The views that take some of x's elements, with compile-time, negative and run-time dims.
const auto views = [](auto v) {
    auto a = (v[1] * w4).sum();
    auto b = (v.select(-1_c, 2) * w3).sum();
    auto c = v.slice(1_c, 1, None, 2_c);
    auto d = (v.narrow(0_c, 1, 2) * w24).sum();
    auto e = v[slice(1, None)].sum() + v.select(1, -1).sum() + v.slice(-1, 0, 2).square().sum();
    return a + b + (c * c).sum() + d + e;
};
/// index_select with a traced index (an argument) and a captured strided one.
const auto selects = [](auto v, auto idx) {
    auto a = (index_select(v, 0_c, idx) * w44).sum();
    auto b = (index_select(v, -1, strided_columns).square() * w3.unsqueeze(-1_c)).sum();
    return a + b;
};
} // namespace

TEST_CASE("d/dx of the views of a transposed input") {
    check_gradients<0>([](auto v) { return views(v.t()); }, xt);
}

TEST_CASE("d/dx of index_select: duplicated, strided and traced indices") {
    check_gradients<0>(selects, x, rows);
}

TEST_CASE("d/dx of gather: a cross-entropy and a transposed input") {
    check_gradients<0>(
        [](auto v, auto lab) {
            auto nll = -gather(log_softmax(v, 1_c), 1_c, lab).mean();
            auto picked = gather(v.t().t(), 0_c, row_numbers);
            return nll + (picked * w24).sum() + (gather(v, -1_c, lab) * v.slice(1_c, 0, 2)).sum();
        },
        x, labels);
}

TEST_CASE("an index out of range throws, in graph mode as eagerly") {
    const mode_guard restore;
    const auto bad = tensor<i64>({2, 3, 0, 1});
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        CHECK(error_of<IndexError>([&] { grad(selects, std::tuple{0_c})(x, bad); }) ==
              "index out of range in self");
    }
}
