// PyTorch's type promotion (torch.promote_types, torch.result_type) and the result type of each
// functor. Expected types are PyTorch 2.x's.
#include <cstdint>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/core/constant.hpp>
#include <staticpy/tensor/promote.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
using u8 = std::uint8_t;
using i32 = std::int32_t;
using i64 = std::int64_t;
using f32 = float;
using f64 = double;
template <class T>
using t = tensor_operand<T>;
template <class T>
using z = zero_dim_operand<T>;
template <class S>
using s = scalar_operand<S>;
} // namespace

TEST_CASE("promote_types: the larger of the two", "[promote]") {
    STATIC_REQUIRE(std::is_same_v<promote_types_t<bool, bool>, bool>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<bool, u8>, u8>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<u8, i32>, i32>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<i32, u8>, i32>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<u8, i64>, i64>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<i32, i64>, i64>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<i64, f32>, f32>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<i32, f64>, f64>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<f32, f64>, f64>);
    STATIC_REQUIRE(std::is_same_v<promote_types_t<bool, f32>, f32>);
}

TEST_CASE("result_type: tensors with dimensions", "[promote]") {
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<u8>, t<i32>>, i32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i64>, t<f32>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<f32>, t<f64>>, f64>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, t<bool>>, bool>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, t<u8>, t<f32>>, f32>);
}

TEST_CASE("result_type: a Python scalar only promotes across categories", "[promote]") {
    // torch.result_type(torch.tensor([1, 2], dtype=torch.int), 1.0) is torch.float32
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, s<float>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i64>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<f32>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<f64>, s<float>>, f64>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<u8>, s<int>>, u8>); // uint8 tensor + 300
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, s<long long>>, i32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, s<int>>, i64>); // bool tensor + 1
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, s<bool>>, bool>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, s<bool>>, i32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<s<double>, t<i32>>, f32>); // order does not matter
    // staticpy's compile-time constants are Python numbers too.
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, s<decltype(2_c)>>, i32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, s<decltype(2.5_c)>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, s<decltype(True)>>, bool>);
    // Scalars alone: Python int is int64, Python float the default dtype.
    STATIC_REQUIRE(std::is_same_v<result_type_t<s<int>, s<int>>, i64>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<s<int>, s<double>>, f32>);
}

TEST_CASE("result_type: zero-dim tensors sit between tensors and scalars", "[promote]") {
    // torch.result_type(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor(1)) is torch.uint8
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<u8>, z<i64>>, u8>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<i32>, z<f64>>, f64>); // higher category: its type
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<f32>, z<f64>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<z<i32>, z<f64>>, f64>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<z<i32>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<z<f64>, s<double>>, f64>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, z<u8>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<result_type_t<t<bool>, z<i32>>, i32>);
}

TEST_CASE("functor result types", "[promote]") {
    // Arithmetic: the promoted type.
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::add, t<u8>, t<i32>>, i32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::mul, t<i32>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::pow, t<i32>, s<int>>, i32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::pow, t<i32>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::maximum, t<f32>, t<f64>>, f64>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::neg, t<i64>>, i64>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::relu, t<i32>>, i32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::abs, t<u8>>, u8>);
    // True division of integers gives the default float.
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::div, t<i64>, t<i64>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_compute_t<fn::div, t<i64>, t<i64>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::div, t<i32>, s<int>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::div, t<f64>, s<int>>, f64>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::div, t<bool>, t<bool>>, f32>);
    // Unary math of integers gives the default float.
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::exp, t<i32>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::sqrt, t<bool>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::sigmoid, t<f64>>, f64>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::gelu, t<f32>>, f32>);
    // Comparisons: computed in the promoted type, bool result.
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::lt, t<i32>, s<double>>, bool>);
    STATIC_REQUIRE(std::is_same_v<functor_compute_t<fn::lt, t<i32>, s<double>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_compute_t<fn::eq, t<u8>, t<i64>>, i64>);
    // where: the promoted type of the two values.
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::where, t<bool>, t<f32>, s<int>>, f32>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::where, t<bool>, t<i32>, t<f64>>, f64>);
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::where, t<bool>, s<int>, s<double>>, f32>);
    // cast: its target.
    STATIC_REQUIRE(std::is_same_v<functor_result_t<fn::cast<u8>, t<f64>>, u8>);
    STATIC_REQUIRE(std::is_same_v<functor_compute_t<fn::cast<u8>, t<f64>>, f64>);
}
