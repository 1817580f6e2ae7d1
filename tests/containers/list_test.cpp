// staticpy::list: construction, elements, indexing, slicing, item assignment/deletion, operators,
// printing, and lists of run-time values. Methods: list_methods_test.cpp; builtins over
// iterables: list_builtins_test.cpp. Expected values were computed with CPython 3.11.
#include <sstream>
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
/// Same C++ type and Python-equal: what "gives exactly [..]" means for a heterogeneous list.
template <class A, class B>
constexpr bool same(const A& a, const B& b) {
    return std::is_same_v<A, B> && detail::as_bool(py_eq(a, b));
}

/// A literal type in a constexpr function: Python code evaluated by the compiler.
constexpr int constexpr_sum() {
    auto l = list(1, 2, 3);
    l = l.setitem(0_c, 10);
    l[2_c] = 30;
    int s = 0;
    for_each(l, [&](int x) { s += x; });
    return s; // 10 + 2 + 30
}
} // namespace

TEST_CASE("construction and class template argument deduction", "[list]") {
    constexpr auto l = list(1_c, 2.5_c, "a"_s);
    STATIC_REQUIRE(
        std::is_same_v<std::remove_cv_t<decltype(l)>, list<int_<1>, decltype(2.5_c), str<"a">>>);
    STATIC_REQUIRE(l.size() == 3);
    STATIC_REQUIRE(decltype(l)::N == 3);
    STATIC_REQUIRE(std::is_same_v<decltype(list()), list<>>);
    STATIC_REQUIRE(list().size() == 0);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1, 2.0)), list<int, double>>);

    // Default construction of compile-time elements: their value is their type.
    constexpr list<int_<1>, str<"x">> d;
    STATIC_REQUIRE(d == list(1_c, "x"_s));

    // From a hana::tuple; the elements are a hana::tuple.
    constexpr auto h = list<int, char>(boost::hana::make_tuple(1, 'c'));
    STATIC_REQUIRE(boost::hana::at_c<1>(h.elements) == 'c');
    STATIC_REQUIRE(std::is_same_v<decltype(l.elements),
                                  boost::hana::tuple<int_<1>, decltype(2.5_c), str<"a">>>);

    STATIC_REQUIRE(is_list_v<list<>>);
    STATIC_REQUIRE(is_list_v<list<int, double>>);
    STATIC_REQUIRE(!is_list_v<std::tuple<int>>);
    STATIC_REQUIRE(kind_v<list<int>> == kind::list);
    STATIC_REQUIRE(type_name_v<list<>> == "list");
    STATIC_REQUIRE(is_compile_time_v<list<int_<1>, str<"a">>>);
    STATIC_REQUIRE(is_compile_time_v<list<>>);
    STATIC_REQUIRE(!is_compile_time_v<list<int_<1>, int>>);
    STATIC_REQUIRE(is_compile_time_v<list<list<int_<1>>>>);
}

TEST_CASE("a constexpr list is a literal type usable in constexpr functions", "[list]") {
    STATIC_REQUIRE(std::is_trivially_destructible_v<list<int, double>>);
    STATIC_REQUIRE(constexpr_sum() == 42);
    constexpr auto l = list(1, 2.5); // run-time types, values known to the compiler
    STATIC_REQUIRE(l[0_c] == 1);
    STATIC_REQUIRE(l[1_c] == 2.5);
    STATIC_REQUIRE(l.count(2.5) == 1);
    STATIC_REQUIRE(l.index(2.5) == 1);
    STATIC_REQUIRE(l == list(1.0, 2.5));
    std::integral_constant<int, list(3, 4)[1]> from_list;
    STATIC_REQUIRE(from_list.value == 4);
}

TEST_CASE("at<I>, get<I>, and structured bindings", "[list]") {
    constexpr auto l = list(1_c, 2.5_c, "a"_s);
    STATIC_REQUIRE(std::is_same_v<decltype(l.at<0>()), const int_<1>&>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(get<2>(l))>, str<"a">>);
    STATIC_REQUIRE(std::tuple_size_v<decltype(l)> == 3);
    STATIC_REQUIRE(
        std::is_same_v<std::tuple_element_t<1, std::remove_cv_t<decltype(l)>>, decltype(2.5_c)>);

    auto m = list(1, std::string("b"), 3.5);
    auto& [a, b, c] = m;
    STATIC_REQUIRE(std::is_same_v<decltype(a), int>);
    REQUIRE(a == 1);
    REQUIRE(b == "b");
    REQUIRE(c == 3.5);
    a = 7; // bound by reference to m's elements
    b += "c";
    REQUIRE(m.at<0>() == 7);
    REQUIRE(get<1>(m) == "bc");
    get<2>(m) = 0.5;
    REQUIRE(m[2_c] == 0.5);
    const auto [x, y, z] = list(1_c, "y"_s, None);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(x)>, int_<1>>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(z)>, none_t>);
    (void)y;
    std::string moved = get<1>(list(1, std::string("moved")));
    REQUIRE(moved == "moved");
    STATIC_REQUIRE(std::is_same_v<decltype(get<0>(list(1))), int&&>);
}

TEST_CASE("l[i] with compile-time indices, negative ones count from the end", "[list][getitem]") {
    constexpr auto l = list(10_c, "b"_s, 2.5_c, None);
    STATIC_REQUIRE(std::is_same_v<decltype(l[0_c]), const int_<10>&>);
    STATIC_REQUIRE(same(l[0_c], 10_c));
    STATIC_REQUIRE(same(l[1_c], "b"_s));
    STATIC_REQUIRE(same(l[3_c], None));
    STATIC_REQUIRE(same(l[-1_c], None));
    STATIC_REQUIRE(same(l[-2_c], 2.5_c));
    STATIC_REQUIRE(same(l[-4_c], 10_c));
    STATIC_REQUIRE(same(l[True], "b"_s)); // bool is an int in Python
    STATIC_REQUIRE(same(l[False], 10_c));
    STATIC_REQUIRE(same(l[std::integral_constant<int, 2>{}], 2.5_c));
    STATIC_REQUIRE(same(l[int_c<-3>], "b"_s));

    // A reference into a non-const list: assignable.
    auto m = list(1, std::string("a"));
    m[1_c] = "z";
    m[-2_c] += 4;
    REQUIRE(m[0_c] == 5);
    REQUIRE(m[1_c] == "z");
}

TEST_CASE("l[i] with a run-time index on a list of one element type", "[list][getitem]") {
    auto l = list(1.5, 2.5, 3.5);
    int i = 1;
    REQUIRE(l[i] == 2.5);
    REQUIRE(l[-1] == 3.5);
    REQUIRE(l[-3] == 1.5);
    REQUIRE(l[std::size_t{0}] == 1.5);
    l[i] = 9.0;
    REQUIRE(l == list(1.5, 9.0, 3.5));
    const auto& cl = l;
    STATIC_REQUIRE(std::is_same_v<decltype(cl[i]), const double&>);
    STATIC_REQUIRE(std::is_same_v<decltype(l[i]), double&>);

    // Compile-time elements of one type are fine too: the type is the value.
    constexpr auto same_type = list(7_c, 7_c);
    REQUIRE(same(same_type[i], 7_c));

    // Out of range: Python's IndexError and text.
    REQUIRE_THROWS_AS(l[3], IndexError);
    REQUIRE_THROWS_WITH(l[3], "list index out of range");
    REQUIRE_THROWS_WITH(l[-4], "list index out of range");
    try {
        (void)l[100];
        FAIL("no exception");
    } catch (const Error& e) {
        REQUIRE(std::string(e.python_name()) == "IndexError");
    }
}

TEST_CASE("slices: bounds clamped, negative steps, None", "[list][slice]") {
    constexpr auto l = list(0_c, 1_c, 2_c, 3_c, 4_c);
    // Expected values from CPython: [0, 1, 2, 3, 4][start:stop:step].
    STATIC_REQUIRE(same(l[slice(None, None, None)], list(0_c, 1_c, 2_c, 3_c, 4_c))); // l[::]
    STATIC_REQUIRE(same(l[slice(1_c, None, None)], list(1_c, 2_c, 3_c, 4_c)));       // l[1:]
    STATIC_REQUIRE(same(l[slice(None, 3_c, None)], list(0_c, 1_c, 2_c)));            // l[:3]
    STATIC_REQUIRE(same(l[slice(1_c, 3_c, None)], list(1_c, 2_c)));                  // l[1:3]
    STATIC_REQUIRE(same(l[slice(-2_c, None, None)], list(3_c, 4_c)));                // l[-2:]
    STATIC_REQUIRE(same(l[slice(None, -2_c, None)], list(0_c, 1_c, 2_c)));           // l[:-2]
    STATIC_REQUIRE(same(l[slice(-7_c, 9_c, None)], list(0_c, 1_c, 2_c, 3_c, 4_c)));  // l[-7:9]
    STATIC_REQUIRE(same(l[slice(9_c, None, None)], list()));                         // l[9:]
    STATIC_REQUIRE(same(l[slice(None, -7_c, None)], list()));                        // l[:-7]
    STATIC_REQUIRE(same(l[slice(3_c, 1_c, None)], list()));                          // l[3:1]
    STATIC_REQUIRE(same(l[slice(None, None, 2_c)], list(0_c, 2_c, 4_c)));            // l[::2]
    STATIC_REQUIRE(same(l[slice(None, None, -1_c)], list(4_c, 3_c, 2_c, 1_c, 0_c))); // l[::-1]
    STATIC_REQUIRE(same(l[slice(None, None, -2_c)], list(4_c, 2_c, 0_c)));           // l[::-2]
    STATIC_REQUIRE(same(l[slice(1_c, None, 2_c)], list(1_c, 3_c)));                  // l[1::2]
    STATIC_REQUIRE(same(l[slice(-1_c, None, -2_c)], list(4_c, 2_c, 0_c)));           // l[-1::-2]
    STATIC_REQUIRE(same(l[slice(4_c, 0_c, -1_c)], list(4_c, 3_c, 2_c, 1_c)));        // l[4:0:-1]
    STATIC_REQUIRE(same(l[slice(0_c, 4_c, -1_c)], list()));                          // l[0:4:-1]
    STATIC_REQUIRE(same(l[slice(-7_c, None, -1_c)], list()));                        // l[-7::-1]
    STATIC_REQUIRE(same(l[slice(9_c, None, -1_c)], list(4_c, 3_c, 2_c, 1_c, 0_c)));  // l[9::-1]
    STATIC_REQUIRE(same(l[slice(None, -7_c, -1_c)], list(4_c, 3_c, 2_c, 1_c, 0_c))); // l[:-7:-1]
    STATIC_REQUIRE(same(l[slice(None, 9_c, -1_c)], list()));                         // l[:9:-1]
    STATIC_REQUIRE(same(l[slice(9_c, -7_c, -3_c)], list(4_c, 1_c)));                 // l[9:-7:-3]
    STATIC_REQUIRE(same(l[slice(3_c, None, 3_c)], list(3_c)));                       // l[3::3]
    STATIC_REQUIRE(same(l[slice(None, None, 7_c)], list(0_c)));                      // l[::7]
    STATIC_REQUIRE(same(l[slice(None, None, -7_c)], list(4_c)));                     // l[::-7]
    STATIC_REQUIRE(same(l[slice(2_c, 2_c, None)], list()));                          // l[2:2]
    STATIC_REQUIRE(same(l[slice(-1_c, -1_c, -1_c)], list()));                        // l[-1:-1:-1]
    STATIC_REQUIRE(same(l[slice(5_c, None, -2_c)], list(4_c, 2_c, 0_c)));            // l[5::-2]
    STATIC_REQUIRE(same(l[slice(-5_c, None, None)], list(0_c, 1_c, 2_c, 3_c, 4_c))); // l[-5:]
    STATIC_REQUIRE(same(l[slice(-6_c, 2_c, None)], list(0_c, 1_c)));                 // l[-6:2]
    STATIC_REQUIRE(same(l[slice(1_c, -1_c, None)], list(1_c, 2_c, 3_c)));            // l[1:-1]
    STATIC_REQUIRE(same(l[slice(True, None, None)], list(1_c, 2_c, 3_c, 4_c)));      // l[True:]
    STATIC_REQUIRE(same(l[slice(None, None, True)], l));                             // l[::True]
    // slice(stop) is slice(None, stop, None).
    STATIC_REQUIRE(same(l[slice(2_c)], list(0_c, 1_c))); // l[slice(2)]
    STATIC_REQUIRE(same(l[slice(-1_c)], list(0_c, 1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(l[slice(None)], l));
    STATIC_REQUIRE(same(list()[slice(None, None, -1_c)], list()));

    STATIC_REQUIRE(is_slice_v<decltype(slice(1_c, 2_c))>);
    STATIC_REQUIRE(!is_slice_v<int>);
    STATIC_REQUIRE(std::is_same_v<decltype(slice(2_c)), slice_t<none_t, int_<2>, none_t>>);
    STATIC_REQUIRE(std::is_empty_v<decltype(slice(1_c, 2_c, 3_c))>);

    // Positions, compile-time.
    constexpr auto p = decltype(l)::slice_positions<decltype(slice(None, None, -2_c))>();
    STATIC_REQUIRE(p.length == 3);
    STATIC_REQUIRE(p.index[0] == 4 && p.index[1] == 2 && p.index[2] == 0);
}

TEST_CASE("slices copy run-time elements, whatever their types", "[list][slice]") {
    const auto l = list(1, 2.5, std::string("s"), 'c');
    auto r = l[slice(None, None, -1_c)];
    STATIC_REQUIRE(std::is_same_v<decltype(r), list<char, std::string, double, int>>);
    REQUIRE(r == list('c', std::string("s"), 2.5, 1));
    auto mid = l[slice(1_c, -1_c)];
    REQUIRE(repr(mid) == "[2.5, 's']");
    mid[0_c] = 0.0;
    REQUIRE(l[1_c] == 2.5); // a copy, not a view
}

TEST_CASE("setitem: l[i] = v as a new list (the element's type may change)", "[list][setitem]") {
    constexpr auto l = list(1_c, 2_c, 3_c);
    STATIC_REQUIRE(same(l.setitem(0_c, "a"_s), list("a"_s, 2_c, 3_c)));
    STATIC_REQUIRE(same(l.setitem(-1_c, None), list(1_c, 2_c, None)));
    STATIC_REQUIRE(same(l.setitem(-3_c, 2.5_c), list(2.5_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(l.setitem(True, list()), list(1_c, list(), 3_c)));
    STATIC_REQUIRE(same(l, list(1_c, 2_c, 3_c))); // the original is unchanged

    // A run-time index: the value must have the elements' type.
    auto m = list(1, 2, 3);
    int i = -1;
    REQUIRE(m.setitem(i, 30) == list(1, 2, 30));
    REQUIRE(m.setitem(0, 10) == list(10, 2, 3));
    REQUIRE(m == list(1, 2, 3));
    REQUIRE_THROWS_AS(m.setitem(3, 0), IndexError);
    REQUIRE_THROWS_WITH(m.setitem(3, 0), "list assignment index out of range");
    REQUIRE_THROWS_WITH(m.setitem(-4, 0), "list assignment index out of range");
}

TEST_CASE("setitem with a slice: l[a:b] = iterable, l[a:b:c] = iterable",
          "[list][setitem][slice]") {
    constexpr auto l = list(0_c, 1_c, 2_c, 3_c, 4_c);
    // Expected values from CPython: m = [0, 1, 2, 3, 4]; m[s] = v.
    STATIC_REQUIRE(same(l.setitem(slice(1_c, 3_c), list("a"_s)), list(0_c, "a"_s, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.setitem(slice(1_c, 3_c), list("a"_s, "b"_s, "c"_s)),
                        list(0_c, "a"_s, "b"_s, "c"_s, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.setitem(slice(3_c, 1_c), list("a"_s)), // an empty slice: inserts
                        list(0_c, 1_c, 2_c, "a"_s, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.setitem(slice(None, None), list()), list()));
    STATIC_REQUIRE(same(l.setitem(slice(-2_c, None), "xy"_s), list(0_c, 1_c, 2_c, "x"_s, "y"_s)));
    STATIC_REQUIRE(
        same(l.setitem(slice(100_c, None), std::tuple(7_c)), list(0_c, 1_c, 2_c, 3_c, 4_c, 7_c)));
    STATIC_REQUIRE(same(l.setitem(slice(1_c, 2_c, 1_c), list()), list(0_c, 2_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.setitem(slice(None, None, 2_c), list("a"_s, "b"_s, "c"_s)),
                        list("a"_s, 1_c, "b"_s, 3_c, "c"_s)));
    STATIC_REQUIRE(same(l.setitem(slice(None, None, -2_c), list("a"_s, "b"_s, "c"_s)),
                        list("c"_s, 1_c, "b"_s, 3_c, "a"_s)));
    STATIC_REQUIRE(same(l.setitem(slice(None, None, -1_c), list(5_c, 6_c, 7_c, 8_c, 9_c)),
                        list(9_c, 8_c, 7_c, 6_c, 5_c)));
    STATIC_REQUIRE(same(list().setitem(slice(None), list(1_c)), list(1_c)));

    auto m = list(1, 2);
    REQUIRE(repr(m.setitem(slice(0_c, 1_c), list(3.5, std::string("x")))) == "[3.5, 'x', 2]");
}

TEST_CASE("delitem: del l[i] and del l[a:b:c]", "[list][delitem]") {
    constexpr auto l = list(0_c, 1_c, 2_c, 3_c, 4_c);
    STATIC_REQUIRE(same(l.delitem(0_c), list(1_c, 2_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.delitem(-1_c), list(0_c, 1_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(l.delitem(2_c), list(0_c, 1_c, 3_c, 4_c)));
    // Expected values from CPython: m = [0, 1, 2, 3, 4]; del m[s].
    STATIC_REQUIRE(same(l.delitem(slice(None, None, 2_c)), list(1_c, 3_c)));
    STATIC_REQUIRE(same(l.delitem(slice(1_c, 3_c)), list(0_c, 3_c, 4_c)));
    STATIC_REQUIRE(same(l.delitem(slice(None, None, -2_c)), list(1_c, 3_c)));
    STATIC_REQUIRE(same(l.delitem(slice(-2_c, None)), list(0_c, 1_c, 2_c)));
    STATIC_REQUIRE(same(l.delitem(slice(3_c, 1_c)), l));
    STATIC_REQUIRE(same(l.delitem(slice(9_c, None, -3_c)), list(0_c, 2_c, 3_c)));
    STATIC_REQUIRE(same(l.delitem(slice(None)), list()));

    auto m = list(std::string("a"), std::string("b"), std::string("c"));
    int i = 1;
    REQUIRE(m.delitem(i) == list(std::string("a"), std::string("c")));
    REQUIRE(m.delitem(-1) == list(std::string("a"), std::string("b")));
    REQUIRE_THROWS_AS(m.delitem(3), IndexError);
    REQUIRE_THROWS_WITH(m.delitem(-4), "list assignment index out of range");
}

TEST_CASE("+ concatenates lists", "[list][operators]") {
    STATIC_REQUIRE(same(list(1_c, 2_c) + list("a"_s), list(1_c, 2_c, "a"_s)));
    STATIC_REQUIRE(same(list() + list(), list()));
    STATIC_REQUIRE(same(list() + list(None), list(None)));
    STATIC_REQUIRE(same(list(1_c) + list(), list(1_c)));
    REQUIRE(list(1, 2.5) + list(std::string("x")) == list(1, 2.5, std::string("x")));
}

TEST_CASE("* repeats by a compile-time int, <= 0 gives []", "[list][operators]") {
    constexpr auto l = list(1_c, "a"_s);
    STATIC_REQUIRE(same(l * 3_c, list(1_c, "a"_s, 1_c, "a"_s, 1_c, "a"_s)));
    STATIC_REQUIRE(same(l * 1_c, l));
    STATIC_REQUIRE(same(l * 0_c, list()));
    STATIC_REQUIRE(same(l * -1_c, list()));
    STATIC_REQUIRE(same(2_c * l, l + l));
    STATIC_REQUIRE(same(l * True, l));
    STATIC_REQUIRE(same(l * False, list()));
    STATIC_REQUIRE(same(list() * 5_c, list()));
    REQUIRE(list(0.5) * 3_c == list(0.5, 0.5, 0.5));
}

TEST_CASE("== and != compare element by element with Python's ==", "[list][operators]") {
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) == list(1_c, 2_c)), std::true_type>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(list(1_c, 2_c) == list(1.0_c, True + 1_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, True) == list(True, 1.0_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) == list(1_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c) == list(1_c, 2_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list() == list()), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list() == list(None)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c) == list("1"_s)), std::false_type>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(list(list(1_c), 2_c) == list(list(1.0_c), 2_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(list(1_c), 2_c) == list(std::tuple(1_c), 2_c)),
                                  std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) != list(1_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c) != list(1.0_c)), std::false_type>);
    // A different length is known at compile time even for run-time elements.
    STATIC_REQUIRE(std::is_same_v<decltype(list(1, 2) == list(1)), std::false_type>);
    // So is a kind mismatch.
    STATIC_REQUIRE(std::is_same_v<decltype(list(1, 2) == list(1, "2"_s)), std::false_type>);

    int one = 1;
    STATIC_REQUIRE(std::is_same_v<decltype(list(one) == list(1_c)), bool>);
    REQUIRE(list(one, 2.0) == list(1_c, 2));
    REQUIRE(list(one, 2.0) != list(1_c, 2.5));
    REQUIRE(list(std::string("a"), one) == list("a"_s, true));
    REQUIRE_FALSE(list(std::string("a")) == list(std::string("b")));
}

TEST_CASE("< <= > >= are lexicographic, as Python's", "[list][operators]") {
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) < list(1_c, 3_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) < list(1_c, 2_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) <= list(1_c, 2_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 2_c) < list(1_c, 2_c, 0_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list() < list(0_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list() <= list()), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 3_c) > list(1_c, 2_c, 9_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, 3_c) >= list(2_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(2_c) >= list(2.0_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(2_c) > list(2.0_c)), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list("b"_s) > list("ab"_s, 1_c)), std::true_type>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(list(list(1_c), 5_c) < list(list(1_c, 0_c), 0_c)), std::true_type>);
    // [1, "a"] < [2, 3]: the first pair decides; Python never compares "a" with 3.
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, "a"_s) < list(2_c, 3_c)), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(list(1_c, "a"_s) > list(2_c, 3_c)), std::false_type>);
    // Equal prefixes of different kinds that are equal (1 == True) move on to the next pair.
    STATIC_REQUIRE(std::is_same_v<decltype(list(True, 1_c) < list(1.0_c, 2_c)), std::true_type>);

    // Run-time elements: a run-time answer.
    int one = 1;
    STATIC_REQUIRE(std::is_same_v<decltype(list(one) < list(2_c)), bool>);
    REQUIRE(list(one, 2.5) < list(1, 3));
    REQUIRE(list(one) < list(one, 0));
    REQUIRE_FALSE(list(one, 2.5) < list(1, 2.5));
    REQUIRE(list(one, 2.5) <= list(1, 2.5));
    REQUIRE(list(2, one) > list(1, 100));
    REQUIRE(list(std::string("b")) >= list(std::string("a"), 1));
    REQUIRE(list(std::string("a"), std::string("b")) < list(std::string("a"), std::string("c")));
}

TEST_CASE("truth value, repr and operator<<", "[list][repr]") {
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(list())), std::false_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(list(0_c))), std::true_type>);
    STATIC_REQUIRE(std::is_same_v<decltype(py_bool(list(0))), std::true_type>);

    REQUIRE(repr(list()) == "[]");
    REQUIRE(repr(list(1_c, 2.5_c, "a"_s, None, True)) == "[1, 2.5, 'a', None, True]");
    REQUIRE(repr(list(list(), list().append(list(1_c)), std::tuple(1_c), std::tuple())) ==
            "[[], [[1]], (1,), ()]");
    REQUIRE(repr(list(std::string("it's"), 1e16, -0.0)) == "[\"it's\", 1e+16, -0.0]");
    std::ostringstream os;
    os << list(list(1_c, "x"_s), 0.5) << ' ' << list();
    REQUIRE(os.str() == "[[1, 'x'], 0.5] []");
}

TEST_CASE("building blocks: pick, pick_positions, unpack_indices, py_iter", "[list]") {
    constexpr auto l = list(10_c, "b"_s, 2.5_c);
    STATIC_REQUIRE(same(l.pick(std::index_sequence<2, 0, 0>{}), list(2.5_c, 10_c, 10_c)));
    STATIC_REQUIRE(same(l.pick(std::index_sequence<>{}), list()));
    constexpr detail::positions<3> order = [] {
        detail::positions<3> p;
        p.push(1);
        p.push(2);
        return p;
    }();
    STATIC_REQUIRE(same(l.pick_positions<order>(), list("b"_s, 2.5_c)));
    STATIC_REQUIRE(l.unpack_indices([](auto... i) { return (std::size_t{0} + ... + i); }) == 3);
    STATIC_REQUIRE(std::is_same_v<decltype(l.py_iter()),
                                  const boost::hana::tuple<int_<10>, str<"b">, decltype(2.5_c)>&>);
    std::string out;
    l.repr_into(out);
    REQUIRE(out == "[10, 'b', 2.5]");
}

TEST_CASE("a list of run-time values: value-dependent methods run at run time", "[list][runtime]") {
    double read_at_run_time = 0.25;
    std::string name = "lr";
    auto l = list(name, read_at_run_time, 3);
    REQUIRE(l.count(0.25) == 1);
    STATIC_REQUIRE(std::is_same_v<decltype(l.count(0.25)), std::size_t>);
    // A str never equals a number: that part of count is compile-time, the rest is run time.
    // (Also a regression test: when "lr"_s returned a new str, clang 14 crashed on these lines,
    // printing that literal in the notes of the constant evaluation -Wsign-compare attempts.)
    REQUIRE(l.count("lr"_s) == 1);
    REQUIRE(l.contains(3));
    REQUIRE_FALSE(l.contains(4));
    REQUIRE(l.index(3) == 2);
    REQUIRE(l.index("lr"_s) == 0);
    REQUIRE_THROWS_WITH(l.index(0.5), "0.5 is not in list");
    REQUIRE(repr(l) == "['lr', 0.25, 3]");
    // Positions are still compile-time.
    STATIC_REQUIRE(decltype(l)::size() == 3);
    STATIC_REQUIRE(std::is_same_v<decltype(len(l)), size_<3>>);
    auto [rest, last] = l.pop();
    REQUIRE(last == 3);
    REQUIRE(rest == list(std::string("lr"), 0.25));
    read_at_run_time = 2.0;
    REQUIRE(l[1_c] == 0.25); // the list holds a copy
}
