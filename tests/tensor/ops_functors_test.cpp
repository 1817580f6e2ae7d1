// The scalar functors behind every elementwise op: their values (PyTorch's semantics for NaN,
// integer wrap-around, gelu's exact form) and the C++ source they emit. Each emitted text is
// checked twice: as a string, and by compiling that very text here (EMITS pastes it as code) and
// comparing its value with apply().
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include <staticpy/tensor/functors.hpp>

using namespace staticpy;

// EMITS(text_from_cpp, code): `code` is written exactly as cpp() emits it; its spelling must be
// the emitted string, and it must compile (with the local variables a, b, c, x, y).
#define STATICPY_STR(...) #__VA_ARGS__
#define EMITS(emitted, ...)                                                                        \
    do {                                                                                           \
        CHECK((emitted) == std::string(STATICPY_STR(__VA_ARGS__)));                                \
        (void)(__VA_ARGS__); /* the emitted text compiles */                                       \
    } while (false)

TEST_CASE("functors: binary arithmetic values", "[functors]") {
    STATIC_REQUIRE(fn::add::apply(2, 3) == 5);
    STATIC_REQUIRE(fn::sub::apply(2.5, 3.0) == -0.5);
    STATIC_REQUIRE(fn::mul::apply(4.0f, 0.5f) == 2.0f);
    STATIC_REQUIRE(fn::div::apply(1.0, 4.0) == 0.25);
    STATIC_REQUIRE(fn::add::apply(true, true) == true); // torch: True + True is True
    STATIC_REQUIRE(fn::mul::apply(true, false) == false);
    // Integers wrap around as PyTorch's do, without undefined behaviour.
    STATIC_REQUIRE(fn::add::apply(std::uint8_t{250}, std::uint8_t{10}) == 4);
    STATIC_REQUIRE(fn::mul::apply(std::uint8_t{16}, std::uint8_t{16}) == 0);
    STATIC_REQUIRE(fn::add::apply(std::numeric_limits<std::int32_t>::max(), std::int32_t{1}) ==
                   std::numeric_limits<std::int32_t>::min());
    STATIC_REQUIRE(fn::mul::apply(std::int64_t{1} << 62, std::int64_t{4}) == 0);
    STATIC_REQUIRE(fn::sub::apply(std::uint8_t{0}, std::uint8_t{1}) == 255);
    STATIC_REQUIRE(fn::neg::apply(std::numeric_limits<std::int64_t>::min()) ==
                   std::numeric_limits<std::int64_t>::min());
    STATIC_REQUIRE(fn::neg::apply(std::uint8_t{1}) == 255);
    STATIC_REQUIRE(fn::abs::apply(std::int32_t{-7}) == 7);
    STATIC_REQUIRE(fn::abs::apply(std::uint8_t{200}) == 200);
}

TEST_CASE("functors: pow", "[functors]") {
    STATIC_REQUIRE(fn::pow::apply(std::int64_t{3}, std::int64_t{4}) == 81);
    STATIC_REQUIRE(fn::pow::apply(std::int32_t{-2}, std::int32_t{3}) == -8);
    STATIC_REQUIRE(fn::pow::apply(std::int32_t{5}, std::int32_t{0}) == 1);
    // Integer tensors to negative powers: 0 unless the base is 1 or -1 (PyTorch's rule).
    STATIC_REQUIRE(fn::pow::apply(std::int32_t{2}, std::int32_t{-1}) == 0);
    STATIC_REQUIRE(fn::pow::apply(std::int32_t{1}, std::int32_t{-5}) == 1);
    STATIC_REQUIRE(fn::pow::apply(std::int32_t{-1}, std::int32_t{-3}) == -1);
    STATIC_REQUIRE(fn::pow::apply(std::int32_t{-1}, std::int32_t{-2}) == 1);
    STATIC_REQUIRE(fn::pow::apply(std::uint8_t{2}, std::uint8_t{9}) == 0); // 512 wraps
    CHECK(fn::pow::apply(2.0, 0.5) == Approx(std::sqrt(2.0)));
    CHECK(fn::pow::apply(2.0f, 10.0f) == 1024.0f);
    CHECK(std::isnan(fn::pow::apply(-8.0, 1.0 / 3.0)));
}

TEST_CASE("functors: NaN and infinity follow PyTorch", "[functors]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CHECK(std::isnan(fn::relu::apply(nan))); // torch.relu(nan) is nan
    CHECK(fn::relu::apply(-inf) == 0.0);
    CHECK(fn::relu::apply(inf) == inf);
    CHECK(fn::relu::apply(-2.0f) == 0.0f);
    CHECK(fn::relu::apply(std::int32_t{-3}) == 0);
    CHECK(std::isnan(fn::maximum::apply(nan, 1.0))); // torch.maximum propagates NaN
    CHECK(std::isnan(fn::maximum::apply(1.0, nan)));
    CHECK(std::isnan(fn::minimum::apply(nan, 1.0)));
    CHECK(std::isnan(fn::minimum::apply(-inf, nan)));
    CHECK(fn::maximum::apply(-inf, 1.0) == 1.0);
    CHECK(fn::minimum::apply(std::int64_t{-4}, std::int64_t{2}) == -4);
    CHECK(fn::log::apply(0.0) == -inf);
    CHECK(std::isnan(fn::log::apply(-1.0)));
    CHECK(std::isnan(fn::sqrt::apply(-1.0f)));
    CHECK(fn::rsqrt::apply(0.0) == inf);
    CHECK(fn::sigmoid::apply(-1000.0f) == 0.0f); // saturates, no NaN
    CHECK(fn::sigmoid::apply(1000.0f) == 1.0f);
    CHECK(fn::exp::apply(1000.0) == inf);
    CHECK_FALSE(fn::eq::apply(nan, nan));
    CHECK(fn::ne::apply(nan, nan));
    CHECK_FALSE(fn::lt::apply(nan, 1.0));
    CHECK_FALSE(fn::ge::apply(nan, 1.0));
    CHECK(fn::cast<bool>::apply(nan));
    CHECK(fn::cast<std::int32_t>::apply(-2.7) == -2); // truncation, as torch's .to(int32)
    CHECK(fn::cast<std::uint8_t>::apply(std::int32_t{300}) == 44);
    // NaN and out-of-range floats: the target's lowest value, as PyTorch on x86, never UB.
    CHECK(fn::cast<std::int32_t>::apply(nan) == std::numeric_limits<std::int32_t>::min());
    CHECK(fn::cast<std::int64_t>::apply(1e30) == std::numeric_limits<std::int64_t>::min());
    CHECK(fn::cast<std::uint8_t>::apply(-1.0) == 255);
    CHECK(fn::cast<std::uint8_t>::apply(300.5f) == 44);
}

TEST_CASE("functors: unary math", "[functors]") {
    CHECK(fn::exp::apply(1.0) == Approx(2.718281828459045));
    CHECK(fn::tanh::apply(0.5f) == Approx(std::tanh(0.5f)));
    CHECK(fn::sin::apply(1.0) == Approx(0.8414709848078965));
    CHECK(fn::cos::apply(1.0) == Approx(0.5403023058681398));
    CHECK(fn::sigmoid::apply(0.0) == 0.5);
    CHECK(fn::rsqrt::apply(4.0f) == 0.5f);
    // torch.nn.functional.gelu(torch.tensor([-1., 0.5, 2.], dtype=torch.float64))
    CHECK(fn::gelu::apply(-1.0) == Approx(-0.15865525393145707).epsilon(1e-14));
    CHECK(fn::gelu::apply(0.5) == Approx(0.34573123063700656).epsilon(1e-14));
    CHECK(fn::gelu::apply(2.0) == Approx(1.9544997361036416).epsilon(1e-14));
    CHECK(fn::gelu::apply(0.0f) == 0.0f);
    CHECK(fn::where::apply(true, 1.0, 2.0) == 1.0);
    CHECK(fn::where::apply(false, std::int32_t{1}, std::int32_t{2}) == 2);
}

TEST_CASE("functors: names and arity", "[functors]") {
    CHECK(std::string(fn::add::name) == "add");
    CHECK(std::string(fn::sigmoid::name) == "sigmoid");
    CHECK(std::string(fn::ge::name) == "ge");
    CHECK(std::string(fn::cast<float>::name) == "cast");
    STATIC_REQUIRE(fn::where::arity == 3);
    STATIC_REQUIRE(fn::neg::arity == 1);
    STATIC_REQUIRE(fn::maximum::arity == 2);
    STATIC_REQUIRE(fn::lt::kind == fn::op_kind::compare);
    STATIC_REQUIRE(fn::div::kind == fn::op_kind::true_divide);
    STATIC_REQUIRE(fn::exp::kind == fn::op_kind::floating);
}

// clang-format off: the EMITS arguments are spelled exactly as cpp() emits them.
TEST_CASE("functors: emitted C++ is the same math", "[functors][emit]") {
    const float a = 0.75f;
    const float b = -1.5f;
    const bool c = true;
    EMITS(fn::add::cpp("a", "b"), (a + b));
    EMITS(fn::sub::cpp("a", "b"), (a - b));
    EMITS(fn::mul::cpp("a", "b"), (a * b));
    EMITS(fn::div::cpp("a", "b"), (a / b));
    EMITS(fn::neg::cpp("a"), (-a));
    EMITS(fn::neg::cpp("-1"), (- -1));
    EMITS(fn::eq::cpp("a", "b"), (a == b));
    EMITS(fn::le::cpp("a", "b"), (a <= b));
    EMITS(fn::pow::cpp("a", "b"), std::pow(a, b));
    EMITS(fn::exp::cpp("a"), std::exp(a));
    EMITS(fn::where::cpp("c", "a", "b"), (c ? a : b));
    EMITS(fn::cast<std::int64_t>::cpp("a"), static_cast<std::int64_t>(a));
    EMITS(fn::cast<bool>::cpp("a"), (a != 0));
    // Composition: the result of one cpp() is an operand of the next.
    EMITS(fn::mul::cpp(fn::add::cpp("a", "b"), "c"), ((a + b) * c));

    // The emitted text, compiled here, gives apply()'s value in apply()'s type.
    auto same = [](auto emitted, auto applied) {
        STATIC_REQUIRE(std::is_same_v<decltype(emitted), decltype(applied)>);
        if (std::isnan(applied))
            CHECK(std::isnan(emitted));
        else
            CHECK(emitted == applied);
    };
    EMITS(fn::sigmoid::cpp("a"), (1 / (1 + std::exp((-a)))));
    same((1 / (1 + std::exp((-a)))), fn::sigmoid::apply(a));
    EMITS(fn::rsqrt::cpp("a"), (1 / std::sqrt(a)));
    same((1 / std::sqrt(a)), fn::rsqrt::apply(a));
    EMITS(fn::relu::cpp("b"), (b > 0 || b != b ? b : decltype(+b)(0)));
    same((b > 0 || b != b ? b : decltype(+b)(0)), fn::relu::apply(b));
    same((a > 0 || a != a ? a : decltype(+a)(0)), fn::relu::apply(a));
    EMITS(fn::gelu::cpp("a"),
          (a * 0.5f * (1 + std::erf(a * static_cast<decltype(+a)>(0.7071067811865476)))));
    same((a * 0.5f * (1 + std::erf(a * static_cast<decltype(+a)>(0.7071067811865476)))),
         fn::gelu::apply(a));
    const double x = std::numeric_limits<double>::quiet_NaN();
    const double y = 2.0;
    EMITS(fn::maximum::cpp("x", "y"), (x != x ? x : y != y ? y : x > y ? x : y));
    same((x != x ? x : y != y ? y : x > y ? x : y), fn::maximum::apply(x, y));
    same((y != y ? y : x != x ? x : y < x ? y : x), fn::minimum::apply(y, x));
    EMITS(fn::minimum::cpp("y", "x"), (y != y ? y : x != x ? x : y < x ? y : x));
    EMITS(fn::abs::cpp("b"), std::abs(b));
    same(std::abs(b), fn::abs::apply(b));
    CHECK(std::string(fn::cpp_type_name<std::uint8_t>) == "std::uint8_t");
}
// clang-format on

TEST_CASE("functors: integer pow wraps without undefined behaviour", "[functors]") {
    std::uint64_t expected = 1;
    for (int i = 0; i < 41; ++i)
        expected *= 3u;
    CHECK(fn::pow::apply(std::int64_t{3}, std::int64_t{41}) == static_cast<std::int64_t>(expected));
}
