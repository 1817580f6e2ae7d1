// The method forms (x.sum(1_c), x.relu(), x.matmul(w), ...) give exactly what the free
// functions give: they forward to them.

#include <cstdint>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

#include "test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using tensor_test::values;

TEST_CASE("reductions as methods", "[tensor][methods]") {
    const auto x = tensor<float>({{1, 2, 3}, {4, 5, 6}});
    REQUIRE(values(x.sum()) == values(sum(x)));
    REQUIRE(values(x.sum(1_c)) == values(sum(x, 1_c)));
    REQUIRE(values(x.sum(0_c, True)) == values(sum(x, 0_c, True)));
    REQUIRE(x.sum(0_c, True).dim() == 2);
    REQUIRE(values(x.mean(1_c)) == values(mean(x, 1_c)));
    REQUIRE(values(x.prod(0_c)) == values(prod(x, 0_c)));
    REQUIRE(values(x.var(1_c)) == values(var(x, 1_c)));
    REQUIRE(values(x.amax(0_c)) == values(amax(x, 0_c)));
    REQUIRE(values(x.amin(1_c)) == values(amin(x, 1_c)));
    REQUIRE(values(x.argmax(1_c)) == values(argmax(x, 1_c)));
    REQUIRE(values(x.argmin(0_c)) == values(argmin(x, 0_c)));
    REQUIRE(x.max().item() == 6.0f);
    REQUIRE(x.min().item() == 1.0f);
    REQUIRE(values(x.max(1_c).values) == values(max(x, 1_c).values));
    REQUIRE(values(x.softmax(1_c)) == values(softmax(x, 1_c)));
    REQUIRE(values(x.log_softmax(-1_c)) == values(log_softmax(x, -1_c)));
}

TEST_CASE("elementwise ops and matmul as methods", "[tensor][methods]") {
    const auto x = tensor<float>({{-1, 2}, {3, -4}});
    REQUIRE(values(x.relu()) == values(relu(x)));
    REQUIRE(values(x.abs()) == values(abs(x)));
    REQUIRE(values(x.neg()) == values(neg(x)));
    REQUIRE(values(x.abs().sqrt()) == values(sqrt(abs(x))));
    REQUIRE(values(x.abs().rsqrt()) == values(rsqrt(abs(x))));
    REQUIRE(values(x.abs().log()) == values(log(abs(x))));
    REQUIRE(values(x.exp()) == values(exp(x)));
    REQUIRE(values(x.sin()) == values(sin(x)));
    REQUIRE(values(x.cos()) == values(cos(x)));
    REQUIRE(values(x.tanh()) == values(tanh(x)));
    REQUIRE(values(x.sigmoid()) == values(sigmoid(x)));
    REQUIRE(values(x.gelu()) == values(gelu(x)));
    REQUIRE(values(x.pow(2.0f)) == values(pow(x, 2.0f)));
    REQUIRE(values(x.maximum(x.neg())) == values(maximum(x, neg(x))));
    REQUIRE(values(x.minimum(0.0f)) == values(minimum(x, 0.0f)));
    REQUIRE(values(x.matmul(x.t())) == values(matmul(x, x.t())));
    // Chains read as in PyTorch: relu(x * w + 1).sum(1)
    REQUIRE(values((x * 2.0f + 1.0f).relu().sum(1_c)) == std::vector<float>{5.0f, 7.0f});
}

TEST_CASE("arithmetic and comparisons as methods, x.where(condition, y)", "[tensor][methods]") {
    const auto x = tensor<float>({{-1, 2}, {3, -4}});
    const auto y = tensor<float>({{2, 2}, {1, 5}});
    REQUIRE(values(x.add(y)) == values(add(x, y)));
    REQUIRE(values(x.sub(1.0f)) == values(sub(x, 1.0f)));
    REQUIRE(values(x.mul(y)) == values(mul(x, y)));
    REQUIRE(values(x.div(y)) == values(div(x, y)));
    REQUIRE(values(x.eq(y)) == values(eq(x, y)));
    REQUIRE(values(x.ne(y)) == values(ne(x, y)));
    REQUIRE(values(x.lt(y)) == values(lt(x, y)));
    REQUIRE(values(x.le(2.0f)) == values(le(x, 2.0f)));
    REQUIRE(values(x.gt(y)) == values(gt(x, y)));
    REQUIRE(values(x.ge(y)) == values(ge(x, y)));
    REQUIRE(values(x.clamp(-1.0f, 2.0f)) == values(clamp(x, -1.0f, 2.0f)));
    // Tensor.where(condition, y) is torch.where(condition, x, y)
    REQUIRE(values(x.where(x > 0.0f, y)) == values(where(x > 0.0f, x, y)));
    REQUIRE(values(x.where(x > 0.0f, y)) == std::vector<float>{2, 2, 3, 5});
    REQUIRE(values(x.masked_fill(x > 0.0f, 9.0f)) == values(masked_fill(x, x > 0.0f, 9.0f)));
    REQUIRE(values(x.masked_fill(x > 0.0f, 9.0f)) == std::vector<float>{-1, 9, 9, -4});
    // in x's dtype, the value converted to it (truncated, as PyTorch's)
    const auto n = tensor<std::int64_t>({1, 2, 3});
    const auto m = n.masked_fill(n != 2, 2.7);
    STATIC_REQUIRE(std::is_same_v<decltype(m)::value_type, std::int64_t>);
    REQUIRE(values(m) == std::vector<std::int64_t>{2, 2, 2});
    // a mask that broadcasts: a column of it fills whole rows
    const auto rows = tensor<bool>({true, false}).unsqueeze(1_c);
    REQUIRE(values(x.masked_fill(rows, 0.0f)) == std::vector<float>{0, 0, 3, -4});
}

TEST_CASE("indexing, max/min along a dim, topk and sort as methods", "[tensor][methods]") {
    const auto x = tensor<float>({{1, 5, 3}, {4, 2, 6}});
    const auto i = tensor<std::int64_t>({{2, 0}, {1, 1}});
    REQUIRE(values(x.gather(1, i)) == values(gather(x, 1, i)));
    REQUIRE(values(x.gather(1_c, i)) == std::vector<float>{3, 1, 2, 2});
    const auto rows = tensor<std::int64_t>({1, 0});
    REQUIRE(values(x.index_select(0_c, rows)) == values(index_select(x, 0_c, rows)));
    const auto src = ones<float>(2, 2);
    REQUIRE(values(x.scatter_add(1_c, i, src)) == values(scatter_add(x, 1_c, i, src)));
    REQUIRE(values(x.index_add(0_c, rows, x, 2.0f)) == values(index_add(x, 0_c, rows, x, 2.0f)));
    const auto row = tensor<float>({7, 8, 9});
    REQUIRE(values(x.select_scatter(row, 0_c, 1)) == values(select_scatter(x, row, 0_c, 1)));
    REQUIRE(values(x.slice_scatter(zeros<float>(2, 1), 1_c, 1, 2)) ==
            values(slice_scatter(x, zeros<float>(2, 1), 1_c, 1, 2)));
    // x.max(1) / x.min(1): values and indices, as torch.max(x, 1)
    const auto [mx, at] = x.max(1);
    REQUIRE(values(mx) == std::vector<float>{5, 6});
    REQUIRE(values(at) == std::vector<std::int64_t>{1, 2});
    REQUIRE(values(x.min(1_c, True).indices) == values(min(x, 1_c, True).indices));
    REQUIRE(values(x.topk(2_c).values) == values(topk(x, 2_c).values));
    REQUIRE(values(x.topk(1, 0_c, false).indices) == values(topk(x, 1, 0_c, false).indices));
    REQUIRE(values(x.sort(1_c, true).values) == values(sort(x, 1_c, true).values));
    REQUIRE(values(x.sort().indices) == std::vector<std::int64_t>{0, 2, 1, 1, 0, 2});
    REQUIRE(values(x.argsort(0_c)) == values(argsort(x, 0_c)));
}
