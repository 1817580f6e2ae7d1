// The Python value model: kinds and type names, ==, <, truth value, and the folds that keep
// results compile-time while they can be.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <catch2/catch.hpp>

#include <staticpy/core/error.hpp>
#include <staticpy/core/value.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
struct point {
    int x;
    friend constexpr bool operator==(point a, point b) { return a.x == b.x; }
    friend constexpr bool operator<(point a, point b) { return a.x < b.x; }
};
struct opaque {};
struct truthy {
    bool on;
    constexpr explicit operator bool() const { return on; }
};
struct sized {
    int n;
    constexpr int size() const { return n; }
};
} // namespace

TEST_CASE("python_kind and python_type_name", "[value]") {
    STATIC_REQUIRE(kind_v<none_t> == kind::none);
    STATIC_REQUIRE(kind_v<bool> == kind::boolean);
    STATIC_REQUIRE(kind_v<std::true_type> == kind::boolean);
    STATIC_REQUIRE(kind_v<int> == kind::integer);
    STATIC_REQUIRE(kind_v<unsigned long long> == kind::integer);
    STATIC_REQUIRE(kind_v<int_<3>> == kind::integer);
    STATIC_REQUIRE(kind_v<size_<3>> == kind::integer);
    STATIC_REQUIRE(kind_v<double> == kind::floating);
    STATIC_REQUIRE(kind_v<float> == kind::floating);
    STATIC_REQUIRE(kind_v<decltype(2.5_c)> == kind::floating);
    STATIC_REQUIRE(kind_v<char> == kind::string);
    STATIC_REQUIRE(kind_v<std::string> == kind::string);
    STATIC_REQUIRE(kind_v<std::string_view> == kind::string);
    STATIC_REQUIRE(kind_v<const char*> == kind::string);
    STATIC_REQUIRE(kind_v<str<"a">> == kind::string);
    STATIC_REQUIRE(kind_v<std::tuple<int, double>> == kind::tuple);
    STATIC_REQUIRE(kind_v<std::tuple<>> == kind::tuple);
    STATIC_REQUIRE(kind_v<std::pair<int, int>> == kind::tuple);
    STATIC_REQUIRE(kind_v<point> == kind::other);
    STATIC_REQUIRE(kind_v<const int&> == kind::integer); // cv-ref is looked through

    STATIC_REQUIRE(python_type_name(kind::none) == "NoneType");
    STATIC_REQUIRE(python_type_name(kind::boolean) == "bool");
    STATIC_REQUIRE(python_type_name(kind::integer) == "int");
    STATIC_REQUIRE(python_type_name(kind::floating) == "float");
    STATIC_REQUIRE(python_type_name(kind::string) == "str");
    STATIC_REQUIRE(python_type_name(kind::list) == "list");
    STATIC_REQUIRE(python_type_name(kind::tuple) == "tuple");
    STATIC_REQUIRE(python_type_name(kind::dict) == "dict");
    STATIC_REQUIRE(python_type_name(kind::other) == "object");
    STATIC_REQUIRE(type_name_v<int> == "int");
    STATIC_REQUIRE(type_name_v<decltype(3_c)> == "int");
    STATIC_REQUIRE(type_name_v<decltype(True)> == "bool");
    STATIC_REQUIRE(type_name_v<double> == "float");
    STATIC_REQUIRE(type_name_v<str<"x">> == "str");
    STATIC_REQUIRE(type_name_v<none_t> == "NoneType");
    STATIC_REQUIRE(type_name_v<std::tuple<>> == "tuple");

    STATIC_REQUIRE(is_number_v<bool>);
    STATIC_REQUIRE(is_number_v<int_<1>>);
    STATIC_REQUIRE(is_number_v<decltype(1.5_c)>);
    STATIC_REQUIRE(!is_number_v<std::string>);
    STATIC_REQUIRE(!is_number_v<none_t>);
}

TEST_CASE("is_compile_time", "[value]") {
    STATIC_REQUIRE(is_compile_time_v<int_<1>>);
    STATIC_REQUIRE(is_compile_time_v<str<"a">>);
    STATIC_REQUIRE(is_compile_time_v<none_t>);
    STATIC_REQUIRE(is_compile_time_v<std::true_type>);
    STATIC_REQUIRE(is_compile_time_v<const decltype(2.5_c)&>);
    STATIC_REQUIRE(!is_compile_time_v<int>);
    STATIC_REQUIRE(!is_compile_time_v<std::string>);
    STATIC_REQUIRE(is_compile_time_v<std::tuple<int_<1>, str<"a">>>);
    STATIC_REQUIRE(is_compile_time_v<std::tuple<>>);
    STATIC_REQUIRE(!is_compile_time_v<std::tuple<int_<1>, int>>);
}

TEST_CASE("py_eq: numbers compare by value across kinds (1 == 1.0 == True)", "[value]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(1_c, 1.0_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(1_c, True)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(1.0_c, True)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(0_c, False)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(2_c, True)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(0.5_c, 1_c / 2_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(size_<3>{}, 3_c)), std::true_type>);

    // A run-time operand: a plain bool, computed exactly.
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(1, 1.0)), bool>);
    STATIC_REQUIRE(py_eq(1, 1.0));
    STATIC_REQUIRE(py_eq(true, 1));
    STATIC_REQUIRE(py_eq(1_c, 1.0));
    STATIC_REQUIRE(!py_eq(2, true));
    STATIC_REQUIRE(!py_eq(-1, std::numeric_limits<unsigned long long>::max()));
    // 2**53 + 1 == float(2**53) is False in Python: no rounding through double.
    STATIC_REQUIRE(!py_eq(9007199254740993LL, 9007199254740992.0));
    STATIC_REQUIRE(py_eq(9007199254740992LL, 9007199254740992.0));
    REQUIRE_FALSE(py_eq(0.1 + 0.2, 0.3));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    REQUIRE_FALSE(py_eq(nan, nan));
}

TEST_CASE("py_eq: strings, None, and kinds that are never equal", "[value]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq("a"_s, "a"_s)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq("a"_s, "b"_s)), std::false_type>);
    // "2" == 2 is False in Python, known from the kinds alone even for a run-time int.
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq("2"_s, 2)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq("2"_s, 2_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(std::string("1"), 1.0)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(None, None)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(None, 0_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(None, 0)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(None, False)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(""_s, None)), std::false_type>);

    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(std::string("a"), "a"_s)), bool>);
    REQUIRE(py_eq(std::string("a"), "a"_s));
    REQUIRE(py_eq('a', "a"_s));
    REQUIRE(py_eq(std::string_view("ab"), "ab"));
    REQUIRE_FALSE(py_eq(std::string("ab"), std::string("a")));
    const char* text = "xyz";
    REQUIRE(py_eq(text, std::string("xyz")));
}

TEST_CASE("py_eq: tuples compare element by element", "[value]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(std::tuple(1_c, 2_c), std::tuple(1.0_c, 2_c))),
                                  std::true_type>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(py_eq(std::tuple(1_c), std::tuple("a"_s))), std::false_type>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(py_eq(std::tuple(1_c), std::tuple(1_c, 2_c))), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(std::tuple(), std::tuple())), std::true_type>);
    STATIC_REQUIRE(py_eq(std::tuple(1, 2), std::tuple(1.0, 2.0)));
    STATIC_REQUIRE(py_eq(std::pair(1, 2), std::tuple(1, 2)));
    REQUIRE_FALSE(py_eq(std::tuple(1, std::string("a")), std::tuple(1, std::string("b"))));
    // A kind mismatch inside still needs no ==: (1, 'a') == (1, 2) is False.
    REQUIRE_FALSE(py_eq(std::tuple(1, "a"_s), std::tuple(1, 2)));
}

TEST_CASE("py_eq: user types use their ==, or are never equal", "[value]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(point{1}, point{1})), bool>);
    STATIC_REQUIRE(py_eq(point{1}, point{1}));
    STATIC_REQUIRE(!py_eq(point{1}, point{2}));
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(opaque{}, opaque{})), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_eq(point{1}, 1)), std::false_type>);
}

TEST_CASE("py_lt", "[value]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt(1_c, 2.5_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt(True, 2_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt(1_c, True)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt("a"_s, "b"_s)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt("b"_s, "ab"_s)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt("a"_s, "ab"_s)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_lt("B"_s, "a"_s)), std::true_type>); // code points

    STATIC_REQUIRE(std::is_same_v<decltype(py_lt(1, 2.5)), bool>);
    STATIC_REQUIRE(py_lt(1, 2.5));
    STATIC_REQUIRE(py_lt(-1, 0U)); // no unsigned wrap-around: -1 < 0 as in Python
    STATIC_REQUIRE(py_lt(false, 1));
    STATIC_REQUIRE(!py_lt(9007199254740993LL, 9007199254740992.0));
    STATIC_REQUIRE(py_lt(9007199254740992.0, 9007199254740993LL));
    REQUIRE(py_lt(std::string("a"), "b"_s));
    REQUIRE_FALSE(py_lt(std::string("b"), std::string("a")));
    REQUIRE(py_lt(std::tuple(1, 2), std::tuple(1, 3)));
    REQUIRE(py_lt(point{1}, point{2}));
}

TEST_CASE("py_bool: Python's truth value", "[value]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(None)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(0_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(3_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(-1_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(0.0_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(0.5_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(""_s)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool("a"_s)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(False)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(True)), std::true_type>);

    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(0)), bool>);
    REQUIRE_FALSE(py_bool(0));
    REQUIRE(py_bool(2.5));
    REQUIRE_FALSE(py_bool(-0.0));
    REQUIRE(py_bool(std::numeric_limits<double>::quiet_NaN())); // nan is truthy
    REQUIRE_FALSE(py_bool(std::string()));
    REQUIRE(py_bool(std::string("x")));
    const char* cs = "x";
    REQUIRE(py_bool(cs));
    REQUIRE_FALSE(py_bool(std::string_view()));
    REQUIRE(py_bool(truthy{true}));
    REQUIRE_FALSE(py_bool(truthy{false}));
    REQUIRE_FALSE(py_bool(sized{0}));
    REQUIRE(py_bool(sized{2}));
}

TEST_CASE("all_true / any_true / count_true stay compile-time while every operand is", "[value]") {
    constexpr std::true_type t{};
    constexpr std::false_type f{};
    STATIC_REQUIRE(std::is_same_v<decltype(all_true(t, t)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(all_true(t, f)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(all_true()), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any_true(f, t)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any_true(f, f)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any_true()), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(count_true(t, f, t)), size_<2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(count_true()), size_<0>>);
    STATIC_REQUIRE(std::is_same_v<decltype(not_(t)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(not_(f)), std::true_type>);

    // A compile-time answer wins even beside run-time operands: False and x, True or x.
    bool yes = true;
    bool no = false;
    STATIC_REQUIRE(std::is_same_v<decltype(all_true(f, yes)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any_true(yes, t)), std::true_type>);

    // Otherwise a plain bool / std::size_t, computed at run time.
    STATIC_REQUIRE(std::is_same_v<decltype(all_true(t, yes)), bool>);
    STATIC_REQUIRE(std::is_same_v<decltype(any_true(f, no)), bool>);
    STATIC_REQUIRE(std::is_same_v<decltype(count_true(t, yes)), std::size_t>);
    STATIC_REQUIRE(std::is_same_v<decltype(not_(yes)), bool>);
    REQUIRE(all_true(t, yes, yes));
    REQUIRE_FALSE(all_true(t, yes, no));
    REQUIRE(any_true(f, no, yes));
    REQUIRE_FALSE(any_true(f, no, no));
    REQUIRE(count_true(t, yes, no, t) == 3);
    REQUIRE(not_(no));

    // The operands may be py_eq's results.
    STATIC_REQUIRE(
        decltype(count_true(py_eq(1_c, 1.0_c), py_eq(1_c, True), py_eq(1_c, "1"_s)))::value == 2);
}

TEST_CASE("errors: named after Python's, all deriving from staticpy::Error", "[value][error]") {
    STATIC_REQUIRE(std::is_base_of_v<std::runtime_error, Error>);
    STATIC_REQUIRE(std::is_base_of_v<Error, IndexError>);
    STATIC_REQUIRE(std::is_base_of_v<Error, KeyError>);
    STATIC_REQUIRE(std::is_base_of_v<Error, ValueError>);
    STATIC_REQUIRE(std::is_base_of_v<Error, TypeError>);
    STATIC_REQUIRE(std::is_base_of_v<Error, RuntimeError>);
    STATIC_REQUIRE(!std::is_base_of_v<IndexError, KeyError>);

    REQUIRE(std::string_view(IndexError("list index out of range").what()) ==
            "list index out of range");
    REQUIRE(std::string_view(IndexError("x").python_name()) == "IndexError");
    REQUIRE(std::string_view(KeyError("x").python_name()) == "KeyError");
    REQUIRE(std::string_view(ValueError("x").python_name()) == "ValueError");
    REQUIRE(std::string_view(TypeError("x").python_name()) == "TypeError");
    REQUIRE(std::string_view(RuntimeError("x").python_name()) == "RuntimeError");
    REQUIRE(std::string_view(Error("x").python_name()) == "Error");

    // Caught through the base, the dynamic type still names itself.
    try {
        throw ValueError("list.remove(x): x not in list");
    } catch (const Error& e) {
        REQUIRE(std::string_view(e.python_name()) == "ValueError");
        REQUIRE(std::string_view(e.what()) == "list.remove(x): x not in list");
    }
    REQUIRE_THROWS_AS(throw TypeError("t"), std::runtime_error);
    REQUIRE_THROWS_WITH(throw KeyError("'lr'"), "'lr'");

    STATIC_REQUIRE(!detail::always_false<int>);
}
