// Eager indexing and joining ops (ops_index.hpp, ops_join.hpp) against values worked out by hand
// from PyTorch's definitions: index_select, gather, scatter_add, index_add, one_hot,
// select_scatter, slice_scatter, cat, stack. Every dtype combination that changes the code path,
// strided and transposed inputs, negative and run-time dims, the result shape types, empty
// tensors, and every error text. Then the same ops traced (jit) and recorded (autograd's Var),
// through their op objects (op_objects_index.hpp): the eager results and errors.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers/list.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/tensor/autograd.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops_index.hpp>

#include "../test_errors.hpp"
#include "test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using tensor_test::values;
using test_errors::error_of;

namespace {

using i64 = std::int64_t;
using i32 = std::int32_t;

/// [[1, 2, 3], [4, 5, 6]]
Tensor<float, dynamic_shape<2>> x23() {
    return tensor<float>({{1, 2, 3}, {4, 5, 6}});
}

/// x[i][j][k] = 12 i + 4 j + k, shape [2, 3, 4] (static).
template <class T = double>
auto x234() {
    return arange<T>(24).reshape(2_c, 3_c, 4_c);
}

/// A 1-D index read with stride 2: {values...} at even positions, 99 (out of range) between.
template <class I>
auto strided_index(std::initializer_list<I> v) {
    std::vector<I> spread;
    for (I e : v) {
        spread.push_back(e);
        spread.push_back(I(99));
    }
    return from_vector(spread).slice(0_c, 0_c, None, 2_c);
}

template <class S>
using shape_t = typename S::shape_type;

} // namespace

// ---- index_select ------------------------------------------------------------------------------

TEST_CASE("index_select: rows and columns, negative dims, int64 and int32 index", "[index]") {
    auto x = x23();
    CHECK(values(index_select(x, 0_c, tensor<i64>({1, 0, 1}))) ==
          std::vector<float>{4, 5, 6, 1, 2, 3, 4, 5, 6});
    CHECK(values(index_select(x, 1_c, tensor<i64>({2, 0}))) == std::vector<float>{3, 1, 6, 4});
    CHECK(values(index_select(x, -1_c, tensor<i32>({1}))) == std::vector<float>{2, 5});
    CHECK(values(index_select(x, -2, tensor<i32>({1}))) == std::vector<float>{4, 5, 6});
    auto r = index_select(x.to<double>(), 1, tensor<i64>({0, 0, 2, 1}));
    CHECK(r.sizes() == std::array<i64, 2>{2, 4});
    CHECK(values(r) == std::vector<double>{1, 1, 3, 2, 4, 4, 6, 5});
}

TEST_CASE("index_select: 3-D along every dim (block copies and the strided walk)", "[index]") {
    auto x = x234();
    // dim 0: whole [3, 4] blocks.
    auto d0 = index_select(x, 0_c, tensor<i64>({1, 1, 0}));
    std::vector<double> want0;
    for (int i : {1, 1, 0})
        for (int r = 0; r < 12; ++r)
            want0.push_back(12 * i + r);
    CHECK(values(d0) == want0);
    // dim 1: blocks of 4 inside each [3, 4] plane.
    auto d1 = index_select(x, 1_c, tensor<i64>({2, 2, 0}));
    CHECK(values(d1) == std::vector<double>{8,  9,  10, 11, 8,  9,  10, 11, 0,  1,  2,  3,
                                            20, 21, 22, 23, 20, 21, 22, 23, 12, 13, 14, 15});
    // dim 2: single elements (the walk).
    auto d2 = index_select(x, -1_c, tensor<i32>({3, 0}));
    std::vector<double> want2;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k : {3, 0})
                want2.push_back(12 * i + 4 * j + k);
    CHECK(values(d2) == want2);
}

TEST_CASE("index_select: transposed input, strided index, 0-dim index and 0-dim input", "[index]") {
    auto xt = x23().t(); // [[1, 4], [2, 5], [3, 6]], not contiguous
    CHECK(values(index_select(xt, 0_c, tensor<i64>({2, 0}))) == std::vector<float>{3, 6, 1, 4});
    CHECK(values(index_select(xt, 1_c, tensor<i64>({1}))) == std::vector<float>{4, 5, 6});
    // A 3-D permuted input along its middle dim: the walk, not the block copy.
    auto xp = x234().permute(2_c, 0_c, 1_c); // xp[k][i][j] = 12 i + 4 j + k
    auto sel = index_select(xp, 1_c, tensor<i64>({1}));
    std::vector<double> want;
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 3; ++j)
            want.push_back(12 + 4 * j + k);
    CHECK(values(sel) == want);
    CHECK(values(index_select(x23(), 1_c, strided_index<i32>({2, 1, 0}))) ==
          std::vector<float>{3, 2, 1, 6, 5, 4});
    auto scalar_index = tensor<i64>({0, 2})[1]; // 0-dim: selects one slice, dim kept
    auto one = index_select(x23(), 1_c, scalar_index);
    CHECK(one.sizes() == std::array<i64, 2>{2, 1});
    CHECK(values(one) == std::vector<float>{3, 6});
    auto scalar = tensor<double>({7.5})[0];
    auto same = index_select(scalar, 0, tensor<i64>({0}));
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(same)>, shape<>>);
    CHECK(same.item() == 7.5);
    CHECK(index_select(scalar, -1_c, tensor<i32>({0})[0]).item() == 7.5);
}

TEST_CASE("index_select: result shape types", "[index]") {
    auto x = zeros<float>(2_c, 3_c);
    auto static_index = tensor<i64>({1, 0}, 2_c);
    STATIC_REQUIRE(
        std::is_same_v<shape_t<decltype(index_select(x, 1_c, static_index))>, static_shape<2, 2>>);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(index_select(x, 0_c, tensor<i64>({1})))>,
                                  shape<i64, int_<3>>>);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(index_select(x, -1_c, static_index[0]))>,
                                  static_shape<2, 1>>);
    STATIC_REQUIRE(
        std::is_same_v<shape_t<decltype(index_select(x, 1, static_index))>, dynamic_shape<2>>);
    auto r = index_select(x, 1_c, static_index);
    CHECK(r.sizes() == std::array<i64, 2>{2, 2});
}

TEST_CASE("index_select: empty index, empty input", "[index]") {
    auto none = index_select(x23(), 1_c, from_vector(std::vector<i64>{}));
    CHECK(none.sizes() == std::array<i64, 2>{2, 0});
    // An empty index is not checked against anything, as PyTorch's.
    auto from_empty = index_select(zeros<float>(0, 3), 0_c, from_vector(std::vector<i64>{}));
    CHECK(from_empty.sizes() == std::array<i64, 2>{0, 3});
    // Rows of an input with no columns.
    auto rows = index_select(zeros<float>(3, 0), 0_c, tensor<i64>({2, 2}));
    CHECK(rows.sizes() == std::array<i64, 2>{2, 0});
}

TEST_CASE("index_select: errors", "[index][errors]") {
    auto x = x23();
    CHECK(error_of<IndexError>([&] {
              (void)index_select(x, 1_c, tensor<i64>({0, 3}));
          }) == "index out of range in self");
    CHECK(error_of<IndexError>([&] { (void)index_select(x, 0_c, tensor<i32>({-1})); }) ==
          "index out of range in self");
    CHECK(error_of<IndexError>([&] {
              (void)index_select(x, 1_c, strided_index<i64>({0, 5}));
          }) == "index out of range in self");
    CHECK(error_of<IndexError>([&] { (void)index_select(x, 2, tensor<i64>({0})); }) ==
          "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    CHECK(error_of<IndexError>([&] {
              (void)index_select(tensor<float>({1})[0], 0_c, tensor<i64>({0, 0}));
          }) == "index_select(): Index to scalar can have only 1 value, got 2 value(s)");
    CHECK(error_of<RuntimeError>([&] {
              (void)index_select(zeros<float>(2, 0), 1_c, tensor<i64>({0}));
          }) == "index_select(): self indexing axis dim should be positive");
    CHECK(error_of<IndexError>([&] {
              (void)index_select(zeros<float>(0), 0_c, tensor<i64>({0}));
          }) == "index out of range in self");
}

// ---- gather
// --------------------------------------------------------------------------------------

TEST_CASE("gather: PyTorch's examples along each dim", "[index]") {
    auto x = tensor<float>({{1, 2}, {3, 4}});
    // torch.gather(t, 1, [[0, 0], [1, 0]]) -> [[1, 1], [4, 3]]
    CHECK(values(gather(x, 1_c, tensor<i64>({{0, 0}, {1, 0}}))) == std::vector<float>{1, 1, 4, 3});
    // dim 0: out[i][j] = x[index[i][j]][j]
    CHECK(values(gather(x, 0_c, tensor<i64>({{1, 0}, {0, 0}}))) == std::vector<float>{3, 2, 1, 2});
    CHECK(values(gather(x, -2, tensor<i64>({{1, 0}, {0, 0}}))) == std::vector<float>{3, 2, 1, 2});
}

TEST_CASE("gather: an index smaller than the input, or longer along dim", "[index]") {
    auto x = x23().to<double>();
    CHECK(values(gather(x, 1_c, tensor<i64>({{2}, {0}}))) == std::vector<double>{3, 4});
    CHECK(values(gather(x, 0_c, tensor<i64>({{1, 1, 0}}))) == std::vector<double>{4, 5, 3});
    CHECK(values(gather(x, -1_c, tensor<i64>({{0, 1, 2, 2, 1}}))) ==
          std::vector<double>{1, 2, 3, 3, 2});
}

TEST_CASE("gather: 3-D along the last dim (the row loop) and the middle dim", "[index]") {
    auto x = x234<float>();
    std::vector<i64> idx;
    for (int r = 0; r < 6; ++r) {
        idx.push_back(3);
        idx.push_back(r % 4);
    }
    auto last = gather(x, -1_c, tensor<i64>(idx, 2_c, 3_c, 2_c));
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(last)>, static_shape<2, 3, 2>>);
    std::vector<float> want;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
            want.push_back(float(12 * i + 4 * j + 3));
            want.push_back(float(12 * i + 4 * j + (3 * i + j) % 4));
        }
    CHECK(values(last) == want);
    // dim 1 with index [[[2, 0, 1, 1]], [[0, 0, 2, 1]]]: out[i][0][k] = x[i][index][k]
    auto mid = gather(x, 1_c, tensor<i64>({{{2, 0, 1, 1}}, {{0, 0, 2, 1}}}));
    CHECK(values(mid) == std::vector<float>{8, 1, 6, 7, 12, 13, 22, 19});
}

TEST_CASE("gather: transposed input, strided index, 0-dim tensors", "[index]") {
    auto xt = x23().t(); // [[1, 4], [2, 5], [3, 6]]
    CHECK(values(gather(xt, 0_c, tensor<i64>({{2, 0}}))) == std::vector<float>{3, 4});
    auto idx_t = tensor<i64>({{0, 2}, {1, 1}, {2, 0}}).t(); // [[0, 1, 2], [2, 1, 0]]
    CHECK(values(gather(x23(), 1_c, idx_t)) == std::vector<float>{1, 2, 3, 6, 5, 4});
    auto v = tensor<double>({10, 20, 30});
    auto picked = gather(v, 0_c, tensor<i64>({0, 2})[1]); // 0-dim index on a 1-D input
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(picked)>, shape<>>);
    CHECK(picked.item() == 30);
    auto from_scalar = gather(tensor<double>({7})[0], 0, tensor<i64>({0}));
    CHECK(values(from_scalar) == std::vector<double>{7});
}

TEST_CASE("gather: result shape types, empty index", "[index]") {
    auto x = zeros<float>(2_c, 3_c);
    STATIC_REQUIRE(
        std::is_same_v<shape_t<decltype(gather(x, 1, tensor<i64>({{0}})))>, dynamic_shape<2>>);
    auto idx = zeros<i64>(2_c, 5_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(gather(x, 1_c, idx))>, static_shape<2, 5>>);
    // An empty index gives an empty result without any check, as PyTorch's.
    auto empty = gather(x, 0, zeros<i64>(7, 0));
    CHECK(empty.sizes() == std::array<i64, 2>{7, 0});
}

TEST_CASE("gather: errors", "[index][errors]") {
    auto x = zeros<float>(2, 4);
    CHECK(error_of<RuntimeError>([&] {
              (void)gather(x, 1_c, tensor<i64>({{0, 5}}));
          }) == "index 5 is out of bounds for dimension 1 with size 4");
    CHECK(error_of<RuntimeError>([&] {
              (void)gather(x, -2, tensor<i64>({{0}, {-1}}));
          }) == "index -1 is out of bounds for dimension 0 with size 2");
    CHECK(error_of<RuntimeError>([&] { (void)gather(x, 1_c, zeros<i64>(3, 2)); }) ==
          "Size does not match at dimension 0 expected index [3, 2] to be smaller than self [2, "
          "4] apart from dimension 1");
    CHECK(error_of<IndexError>([&] { (void)gather(x, 2, zeros<i64>(1, 1)); }) ==
          "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST_CASE("gather, index_select: the first offender in the index's order is reported",
          "[index][errors]") {
    auto x = zeros<float>(2, 4);
    // [[0, 9], [7, 0]] transposed is [[0, 7], [9, 0]]: 7 comes first in the view's order, 9 in
    // memory.
    auto idx = tensor<i64>({{0, 9}, {7, 0}}).t();
    CHECK(error_of<RuntimeError>([&] { (void)gather(x, 1_c, idx); }) ==
          "index 7 is out of bounds for dimension 1 with size 4");
    CHECK(error_of<RuntimeError>([&] {
              (void)gather(x, 1_c, tensor<i64>({{0, 1}, {-3, 5}}));
          }) == "index -3 is out of bounds for dimension 1 with size 4");
}

TEST_CASE("gather and index_select along every dim of contiguous and permuted 3-D inputs",
          "[index]") {
    // The same values through the block copies, the contiguous walk and the strided walk.
    auto base = x234<float>();                            // [2, 3, 4]
    auto permuted = x234<float>().permute(1_c, 2_c, 0_c); // [3, 4, 2], strided
    auto copy = permuted.contiguous();
    const std::array<i64, 3> n{3, 4, 2};
    for (int d = 0; d < 3; ++d) {
        std::vector<i64> picks{n[d] - 1, 0, n[d] - 1, 1};
        auto vec = from_vector(picks);
        auto strided = index_select(permuted, d, vec);
        CHECK(values(strided) == values(index_select(copy, d, vec)));
        // naive: out[a][b][c] with the picked coordinate along d
        std::vector<float> want;
        std::array<i64, 3> sizes = n;
        sizes[static_cast<std::size_t>(d)] = 4;
        for (i64 a = 0; a < sizes[0]; ++a)
            for (i64 b = 0; b < sizes[1]; ++b)
                for (i64 c = 0; c < sizes[2]; ++c) {
                    std::array<i64, 3> at{a, b, c};
                    at[static_cast<std::size_t>(d)] = picks[static_cast<std::size_t>(at[d])];
                    want.push_back(permuted(at[0], at[1], at[2]));
                }
        CHECK(values(strided) == want);
        // gather with an index of the result's shape: the same elements
        std::vector<i64> full;
        for (i64 a = 0; a < sizes[0]; ++a)
            for (i64 b = 0; b < sizes[1]; ++b)
                for (i64 c = 0; c < sizes[2]; ++c) {
                    const std::array<i64, 3> at{a, b, c};
                    full.push_back(
                        picks[static_cast<std::size_t>(at[static_cast<std::size_t>(d)])]);
                }
        auto index = tensor<i64>(full, sizes[0], sizes[1], sizes[2]);
        CHECK(values(gather(permuted, d, index)) == want);
        CHECK(values(gather(copy, d, index)) == want);
    }
    CHECK(values(index_select(base, 2_c, tensor<i64>({0}))) ==
          std::vector<float>{0, 4, 8, 12, 16, 20});
}

// ---- scatter_add
// ---------------------------------------------------------------------------------

TEST_CASE("scatter_add: PyTorch's examples, duplicates accumulate", "[index]") {
    auto src = ones<float>(2_c, 5_c);
    // torch.zeros(3, 5).scatter_add(0, [[0, 1, 2, 0, 0]], src): only src's first row is used.
    CHECK(values(scatter_add(zeros<float>(3_c, 5_c), 0_c, tensor<i64>({{0, 1, 2, 0, 0}}), src)) ==
          std::vector<float>{1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0});
    // ... with index [[0, 1, 2, 0, 0], [0, 1, 2, 2, 2]]
    CHECK(values(scatter_add(zeros<float>(3_c, 5_c), 0_c,
                             tensor<i64>({{0, 1, 2, 0, 0}, {0, 1, 2, 2, 2}}), src)) ==
          std::vector<float>{2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1});
    // dim 1 onto ones: row 0 gets 1 + 2 at 0, row 1 gets 3 at 2 and 4 at 0.
    auto r = scatter_add(ones<float>(2, 3), 1_c, tensor<i64>({{0, 0}, {2, 0}}),
                         tensor<float>({{1, 2}, {3, 4}}));
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(r)>, dynamic_shape<2>>);
    CHECK(values(r) == std::vector<float>{4, 1, 1, 5, 1, 4});
}

TEST_CASE("scatter_add: int64 and double, strided src and input, negative dim", "[index]") {
    auto r = scatter_add(zeros<i64>(2, 3), -1, tensor<i64>({{0, 0}, {2, 0}}),
                         tensor<i64>({{1, 2}, {3, 4}}));
    CHECK(values(r) == std::vector<i64>{3, 0, 0, 4, 0, 3});
    // src = [[1, 2, 3], [4, 5, 6]].t() = [[1, 4], [2, 5], [3, 6]]; index [[1, 0], [0, 1]] along
    // dim 0: out[1][0] += 1, out[0][1] += 4, out[0][0] += 2, out[1][1] += 5.
    auto src = x23().to<double>().t();
    auto base = tensor<double>({{10, 10}, {20, 20}}).t(); // [[10, 20], [10, 20]], transposed
    auto s = scatter_add(base, 0_c, tensor<i64>({{1, 0}, {0, 1}}), src);
    CHECK(values(s) == std::vector<double>{12, 24, 11, 25});
    CHECK(values(base.contiguous()) == std::vector<double>{10, 20, 10, 20}); // out of place
    // A bool tensor adds as logical or.
    auto b = scatter_add(tensor<bool>({false, false, true}), 0_c, tensor<i64>({1, 1}),
                         tensor<bool>({false, true}));
    CHECK(values(b) == std::vector<bool>{false, true, true});
}

TEST_CASE("scatter_add: empty index, errors", "[index][errors]") {
    auto x = zeros<float>(2, 4);
    auto same = scatter_add(x, 0_c, zeros<i64>(0, 9), zeros<float>(1, 1));
    CHECK(values(same) == std::vector<float>(8, 0.0f));
    CHECK(error_of<RuntimeError>([&] {
              (void)scatter_add(x, 1_c, tensor<i64>({{4}}), ones<float>(1, 1));
          }) == "index 4 is out of bounds for dimension 1 with size 4");
    CHECK(error_of<RuntimeError>([&] {
              (void)scatter_add(x, 1_c, tensor<i64>({{-2}}), ones<float>(1, 1));
          }) == "index -2 is out of bounds for dimension 1 with size 4");
    CHECK(error_of<RuntimeError>([&] {
              (void)scatter_add(x, 1_c, zeros<i64>(3, 1), ones<float>(3, 1));
          }) == "Expected index [3, 1] to be smaller than self [2, 4] apart from dimension 1 and "
                "to be smaller size than src [3, 1]");
    CHECK(error_of<RuntimeError>([&] {
              (void)scatter_add(x, 1_c, zeros<i64>(1, 6), ones<float>(1, 5));
          }) == "Expected index [1, 6] to be smaller than self [2, 4] apart from dimension 1 and "
                "to be smaller size than src [1, 5]");
}

// ---- index_add
// -----------------------------------------------------------------------------------

TEST_CASE("index_add: PyTorch's example, duplicates, alpha", "[index]") {
    auto t = tensor<float>({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
    // torch.ones(5, 3).index_add_(0, [0, 4, 2], t)
    CHECK(values(index_add(ones<float>(5, 3), 0_c, tensor<i64>({0, 4, 2}), t)) ==
          std::vector<float>{2, 3, 4, 1, 1, 1, 8, 9, 10, 1, 1, 1, 5, 6, 7});
    CHECK(values(index_add(ones<float>(3, 3), 0, tensor<i32>({0, 0, 2}), t)) ==
          std::vector<float>{6, 8, 10, 1, 1, 1, 8, 9, 10});
    CHECK(values(index_add(zeros<float>(3, 3), 0_c, tensor<i64>({2, 1, 0}), t, -1)) ==
          std::vector<float>{-7, -8, -9, -4, -5, -6, -1, -2, -3});
    // dim 1, int32 index, double alpha
    auto r = index_add(zeros<double>(2_c, 3_c), -1_c, tensor<i32>({2, 0}),
                       tensor<double>({{1, 2}, {3, 4}}), 2.5);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(r)>, static_shape<2, 3>>);
    CHECK(values(r) == std::vector<double>{5, 0, 2.5, 10, 0, 7.5});
    // integers with an integer alpha; 1-D and 0-dim self
    CHECK(values(index_add(zeros<i64>(3), 0_c, tensor<i64>({1, 1}), tensor<i64>({2, 5}), 3)) ==
          std::vector<i64>{0, 21, 0});
    auto s = index_add(tensor<float>({1})[0], 0, tensor<i64>({0}), tensor<float>({2}));
    CHECK(s.item() == 3.0f);
}

TEST_CASE("index_add: transposed input and source, broadcast source slices", "[index]") {
    auto xt = x23().t();                                // [[1, 4], [2, 5], [3, 6]]
    auto src = tensor<float>({{10, 30}, {20, 40}}).t(); // [[10, 20], [30, 40]]
    CHECK(values(index_add(xt, 0_c, tensor<i64>({2, 0}), src)) ==
          std::vector<float>{31, 44, 2, 5, 13, 26});
    // A size-1 source extent broadcasts over self's slice, as PyTorch's binary op does.
    CHECK(values(index_add(zeros<float>(2, 3), 0_c, tensor<i64>({1}), tensor<float>({{7}}))) ==
          std::vector<float>{0, 0, 0, 7, 7, 7});
    // A bool tensor adds as logical or.
    CHECK(values(index_add(tensor<bool>({false, true, false}), 0_c, tensor<i64>({2, 0}),
                           tensor<bool>({true, false}))) == std::vector<bool>{false, true, true});
}

TEST_CASE("index_add: errors", "[index][errors]") {
    auto x = zeros<float>(2, 3);
    CHECK(error_of<RuntimeError>([&] {
              (void)index_add(x, 0_c, tensor<i64>({0, 1, 0}), ones<float>(2, 3));
          }) == "index_add_(): Number of indices (3) should be equal to source.size(dim): (2), "
                "for dim: 0");
    CHECK(error_of<RuntimeError>([&] {
              (void)index_add(x, 0_c, tensor<i64>({0}), ones<float>(1, 4));
          }) == "The size of tensor a (3) must match the size of tensor b (4) at non-singleton "
                "dimension 0");
    CHECK(error_of<RuntimeError>([&] {
              (void)index_add(zeros<float>(2, 3, 4), 1_c, tensor<i64>({0}), ones<float>(2, 1, 5));
          }) == "The size of tensor a (4) must match the size of tensor b (5) at non-singleton "
                "dimension 1");
    CHECK(error_of<RuntimeError>([&] {
              (void)index_add(zeros<float>(2, 1), 0_c, tensor<i64>({0}), ones<float>(1, 3));
          }) == "output with shape [1] doesn't match the broadcast shape [3]");
    CHECK(error_of<IndexError>([&] {
              (void)index_add(x, 0_c, tensor<i64>({2}), ones<float>(1, 3));
          }) == "index out of range in self");
    CHECK(error_of<IndexError>([&] {
              (void)index_add(x, 1_c, tensor<i32>({-1}), ones<float>(2, 1));
          }) == "index out of range in self");
}

TEST_CASE("gather and scatter_add, index_select and index_add are adjoint", "[index]") {
    // <gather(x, d, idx), g> == <x, scatter_add(0, d, idx, g)> for every x and g: what makes
    // scatter_add gather's derivative (and index_add index_select's).
    auto x = x234<double>();
    std::vector<i64> idx;
    for (int i = 0; i < 2 * 5 * 4; ++i)
        idx.push_back((7 * i + 3) % 3);
    auto index = tensor<i64>(idx, 2_c, 5_c, 4_c);
    std::vector<double> gv;
    for (int i = 0; i < 40; ++i)
        gv.push_back(std::sin(0.3 * i));
    auto g = tensor<double>(gv, 2_c, 5_c, 4_c);
    auto dot = [](const auto& a, const auto& b) {
        const auto va = values(a.contiguous()), vb = values(b.contiguous());
        double s = 0;
        for (std::size_t i = 0; i < va.size(); ++i)
            s += va[i] * vb[i];
        return s;
    };
    CHECK(dot(gather(x, 1_c, index), g) ==
          Approx(dot(x, scatter_add(zeros_like(x), 1_c, index, g))));
    auto vec = tensor<i64>({2, 0, 2, 1, 1});
    auto h = index_select(x, 1_c, vec); // [2, 5, 4]
    CHECK(dot(h, g) == Approx(dot(x, index_add(zeros_like(x), 1_c, vec, g))));
}

// ---- one_hot
// -------------------------------------------------------------------------------------

TEST_CASE("one_hot: PyTorch's examples, inferred and given num_classes", "[index]") {
    // F.one_hot(torch.arange(0, 5) % 3)
    auto labels = tensor<i64>({0, 1, 2, 0, 1});
    auto inferred = one_hot(labels);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(inferred)>, dynamic_shape<2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(inferred)::value_type, i64>);
    CHECK(inferred.sizes() == std::array<i64, 2>{5, 3});
    CHECK(values(inferred) == std::vector<i64>{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0});
    auto five = one_hot(labels, 5);
    CHECK(five.sizes() == std::array<i64, 2>{5, 5});
    CHECK(values(five)[7] == 0);
    CHECK(values(five)[6] == 1);
    auto fixed = one_hot(labels, 3_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(fixed)>, shape<i64, int_<3>>>);
    CHECK(values(fixed) == values(inferred));
    auto all_static = one_hot(zeros<i64>(2_c), 4_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(all_static)>, static_shape<2, 4>>);
}

TEST_CASE("one_hot: 2-D, 0-dim and strided index, empty index", "[index]") {
    auto two = one_hot(tensor<i64>({{0, 1}, {1, 0}}), 2_c);
    CHECK(two.sizes() == std::array<i64, 3>{2, 2, 2});
    CHECK(values(two) == std::vector<i64>{1, 0, 0, 1, 0, 1, 1, 0});
    auto scalar = one_hot(tensor<i64>({2})[0], 4);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(scalar)>, dynamic_shape<1>>);
    CHECK(values(scalar) == std::vector<i64>{0, 0, 1, 0});
    auto strided = one_hot(tensor<i64>({{0, 1}, {2, 1}}).t(), 3_c); // [[0, 2], [1, 1]]
    CHECK(values(strided) == std::vector<i64>{1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0});
    auto empty = one_hot(from_vector(std::vector<i64>{}), 4);
    CHECK(empty.sizes() == std::array<i64, 2>{0, 4});
}

TEST_CASE("one_hot: errors", "[index][errors]") {
    CHECK(error_of<RuntimeError>([] {
              (void)one_hot(tensor<i64>({0, -1}));
          }) == "Class values must be non-negative.");
    CHECK(error_of<RuntimeError>([] {
              (void)one_hot(tensor<i64>({0, 3}), 3);
          }) == "Class values must be smaller than num_classes.");
    CHECK(error_of<RuntimeError>([] {
              (void)one_hot(tensor<i64>({0, 3}), 3_c);
          }) == "Class values must be smaller than num_classes.");
    CHECK(error_of<RuntimeError>([] { (void)one_hot(tensor<i64>({0}), 0); }) ==
          "Class values must be smaller than num_classes.");
    CHECK(error_of<RuntimeError>([] { (void)one_hot(from_vector(std::vector<i64>{})); }) ==
          "Can not infer total number of classes from empty tensor.");
    // Huge class values fail as sizes, never as undefined behaviour.
    const i64 top = std::numeric_limits<i64>::max();
    CHECK(error_of<RuntimeError>([&] { (void)one_hot(tensor<i64>({top})); }) ==
          "Trying to create tensor with negative dimension -9223372036854775808: [1, "
          "-9223372036854775808]");
    CHECK(error_of<RuntimeError>([&] {
              (void)one_hot(tensor<i64>({0, top - 1}));
          }) ==
          "Storage size calculation overflowed with sizes=[2, 9223372036854775807] (the product "
          "of the sizes, zeros counted as 1, exceeds 2^63 - 1)");
}

// ---- select_scatter / slice_scatter ----------------------------------------------------------

TEST_CASE("select_scatter: PyTorch's example, dims, conversion, strided input", "[index]") {
    // torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 0)
    auto a = select_scatter(zeros<float>(2_c, 2_c), ones<float>(2_c), 0_c, 0);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(a)>, static_shape<2, 2>>);
    CHECK(values(a) == std::vector<float>{1, 1, 0, 0});
    auto b = select_scatter(zeros<float>(2, 3), tensor<double>({5.5, 6.5}), -1, -1);
    CHECK(values(b) == std::vector<float>{0, 0, 5.5f, 0, 0, 6.5f});
    auto xt = x23().t(); // [[1, 4], [2, 5], [3, 6]]
    CHECK(values(select_scatter(xt, tensor<float>({0, 0, 0}), 1_c, 0)) ==
          std::vector<float>{0, 4, 0, 5, 0, 6});
    CHECK(values(xt.contiguous()) == std::vector<float>{1, 4, 2, 5, 3, 6}); // out of place
}

TEST_CASE("slice_scatter: PyTorch's examples, steps and defaults", "[index]") {
    // torch.slice_scatter(torch.zeros(8, 8), torch.ones(2, 8), start=6): rows 6 and 7
    auto rows = slice_scatter(zeros<float>(8_c, 8_c), ones<float>(2_c, 8_c), 0_c, 6_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(rows)>, static_shape<8, 8>>);
    const auto rv = values(rows);
    CHECK(std::count(rv.begin(), rv.begin() + 48, 1.0f) == 0);
    CHECK(std::count(rv.begin() + 48, rv.end(), 1.0f) == 16);
    // torch.slice_scatter(a, torch.ones(8, 2), dim=1, start=2, end=6, step=2): columns 2 and 4
    auto cols = slice_scatter(zeros<float>(8, 8), ones<float>(8, 2), 1, 2, 6, 2);
    const auto cv = values(cols);
    for (int c = 0; c < 8; ++c)
        CHECK(cv[static_cast<std::size_t>(8 + c)] == (c == 2 || c == 4 ? 1.0f : 0.0f));
    auto whole = slice_scatter(zeros<i64>(3), tensor<i64>({7, 8, 9}));
    CHECK(values(whole) == std::vector<i64>{7, 8, 9});
    auto every_other = slice_scatter(zeros<float>(5), ones<float>(3), 0_c, None, None, 2_c);
    CHECK(values(every_other) == std::vector<float>{1, 0, 1, 0, 1});
}

TEST_CASE("select_scatter and slice_scatter: errors", "[index][errors]") {
    auto x = zeros<float>(2, 2);
    CHECK(error_of<RuntimeError>([&] { (void)select_scatter(x, ones<float>(3), 0, 0); }) ==
          "expected src to have a size equal to the slice of self. src size = [3], slice size = "
          "[2]");
    CHECK(error_of<IndexError>([&] { (void)select_scatter(x, ones<float>(2), 0, 2); }) ==
          "select(): index 2 out of range for tensor of size [2, 2] at dimension 0");
    CHECK(error_of<RuntimeError>([&] {
              (void)slice_scatter(zeros<float>(2, 4), ones<float>(2, 3), 1, 0, 4, 2);
          }) == "expected src to have a size equal to the slice of self. src size = [2, 3], "
                "slice size = [2, 2]");
    CHECK(error_of<ValueError>([&] { (void)slice_scatter(x, ones<float>(2, 2), 0, 0, 2, 0); }) ==
          "step must be greater than zero");
}

// ---- cat
// -----------------------------------------------------------------------------------------

TEST_CASE("cat: tuples along each dim, static extents add up", "[join]") {
    auto a = tensor<float>({{1, 2}, {3, 4}});
    CHECK(values(cat(std::make_tuple(a, tensor<float>({{5, 6}})), 0_c)) ==
          std::vector<float>{1, 2, 3, 4, 5, 6});
    CHECK(values(cat(std::make_tuple(a, tensor<float>({{7}, {8}})), -1_c)) ==
          std::vector<float>{1, 2, 7, 3, 4, 8});
    auto s = cat(std::make_tuple(zeros<float>(2_c, 3_c), ones<float>(4_c, 3_c)), 0_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(s)>, static_shape<6, 3>>);
    CHECK(values(s) == std::vector<float>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
    auto t = cat(std::tie(s, s), 1_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(t)>, static_shape<6, 6>>);
    // A run-time dim: which extent grows is unknown, so all are dynamic.
    auto r = cat(std::make_tuple(zeros<float>(2_c, 3_c), ones<float>(2_c, 3_c)), 1);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(r)>, dynamic_shape<2>>);
    CHECK(r.sizes() == std::array<i64, 2>{2, 6});
    // A static extent in any input makes the result's static; dynamic ones are checked.
    const i64 n = 3;
    auto m = cat(std::make_tuple(zeros<float>(2_c, n), ones<float>(n, 3_c)), 0_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(m)>, shape<i64, int_<3>>>);
    CHECK(m.sizes() == std::array<i64, 2>{5, 3});
}

TEST_CASE("cat: 3-D along the middle dim, strided and transposed inputs", "[join]") {
    auto x = x234();
    auto first_rows = x.slice(1_c, 0_c, 1_c); // [2, 1, 4], not contiguous
    auto c = cat(std::make_tuple(x, first_rows), 1_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(c)>, static_shape<2, 4, 4>>);
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
        for (int j : {0, 1, 2, 0})
            for (int k = 0; k < 4; ++k)
                want.push_back(12 * i + 4 * j + k);
    CHECK(values(c) == want);
    auto a = tensor<float>({{1, 2}, {3, 4}});
    CHECK(values(cat(std::make_tuple(a.t(), a), 0_c)) ==
          std::vector<float>{1, 3, 2, 4, 1, 2, 3, 4});
    CHECK(values(cat(std::make_tuple(a, a.t()), 1)) == std::vector<float>{1, 2, 1, 3, 3, 4, 2, 4});
}

TEST_CASE("cat: vectors and lists", "[join]") {
    auto a = tensor<float>({{1, 2}, {3, 4}});
    std::vector<Tensor<float, dynamic_shape<2>>> rows{a, tensor<float>({{5, 6}}), a};
    auto v = cat(rows, 0);
    CHECK(values(v) == std::vector<float>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4});
    auto w = cat(std::vector{zeros<float>(2_c, 3_c), ones<float>(2_c, 3_c)}, 1_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(w)>, shape<int_<2>, i64>>);
    CHECK(values(w) == std::vector<float>{0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1});
    auto l = cat(list(a, tensor<float>({{7}, {8}})), 1_c);
    CHECK(values(l) == std::vector<float>{1, 2, 7, 3, 4, 8});
    auto one = cat(std::vector{a}, -2);
    CHECK(values(one) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("cat: dtype promotion, bool", "[join]") {
    auto f = cat(std::make_tuple(tensor<i64>({1, 2}), tensor<float>({0.5f})), 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(f)::value_type, float>);
    CHECK(values(f) == std::vector<float>{1, 2, 0.5f});
    auto l = cat(list(tensor<i32>({-1}), tensor<i64>({5})), 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(l)::value_type, i64>);
    CHECK(values(l) == std::vector<i64>{-1, 5});
    auto d = cat(std::make_tuple(tensor<float>({1.5f}), tensor<double>({0.25})), 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(d)::value_type, double>);
    CHECK(values(d) == std::vector<double>{1.5, 0.25});
    auto b = cat(std::make_tuple(tensor<bool>({true, false}), tensor<bool>({true})), 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(b)::value_type, bool>);
    CHECK(values(b) == std::vector<bool>{true, false, true});
    auto u = cat(std::make_tuple(tensor<bool>({true, false}), tensor<std::uint8_t>({7})), 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(u)::value_type, std::uint8_t>);
    CHECK(values(u) == std::vector<std::uint8_t>{1, 0, 7});
}

TEST_CASE("cat: empty tensors", "[join]") {
    auto a = tensor<float>({{1, 2, 3}});
    CHECK(values(cat(std::make_tuple(zeros<float>(0, 3), a, zeros<float>(0, 3)), 0_c)) ==
          std::vector<float>{1, 2, 3});
    CHECK(cat(std::make_tuple(zeros<float>(0, 3), zeros<float>(0, 3)), 0).sizes() ==
          std::array<i64, 2>{0, 3});
    CHECK(cat(std::make_tuple(zeros<float>(2, 0), zeros<float>(3, 0)), 0_c).sizes() ==
          std::array<i64, 2>{5, 0});
    auto e = cat(std::make_tuple(zeros<float>(2_c, 0_c), zeros<float>(2_c, 0_c)), 1_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(e)>, static_shape<2, 0>>);
}

TEST_CASE("cat: errors", "[join][errors]") {
    CHECK(error_of<RuntimeError>([] {
              (void)cat(std::make_tuple(zeros<float>(3, 2), zeros<float>(4, 2)), 1);
          }) == "Sizes of tensors must match except in dimension 1. Expected size 3 but got size "
                "4 for tensor number 1 in the list.");
    // Static shapes along a run-time dim: the check is at run time.
    CHECK(error_of<RuntimeError>([] {
              (void)cat(
                  list(zeros<float>(2_c, 3_c), zeros<float>(2_c, 3_c), zeros<float>(2_c, 4_c)), 0);
          }) == "Sizes of tensors must match except in dimension 0. Expected size 3 but got size "
                "4 for tensor number 2 in the list.");
    CHECK(error_of<RuntimeError>([] {
              (void)cat(std::vector<Tensor<float, dynamic_shape<2>>>{}, 0_c);
          }) == "torch.cat(): expected a non-empty list of Tensors");
    CHECK(error_of<IndexError>([] { (void)cat(std::vector{zeros<float>(2, 2)}, 2); }) ==
          "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ---- stack
// ---------------------------------------------------------------------------------------

TEST_CASE("stack: along each dim", "[join]") {
    auto a = tensor<float>({{1, 2, 3}, {4, 5, 6}});
    auto b = tensor<float>({{7, 8, 9}, {10, 11, 12}});
    CHECK(values(stack(std::make_tuple(a, b), 0_c)) ==
          std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    CHECK(values(stack(std::make_tuple(a, b), 1_c)) ==
          std::vector<float>{1, 2, 3, 7, 8, 9, 4, 5, 6, 10, 11, 12});
    auto last = stack(std::make_tuple(a, b), -1_c);
    CHECK(last.sizes() == std::array<i64, 3>{2, 3, 2});
    CHECK(values(last) == std::vector<float>{1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12});
    CHECK(values(stack(std::vector{a, b.t().contiguous().t()}, 2)) == values(last));
}

TEST_CASE("stack: result shape types, zero-dim tensors, promotion", "[join]") {
    auto s =
        stack(list(zeros<float>(2_c, 3_c), ones<float>(2_c, 3_c), zeros<float>(2_c, 3_c)), 1_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(s)>, static_shape<2, 3, 3>>);
    auto v = stack(std::vector{zeros<float>(2_c, 3_c), ones<float>(2_c, 3_c)}, 0_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(v)>, shape<i64, int_<2>, int_<3>>>);
    auto r = stack(std::make_tuple(zeros<float>(2_c, 3_c), ones<float>(2_c, 3_c)), 0);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(r)>, dynamic_shape<3>>);
    auto x = x23();
    auto scalars = stack(std::make_tuple(x[0][0], x[1][2]), 0_c);
    STATIC_REQUIRE(std::is_same_v<shape_t<decltype(scalars)>, static_shape<2>>);
    CHECK(values(scalars) == std::vector<float>{1, 6});
    auto p = stack(std::make_tuple(tensor<i64>({1, 2}), tensor<float>({0.5f, 1.5f})), 0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(p)::value_type, float>);
    CHECK(values(p) == std::vector<float>{1, 2, 0.5f, 1.5f});
    auto e = stack(std::vector{zeros<float>(0, 2), zeros<float>(0, 2)}, 1);
    CHECK(e.sizes() == std::array<i64, 3>{0, 2, 2});
}

TEST_CASE("stack: errors", "[join][errors]") {
    CHECK(error_of<RuntimeError>([] {
              (void)stack(std::make_tuple(zeros<float>(2, 3), zeros<float>(2, 4)), 0_c);
          }) == "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, "
                "4] at entry 1");
    CHECK(error_of<RuntimeError>([] {
              (void)stack(std::vector<Tensor<float, dynamic_shape<2>>>{}, 0);
          }) == "stack expects a non-empty TensorList");
    CHECK(error_of<IndexError>([] {
              (void)stack(std::vector{zeros<float>(2, 2), zeros<float>(2, 3)}, 3);
          }) == "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
}

// ---- traced and recorded (op_objects_index.hpp) -------------------------------------------------

namespace {
/// Every index and join op and the views that take elements, on a [3, 4] value v, an index idx of
/// rows and labels lab ([3, 2]) of columns.
const auto every_index_op = [](auto v, auto idx, auto lab) {
    auto rows = index_select(v, 0_c, idx);
    auto picked = gather(v, -1_c, lab);
    auto scattered = scatter_add(v, 1_c, lab, picked * 2.0f);
    auto added = index_add(v, 0, idx, rows, 0.5f);
    auto joined = cat(std::tuple{v[1], v.select(1_c, 0), v.slice(0_c, 1, None).flatten()}, 0_c);
    auto stacked = stack(list(scattered, added), -1);
    auto hot = one_hot(lab, 4_c);
    return std::tuple{rows,
                      picked,
                      scattered,
                      added,
                      joined,
                      stacked,
                      hot,
                      v.narrow(1_c, 1, 2),
                      v[slice(1, None)]};
};

/// a and b: the same type, sizes and elements.
template <class T, class S>
void require_equal(const Tensor<T, S>& a, const Tensor<T, S>& b) {
    REQUIRE(a.sizes() == b.sizes());
    CHECK(values(a.contiguous()) == values(b.contiguous()));
}
} // namespace

TEST_CASE("index ops traced and recorded: the eager results and shape types", "[index][join]") {
    const auto v = arange<float>(12).reshape(3_c, 4_c);
    const auto idx = tensor<i64>({2, 0, 2, 1});
    const auto lab = tensor<i64>({{0, 3}, {2, 2}, {1, 0}});
    const auto eager = every_index_op(v, idx, lab);
    const auto traced = jit(every_index_op)(v, idx, lab);
    const auto recorded = every_index_op(autograd::leaf(v), idx, lab);
    STATIC_REQUIRE(std::is_same_v<decltype(traced), decltype(eager)>);
    [&]<std::size_t... K>(std::index_sequence<K...>) {
        (require_equal(std::get<K>(traced), std::get<K>(eager)), ...);
        // one_hot of a tensor index is eager (a tensor) in the recorded run too.
        (require_equal(detail::eager_value(std::get<K>(recorded)), std::get<K>(eager)), ...);
    }
    (std::make_index_sequence<std::tuple_size_v<decltype(eager)>>{});
}

TEST_CASE("index ops traced and recorded: run-time errors as eager ones", "[index][join][errors]") {
    const auto v = arange<float>(12).reshape(3_c, 4_c);
    const auto bad_rows = tensor<i64>({0, 3});
    const auto bad_labels = tensor<i64>({{0, 4}, {0, 0}, {0, 0}});
    const auto select_rows = jit([](auto x, auto i) { return index_select(x, 0_c, i); });
    CHECK(error_of<IndexError>([&] { select_rows(v, bad_rows); }) == "index out of range in self");
    const auto gather_labels = jit([](auto x, auto i) { return gather(x, 1_c, i); });
    CHECK(error_of<RuntimeError>([&] { gather_labels(v, bad_labels); }) ==
          "index 4 is out of bounds for dimension 1 with size 4");
    CHECK(error_of<IndexError>([&] { jit([](auto x) { return x[3]; })(v); }) ==
          "index 3 is out of bounds for dimension 0 with size 3");
    CHECK(error_of<IndexError>([&] { jit([](auto x) { return x.select(1, 7); })(v); }) ==
          "select(): index 7 out of range for tensor of size [3, 4] at dimension 1");
    const auto cat_rows = jit([](auto x, auto y) { return cat(std::tuple{x, y}, 0_c); });
    CHECK(error_of<RuntimeError>([&] { cat_rows(v, zeros<float>(2, 3)); }) ==
          "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 3 for "
          "tensor number 1 in the list.");
    CHECK(error_of<IndexError>([&] { (void)autograd::leaf(v)[3]; }) ==
          "index 3 is out of bounds for dimension 0 with size 3");
    CHECK(error_of<IndexError>([&] {
              (void)index_select(autograd::leaf(v), 1_c, bad_labels[0]);
          }) == "index out of range in self");
}
