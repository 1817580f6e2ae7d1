// Python's builtins over iterables, as staticpy gives them for lists (and std::tuple, "str"_s,
// hana::tuple, std::array): len, list(), for, enumerate, zip, map, filter, functools.reduce,
// sum, any, all, sorted, reversed, in; and the conversions to_tuple, to_array, to_vector.
// Expected values: CPython 3.11.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include <boost/hana/tuple.hpp>
#include <catch2/catch.hpp>

#include <staticpy/containers/convert.hpp>
#include <staticpy/containers/list.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {
template <class A, class B>
constexpr bool same(const A& a, const B& b) {
    return std::is_same_v<A, B> && detail::as_bool(py_eq(a, b));
}
constexpr auto add = [](auto a, auto b) { return a + b; };
constexpr auto mul = [](auto a, auto b) { return a * b; };
constexpr auto is_even = [](auto x) { return x % 2_c == 0_c; };
} // namespace

TEST_CASE("len: compile-time for anything of compile-time length", "[list][builtins]") {
    STATIC_REQUIRE(std::is_same_v<decltype(len(list(1, 2.5))), size_<2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(len(list())), size_<0>>);
    STATIC_REQUIRE(std::is_same_v<decltype(len("abc"_s)), size_<3>>);
    STATIC_REQUIRE(std::is_same_v<decltype(len(std::tuple(1, 2))), size_<2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(len(std::array<int, 4>{})), size_<4>>);
    STATIC_REQUIRE(std::is_same_v<decltype(len(boost::hana::make_tuple(1))), size_<1>>);
    // Run-time lengths where the value has one.
    REQUIRE(len(std::string("four")) == 4);
    REQUIRE(len(std::vector<int>{1, 2, 3}) == 3);
}

TEST_CASE("to_list: Python's list(iterable)", "[list][builtins]") {
    STATIC_REQUIRE(same(to_list("ab"_s), list("a"_s, "b"_s)));
    STATIC_REQUIRE(same(to_list(std::tuple(1_c, None)), list(1_c, None)));
    STATIC_REQUIRE(same(to_list(list(1_c)), list(1_c)));
    STATIC_REQUIRE(same(to_list(std::tuple()), list()));
    STATIC_REQUIRE(same(to_list(boost::hana::make_tuple(2_c)), list(2_c)));
    REQUIRE(to_list(std::array<double, 2>{0.5, 1.5}) == list(0.5, 1.5));
    REQUIRE(repr(to_list(std::pair(1, std::string("x")))) == "[1, 'x']");
}

TEST_CASE("iter_elements: what `for e in x` visits, as a hana::tuple", "[list][builtins]") {
    STATIC_REQUIRE(
        std::is_same_v<decltype(iter_elements("ab"_s)), boost::hana::tuple<str<"a">, str<"b">>>);
    STATIC_REQUIRE(std::is_same_v<decltype(iter_elements(std::tuple(1, 2.5))),
                                  boost::hana::tuple<int, double>>);
    STATIC_REQUIRE(std::is_same_v<decltype(iter_elements(list(1_c))), boost::hana::tuple<int_<1>>>);
    STATIC_REQUIRE(detail::is_iterable_v<list<>>);
    STATIC_REQUIRE(detail::is_iterable_v<str<"x">>);
    STATIC_REQUIRE(!detail::is_iterable_v<int>);
    STATIC_REQUIRE(!detail::is_iterable_v<std::string>);
}

TEST_CASE("for_each visits in order, and may modify a non-const list", "[list][builtins]") {
    std::string seen;
    for_each(list(1_c, "a"_s, 2.5, None), [&](const auto& e) { seen += repr(e) + ";"; });
    REQUIRE(seen == "1;'a';2.5;None;");

    auto l = list(1, 2.5, std::string("s"));
    for_each(l, [](auto& e) { e = e + e; });
    REQUIRE(l == list(2, 5.0, std::string("ss")));

    seen.clear();
    for_each("xyz"_s, [&](auto c) { seen += std::string_view(c); });
    for_each(std::tuple(1, '2'), [&](auto e) { seen += str_of(e); });
    REQUIRE(seen == "xyz12");
    for_each(list(), [](auto) { FAIL("an empty list has nothing to visit"); });
}

TEST_CASE("enumerate: (index, element) tuples with compile-time indices", "[list][builtins]") {
    // list(enumerate('ab', 1)) == [(1, 'a'), (2, 'b')]
    STATIC_REQUIRE(
        same(enumerate("ab"_s, 1_c), list(std::tuple(1_c, "a"_s), std::tuple(2_c, "b"_s))));
    STATIC_REQUIRE(
        same(enumerate(list(10_c, 20_c)), list(std::tuple(0_c, 10_c), std::tuple(1_c, 20_c))));
    // list(enumerate([10, 20], -1)) == [(-1, 10), (0, 20)]
    REQUIRE(repr(enumerate(list(10, 20), -1_c)) == "[(-1, 10), (0, 20)]");
    STATIC_REQUIRE(same(enumerate(list()), list()));
    // The index of a run-time element is still a compile-time int.
    const auto e = enumerate(list(0.5, 1.5));
    STATIC_REQUIRE(std::is_same_v<
                   std::tuple_element_t<0, std::tuple_element_t<1, std::remove_cv_t<decltype(e)>>>,
                   int_<1>>);
    REQUIRE(std::get<1>(e[1_c]) == 1.5);
}

TEST_CASE("zip: as long as the shortest iterable", "[list][builtins]") {
    // list(zip([1, 2, 3], 'ab')) == [(1, 'a'), (2, 'b')]
    STATIC_REQUIRE(same(zip(list(1_c, 2_c, 3_c), "ab"_s),
                        list(std::tuple(1_c, "a"_s), std::tuple(2_c, "b"_s))));
    // list(zip([1, 2], [3, 4], [5, 6, 7])) == [(1, 3, 5), (2, 4, 6)]
    STATIC_REQUIRE(same(zip(list(1_c, 2_c), list(3_c, 4_c), list(5_c, 6_c, 7_c)),
                        list(std::tuple(1_c, 3_c, 5_c), std::tuple(2_c, 4_c, 6_c))));
    // list(zip('abc')) == [('a',), ('b',), ('c',)]
    REQUIRE(repr(zip("abc"_s)) == "[('a',), ('b',), ('c',)]");
    STATIC_REQUIRE(same(zip(list(1_c), list()), list()));
    REQUIRE(repr(zip(list(1, 2), std::tuple(std::string("x"), 2.5))) == "[(1, 'x'), (2, 2.5)]");
}

TEST_CASE("map over one iterable or several", "[list][builtins]") {
    constexpr auto doubled = map([](auto x) { return x * 2_c; }, list(1_c, 2_c, 3_c));
    STATIC_REQUIRE(same(doubled, list(2_c, 4_c, 6_c)));
    // list(map(lambda a, b: a + b, [1, 2, 3], [10, 20])) == [11, 22]
    STATIC_REQUIRE(same(map(add, list(1_c, 2_c, 3_c), list(10_c, 20_c)), list(11_c, 22_c)));
    // list(map(lambda a, b, c: a + b + c, [1, 2], [10, 20], [100])) == [111]
    STATIC_REQUIRE(same(map([](auto a, auto b, auto c) { return a + b + c; }, list(1_c, 2_c),
                            list(10_c, 20_c), list(100_c)),
                        list(111_c)));
    STATIC_REQUIRE(same(map([](auto c) { return len(c); }, "ab"_s), list(size_<1>{}, size_<1>{})));
    REQUIRE(map([](auto x) { return repr(x); }, list(1, "a"_s)) ==
            list(std::string("1"), std::string("'a'")));
    // The result's element types follow f's results, element by element.
    STATIC_REQUIRE(
        std::is_same_v<decltype(map([](auto x) { return x; }, list(1, 2.5))), list<int, double>>);
}

TEST_CASE("filter: compile-time predicates, and filter(None, l)", "[list][builtins]") {
    STATIC_REQUIRE(same(filter(is_even, list(1_c, 2_c, 3_c, 4_c)), list(2_c, 4_c)));
    STATIC_REQUIRE(same(filter(is_even, list(1_c, 3_c)), list()));
    STATIC_REQUIRE(
        same(filter([](auto x) { return py_eq(x, "b"_s); }, "abcb"_s), list("b"_s, "b"_s)));
    // Keep by type: a compile-time answer even for run-time elements.
    const auto numbers = filter([](const auto& x) { return bool_<is_number_v<decltype(x)>>{}; },
                                list(1, std::string("s"), 2.5, None));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(numbers)>, list<int, double>>);
    REQUIRE(numbers == list(1, 2.5));
    // list(filter(None, [0, 1, '', 'a', None, [], [0], 0.0, False])) == [1, 'a', [0]]
    STATIC_REQUIRE(
        same(filter(None, list(0_c, 1_c, ""_s, "a"_s, None, list(), list(0_c), 0.0_c, False)),
             list(1_c, "a"_s, list(0_c))));
    STATIC_REQUIRE(same(filter(None, list()), list()));
}

TEST_CASE("reduce, with and without an initial value", "[list][builtins]") {
    STATIC_REQUIRE(same(reduce(add, list(1_c, 2_c, 3_c, 4_c)), 10_c));
    // reduce(lambda a, b: a * b, [1, 2, 3, 4], 10) == 240
    STATIC_REQUIRE(same(reduce(mul, list(1_c, 2_c, 3_c, 4_c), 10_c), 240_c));
    // reduce(f, [], 10) == 10; reduce(f, [x]) == x
    STATIC_REQUIRE(same(reduce(add, list(), 10_c), 10_c));
    STATIC_REQUIRE(same(reduce(add, list("a"_s)), "a"_s));
    STATIC_REQUIRE(same(reduce(add, list(1_c, 2.5_c)), 3.5_c));
    REQUIRE(reduce(add, list(std::string("a"), std::string("b")), std::string(">")) == ">ab");
    REQUIRE(reduce([](auto a, auto b) { return a < b ? b : a; }, list(3, 9, 2)) == 9);
}

TEST_CASE("sum", "[list][builtins]") {
    STATIC_REQUIRE(same(sum(list(1_c, 2_c)), 3_c));
    STATIC_REQUIRE(same(sum(list(1_c, 2_c, 3_c, 4_c)), 10_c));
    STATIC_REQUIRE(same(sum(list()), 0_c));                  // sum([]) == 0
    STATIC_REQUIRE(same(sum(list(1_c, 2_c), 0.5_c), 3.5_c)); // sum([1, 2], 0.5) == 3.5
    STATIC_REQUIRE(same(sum(list(True, True, 1_c)), 3_c));
    STATIC_REQUIRE(same(sum(std::tuple(1.5_c, 1_c)), 2.5_c));
    REQUIRE(sum(list(1, 2.5)) == 3.5); // sum([1, 2.5]) == 3.5
    // sum([[1], [2]], []) == [1, 2]
    STATIC_REQUIRE(same(sum(list(list(1_c), list(2_c)), list()), list(1_c, 2_c)));
}

TEST_CASE("all and any, by truth value", "[list][builtins]") {
    STATIC_REQUIRE(std::is_same_v<decltype(all(list())), std::true_type>);  // all([])
    STATIC_REQUIRE(std::is_same_v<decltype(any(list())), std::false_type>); // any([])
    STATIC_REQUIRE(std::is_same_v<decltype(all(list(1_c, "a"_s, list(0_c)))), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(all(list(1_c, 0_c))), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any(list(0_c, ""_s, None, list()))), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any(list(0_c, 1_c))), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any("a"_s)), std::true_type>);
    int zero = 0;
    STATIC_REQUIRE(std::is_same_v<decltype(all(list(zero, 1))), bool>);
    REQUIRE_FALSE(all(list(zero, 1)));
    REQUIRE(any(list(zero, 0.5)));
    REQUIRE_FALSE(any(list(zero, 0.0, std::string())));
    // A compile-time falsy element decides all() whatever the rest.
    STATIC_REQUIRE(std::is_same_v<decltype(all(list(zero, None))), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(any(list(zero, 1_c))), std::true_type>);
}

TEST_CASE("sorted and reversed return new lists", "[list][builtins]") {
    STATIC_REQUIRE(same(sorted(list(3_c, 1_c, 2_c)), list(1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(sorted("cab"_s), list("a"_s, "b"_s, "c"_s))); // sorted('cab')
    STATIC_REQUIRE(
        same(sorted(std::tuple(3_c, 1_c, 2_c), kw::reverse = True), list(3_c, 2_c, 1_c)));
    STATIC_REQUIRE(same(sorted(
                            list(3_c, 1_c, 2_c), kw::key = [](auto x) { return -x; }),
                        list(3_c, 2_c, 1_c)));
    STATIC_REQUIRE(same(sorted(list()), list()));
    REQUIRE(sorted(list(2.5, -1.0)) == list(-1.0, 2.5));
    STATIC_REQUIRE(same(reversed("abc"_s), list("c"_s, "b"_s, "a"_s))); // list(reversed('abc'))
    STATIC_REQUIRE(same(reversed(list(1_c, None)), list(None, 1_c)));
    REQUIRE(reversed(std::tuple(1, 2.5)) == list(2.5, 1));
}

TEST_CASE("in: membership, and substring for str", "[list][builtins]") {
    constexpr auto l = list(1_c, 2_c);
    STATIC_REQUIRE(std::is_same_v<decltype(in(2_c, l)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(in(2.0_c, l)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(in(5_c, l)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(in(1_c, std::tuple(1_c))), std::true_type>);
    // 'a' in 'cab', 'ab' in 'cab' (a substring, as Python), 'ac' not in 'cab', '' in 'cab'
    STATIC_REQUIRE(std::is_same_v<decltype(in("a"_s, "cab"_s)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(in("ab"_s, "cab"_s)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(in("ac"_s, "cab"_s)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(in(""_s, "cab"_s)), std::true_type>);
    const std::string text = "staticpy";
    REQUIRE(in(std::string("tic"), text));
    REQUIRE_FALSE(in('z', text));
    int two = 2;
    REQUIRE(in(two, l));
    REQUIRE_FALSE(in(two + 1, l));
}

TEST_CASE("to_tuple, to_array, to_vector", "[list][builtins]") {
    constexpr auto t = to_tuple(list(1_c, 2.5));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(t)>, std::tuple<int_<1>, double>>);
    STATIC_REQUIRE(std::get<1>(t) == 2.5);
    STATIC_REQUIRE(std::is_same_v<decltype(to_tuple(list())), std::tuple<>>);

    // Compile-time scalars become their values; the array has the common type.
    constexpr auto a = to_array(list(1_c, 2.5_c, 3));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(a)>, std::array<double, 3>>);
    STATIC_REQUIRE(a[0] == 1.0 && a[1] == 2.5 && a[2] == 3.0);
    STATIC_REQUIRE(std::is_same_v<decltype(to_array(list())), std::array<int, 0>>);
    STATIC_REQUIRE(std::is_same_v<decltype(to_array(list(1_c, True))), std::array<long long, 2>>);
    constexpr auto strs = to_array(list("a"_s, "bc"_s));
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cv_t<decltype(strs)>, std::array<std::string_view, 2>>);
    STATIC_REQUIRE(strs[1] == "bc");
    STATIC_REQUIRE(std::is_same_v<decltype(to_array(list('a', 'b'))), std::array<char, 2>>);

    const auto v = to_vector(list(1, 2_c, 3.5_c));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(v)>, std::vector<double>>);
    REQUIRE(v == std::vector<double>{1.0, 2.0, 3.5});
    // Owning strings stay owning: no views into a temporary list.
    const auto s = to_vector(list(std::string("a fairly long string, past any SSO buffer"), "b"_s));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(s)>, std::vector<std::string>>);
    REQUIRE(s == std::vector<std::string>{"a fairly long string, past any SSO buffer", "b"});
    REQUIRE(to_vector(list()).empty());
}
