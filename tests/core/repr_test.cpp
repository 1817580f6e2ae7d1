// repr(), str() and print() exactly as Python prints (expected texts taken from CPython 3.11).
#include <array>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers/list.hpp>
#include <staticpy/core/print.hpp>
#include <staticpy/core/repr.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
struct streamable_point {
    int x;
    friend std::ostream& operator<<(std::ostream& os, const streamable_point& p) {
        return os << "Point(" << p.x << ")";
    }
};
struct opaque {};

/// What print(...) writes to std::cout.
template <class... Ts>
std::string printed(const Ts&... xs) {
    std::ostringstream captured;
    auto* old = std::cout.rdbuf(captured.rdbuf());
    try {
        staticpy::print(xs...);
    } catch (...) {
        std::cout.rdbuf(old);
        throw;
    }
    std::cout.rdbuf(old);
    return captured.str();
}
} // namespace

TEST_CASE("repr of None, bools and ints", "[repr]") {
    REQUIRE(repr(None) == "None");
    REQUIRE(repr(True) == "True");
    REQUIRE(repr(False) == "False");
    REQUIRE(repr(true) == "True");
    REQUIRE(repr(false) == "False");
    REQUIRE(repr(0) == "0");
    REQUIRE(repr(-42) == "-42");
    REQUIRE(repr(3_c) == "3");
    REQUIRE(repr(-3_c) == "-3");
    REQUIRE(repr(size_<7>{}) == "7");
    REQUIRE(repr(std::numeric_limits<long long>::min()) == "-9223372036854775808");
    REQUIRE(repr(std::numeric_limits<unsigned long long>::max()) == "18446744073709551615");
}

TEST_CASE("repr of floats: shortest round-trip text, Python's notation", "[repr]") {
    const std::pair<double, std::string_view> cases[] = {
        {0.1, "0.1"},
        {2.5, "2.5"},
        {1.0, "1.0"},
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {-2.5, "-2.5"},
        {1e16, "1e+16"},
        {1e15, "1000000000000000.0"},
        {9999999999999998.0, "9999999999999998.0"},
        {9007199254740992.0, "9007199254740992.0"},
        {1e-5, "1e-05"},
        {1e-4, "0.0001"},
        {0.00012345, "0.00012345"},
        {0.001, "0.001"},
        {1e-7, "1e-07"},
        {1.5e-10, "1.5e-10"},
        {100.0, "100.0"},
        {1234.5678, "1234.5678"},
        {1e22, "1e+22"},
        {1e100, "1e+100"},
        {1.5e300, "1.5e+300"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {5e-324, "5e-324"},
        {1e-310, "1e-310"},
        {123456789012345678.0, "1.2345678901234568e+17"},
        {12345678901234567890.0, "1.2345678901234567e+19"},
        {0.1 + 0.2, "0.30000000000000004"},
        {0.3, "0.3"},
        {1.0 / 3.0, "0.3333333333333333"},
        {std::numeric_limits<double>::infinity(), "inf"},
        {-std::numeric_limits<double>::infinity(), "-inf"},
        {std::numeric_limits<double>::quiet_NaN(), "nan"},
    };
    for (const auto& [value, text] : cases) {
        INFO("expected " << text);
        REQUIRE(repr(value) == text);
    }
    // A float (float32) prints its own shortest text, not the double's 0.10000000149011612.
    REQUIRE(repr(0.1f) == "0.1");
    REQUIRE(repr(1e-5f) == "1e-05");
    REQUIRE(repr(16777216.0f) == "16777216.0");
    // Compile-time floats print their value.
    REQUIRE(repr(2.5_c) == "2.5");
    REQUIRE(repr(1e16_c) == "1e+16");
    REQUIRE(repr(1e-5_c) == "1e-05");
    REQUIRE(repr(1_c / 2_c) == "0.5");
    REQUIRE(repr(-0.0_c) == "-0.0");
}

TEST_CASE("repr of strings: Python's quotes and escapes", "[repr]") {
    REQUIRE(repr("ab"_s) == "'ab'");
    REQUIRE(repr(""_s) == "''");
    REQUIRE(repr(std::string("it's")) == "\"it's\"");
    REQUIRE(repr("it's"_s) == "\"it's\"");
    REQUIRE(repr(std::string("say \"hi\"")) == "'say \"hi\"'");
    REQUIRE(repr(std::string("both ' and \"")) == "'both \\' and \"'");
    REQUIRE(repr(std::string("a\nb")) == "'a\\nb'");
    REQUIRE(repr("a\nb"_s) == "'a\\nb'");
    REQUIRE(repr(std::string("a\\b")) == "'a\\\\b'");
    REQUIRE(repr(std::string("\x01\x1f\x7f\t\r")) == "'\\x01\\x1f\\x7f\\t\\r'");
    REQUIRE(repr('a') == "'a'");
    REQUIRE(repr('\'') == "\"'\"");
    const char* cs = "c string";
    REQUIRE(repr(cs) == "'c string'");
    REQUIRE(repr(std::string_view("view")) == "'view'");
}

TEST_CASE("repr of tuples", "[repr]") {
    REQUIRE(repr(std::tuple(1)) == "(1,)");
    REQUIRE(repr(std::tuple()) == "()");
    REQUIRE(repr(std::tuple(1, "a"_s, None)) == "(1, 'a', None)");
    REQUIRE(repr(std::pair(1.5, std::string("x"))) == "(1.5, 'x')");
    REQUIRE(repr(std::tuple(std::tuple(1_c), list())) == "((1,), [])");
    REQUIRE(repr(std::tuple(True, 2.0_c)) == "(True, 2.0)");
}

TEST_CASE("repr of lists, nested, and of other ranges", "[repr]") {
    REQUIRE(repr(list()) == "[]");
    REQUIRE(repr(list(1_c, 2.5_c, "a"_s)) == "[1, 2.5, 'a']");
    REQUIRE(repr(list(list(), list(list(1_c, 2.5_c), "x"_s), std::tuple(True))) ==
            "[[], [[1, 2.5], 'x'], (True,)]");
    REQUIRE(repr(list(None, False, std::string("it's"), 0.1f)) == "[None, False, \"it's\", 0.1]");
    REQUIRE(repr(std::vector<double>{0.5, 1.0}) == "[0.5, 1.0]");
    REQUIRE(repr(std::array<int, 2>{1, 2}) == "[1, 2]");
    REQUIRE(repr(std::vector<std::string>{"a"}) == "['a']");
    REQUIRE(repr(streamable_point{3}) == "Point(3)");
    REQUIRE(repr(opaque{}) == "<object>");

    std::string out = "x = ";
    repr_into(out, list(1_c, None));
    REQUIRE(out == "x = [1, None]");
}

TEST_CASE("str: like repr, except a str is its own text", "[repr]") {
    REQUIRE(str_of("a"_s) == "a");
    REQUIRE(str_of(std::string("it's")) == "it's");
    REQUIRE(str_of('c') == "c");
    REQUIRE(str_of(1) == "1");
    REQUIRE(str_of(2.5_c) == "2.5");
    REQUIRE(str_of(None) == "None");
    // Inside a container the elements are repr'd, as in Python.
    REQUIRE(str_of(list("a"_s)) == "['a']");
    REQUIRE(str_of(std::tuple(std::string("a"))) == "('a',)");
}

TEST_CASE("print: str of each argument, separated by spaces, then a newline", "[repr]") {
    REQUIRE(printed() == "\n");
    REQUIRE(printed("total:"_s, list(1_c, 2_c)) == "total: [1, 2]\n");
    REQUIRE(printed(std::string("it's"), 1e16, None, True) == "it's 1e+16 None True\n");
    REQUIRE(printed(list("a"_s, std::tuple(1_c))) == "['a', (1,)]\n");
}
