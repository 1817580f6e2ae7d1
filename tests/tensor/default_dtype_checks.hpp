#pragma once
// The default dtype's checks, shared by the two test files that include this: one built as
// every program is by default (float32), one with STATICPY_DEFAULT_DTYPE float64
// (torch.set_default_dtype(torch.float64)). Each defines `expected_default` first; what is
// checked is what PyTorch 1.13 gives under that default: float factories, Python floats
// meeting integer tensors, true division and the math of integers take the default dtype;
// integer and bool values keep theirs; a float tensor is never widened by a Python float.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

namespace default_dtype_checks {

using namespace staticpy;
using namespace staticpy::literals;
using D = scalar_type_t<expected_default>;

template <class X>
using element_t = typename std::remove_cvref_t<X>::value_type;

TEST_CASE("get_default_dtype is the program's STATICPY_DEFAULT_DTYPE", "[tensor][dtype]") {
    STATIC_REQUIRE(get_default_dtype() == expected_default);
    STATIC_REQUIRE(std::is_same_v<default_float_t, D>);
    STATIC_REQUIRE(std::is_same_v<Tensor<>, Tensor<D, dynamic_shape<1>>>); // torch.Tensor([..])
}

TEST_CASE("float factories make the default dtype", "[tensor][dtype][creation]") {
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(arange(12.0))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(arange(0, 1, 0.5))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(arange(12))>, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(zeros(2, 3))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(ones(2_c))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(empty(shape(2_c, 3_c)))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(rand(2))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(randn(2_c, 2_c))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(linspace(0.0, 1.0, 3))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(eye(2))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(randint(0, 3, 2))>, std::int64_t>);
    // The explicit element type is kept, whatever the default.
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(zeros<float>(2))>, float>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(arange<float>(12.0))>, float>);

    // arange's values are computed in double and rounded once to the default dtype.
    const auto a = arange(0.0, 1.0, 0.1);
    REQUIRE(a.numel() == 10);
    CHECK(a(3) == static_cast<D>(0.0 + 3 * 0.1));
    CHECK(linspace(0.0, 1.0, 4)(1) == static_cast<D>(1.0 / 3.0));
}

TEST_CASE("tensor({...}) and full infer the dtype as torch.tensor and torch.full",
          "[tensor][dtype][creation]") {
    const auto f = tensor({1.0, 2.0});
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(f)>, D>);
    CHECK(tensor({0.1})(0) == static_cast<D>(0.1));
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor({1.5f}))>, D>); // a Python float too
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor({{1.0, 2.0}, {3.0, 4.0}}))>, D>);
    STATIC_REQUIRE(
        std::is_same_v<element_t<decltype(tensor({{{1.0}, {2.0}}, {{3.0}, {4.0}}}))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor({1, 2}))>, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor({true, false}))>, bool>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor<float>({1, 2.5}))>, float>);
    CHECK(tensor({{1, 2}, {3, 4}})(1, 0) == 3);

    STATIC_REQUIRE(std::is_same_v<element_t<decltype(full(2, 3, 1.5))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(full(shape(2_c), 1.5))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(full(2, 7))>, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(full(2, true))>, bool>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(full<float>(2, 7))>, float>);
    CHECK(full(2, 0.1)(1) == static_cast<D>(0.1));
}

TEST_CASE("Python floats, true division and math promote integers to the default dtype",
          "[tensor][dtype][promote]") {
    const auto i = tensor({1, 2, 3}); // int64
    const auto scaled = i * 2.5;
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(scaled)>, D>);
    CHECK(scaled(1) == static_cast<D>(5));
    const auto third = i / tensor<std::int64_t>({3, 3, 3});
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(third)>, D>);
    CHECK(third(0) == static_cast<D>(1) / static_cast<D>(3)); // computed in D, not rounded
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(exp(i))>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor<std::int32_t>({1}) + 0.5f)>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor<bool>({true}) * 1.5)>, D>);
    STATIC_REQUIRE(
        std::is_same_v<result_type_t<tensor_operand<std::uint8_t>, scalar_operand<double>>, D>);
    // Integers keep their type with Python ints; float tensors are never widened by a Python
    // float (a wrapped number takes the tensor's dtype).
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(i + 2)>, std::int64_t>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor<float>({1}) * 2.5)>, float>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(tensor<double>({1}) * 2.5f)>, double>);
}

TEST_CASE("jit's graph follows the default dtype as eager mode does", "[tensor][dtype][graph]") {
    const auto i = tensor({1, 2, 3});
    const auto f = jit([](auto x, auto n) { return x / n + 0.1; });
    const auto y = f(i, std::int64_t{3});
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(y)>, D>);
    set_context(PYNATIVE_MODE);
    const auto z = f(i, std::int64_t{3});
    set_context(GRAPH_MODE);
    for (std::int64_t k = 0; k < 3; ++k)
        CHECK(y(k) == z(k));
}

TEST_CASE("nn modules create their parameters in the default dtype", "[tensor][dtype][nn]") {
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(nn::Linear<2, 3>{}.weight)>, D>);
    STATIC_REQUIRE(std::is_same_v<element_t<decltype(nn::Embedding<4, 2>{}.weight)>, D>);
    STATIC_REQUIRE(
        std::is_same_v<element_t<decltype(nn::Linear<2, 3, true, float>{}.weight)>, float>);
}

} // namespace default_dtype_checks
