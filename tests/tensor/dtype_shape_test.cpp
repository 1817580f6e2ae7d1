#include <cstdint>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;
using staticpy::int_;
using staticpy::shape;

TEST_CASE("dtype names, constants and element types", "[tensor][dtype]") {
    STATIC_REQUIRE(staticpy::dtype_of_v<float> == staticpy::float32);
    STATIC_REQUIRE(staticpy::dtype_of_v<double> == staticpy::float64);
    STATIC_REQUIRE(staticpy::dtype_of_v<std::int32_t> == staticpy::int32);
    STATIC_REQUIRE(staticpy::dtype_of_v<std::int64_t> == staticpy::int64);
    STATIC_REQUIRE(staticpy::dtype_of_v<std::uint8_t> == staticpy::uint8);
    STATIC_REQUIRE(staticpy::dtype_of_v<bool> == staticpy::boolean);
    STATIC_REQUIRE(staticpy::dtype_of_v<bool> == staticpy::dtype::bool_);
    STATIC_REQUIRE(std::is_same_v<staticpy::scalar_type_t<staticpy::int32>, std::int32_t>);
    STATIC_REQUIRE(staticpy::dtype_name(staticpy::float32) == "float32");
    STATIC_REQUIRE(staticpy::dtype_name(staticpy::boolean) == "bool");
    STATIC_REQUIRE(staticpy::dtype_name(staticpy::uint8) == "uint8");
    STATIC_REQUIRE(staticpy::element_size(staticpy::float64) == 8);
    STATIC_REQUIRE(staticpy::is_floating_point(staticpy::float32));
    STATIC_REQUIRE(!staticpy::is_floating_point(staticpy::int64));
    STATIC_REQUIRE(!staticpy::is_tensor_element_v<char>);
    STATIC_REQUIRE(staticpy::Tensor<double>::dtype() == staticpy::float64);
}

TEST_CASE("shape: static and dynamic extents", "[tensor][shape]") {
    const int n = 5;
    constexpr auto s = shape(2_c, 3_c);
    STATIC_REQUIRE(std::is_same_v<std::remove_const_t<decltype(s)>, shape<int_<2>, int_<3>>>);
    STATIC_REQUIRE(decltype(s)::rank == 2);
    STATIC_REQUIRE(decltype(s)::is_static);
    STATIC_REQUIRE(s.numel() == 6);
    STATIC_REQUIRE(s[1] == 3);
    STATIC_REQUIRE(decltype(s)::static_extent<0>() == 2);
    STATIC_REQUIRE(decltype(s)::static_numel == 6);

    const auto d = shape(2_c, n);
    STATIC_REQUIRE(std::is_same_v<std::remove_const_t<decltype(d)>, shape<int_<2>, std::int64_t>>);
    STATIC_REQUIRE(!decltype(d)::is_static);
    STATIC_REQUIRE(decltype(d)::static_extent<1>() == -1);
    STATIC_REQUIRE(decltype(d)::static_numel == -1);
    REQUIRE(d[1] == 5);
    REQUIRE(d.numel() == 10);
    REQUIRE(std::is_same_v<decltype(d.get<0>()), int_<2>>);
    REQUIRE(d.get<1>() == 5);

    STATIC_REQUIRE(std::is_same_v<staticpy::dynamic_shape<2>, shape<std::int64_t, std::int64_t>>);
    STATIC_REQUIRE(std::is_same_v<staticpy::static_shape<2, 3>, shape<int_<2>, int_<3>>>);
    STATIC_REQUIRE(std::is_same_v<staticpy::shape_erase_t<staticpy::static_shape<2, 3, 4>, 1>,
                                  staticpy::static_shape<2, 4>>);
    STATIC_REQUIRE(
        std::is_same_v<staticpy::shape_insert_t<staticpy::static_shape<2, 3>, 0, int_<1>>,
                       staticpy::static_shape<1, 2, 3>>);
    STATIC_REQUIRE(shape<>::rank == 0);
    STATIC_REQUIRE(shape<>::numel() == 1);
}

TEST_CASE("shape: repr, equality, conversions and errors", "[tensor][shape]") {
    REQUIRE(staticpy::repr(shape(2_c, 3)) == "Size([2, 3])");
    REQUIRE(staticpy::repr(shape<>{}) == "Size([])");
    REQUIRE(shape(2_c, 3) == shape(2, 3_c));
    REQUIRE_FALSE(shape(2_c, 3) == shape(2, 4));
    REQUIRE_FALSE(shape(2_c, 3) == shape(2));
    // static -> dynamic is implicit, dynamic -> static is explicit and checked
    staticpy::dynamic_shape<2> dyn = shape(2_c, 3_c);
    REQUIRE(dyn[0] == 2);
    STATIC_REQUIRE(!std::is_convertible_v<staticpy::dynamic_shape<1>, shape<int_<3>>>);
    REQUIRE(shape<int_<3>>(staticpy::dynamic_shape<1>(3))[0] == 3);
    REQUIRE_THROWS_AS(shape<int_<3>>(staticpy::dynamic_shape<1>(4)), staticpy::RuntimeError);
    REQUIRE_THROWS_WITH(shape(2, -1),
                        "Trying to create tensor with negative dimension -1: [2, -1]");
}
