// The method forms (x.sum(1_c), x.relu(), x.matmul(w), ...) give exactly what the free
// functions give: they forward to them.

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
