// The gradient through a cast is the cotangent cast back to the input's dtype, exactly. (The
// elementwise ops' derivatives, in both modes and against finite differences, are the op
// table's: op_table_*_test.cpp.)

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

TEST_CASE("d/dx through a cast is the gradient cast back to x's dtype") {
    // (float32 rounding makes finite differences of a cast meaningless: compared exactly instead)
    const auto x = cast<float>(random_tensor(2, 0.2, 2.0, 2_c, 5_c));
    const auto w = random_tensor(3, -1, 1, 2_c, 5_c);
    const auto g = grad([](auto v, auto c) { return (cast<double>(v) * c).sum(); })(x, w);
    STATIC_REQUIRE(std::is_same_v<typename std::remove_cvref_t<decltype(g)>::value_type, float>);
    CHECK(flat(g) == flat(cast<float>(w)));
}
