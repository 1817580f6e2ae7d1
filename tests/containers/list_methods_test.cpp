// staticpy::list's Python methods: append, extend, insert, remove, pop, clear, copy, index,
// count, count_same_type, contains, sort, reverse. Mutating methods return the new list (the
// element types may change), as MindSpore's graph mode does. Expected values: CPython 3.11.
#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/tuple.hpp>
#include <catch2/catch.hpp>

#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
template <class A, class B>
constexpr bool same(const A& a, const B& b) {
    return std::is_same_v<A, B> && detail::as_bool(py_eq(a, b));
}
/// A one-element list holding a list: list(list(x)) would be the copy list(x), as in Python.
template <class L>
constexpr auto nested(const L& inner) {
    return list<L>(inner);
}
} // namespace

TEST_CASE("append", "[list][append]") {
    constexpr auto l = list(1_c, 2_c);
    STATIC_REQUIRE(same(l.append(3_c), list(1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(l.append("a"_s), list(1_c, 2_c, "a"_s)));
    STATIC_REQUIRE(same(l.append(l), list(1_c, 2_c, list(1_c, 2_c))));
    STATIC_REQUIRE(same(list().append(None), list(None)));
    STATIC_REQUIRE(same(l, list(1_c, 2_c)));
    auto r = list(std::string("a")).append(2.5);
    STATIC_REQUIRE(std::is_same_v<decltype(r), list<std::string, double>>);
    REQUIRE(repr(r) == "['a', 2.5]");
}

TEST_CASE("extend: [1, 2, 3, 4].extend([5, 6, 7])", "[list][extend]") {
    constexpr auto l = list(1_c, 2_c, 3_c, 4_c);
    constexpr auto e = l.extend(list(5_c, 6_c, 7_c));
    STATIC_REQUIRE(same(e, list(1_c, 2_c, 3_c, 4_c, 5_c, 6_c, 7_c)));
    STATIC_REQUIRE(len(e) == 7);
    STATIC_REQUIRE(same(l, list(1_c, 2_c, 3_c, 4_c)));

    auto r = list(1, 2, 3, 4).extend(list(5, 6, 7));
    STATIC_REQUIRE(std::is_same_v<decltype(r), list<int, int, int, int, int, int, int>>);
    REQUIRE(r == list(1, 2, 3, 4, 5, 6, 7));
}

TEST_CASE("extend with nested tuples and 13 mixed elements, in order", "[list][extend]") {
    constexpr auto l = list(1_c, 2_c);
    constexpr auto more =
        list(std::tuple(1_c, 2_c), list(3_c, "x"_s), "s"_s, 2.5_c, None, True, False,
             std::make_tuple(std::make_tuple(1_c)), list(), 9_c, -1_c, 0.5_c, "t"_s);
    STATIC_REQUIRE(len(more) == 13);
    constexpr auto e = l.extend(more);
    STATIC_REQUIRE(len(e) == 15);
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cv_t<decltype(e)>,
                       list<int_<1>, int_<2>, std::tuple<int_<1>, int_<2>>, list<int_<3>, str<"x">>,
                            str<"s">, decltype(2.5_c), none_t, std::true_type, std::false_type,
                            std::tuple<std::tuple<int_<1>>>, list<>, int_<9>, int_<-1>,
                            decltype(0.5_c), str<"t">>>);
    STATIC_REQUIRE(same(e[2_c], std::tuple(1_c, 2_c)));
    STATIC_REQUIRE(same(e[3_c], list(3_c, "x"_s)));
    STATIC_REQUIRE(same(e[-1_c], "t"_s));
    STATIC_REQUIRE(same(e[slice(2_c, None)], more));
    REQUIRE(repr(e) ==
            "[1, 2, (1, 2), [3, 'x'], 's', 2.5, None, True, False, ((1,),), [], 9, -1, 0.5, 't']");

    // Run-time elements of many types, nested tuples among them.
    auto r = list(0).extend(
        list(std::tuple(1, std::tuple(2.5, std::string("in"))), std::string("s"), None, false));
    REQUIRE(repr(r) == "[0, (1, (2.5, 'in')), 's', None, False]");
}

TEST_CASE("extend from empty lists, tuples, str, hana tuples and arrays", "[list][extend]") {
    STATIC_REQUIRE(same(list().extend(list()), list())); // [].extend([])
    STATIC_REQUIRE(same(list(1_c).extend(list()), list(1_c)));
    STATIC_REQUIRE(same(list().extend(list(1_c)), list(1_c)));

    // A std::tuple's elements, not the tuple.
    STATIC_REQUIRE(same(list(1_c).extend(std::tuple(2_c, "b"_s)), list(1_c, 2_c, "b"_s)));
    STATIC_REQUIRE(same(list(1_c).extend(std::tuple()), list(1_c)));
    // (std::tuple(std::tuple(x)) would be a copy, as list(list(x)) is: make_tuple nests.)
    STATIC_REQUIRE(
        same(list(1_c).extend(std::make_tuple(std::make_tuple(2_c))), list(1_c, std::tuple(2_c))));
    auto r = list(1).extend(std::tuple(2, 3.5, std::string("x")));
    STATIC_REQUIRE(std::is_same_v<decltype(r), list<int, int, double, std::string>>);
    REQUIRE(repr(r) == "[1, 2, 3.5, 'x']");
    REQUIRE(repr(list().extend(std::pair(1, 'p'))) == "[1, 'p']");

    // A str's characters, each a one-character str.
    STATIC_REQUIRE(same(list(1_c).extend("abc"_s), list(1_c, "a"_s, "b"_s, "c"_s)));
    STATIC_REQUIRE(same(list().extend(""_s), list()));

    STATIC_REQUIRE(same(list().extend(boost::hana::make_tuple(1_c, None)), list(1_c, None)));
    constexpr auto from_array = list(0).extend(std::array<int, 2>{1, 2});
    STATIC_REQUIRE(from_array == list(0, 1, 2));
}

TEST_CASE("insert clamps its position as Python does", "[list][insert]") {
    constexpr auto l = list(1_c, 3_c, 4_c);
    STATIC_REQUIRE(same(l.insert(0_c, 2_c), list(2_c, 1_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.insert(5_c, 2_c), list(1_c, 3_c, 4_c, 2_c)));
    STATIC_REQUIRE(same(l.insert(-1_c, 2_c), list(1_c, 3_c, 2_c, 4_c)));
    STATIC_REQUIRE(same(l.insert(-5_c, 2_c), list(2_c, 1_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.insert(3_c, 2_c), list(1_c, 3_c, 4_c, 2_c)));
    STATIC_REQUIRE(same(l.insert(1_c, "x"_s), list(1_c, "x"_s, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.insert(True, 2_c), list(1_c, 2_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(list().insert(-3_c, None), list(None)));

    // A run-time position, when every element has the inserted value's type.
    const auto r = list(1, 3, 4);
    for (const auto& [i, expected] :
         {std::pair{0, list(2, 1, 3, 4)}, std::pair{5, list(1, 3, 4, 2)},
          std::pair{-1, list(1, 3, 2, 4)}, std::pair{-5, list(2, 1, 3, 4)},
          std::pair{2, list(1, 3, 2, 4)}}) {
        INFO("insert at " << i);
        REQUIRE(r.insert(i, 2) == expected);
    }
    REQUIRE(list<int>(7).insert(0, 1) == list(1, 7));
}

TEST_CASE("remove: the first equal element, compile-time", "[list][remove]") {
    constexpr auto l = list(1_c, 2_c, 1_c, "a"_s);
    STATIC_REQUIRE(same(l.remove(1_c), list(2_c, 1_c, "a"_s)));
    STATIC_REQUIRE(same(l.remove(2_c), list(1_c, 1_c, "a"_s)));
    STATIC_REQUIRE(same(l.remove("a"_s), list(1_c, 2_c, 1_c)));
    STATIC_REQUIRE(same(l.remove(1.0_c), list(2_c, 1_c, "a"_s))); // 1.0 == 1
    STATIC_REQUIRE(same(l.remove(True), list(2_c, 1_c, "a"_s)));  // True == 1
    STATIC_REQUIRE(same(list(None).remove(None), list()));
    STATIC_REQUIRE(same(list(list(1_c), list(2_c), 3_c).remove(list(2.0_c)), list(list(1_c), 3_c)));
}

TEST_CASE("remove: run-time values, and a miss raises ValueError", "[list][remove]") {
    auto l = list(1, 2, 3, 2);
    REQUIRE(l.remove(2) == list(1, 3, 2));
    REQUIRE(l.remove(1.0) == list(2, 3, 2));
    REQUIRE(l.remove(2_c) == list(1, 3, 2));
    REQUIRE_THROWS_AS(l.remove(5), ValueError);
    REQUIRE_THROWS_WITH(l.remove(5), "list.remove(x): x not in list");
    REQUIRE_THROWS_WITH(l.remove(2.5), "list.remove(x): x not in list");

    // Elements that can never match don't count: a str before or after run-time floats.
    double a = 1.0;
    double b = 2.0;
    REQUIRE(repr(list("a"_s, a, b).remove(2.0)) == "['a', 1.0]");
    REQUIRE(repr(list(a, b, "s"_s).remove(1.0)) == "[2.0, 's']");
    REQUIRE(repr(list(a, b, "s"_s).remove(b)) == "[1.0, 's']");
    REQUIRE_THROWS_AS(list(a, b, "s"_s).remove(3.0), ValueError);
    REQUIRE(repr(list(std::string("x"), std::string("y")).remove(std::string("y"))) == "['x']");
}

TEST_CASE("pop returns (new list, element), the index defaults to -1", "[list][pop]") {
    constexpr auto l = list(1_c, 2_c, 3_c, 4_c);
    constexpr auto p = l.pop();
    STATIC_REQUIRE(same(std::get<0>(p), list(1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(std::get<1>(p), 4_c));
    constexpr auto p2 = l.pop(-2_c);
    STATIC_REQUIRE(same(std::get<0>(p2), list(1_c, 2_c, 4_c)));
    STATIC_REQUIRE(same(std::get<1>(p2), 3_c));
    constexpr auto p1 = l.pop(1_c);
    STATIC_REQUIRE(same(std::get<0>(p1), list(1_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(std::get<1>(p1), 2_c));
    const auto [rest0, x0] = l.pop(0_c);
    STATIC_REQUIRE(std::is_same_v<decltype(rest0), const list<int_<2>, int_<3>, int_<4>>>);
    STATIC_REQUIRE(std::is_same_v<decltype(x0), const int_<1>>);
    STATIC_REQUIRE(same(std::get<1>(l.pop(0_c)), 1_c));
    STATIC_REQUIRE(same(std::get<1>(l.pop(-4_c)), 1_c));
    STATIC_REQUIRE(same(l.pop(), std::tuple(list(1_c, 2_c, 3_c), 4_c)));
    STATIC_REQUIRE(same(list("a"_s).pop(), std::tuple(list(), "a"_s)));

    // A run-time index on a list of one element type.
    auto r = list(1, 2, 3, 4);
    auto [rest, last] = r.pop();
    REQUIRE(rest == list(1, 2, 3));
    REQUIRE(last == 4);
    int i = 1;
    REQUIRE(r.pop(i) == std::tuple(list(1, 3, 4), 2));
    REQUIRE(r.pop(-2) == std::tuple(list(1, 2, 4), 3));
    REQUIRE(std::get<1>(r.pop(-4)) == 1);
    REQUIRE_THROWS_AS(r.pop(4), IndexError);
    REQUIRE_THROWS_WITH(r.pop(4), "pop index out of range");
    REQUIRE_THROWS_WITH(r.pop(-5), "pop index out of range");
}

TEST_CASE("clear and copy", "[list]") {
    constexpr auto l = list(1_c, "a"_s);
    STATIC_REQUIRE(std::is_same_v<decltype(l.clear()), list<>>);
    STATIC_REQUIRE(same(l.clear(), list()));
    STATIC_REQUIRE(same(l.copy(), l));
    auto m = list(std::string("a"));
    auto c = m.copy();
    c[0_c] = "changed";
    REQUIRE(m[0_c] == "a"); // a copy is independent
    REQUIRE(m.clear() == list());
}

TEST_CASE("index: compile-time position, usable as a template argument", "[list][index]") {
    constexpr auto l = list(1_c, 2_c, 3_c, 4_c);
    STATIC_REQUIRE(std::is_same_v<decltype(l.index(3_c)), size_<2>>);
    STATIC_REQUIRE(l.index(3_c) == 2);
    STATIC_REQUIRE(std::integral_constant<std::size_t, decltype(l.index(3_c))::value>::value == 2);
    STATIC_REQUIRE(l.index(3.0_c) == 2);
    STATIC_REQUIRE(l.index(True) == 0);
    STATIC_REQUIRE(list("a"_s, 1_c, "b"_s).index("b"_s) == 2);
    STATIC_REQUIRE(list(list(1_c), list(2_c), 3_c).index(list(2_c)) == 1);

    // start and stop, clamped as Python clamps them: [1, 2, 1, 2].
    constexpr auto m = list(1_c, 2_c, 1_c, 2_c);
    STATIC_REQUIRE(std::is_same_v<decltype(m.index(1_c, 1_c)), size_<2>>);
    STATIC_REQUIRE(m.index(2_c, -2_c) == 3);
    STATIC_REQUIRE(m.index(1_c, 0_c, 1_c) == 0);
    STATIC_REQUIRE(m.index(2_c, 1_c, 2_c) == 1);
    STATIC_REQUIRE(m.index(1_c, -100_c) == 0);
    STATIC_REQUIRE(m.index(2_c, None, 100_c) == 1);
    STATIC_REQUIRE(m.index(2_c, 2_c, None) == 3);
}

TEST_CASE("index: run-time values and bounds, a miss raises ValueError", "[list][index]") {
    const auto l = list(1, 2, 1, 2);
    STATIC_REQUIRE(std::is_same_v<decltype(l.index(2)), std::size_t>);
    REQUIRE(l.index(2) == 1);
    REQUIRE(l.index(2.0) == 1);
    REQUIRE(l.index(1_c) == 0);
    int start = 1;
    REQUIRE(l.index(1, start) == 2);
    REQUIRE(l.index(1, 1_c) == 2);
    REQUIRE(l.index(2, -2) == 3);
    REQUIRE(l.index(1, -100, 100) == 0);
    REQUIRE_THROWS_AS(l.index(5), ValueError);
    REQUIRE_THROWS_WITH(list(1, 2, 3, 4).index(5), "5 is not in list");
    REQUIRE_THROWS_WITH(l.index(1, 1, 2), "1 is not in list");
    REQUIRE_THROWS_WITH(l.index(2.5), "2.5 is not in list");
    REQUIRE_THROWS_WITH(list(std::string("b")).index(std::string("a")), "'a' is not in list");
    // A compile-time value against run-time elements: found at run time.
    int x = 3;
    REQUIRE(list(x, 4).index(4_c) == 1);
    REQUIRE(list(x, 3).index(3_c) == 0);
}

TEST_CASE("count: Python's == (1 == 1.0 == True), compile-time when it can be", "[list][count]") {
    constexpr auto l = list(1_c, 2_c, 3_c, 4_c);
    STATIC_REQUIRE(std::is_same_v<decltype(l.count(1_c)), size_<1>>);
    STATIC_REQUIRE(l.count(1_c) == 1);
    STATIC_REQUIRE(l.count(0_c) == 0);
    STATIC_REQUIRE(list("a"_s, "b"_s, 20_c, 4_c, "b"_s).count("b"_s) == 2);
    STATIC_REQUIRE(list("a"_s, list("bb"_s, "2"_s, 3_c), 20_c, 4_c).count(list("bb"_s, 2_c, 3_c)) ==
                   0);
    STATIC_REQUIRE(
        list("a"_s, list("bb"_s, "2"_s, 3_c), 20_c, 4_c).count(list("bb"_s, "2"_s, 3_c)) == 1);
    STATIC_REQUIRE(list().count(1_c) == 0);
    STATIC_REQUIRE(list(None, None).count(None) == 2);
    STATIC_REQUIRE(list(std::tuple(1_c, 2_c), std::tuple(1_c)).count(std::tuple(1.0_c, 2_c)) == 1);

    // Python counts 1, 1.0 and True alike; MindSpore's graph mode counts the same type only.
    constexpr auto mixed = list(1_c, 1.0_c, True);
    STATIC_REQUIRE(mixed.count(1_c) == 3);
    STATIC_REQUIRE(mixed.count(True) == 3);
    STATIC_REQUIRE(std::is_same_v<decltype(mixed.count_same_type(1_c)), size_<1>>);
    STATIC_REQUIRE(mixed.count_same_type(1_c) == 1);
    STATIC_REQUIRE(mixed.count_same_type(1.0_c) == 1);
    STATIC_REQUIRE(mixed.count_same_type(2_c) == 0);

    // Run-time elements: a std::size_t computed at run time.
    auto r = list(1, 1.0, true, 2);
    STATIC_REQUIRE(std::is_same_v<decltype(r.count(1)), std::size_t>);
    REQUIRE(r.count(1) == 3);
    REQUIRE(r.count(2.0) == 1);
    REQUIRE(r.count_same_type(1) == 1); // of the ints 1 and 2, only 1 equals
    REQUIRE(r.count_same_type(1.0) == 1);
    // A kind that can never match keeps the count compile-time.
    STATIC_REQUIRE(std::is_same_v<decltype(r.count("1"_s)), size_<0>>);
}

TEST_CASE("contains (x in l)", "[list][contains]") {
    constexpr auto l = list(1_c, "a"_s, None);
    STATIC_REQUIRE(std::is_same_v<decltype(l.contains(1_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(l.contains(1.0_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(l.contains("b"_s)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(l.contains(None)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list().contains(None)), std::false_type>);
    int x = 1;
    STATIC_REQUIRE(std::is_same_v<decltype(l.contains(x)), bool>);
    REQUIRE(l.contains(x));
    REQUIRE(list(2.5, x).contains(1_c));
    REQUIRE_FALSE(list(2.5, x).contains(3));
}

TEST_CASE("sort is stable, compile-time over compile-time elements", "[list][sort]") {
    STATIC_REQUIRE(same(list(3_c, 1_c, 2_c).sort(), list(1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(list().sort(), list()));
    STATIC_REQUIRE(same(list(1_c).sort(), list(1_c)));
    // sorted([1, True, 0, 1.0]) == [0, 1, True, 1.0]: equal keys keep their order.
    STATIC_REQUIRE(same(list(1_c, True, 0_c, 1.0_c).sort(), list(0_c, 1_c, True, 1.0_c)));
    // sorted([1, True, 0, 1.0], reverse=True) == [1, True, 1.0, 0]: still stable.
    STATIC_REQUIRE(
        same(list(1_c, True, 0_c, 1.0_c).sort(kw::reverse = True), list(1_c, True, 1.0_c, 0_c)));
    STATIC_REQUIRE(same(list(3_c, 1_c, 2_c).sort(kw::reverse = 1_c), list(3_c, 2_c, 1_c)));
    STATIC_REQUIRE(same(list(3_c, 1_c, 2_c).sort(kw::reverse = False), list(1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(list(2.5_c, -1_c, 1e-5_c).sort(), list(-1_c, 1e-5_c, 2.5_c)));
    // str order is code-point order: sorted(['b', 'a', 'ab', 'B']) == ['B', 'a', 'ab', 'b'].
    STATIC_REQUIRE(
        same(list("b"_s, "a"_s, "ab"_s, "B"_s).sort(), list("B"_s, "a"_s, "ab"_s, "b"_s)));
    // Lists order lexicographically: sorted([[2], [1, 5], [1]]) == [[1], [1, 5], [2]].
    STATIC_REQUIRE(same(list(list(2_c), list(1_c, 5_c), list(1_c)).sort(),
                        list(list(1_c), list(1_c, 5_c), list(2_c))));
}

TEST_CASE("sort with kw::key", "[list][sort]") {
    constexpr auto negate = [](auto x) { return -x; };
    STATIC_REQUIRE(same(list(3_c, 1_c, 2_c).sort(kw::key = negate), list(3_c, 2_c, 1_c)));
    // sorted(['ccc', 'a', 'bb', 'd'], key=len) == ['a', 'd', 'bb', 'ccc']
    constexpr auto by_length = [](auto s) { return len(s); };
    constexpr auto words = list("ccc"_s, "a"_s, "bb"_s, "d"_s);
    STATIC_REQUIRE(same(words.sort(kw::key = by_length), list("a"_s, "d"_s, "bb"_s, "ccc"_s)));
    // ... and with reverse=True: ['ccc', 'bb', 'a', 'd']
    STATIC_REQUIRE(same(words.sort(kw::key = by_length, kw::reverse = True),
                        list("ccc"_s, "bb"_s, "a"_s, "d"_s)));
    STATIC_REQUIRE(same(words.sort(kw::reverse = True, kw::key = by_length),
                        list("ccc"_s, "bb"_s, "a"_s, "d"_s)));
}

TEST_CASE("sort at run time when the elements share one type", "[list][sort]") {
    REQUIRE(list(3, 1, 2).sort() == list(1, 2, 3));
    REQUIRE(list(3, 1, 2).sort(kw::reverse = True) == list(3, 2, 1));
    REQUIRE(list(std::string("b"), std::string("a"), std::string("ab")).sort() ==
            list(std::string("a"), std::string("ab"), std::string("b")));
    // sorted([-3, 1, -2], key=abs) == [1, -2, -3]
    const auto absolute = [](int x) { return x < 0 ? -x : x; };
    REQUIRE(list(-3, 1, -2).sort(kw::key = absolute) == list(1, -2, -3));
    // Stable: sorted([11, 15, 3, 12], key=lambda x: x // 10) == [3, 11, 15, 12], and with
    // reverse=True [11, 15, 12, 3].
    const auto tens = [](int x) { return x / 10; };
    REQUIRE(list(11, 15, 3, 12).sort(kw::key = tens) == list(3, 11, 15, 12));
    REQUIRE(list(11, 15, 3, 12).sort(kw::key = tens, kw::reverse = True) == list(11, 15, 12, 3));
    double d = 0.5;
    REQUIRE(list(d, -d, 0.0).sort() == list(-0.5, 0.0, 0.5));
    constexpr auto c = list(2, 1).sort(); // in a constant expression too
    STATIC_REQUIRE(c == list(1, 2));
}

TEST_CASE("reverse", "[list][reverse]") {
    STATIC_REQUIRE(same(list(1_c, "a"_s, None).reverse(), list(None, "a"_s, 1_c)));
    STATIC_REQUIRE(same(list().reverse(), list()));
    STATIC_REQUIRE(same(list(1_c).reverse(), list(1_c)));
    REQUIRE(repr(list(1, std::string("b"), 2.5).reverse()) == "[2.5, 'b', 1]");
}

TEST_CASE("nested() helper and CTAD: list(list(x)) copies, as Python's list([x]) does", "[list]") {
    STATIC_REQUIRE(same(list(list(1_c)), list(1_c)));
    STATIC_REQUIRE(std::is_same_v<decltype(nested(list(1_c))), list<list<int_<1>>>>);
    STATIC_REQUIRE(same(list().append(list(1_c)), nested(list(1_c))));
}
