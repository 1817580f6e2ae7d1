// Compile-time scalars: the literals, their traits, and arithmetic/comparisons that stay constant.
#include <limits>
#include <string_view>
#include <type_traits>

#include <boost/hana/bool.hpp>
#include <boost/hana/integral_constant.hpp>
#include <catch2/catch.hpp>

#include <staticpy/core/constant.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
template <class T>
constexpr double value_of(T) {
    return static_cast<double>(T::value);
}
template <class T>
constexpr unsigned long long bits_of(T) {
    return std::bit_cast<unsigned long long>(static_cast<double>(T::value));
}
} // namespace

TEST_CASE("str literals carry their text in the type", "[constant]") {
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype("ab"_s)>, str<"ab">>);
    STATIC_REQUIRE(str<"ab">::value == std::string_view("ab"));
    STATIC_REQUIRE(str<"ab">::size == 2);
    STATIC_REQUIRE(str<"">::size == 0);
    STATIC_REQUIRE(std::string_view("lr"_s) == "lr");
    STATIC_REQUIRE(!std::is_same_v<str<"ab">, str<"ba">>);
    STATIC_REQUIRE(std::is_empty_v<str<"ab">>);
    // Escapes are the compiler's: "a\nb"_s holds a real newline.
    STATIC_REQUIRE(str<"a\nb">::value.size() == 3);
    STATIC_REQUIRE(str<"a\nb">::value[1] == '\n');

    constexpr fixed_string fs = "hello";
    STATIC_REQUIRE(fs.size() == 5);
    STATIC_REQUIRE(fs.view() == "hello");
    STATIC_REQUIRE(fs[1] == 'e');
    STATIC_REQUIRE(fs.c_str()[5] == '\0');
}

TEST_CASE("keyword-style str = value builds a pair", "[constant]") {
    constexpr auto p = ("lr"_s = 0.5);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(p)>, pair<str<"lr">, double>>);
    STATIC_REQUIRE(p.value == 0.5);
    constexpr auto q = pair(1_c, "a"_s);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(q)>, pair<int_<1>, str<"a">>>);
}

TEST_CASE("int literals", "[constant]") {
    STATIC_REQUIRE(std::is_same_v<decltype(3_c), int_<3>>);
    STATIC_REQUIRE(std::is_base_of_v<std::integral_constant<long long, 3>, int_<3>>);
    STATIC_REQUIRE(3_c == 3);
    STATIC_REQUIRE(std::is_same_v<decltype(0_c), int_<0>>);
    STATIC_REQUIRE(std::is_same_v<decltype(0x1F_c), int_<31>>);
    STATIC_REQUIRE(std::is_same_v<decltype(0XfF_c), int_<255>>);
    STATIC_REQUIRE(std::is_same_v<decltype(0b101_c), int_<5>>);
    STATIC_REQUIRE(std::is_same_v<decltype(017_c), int_<15>>); // C++'s octal
    STATIC_REQUIRE(std::is_same_v<decltype(1'000_c), int_<1000>>);
    STATIC_REQUIRE(std::is_same_v<decltype(0x7fff'ffff'ffff'ffff_c), int_<0x7fffffffffffffffLL>>);
    STATIC_REQUIRE(std::is_same_v<decltype(9223372036854775807_c),
                                  int_<std::numeric_limits<long long>::max()>>);
    STATIC_REQUIRE(std::is_same_v<decltype(-3_c), int_<-3>>);
    STATIC_REQUIRE(std::is_same_v<decltype(+3_c), int_<3>>);
    STATIC_REQUIRE(std::is_same_v<decltype(int_c<42>), const int_<42>>);
}

TEST_CASE("float literals are the nearest double, as Python reads them", "[constant]") {
    STATIC_REQUIRE(is_float_constant_v<decltype(2.5_c)>);
    STATIC_REQUIRE(value_of(2.5_c) == 2.5);
    STATIC_REQUIRE(value_of(0.1_c) == 0.1);
    STATIC_REQUIRE(value_of(1e-5_c) == 1e-5);
    STATIC_REQUIRE(value_of(1E-5_c) == 1e-5);
    STATIC_REQUIRE(value_of(1.5e+3_c) == 1500.0);
    STATIC_REQUIRE(value_of(1'000.5_c) == 1000.5);
    STATIC_REQUIRE(value_of(5._c) == 5.0);
    STATIC_REQUIRE(value_of(.5_c) == 0.5);
    STATIC_REQUIRE(value_of(1e0_c) == 1.0);
    STATIC_REQUIRE(value_of(0.0_c) == 0.0);
    STATIC_REQUIRE(value_of(1e300_c) == 1e300);
    STATIC_REQUIRE(value_of(1e-300_c) == 1e-300);
    STATIC_REQUIRE(value_of(1e23_c) == 1e23);
    STATIC_REQUIRE(value_of(123456.789e-3_c) == 123456.789e-3);
    STATIC_REQUIRE(value_of(3.141592653589793238462643383279_c) == 3.141592653589793);
    STATIC_REQUIRE(value_of(6.02214076e23_c) == 6.02214076e23);
    STATIC_REQUIRE(value_of(1.7976931348623157e308_c) == std::numeric_limits<double>::max());
    STATIC_REQUIRE(value_of(2.2250738585072014e-308_c) == std::numeric_limits<double>::min());
    // Hard cases: one rounding from the exact decimal value (long double arithmetic gets these
    // wrong).
    STATIC_REQUIRE(value_of(7.35112101896351e-224_c) == 7.35112101896351e-224);
    STATIC_REQUIRE(value_of(9007199254740993.0_c) == 9007199254740992.0); // tie: to even
    STATIC_REQUIRE(value_of(9007199254740995.0_c) == 9007199254740996.0);
    STATIC_REQUIRE(value_of(1.00000000000000011102230246251565404236316680908203125_c) == 1.0);
    STATIC_REQUIRE(value_of(1.00000000000000011102230246251565404236316680908203126_c) ==
                   1.0000000000000002);
    STATIC_REQUIRE(value_of(2.4703282292062328e-324_c) == 5e-324); // just above half: rounds up
    STATIC_REQUIRE(value_of(2.4703282292062327e-324_c) == 0.0);    // just below: to zero
    STATIC_REQUIRE(value_of(4.9406564584124654e-324_c) ==
                   std::numeric_limits<double>::denorm_min());
    // Python: 1e400 is inf, 1e-400 is 0.0.
    STATIC_REQUIRE(value_of(1e400_c) == std::numeric_limits<double>::infinity());
    STATIC_REQUIRE(bits_of(1e-400_c) == 0);
    STATIC_REQUIRE(bits_of(-0.0_c) == 0x8000'0000'0000'0000ULL);
    STATIC_REQUIRE(value_of(-2.5_c) == -2.5);
    STATIC_REQUIRE(std::is_same_v<decltype(+2.5_c), decltype(2.5_c)>);
    // A float's value converts implicitly, as the double it is.
    constexpr double d = 2.5_c;
    STATIC_REQUIRE(d == 2.5);
}

TEST_CASE("traits recognise compile-time scalars from any library", "[constant]") {
    STATIC_REQUIRE(is_int_constant_v<int_<3>>);
    STATIC_REQUIRE(is_int_constant_v<std::integral_constant<int, 3>>);
    STATIC_REQUIRE(is_int_constant_v<size_<3>>);
    STATIC_REQUIRE(is_int_constant_v<boost::hana::int_<3>>);
    STATIC_REQUIRE(is_int_constant_v<boost::hana::size_t<3>>);
    STATIC_REQUIRE(!is_int_constant_v<int>);
    STATIC_REQUIRE(!is_int_constant_v<std::true_type>);
    STATIC_REQUIRE(!is_int_constant_v<float_<0>>);

    STATIC_REQUIRE(is_bool_constant_v<std::true_type>);
    STATIC_REQUIRE(is_bool_constant_v<decltype(True)>);
    STATIC_REQUIRE(is_bool_constant_v<std::remove_cv_t<decltype(False)>>);
    STATIC_REQUIRE(is_bool_constant_v<bool_<true>>);
    STATIC_REQUIRE(is_bool_constant_v<boost::hana::true_>);
    STATIC_REQUIRE(!is_bool_constant_v<bool>);
    STATIC_REQUIRE(!is_bool_constant_v<int_<1>>);

    STATIC_REQUIRE(is_float_constant_v<decltype(2.5_c)>);
    STATIC_REQUIRE(!is_float_constant_v<double>);
    STATIC_REQUIRE(is_str_constant_v<str<"a">>);
    STATIC_REQUIRE(!is_str_constant_v<std::string_view>);

    STATIC_REQUIRE(is_scalar_constant_v<none_t>);
    STATIC_REQUIRE(is_scalar_constant_v<int_<1>>);
    STATIC_REQUIRE(is_scalar_constant_v<std::true_type>);
    STATIC_REQUIRE(is_scalar_constant_v<decltype(1.5_c)>);
    STATIC_REQUIRE(is_scalar_constant_v<str<"x">>);
    STATIC_REQUIRE(!is_scalar_constant_v<int>);
    STATIC_REQUIRE(!is_scalar_constant_v<double>);

    STATIC_REQUIRE(std::is_same_v<size_<3>, std::integral_constant<std::size_t, 3>>);
    STATIC_REQUIRE(std::is_same_v<bool_<false>, std::false_type>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(True)>, std::true_type>);
}

TEST_CASE("arithmetic on constants stays compile-time", "[constant]") {
    STATIC_REQUIRE(1_c + 2_c == 3_c);
    STATIC_REQUIRE(std::is_same_v<decltype(1_c + 2_c), int_<3>>);
    STATIC_REQUIRE(std::is_same_v<decltype(5_c - 7_c), int_<-2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(3_c * 4_c), int_<12>>);
    STATIC_REQUIRE(std::is_same_v<decltype(1_c + True), int_<2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(std::integral_constant<int, 2>{} + 1_c), int_<3>>);

    // Python's true division: always a float.
    STATIC_REQUIRE(1_c / 2_c == 0.5_c);
    STATIC_REQUIRE(is_float_constant_v<decltype(1_c / 2_c)>);
    STATIC_REQUIRE(std::is_same_v<decltype(4_c / 2_c), decltype(2.0_c)>);
    STATIC_REQUIRE(value_of(-7_c / 2_c) == -3.5);
    STATIC_REQUIRE(value_of(1_c / 3_c) == 1.0 / 3.0);

    STATIC_REQUIRE(std::is_same_v<decltype(2.5_c * 2_c), decltype(5.0_c)>);
    STATIC_REQUIRE(std::is_same_v<decltype(1_c + 0.5_c), decltype(1.5_c)>);
    STATIC_REQUIRE(value_of(0.1_c + 0.2_c) == 0.1 + 0.2);
    STATIC_REQUIRE(0.1_c + 0.2_c != 0.3_c); // as in Python
    STATIC_REQUIRE(0.1_c + 0.2_c == 0.30000000000000004_c);

    // Python's %: the result has the divisor's sign; floats work.
    STATIC_REQUIRE(std::is_same_v<decltype(7_c % 3_c), int_<1>>);
    STATIC_REQUIRE(std::is_same_v<decltype(-7_c % 3_c), int_<2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(7_c % -3_c), int_<-2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(-7_c % -3_c), int_<-1>>);
    STATIC_REQUIRE(std::is_same_v<decltype(-6_c % 3_c), int_<0>>);
    STATIC_REQUIRE(value_of(5.5_c % 2_c) == 1.5);
    STATIC_REQUIRE(value_of(-5.5_c % 2_c) == 0.5);
    STATIC_REQUIRE(value_of(5.5_c % -2_c) == -0.5);
    STATIC_REQUIRE(value_of(0.1_c % 0.01_c) == 3.469446951953614e-18); // Python's 0.1 % 0.01
    STATIC_REQUIRE(bits_of(6.0_c % -3_c) == bits_of(-0.0_c));          // Python: -0.0
    STATIC_REQUIRE(bits_of(-6.0_c % 3_c) == 0);                        // Python: 0.0

    // Unary minus and plus.
    STATIC_REQUIRE(std::is_same_v<decltype(-(2_c + 3_c)), int_<-5>>);
    STATIC_REQUIRE(value_of(-(1_c / 4_c)) == -0.25);
}

TEST_CASE("comparisons of constants are std::bool_constant", "[constant]") {
    STATIC_REQUIRE(std::is_same_v<decltype(1_c < 2.5_c), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(1_c == 1.0_c), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(1_c == True), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(2_c != 2_c), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(3_c > 2_c), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(2_c >= 2.0_c), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(2_c <= 1.5_c), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(-1_c < 0_c), std::true_type>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(9223372036854775807_c > 9223372036854775806_c), std::true_type>);
    // Against a plain number the integral_constant converts: a run-time (or constexpr) bool.
    STATIC_REQUIRE(3_c == 3);
    STATIC_REQUIRE(2.5_c > 2);
}

TEST_CASE("None", "[constant]") {
    STATIC_REQUIRE(std::is_same_v<decltype(None == None), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(None != None), std::false_type>);
    STATIC_REQUIRE(std::is_empty_v<none_t>);
}

TEST_CASE("constants are usable at run time too", "[constant]") {
    const double x = 2.5_c;
    const long long n = 3_c;
    REQUIRE(x == 2.5);
    REQUIRE(n == 3);
    REQUIRE(std::string_view("abc"_s) == "abc");
}
