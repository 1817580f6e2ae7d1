// Eager sort, argsort and topk: PyTorch's values, indices (ties and NaN included), result shape
// types, and its errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

#include "test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using tensor_test::values;

namespace {
using i64 = std::vector<std::int64_t>;
const double qnan = std::numeric_limits<double>::quiet_NaN();

/// The elements of a row as doubles, NaN kept (compared with nan_equal).
template <class T, class S>
std::vector<double> doubles(const Tensor<T, S>& t) {
    std::vector<double> out;
    for (T v : values(t))
        out.push_back(static_cast<double>(v));
    return out;
}

bool nan_equal(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
            return false;
    return true;
}
} // namespace

TEST_CASE("sort along the last dim, ties in index order as PyTorch's", "[tensor][sort]") {
    const auto x = tensor<float>({{1, 3, 3, 2}, {5, 5, 1, 5}});
    const auto [v, i] = sort(x);
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cvref_t<decltype(v)>, Tensor<float, dynamic_shape<2>>>);
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cvref_t<decltype(i)>, Tensor<std::int64_t, dynamic_shape<2>>>);
    REQUIRE(values(v) == std::vector<float>{1, 2, 3, 3, 1, 5, 5, 5});
    // torch.sort(x): indices tensor([[0, 3, 1, 2], [2, 0, 1, 3]])
    REQUIRE(values(i) == i64{0, 3, 1, 2, 2, 0, 1, 3});
    const auto down = sort(x, 1_c, true);
    REQUIRE(values(down.values) == std::vector<float>{3, 3, 2, 1, 5, 5, 5, 1});
    REQUIRE(values(down.indices) == i64{1, 2, 3, 0, 0, 1, 3, 2});
    REQUIRE(values(argsort(x, -1_c, true)) == values(down.indices));
}

TEST_CASE("sort along a dim that is not the last, and of a view", "[tensor][sort]") {
    const auto x = tensor<double>({{4, 1}, {2, 3}, {0, 1}});
    const auto [v, i] = sort(x, 0_c);
    REQUIRE(values(v) == std::vector<double>{0, 1, 2, 1, 4, 3});
    REQUIRE(values(i) == i64{2, 0, 1, 2, 0, 1});
    // x.t() is strided: its rows are x's columns
    const auto t = sort(x.t(), 1, true);
    STATIC_REQUIRE(std::is_same_v<decltype(t.values)::shape_type, dynamic_shape<2>>);
    REQUIRE(values(t.values) == std::vector<double>{4, 2, 0, 3, 1, 1});
    REQUIRE(values(t.indices) == i64{0, 1, 2, 1, 0, 2});
}

TEST_CASE("sort puts NaN above every number, as PyTorch's", "[tensor][sort]") {
    const auto x = tensor<double>({3, qnan, 1, qnan, 2, 1});
    const auto up = sort(x);
    REQUIRE(nan_equal(doubles(up.values), {1, 1, 2, 3, qnan, qnan}));
    REQUIRE(values(up.indices) == i64{2, 5, 4, 0, 1, 3});
    const auto down = sort(x, 0_c, true);
    REQUIRE(nan_equal(doubles(down.values), {qnan, qnan, 3, 2, 1, 1}));
    REQUIRE(values(down.indices) == i64{1, 3, 0, 4, 2, 5});
}

TEST_CASE("sort of a long row: stable keeps ties in index order, unstable sorts",
          "[tensor][sort]") {
    // 40 elements of 3 values: past the 16 that std::sort orders by insertion, so its partitions
    // may reorder ties (PyTorch's default); stable=true (torch.sort(stable=True)) never does.
    std::vector<std::int64_t> data;
    for (std::int64_t j = 0; j < 40; ++j)
        data.push_back((j * 7) % 3);
    const auto x = from_vector(data);
    const auto stable = sort(x, 0_c, false, true);
    const auto unstable = sort(x, 0_c);
    REQUIRE(values(stable.values) == values(unstable.values));
    const auto v = values(stable.values);
    REQUIRE(std::is_sorted(v.begin(), v.end()));
    const auto si = values(stable.indices);
    const auto ui = values(unstable.indices);
    for (std::size_t j = 0; j < si.size(); ++j) {
        CHECK(data[static_cast<std::size_t>(si[j])] == v[j]);
        CHECK(data[static_cast<std::size_t>(ui[j])] == v[j]);
        if (j > 0 && v[j] == v[j - 1])
            CHECK(si[j] > si[j - 1]);
    }
    REQUIRE(std::set<std::int64_t>(ui.begin(), ui.end()).size() == 40);
}

TEST_CASE("sort of integers, of a zero-dim tensor, of an empty tensor", "[tensor][sort]") {
    const auto n = tensor<std::int32_t>({{7, -2, 5}});
    const auto s = sort(n, 1_c, true);
    STATIC_REQUIRE(std::is_same_v<decltype(s.values)::value_type, std::int32_t>);
    REQUIRE(values(s.values) == std::vector<std::int32_t>{7, 5, -2});
    REQUIRE(values(s.indices) == i64{0, 2, 1});
    const auto z = sort(full<float>(shape<>{}, 2.5f));
    REQUIRE(z.values.item() == 2.5f);
    REQUIRE(z.indices.item() == 0);
    REQUIRE(sort(zeros<float>(0_c, 3_c)).indices.numel() == 0);
}

TEST_CASE("sort's dim out of range is PyTorch's IndexError", "[tensor][sort]") {
    const auto x = zeros<float>(2, 3);
    REQUIRE_THROWS_MATCHES(sort(x, 2), IndexError,
                           Catch::Message("Dimension out of range (expected to be in range of "
                                          "[-2, 1], but got 2)"));
    REQUIRE_THROWS_AS(argsort(x, -3), IndexError);
}

TEST_CASE("topk: the k largest along a dim, a compile-time k a static extent", "[tensor][topk]") {
    const auto x = tensor<float>({{1, 3, 3, 2}, {5, 5, 1, 5}}).reshape(2_c, 4_c);
    const auto [v, i] = topk(x, 2_c);
    STATIC_REQUIRE(std::is_same_v<decltype(v)::shape_type, static_shape<2, 2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(i)::value_type, std::int64_t>);
    // torch.topk(x, 2): values [[3, 3], [5, 5]], indices [[1, 2], [1, 3]]: among the ties,
    // std::nth_element's choice (worked through by hand), as PyTorch's CPU kernel makes it
    REQUIRE(values(v) == std::vector<float>{3, 3, 5, 5});
    REQUIRE(values(i) == i64{1, 2, 1, 3});
    const auto low = topk(x, 1_c, 0_c, false);
    STATIC_REQUIRE(std::is_same_v<decltype(low.values)::shape_type, static_shape<1, 4>>);
    REQUIRE(values(low.values) == std::vector<float>{1, 3, 1, 2});
    REQUIRE(values(low.indices) == i64{0, 0, 1, 0});
    // a run-time k: a dynamic extent along the dim; a run-time dim: every extent dynamic
    const auto r = topk(x, std::int64_t{3}, 1_c);
    STATIC_REQUIRE(std::is_same_v<decltype(r.values)::shape_type, shape<int_<2>, std::int64_t>>);
    REQUIRE(values(r.values) == std::vector<float>{3, 3, 2, 5, 5, 5});
    REQUIRE(values(r.indices) == i64{1, 2, 3, 1, 3, 0});
    const auto d = topk(x, 3, 1);
    STATIC_REQUIRE(std::is_same_v<decltype(d.values)::shape_type, dynamic_shape<2>>);
    REQUIRE(values(d.values) == values(r.values));
    REQUIRE(values(d.indices) == values(r.indices));
}

TEST_CASE("topk: sorted=false, the partial sort of a long row, NaN the largest", "[tensor][topk]") {
    const auto x = tensor<double>({0.5, 4, -1, 3, 2});
    const auto any = topk(x, 3_c, 0_c, true, false);
    auto got = values(any.values);
    std::sort(got.begin(), got.end());
    REQUIRE(got == std::vector<double>{2, 3, 4});
    for (std::size_t j = 0; j < 3; ++j)
        CHECK(x(values(any.indices)[j]) == values(any.values)[j]);
    // k * 64 <= n: PyTorch's std::partial_sort path
    auto ramp = zeros<double>(200);
    for (std::int64_t j = 0; j < 200; ++j)
        ramp(j) = j == 17 ? 1000.0 : static_cast<double>(j);
    const auto two = topk(ramp, 2_c);
    REQUIRE(values(two.values) == std::vector<double>{1000, 199});
    REQUIRE(values(two.indices) == i64{17, 199});
    const auto smallest = topk(ramp, 2_c, 0_c, false);
    REQUIRE(values(smallest.values) == std::vector<double>{0, 1});
    REQUIRE(values(smallest.indices) == i64{0, 1});
    const auto withnan = topk(tensor<double>({3, qnan, 1, 2}), 2_c);
    REQUIRE(nan_equal(doubles(withnan.values), {qnan, 3}));
    REQUIRE(values(withnan.indices) == i64{1, 0});
    const auto lownan = topk(tensor<double>({3, qnan, 1, 2}), 4_c, 0_c, false);
    REQUIRE(nan_equal(doubles(lownan.values), {1, 2, 3, qnan}));
    REQUIRE(values(lownan.indices) == i64{2, 3, 0, 1});
}

TEST_CASE("topk of k = 0 and of a zero-dim tensor", "[tensor][topk]") {
    const auto x = tensor<float>({{1, 2}, {3, 4}});
    const auto none = topk(x, 0_c, 1_c);
    STATIC_REQUIRE(std::is_same_v<decltype(none.values)::shape_type, shape<std::int64_t, int_<0>>>);
    REQUIRE(none.values.numel() == 0);
    const auto z = topk(full<float>(shape<>{}, 7.0f), 1_c);
    STATIC_REQUIRE(decltype(z.values)::rank == 0);
    REQUIRE(z.values.item() == 7.0f);
    REQUIRE(z.indices.item() == 0);
}

TEST_CASE("topk's errors are PyTorch's", "[tensor][topk]") {
    const auto x = zeros<float>(2, 3);
    REQUIRE_THROWS_MATCHES(topk(x, 4), RuntimeError,
                           Catch::Message("selected index k out of range"));
    REQUIRE_THROWS_MATCHES(topk(x, -1, 0_c), RuntimeError,
                           Catch::Message("selected index k out of range"));
    REQUIRE_THROWS_MATCHES(topk(x, 3_c, 0), RuntimeError,
                           Catch::Message("selected index k out of range"));
    REQUIRE_THROWS_MATCHES(topk(x, 1, 2), IndexError,
                           Catch::Message("Dimension out of range (expected to be in range of "
                                          "[-2, 1], but got 2)"));
    REQUIRE_THROWS_MATCHES(topk(full<float>(shape<>{}, 1.0f), 2), RuntimeError,
                           Catch::Message("selected index k out of range"));
}
