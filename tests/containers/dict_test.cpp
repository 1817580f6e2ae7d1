// Tests of staticpy's dict: construction (every accepted form), Python's order rule for repeated
// keys, every method and operator, repr, and which results are compile-time.
//
// Each Python expectation in a comment is what CPython 3 prints for the same code.

#include <array>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

namespace {

template <class B>
constexpr bool static_true = std::is_same_v<std::remove_cvref_t<B>, std::true_type>;
template <class B>
constexpr bool static_false = std::is_same_v<std::remove_cvref_t<B>, std::false_type>;

using lr_t = str<"lr">;
using epochs_t = str<"epochs">;

constexpr auto hparams = dict("lr"_s = 0.1, "epochs"_s = 10); // {'lr': 0.1, 'epochs': 10}

// A value read at run time: the optimiser cannot fold it, the type system does not know it.
int runtime_int(int x) {
    volatile int v = x;
    return v;
}

struct opaque { // a user type with no operator==
    int x = 0;
};

} // namespace

// =============================================================================================
// Construction
// =============================================================================================

TEST_CASE("dict: keyword-style construction") {
    STATIC_REQUIRE(
        std::is_same_v<decltype(hparams), const dict_t<pair<lr_t, double>, pair<epochs_t, int>>>);
    STATIC_REQUIRE(len(hparams) == 2);
    STATIC_REQUIRE(hparams.size() == 2);
    STATIC_REQUIRE(hparams["lr"_s] == 0.1);
    STATIC_REQUIRE(hparams["epochs"_s] == 10);
    STATIC_REQUIRE(is_dict_v<std::remove_cv_t<decltype(hparams)>>);
    STATIC_REQUIRE(kind_v<decltype(hparams)> == kind::dict);
    STATIC_REQUIRE(type_name_v<decltype(hparams)> == "dict");
    REQUIRE(repr(hparams) == "{'lr': 0.1, 'epochs': 10}");
}

TEST_CASE("dict: construction from staticpy::pair, std::pair and 2-element std::tuple") {
    constexpr auto a = dict(pair(1_c, "a"_s));
    STATIC_REQUIRE(std::is_same_v<decltype(a), const dict_t<pair<int_<1>, str<"a">>>>);
    REQUIRE(repr(a) == "{1: 'a'}");

    constexpr auto b = dict(std::pair{"a"_s, 1});
    STATIC_REQUIRE(b["a"_s] == 1);
    REQUIRE(repr(b) == "{'a': 1}");

    constexpr auto c = dict(std::tuple{"b"_s, 2.5});
    STATIC_REQUIRE(c["b"_s] == 2.5);
    REQUIRE(repr(c) == "{'b': 2.5}");

    // All forms in one call, in argument order.
    constexpr auto d =
        dict(pair(1_c, "a"_s), std::pair{"b"_s, 2}, std::tuple{None, 3.5}, "k"_s = True);
    STATIC_REQUIRE(len(d) == 4);
    STATIC_REQUIRE(d.keys() == list(1_c, "b"_s, None, "k"_s));
    REQUIRE(repr(d) == "{1: 'a', 'b': 2, None: 3.5, 'k': True}");

    // A string literal value decays to const char*, as Python stores the str.
    const auto s = dict("name"_s = "resnet");
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(s["name"_s])>, const char*>);
    REQUIRE(repr(s) == "{'name': 'resnet'}");
}

TEST_CASE("dict: construction from another dict and from a list of pairs") {
    // dict(other) is a copy: same type, same items.
    constexpr auto copy = dict(hparams);
    STATIC_REQUIRE(std::is_same_v<decltype(copy), decltype(hparams)>);
    STATIC_REQUIRE(copy == hparams);

    // dict([(k, v), ...]) with every item form inside the list.
    constexpr auto from_list =
        dict(list(pair("x"_s, 1_c), std::tuple("y"_s, None), std::pair("z"_s, 2.5)));
    STATIC_REQUIRE(from_list.keys() == list("x"_s, "y"_s, "z"_s));
    REQUIRE(repr(from_list) == "{'x': 1, 'y': None, 'z': 2.5}");

    // Several sources at once: the items of each, in order (Python's dict(a, **kw)).
    constexpr auto merged = dict(hparams, list(std::tuple("seed"_s, 1)), "epochs"_s = 20);
    STATIC_REQUIRE(merged.keys() == list("lr"_s, "epochs"_s, "seed"_s));
    REQUIRE(repr(merged) == "{'lr': 0.1, 'epochs': 20, 'seed': 1}");

    // A list of pairs whose keys repeat follows the same rule as anywhere else.
    constexpr auto repeated = dict(list(pair("a"_s, 1), pair("b"_s, 2), pair("a"_s, 3)));
    REQUIRE(repr(repeated) == "{'a': 3, 'b': 2}");

    // An empty list gives {}.
    STATIC_REQUIRE(len(dict(list<>{})) == 0);
}

TEST_CASE("dict: the empty dict") {
    constexpr auto e = dict();
    STATIC_REQUIRE(std::is_same_v<decltype(e), const dict_t<>>);
    STATIC_REQUIRE(len(e) == 0);
    STATIC_REQUIRE(static_false<decltype(py_bool(e))>);
    STATIC_REQUIRE(static_true<decltype(py_bool(hparams))>);
    STATIC_REQUIRE(e.keys() == list<>{});
    STATIC_REQUIRE(e == dict_t<>{});
    REQUIRE(repr(e) == "{}");
    REQUIRE(repr(e.keys()) == "[]");
    REQUIRE(repr(e.values()) == "[]");
    REQUIRE(repr(e.items()) == "[]");
}

// =============================================================================================
// Repeated keys: a key keeps its first position and takes its last value
// =============================================================================================

TEST_CASE("dict: {1: 'a', True: 'b', 1.0: 'c'} is {1: 'c'}") {
    constexpr auto d = dict(pair(1_c, "a"_s), pair(True, "b"_s), pair(1.0_c, "c"_s));
    STATIC_REQUIRE(len(d) == 1);
    // The key is the first one written (1), the value the last one ('c').
    STATIC_REQUIRE(std::is_same_v<decltype(d), const dict_t<pair<int_<1>, str<"c">>>>);
    STATIC_REQUIRE(d[1_c] == "c"_s);
    STATIC_REQUIRE(d[True] == "c"_s);
    STATIC_REQUIRE(d[1.0_c] == "c"_s);
    REQUIRE(repr(d) == "{1: 'c'}");
}

TEST_CASE("dict: repeated keys keep the first position and the last value") {
    // {'a': 1, 'b': 2, 'a': 3} -> {'a': 3, 'b': 2}
    constexpr auto d = dict("a"_s = 1, "b"_s = 2, "a"_s = 3);
    STATIC_REQUIRE(d.keys() == list("a"_s, "b"_s));
    STATIC_REQUIRE(d["a"_s] == 3);
    REQUIRE(repr(d) == "{'a': 3, 'b': 2}");

    // The surviving value's type is the last one's: {'a': 1, 'a': 2.5} -> {'a': 2.5}.
    constexpr auto retyped = dict(dict("a"_s = 1), "a"_s = 2.5);
    STATIC_REQUIRE(std::is_same_v<decltype(retyped), const dict_t<pair<str<"a">, double>>>);

    // {True: 1, 1: 2} -> {True: 2}: the key True is kept, as written first.
    constexpr auto t = dict(pair(True, 1), pair(1_c, 2));
    REQUIRE(repr(t) == "{True: 2}");

    // {0: 'a', -0.0: 'b', False: 'c'} -> {0: 'c'}
    constexpr auto z = dict(pair(0_c, "a"_s), pair(-0.0_c, "b"_s), pair(False, "c"_s));
    STATIC_REQUIRE(len(z) == 1);
    REQUIRE(repr(z) == "{0: 'c'}");

    // Keys of different kinds never collide: {1: 'i', '1': 's', None: 'n', 1.5: 'f'}.
    constexpr auto distinct =
        dict(pair(1_c, "i"_s), pair("1"_s, "s"_s), pair(None, "n"_s), pair(1.5_c, "f"_s));
    STATIC_REQUIRE(len(distinct) == 4);
    REQUIRE(repr(distinct) == "{1: 'i', '1': 's', None: 'n', 1.5: 'f'}");

    // Large ints are compared exactly, not through a double: 2**53 + 1 != 2.0**53.
    constexpr auto big = dict(pair(9007199254740993_c, 1), pair(9007199254740992.0_c, 2));
    STATIC_REQUIRE(len(big) == 2);
}

// =============================================================================================
// Keys of every kind
// =============================================================================================

TEST_CASE("dict: int keys") {
    constexpr auto d = dict(pair(1_c, "one"_s), pair(2_c, "two"_s), pair(-3_c, "minus three"_s));
    STATIC_REQUIRE(d[2_c] == "two"_s);
    STATIC_REQUIRE(d[-3_c] == "minus three"_s);
    STATIC_REQUIRE(d[2.0_c] == "two"_s); // 2.0 hashes as 2
    STATIC_REQUIRE(d[True] == "one"_s);  // True hashes as 1
    STATIC_REQUIRE(d[std::integral_constant<int, 2>{}] == "two"_s);
    STATIC_REQUIRE(static_false<decltype(d.contains("1"_s))>);
    REQUIRE(repr(d) == "{1: 'one', 2: 'two', -3: 'minus three'}");
}

TEST_CASE("dict: float keys") {
    constexpr auto d = dict(pair(2.5_c, 1), pair(0.5_c, 2), pair(3.0_c, 3));
    STATIC_REQUIRE(d[2.5_c] == 1);
    STATIC_REQUIRE(d[0.5_c] == 2);
    STATIC_REQUIRE(d[3_c] == 3); // 3 == 3.0
    STATIC_REQUIRE(static_false<decltype(d.contains(2_c))>);
    REQUIRE(repr(d) == "{2.5: 1, 0.5: 2, 3.0: 3}");
}

TEST_CASE("dict: a NaN key is found by itself") {
    // nan = float('nan'); {nan: 1, nan: 2} -> {nan: 2}; d[nan] -> 2 (Python's identity check).
    using nan_t = float_<0x7ff8000000000000ULL>;
    constexpr auto d = dict(pair(nan_t{}, 1), pair(nan_t{}, 2));
    STATIC_REQUIRE(len(d) == 1);
    STATIC_REQUIRE(d[nan_t{}] == 2);
    STATIC_REQUIRE(static_true<decltype(d.contains(nan_t{}))>);
    STATIC_REQUIRE(static_false<decltype(d.contains(0_c))>);
    REQUIRE(repr(d) == "{nan: 2}");
}

TEST_CASE("dict: None key") {
    constexpr auto d = dict(pair(None, 1), pair(0_c, 2));
    STATIC_REQUIRE(len(d) == 2); // None is not 0
    STATIC_REQUIRE(d[None] == 1);
    STATIC_REQUIRE(d[0_c] == 2);
    STATIC_REQUIRE(d[False] == 2);
    STATIC_REQUIRE(static_true<decltype(d.contains(None))>);
    REQUIRE(repr(d) == "{None: 1, 0: 2}");
}

TEST_CASE("dict: bool keys") {
    constexpr auto d = dict(pair(True, "t"_s), pair(False, "f"_s));
    STATIC_REQUIRE(d[True] == "t"_s);
    STATIC_REQUIRE(d[1_c] == "t"_s);
    STATIC_REQUIRE(d[0_c] == "f"_s);
    STATIC_REQUIRE(d[0.0_c] == "f"_s);
    STATIC_REQUIRE(static_false<decltype(d.contains("True"_s))>);
    REQUIRE(repr(d) == "{True: 't', False: 'f'}");
}

// =============================================================================================
// fromkeys
// =============================================================================================

TEST_CASE("dict: fromkeys from a list, a std::tuple, a dict and a str") {
    // dict.fromkeys(['a', 'b']) -> {'a': None, 'b': None}
    constexpr auto a = dict.fromkeys(list("a"_s, "b"_s));
    STATIC_REQUIRE(
        std::is_same_v<decltype(a), const dict_t<pair<str<"a">, none_t>, pair<str<"b">, none_t>>>);
    STATIC_REQUIRE(a["a"_s] == None);
    REQUIRE(repr(a) == "{'a': None, 'b': None}");

    // dict.fromkeys((1, 2), 123) -> {1: 123, 2: 123}
    constexpr auto t = dict.fromkeys(std::tuple(1_c, 2_c), 123);
    STATIC_REQUIRE(t[2_c] == 123);
    REQUIRE(repr(t) == "{1: 123, 2: 123}");

    // dict.fromkeys({'lr': 0.1, 'epochs': 10}) -> the dict's keys
    constexpr auto k = dict.fromkeys(hparams);
    STATIC_REQUIRE(k.keys() == hparams.keys());
    REQUIRE(repr(k) == "{'lr': None, 'epochs': None}");

    // dict.fromkeys("abcd") -> one key per character
    constexpr auto s = dict.fromkeys("abcd"_s);
    STATIC_REQUIRE(len(s) == 4);
    STATIC_REQUIRE(s.keys() == list("a"_s, "b"_s, "c"_s, "d"_s));
    REQUIRE(repr(s) == "{'a': None, 'b': None, 'c': None, 'd': None}");

    // An empty iterable gives {}.
    STATIC_REQUIRE(std::is_same_v<decltype(dict.fromkeys(list<>{})), dict_t<>>);
}

TEST_CASE("dict: fromkeys with a value, from a dict's keys") {
    // {'lr': 0.1, 'epochs': 10}.fromkeys(d, 123)... written as dict.fromkeys(d, 123)
    constexpr auto d = dict.fromkeys(hparams, 123);
    STATIC_REQUIRE(d["lr"_s] == 123);
    STATIC_REQUIRE(d["epochs"_s] == 123);
    REQUIRE(repr(d) == "{'lr': 123, 'epochs': 123}");

    // A compile-time value keeps the dict compile-time.
    constexpr auto c = dict.fromkeys(hparams.keys(), 7_c);
    STATIC_REQUIRE(is_compile_time_v<decltype(c)>);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(c["epochs"_s])>, int_<7>>);

    // A string literal value is stored as const char*.
    const auto lit = dict.fromkeys(list("a"_s), "text");
    REQUIRE(repr(lit) == "{'a': 'text'}");
}

TEST_CASE("dict: fromkeys collapses repeated keys") {
    // dict.fromkeys([1, True, 1.0, 2]) -> {1: None, 2: None}
    constexpr auto d = dict.fromkeys(list(1_c, True, 1.0_c, 2_c));
    STATIC_REQUIRE(len(d) == 2);
    REQUIRE(repr(d) == "{1: None, 2: None}");

    // dict.fromkeys("abca") -> {'a': None, 'b': None, 'c': None}
    constexpr auto s = dict.fromkeys("abca"_s, 0);
    STATIC_REQUIRE(s.keys() == list("a"_s, "b"_s, "c"_s));
    REQUIRE(repr(s) == "{'a': 0, 'b': 0, 'c': 0}");
}

TEST_CASE("dict: fromkeys called on an instance ignores the instance (MindSpore's example)") {
    // {'a': 1, 'b': 2}.fromkeys(['1', '2', '3']) -> {'1': None, '2': None, '3': None}
    constexpr auto d = dict("a"_s = 1, "b"_s = 2).fromkeys(list("1"_s, "2"_s, "3"_s));
    STATIC_REQUIRE(d.keys() == list("1"_s, "2"_s, "3"_s));
    STATIC_REQUIRE(static_false<decltype(d.contains("a"_s))>);
    REQUIRE(repr(d) == "{'1': None, '2': None, '3': None}");
}

TEST_CASE("dict: dict.fromkeys and dict_t<>::fromkeys are the same classmethod") {
    constexpr auto via_object = dict.fromkeys(list(1_c, 2_c), "v"_s);
    constexpr auto via_type = dict_t<>::fromkeys(list(1_c, 2_c), "v"_s);
    constexpr auto via_other_type = decltype(hparams)::fromkeys(list(1_c, 2_c), "v"_s);
    STATIC_REQUIRE(std::is_same_v<decltype(via_object), decltype(via_type)>);
    STATIC_REQUIRE(std::is_same_v<decltype(via_object), decltype(via_other_type)>);
    STATIC_REQUIRE(via_object == via_type);
    STATIC_REQUIRE(dict.fromkeys("ab"_s, 1_c)["a"_s] == 1);
}

// =============================================================================================
// Lookup: [], get, in
// =============================================================================================

TEST_CASE("dict: get with and without a default") {
    // d.get('lr') -> 0.1; d.get('missing') -> None
    STATIC_REQUIRE(hparams.get("lr"_s) == 0.1);
    STATIC_REQUIRE(std::is_same_v<decltype(hparams.get("lr"_s)), double>);
    STATIC_REQUIRE(std::is_same_v<decltype(hparams.get("missing"_s)), none_t>);
    STATIC_REQUIRE(hparams.get("missing"_s) == None);

    // d.get('epochs', 0) -> 10 (the value, with its own type); d.get('missing', 42) -> 42
    STATIC_REQUIRE(hparams.get("epochs"_s, 0.5) == 10);
    STATIC_REQUIRE(std::is_same_v<decltype(hparams.get("epochs"_s, 0.5)), int>);
    STATIC_REQUIRE(hparams.get("missing"_s, 42) == 42);
    STATIC_REQUIRE(std::is_same_v<decltype(hparams.get("missing"_s, "default"_s)), str<"default">>);
    REQUIRE(std::string_view(hparams.get("missing"_s, "text")) == "text");

    // A key equal by hash finds the entry: {1: 'a'}.get(1.0) -> 'a'
    constexpr auto d = dict(pair(1_c, "a"_s));
    STATIC_REQUIRE(d.get(1.0_c) == "a"_s);
    STATIC_REQUIRE(d.get(True, None) == "a"_s);
    STATIC_REQUIRE(std::is_same_v<decltype(d.get(2_c)), none_t>);

    // On {}: everything is absent.
    STATIC_REQUIRE(dict().get("x"_s, 5) == 5);
}

TEST_CASE("dict: in / contains with a compile-time key") {
    STATIC_REQUIRE(static_true<decltype(hparams.contains("lr"_s))>);
    STATIC_REQUIRE(static_false<decltype(hparams.contains("momentum"_s))>);
    STATIC_REQUIRE(static_false<decltype(hparams.contains(1_c))>);
    STATIC_REQUIRE(static_true<decltype(in("epochs"_s, hparams))>);
    STATIC_REQUIRE(static_false<decltype(in("x"_s, hparams))>);

    constexpr auto ints = dict(pair(1_c, 0), pair(2.5_c, 0));
    STATIC_REQUIRE(static_true<decltype(ints.contains(1.0_c))>);
    STATIC_REQUIRE(static_true<decltype(ints.contains(True))>);
    STATIC_REQUIRE(static_false<decltype(ints.contains(False))>);
    STATIC_REQUIRE(static_false<decltype(ints.contains(None))>);
    STATIC_REQUIRE(static_false<decltype(dict().contains("x"_s))>);
}

TEST_CASE("dict: in / contains with a run-time key is looked up at run time") {
    const std::string lr = "lr";
    const std::string missing = "momentum";
    STATIC_REQUIRE(std::is_same_v<decltype(hparams.contains(lr)), bool>);
    REQUIRE(hparams.contains(lr));
    REQUIRE_FALSE(hparams.contains(missing));
    REQUIRE(hparams.contains(std::string_view("epochs")));
    REQUIRE(hparams.contains("epochs")); // a const char*
    REQUIRE_FALSE(hparams.contains(std::string("")));
    REQUIRE(in(lr, hparams));

    // A run-time number among number keys: 1 == 1.0 == True.
    constexpr auto ints = dict(pair(1_c, "a"_s), pair(2.5_c, "b"_s));
    REQUIRE(ints.contains(runtime_int(1)));
    REQUIRE_FALSE(ints.contains(runtime_int(2)));
    REQUIRE(ints.contains(2.5));
    REQUIRE(ints.contains(true));
    REQUIRE_FALSE(ints.contains(false));

    // A str is never an int key, and the answer is known from the types alone: '1' in {1: 'a'}
    // is False.
    STATIC_REQUIRE(static_false<decltype(ints.contains(std::string("1")))>);
    STATIC_REQUIRE(static_false<decltype(hparams.contains(runtime_int(1)))>);
}

TEST_CASE("dict: d[k] reads, and writes in place") {
    STATIC_REQUIRE(std::is_same_v<decltype(hparams["lr"_s]), const double&>);

    auto d = dict("lr"_s = 0.1, "epochs"_s = 10);
    STATIC_REQUIRE(std::is_same_v<decltype(d["lr"_s]), double&>);
    d["lr"_s] = 0.01; // d['lr'] = 0.01
    d["epochs"_s] += 5;
    REQUIRE(d["lr"_s] == 0.01);
    REQUIRE(d["epochs"_s] == 15);
    REQUIRE(repr(d) == "{'lr': 0.01, 'epochs': 15}");

    // A key equal by hash reaches the same entry.
    auto n = dict(pair(1_c, 0));
    n[True] = 7;
    n[1.0_c] += 1;
    REQUIRE(n[1_c] == 8);

    // A reference into the dict stays valid and aliases the entry.
    auto& ref = d["lr"_s];
    ref = 0.5;
    REQUIRE(d["lr"_s] == 0.5);

    // A temporary can be read.
    STATIC_REQUIRE(dict("a"_s = 3)["a"_s] == 3);
}

// =============================================================================================
// keys, values, items
// =============================================================================================

TEST_CASE("dict: keys, values and items in insertion order") {
    constexpr auto keys = hparams.keys();
    STATIC_REQUIRE(std::is_same_v<decltype(keys), const list<lr_t, epochs_t>>);
    STATIC_REQUIRE(keys == list("lr"_s, "epochs"_s));
    REQUIRE(repr(keys) == "['lr', 'epochs']");

    constexpr auto values = hparams.values();
    STATIC_REQUIRE(std::is_same_v<decltype(values), const list<double, int>>);
    STATIC_REQUIRE(values.at<0>() == 0.1);
    STATIC_REQUIRE(values.at<1>() == 10);
    REQUIRE(repr(values) == "[0.1, 10]");

    // items are std::tuple (key, value), as Python's are tuples.
    constexpr auto items = hparams.items();
    STATIC_REQUIRE(std::is_same_v<decltype(items),
                                  const list<std::tuple<lr_t, double>, std::tuple<epochs_t, int>>>);
    STATIC_REQUIRE(std::get<1>(items.at<1>()) == 10);
    REQUIRE(repr(items) == "[('lr', 0.1), ('epochs', 10)]");

    // Order is insertion order, not sorted order.
    constexpr auto z = dict("z"_s = 1, "a"_s = 2, "m"_s = 3);
    STATIC_REQUIRE(z.keys() == list("z"_s, "a"_s, "m"_s));
    REQUIRE(repr(z.items()) == "[('z', 1), ('a', 2), ('m', 3)]");

    // A structured binding over an item.
    const auto [key, value] = items.at<0>();
    REQUIRE(repr(key) == "'lr'");
    REQUIRE(value == 0.1);
}

TEST_CASE("dict: len, iteration, list(d) and list.extend(d) see the keys") {
    STATIC_REQUIRE(std::is_same_v<decltype(len(hparams)), size_<2>>);
    STATIC_REQUIRE(len(dict()) == 0);

    // list(d) -> ['lr', 'epochs']
    constexpr auto l = to_list(hparams);
    STATIC_REQUIRE(l == list("lr"_s, "epochs"_s));

    // [1].extend(d) -> [1, 'lr', 'epochs']
    constexpr auto x = list(1_c).extend(hparams);
    STATIC_REQUIRE(x == list(1_c, "lr"_s, "epochs"_s));
    REQUIRE(repr(x) == "[1, 'lr', 'epochs']");

    // for k in d: ... visits the keys in order.
    std::vector<std::string> seen;
    for_each(hparams, [&](const auto& k) { seen.push_back(repr(k)); });
    REQUIRE(seen == std::vector<std::string>{"'lr'", "'epochs'"});

    // ... and d[k] inside the loop reaches each value.
    std::vector<std::string> values;
    for_each(hparams, [&](const auto& k) { values.push_back(repr(hparams[k])); });
    REQUIRE(values == std::vector<std::string>{"0.1", "10"});

    // sum over int keys, sorted keys: the dict is an ordinary iterable.
    constexpr auto ints = dict(pair(3_c, 0), pair(1_c, 0), pair(2_c, 0));
    STATIC_REQUIRE(sum(ints) == 6);
    STATIC_REQUIRE(sorted(ints) == list(1_c, 2_c, 3_c));
}

// =============================================================================================
// update, |, |=
// =============================================================================================

TEST_CASE("dict: {'a': 1, 'b': 2}.update({'c': 3, 'b': 4}) is {'a': 1, 'b': 4, 'c': 3}") {
    constexpr auto d = dict("a"_s = 1, "b"_s = 2);
    constexpr auto u = d.update(dict("c"_s = 3, "b"_s = 4));
    STATIC_REQUIRE(u.keys() == list("a"_s, "b"_s, "c"_s));
    STATIC_REQUIRE(u["b"_s] == 4);
    STATIC_REQUIRE(u == dict("a"_s = 1, "b"_s = 4, "c"_s = 3));
    REQUIRE(repr(u) == "{'a': 1, 'b': 4, 'c': 3}");
    REQUIRE(repr(u.values()) == "[1, 4, 3]");
    // update returns the new dict; the original is unchanged.
    REQUIRE(repr(d) == "{'a': 1, 'b': 2}");
}

TEST_CASE("dict: update from pairs, keyword-style items and several sources at once") {
    // d.update([('c', 3), ('a', 10)])
    constexpr auto from_list =
        hparams.update(list(std::tuple("seed"_s, 3), std::pair("lr"_s, 0.2)));
    REQUIRE(repr(from_list) == "{'lr': 0.2, 'epochs': 10, 'seed': 3}");

    // Single items: staticpy::pair, std::pair, std::tuple.
    constexpr auto items =
        hparams.update(pair("a"_s, 1), std::pair{"epochs"_s, 11}, std::tuple{"b"_s, 2});
    REQUIRE(repr(items) == "{'lr': 0.1, 'epochs': 11, 'a': 1, 'b': 2}");

    // d.update(epochs=20, seed=1)
    constexpr auto kw = hparams.update("epochs"_s = 20, "seed"_s = 1);
    STATIC_REQUIRE(kw.keys() == list("lr"_s, "epochs"_s, "seed"_s));
    REQUIRE(repr(kw) == "{'lr': 0.1, 'epochs': 20, 'seed': 1}");

    // Several at once, applied left to right: the last value of a key wins.
    constexpr auto many =
        hparams.update(dict("x"_s = 1, "lr"_s = 0.3), list(pair("x"_s, 2)), "lr"_s = 0.4);
    STATIC_REQUIRE(many.keys() == list("lr"_s, "epochs"_s, "x"_s));
    REQUIRE(repr(many) == "{'lr': 0.4, 'epochs': 10, 'x': 2}");

    // Nothing to add: the same dict.
    STATIC_REQUIRE(std::is_same_v<decltype(hparams.update()), std::remove_cv_t<decltype(hparams)>>);
    STATIC_REQUIRE(hparams.update(dict()) == hparams);
}

TEST_CASE("dict: update may change a value's type") {
    // {'lr': 0.1}.update(lr='high') -> {'lr': 'high'}
    constexpr auto d = dict("lr"_s = 0.1, "epochs"_s = 10).update("lr"_s = "high"_s);
    STATIC_REQUIRE(
        std::is_same_v<decltype(d), const dict_t<pair<lr_t, str<"high">>, pair<epochs_t, int>>>);
    STATIC_REQUIRE(d.keys() == list("lr"_s, "epochs"_s));
    REQUIRE(repr(d) == "{'lr': 'high', 'epochs': 10}");

    // A key equal by hash updates the entry and keeps the key as first written: {1:
    // 'a'}.update({True: 'b'})
    constexpr auto n = dict(pair(1_c, "a"_s)).update(pair(True, 2.5));
    STATIC_REQUIRE(std::is_same_v<decltype(n), const dict_t<pair<int_<1>, double>>>);
    REQUIRE(repr(n) == "{1: 2.5}");
}

TEST_CASE("dict: d | e keeps d's order and takes e's values") {
    // {'lr': 0.1, 'epochs': 10} | {'seed': 0, 'lr': 0.5} -> {'lr': 0.5, 'epochs': 10, 'seed': 0}
    constexpr auto m = hparams | dict("seed"_s = 0, "lr"_s = 0.5);
    STATIC_REQUIRE(m.keys() == list("lr"_s, "epochs"_s, "seed"_s));
    STATIC_REQUIRE(m["lr"_s] == 0.5);
    REQUIRE(repr(m) == "{'lr': 0.5, 'epochs': 10, 'seed': 0}");

    // Not commutative: the right side's order when it comes first.
    constexpr auto r = dict("seed"_s = 0, "lr"_s = 0.5) | hparams;
    REQUIRE(repr(r) == "{'seed': 0, 'lr': 0.1, 'epochs': 10}");

    STATIC_REQUIRE((hparams | dict()) == hparams);
    STATIC_REQUIRE((dict() | hparams) == hparams);
    STATIC_REQUIRE(std::is_same_v<decltype(dict() | dict()), dict_t<>>);
}

TEST_CASE("dict: d |= e in place when the type stays the same") {
    auto d = dict("lr"_s = 0.1, "epochs"_s = 10);
    auto& result = (d |= dict("epochs"_s = 20));
    REQUIRE(&result == &d); // returns *this, as Python's |= rebinds to the same object
    REQUIRE(repr(d) == "{'lr': 0.1, 'epochs': 20}");

    // The same keys in another order: the type is d's, so this is in place too.
    d |= dict("epochs"_s = 30, "lr"_s = 0.3);
    REQUIRE(repr(d) == "{'lr': 0.3, 'epochs': 30}");

    // A key equal by hash to one of d's.
    auto n = dict(pair(1_c, 0));
    n |= dict(pair(True, 5));
    REQUIRE(repr(n) == "{1: 5}");

    // Also at compile time.
    constexpr int epochs = [] {
        auto c = dict("epochs"_s = 1);
        c |= dict("epochs"_s = 2);
        c |= dict();
        return c["epochs"_s];
    }();
    STATIC_REQUIRE(epochs == 2);
}

// =============================================================================================
// pop, popitem, setdefault, clear, copy, setitem, delitem
// =============================================================================================

TEST_CASE("dict: pop returns (new dict, value)") {
    // d.pop('lr') -> 0.1, leaving {'epochs': 10}
    constexpr auto popped = hparams.pop("lr"_s);
    STATIC_REQUIRE(
        std::is_same_v<decltype(popped), const std::tuple<dict_t<pair<epochs_t, int>>, double>>);
    const auto& [rest, value] = popped;
    REQUIRE(repr(rest) == "{'epochs': 10}");
    REQUIRE(value == 0.1);
    STATIC_REQUIRE(std::get<1>(hparams.pop("epochs"_s)) == 10);

    // The other keys keep their order: {'a': 1, 'b': 2, 'c': 3}.pop('b')
    constexpr auto abc = dict("a"_s = 1, "b"_s = 2, "c"_s = 3);
    STATIC_REQUIRE(std::get<0>(abc.pop("b"_s)).keys() == list("a"_s, "c"_s));
    STATIC_REQUIRE(std::get<1>(abc.pop("b"_s)) == 2);

    // A key equal by hash: {1: 'a'}.pop(True) -> 'a'
    STATIC_REQUIRE(std::get<1>(dict(pair(1_c, "a"_s)).pop(True)) == "a"_s);
    STATIC_REQUIRE(len(std::get<0>(dict(pair(1_c, "a"_s)).pop(1.0_c))) == 0);
}

TEST_CASE("dict: pop with a default") {
    // Present: the value, not the default. d.pop('lr', 5) -> 0.1
    constexpr auto present = hparams.pop("lr"_s, 5);
    STATIC_REQUIRE(
        std::is_same_v<std::tuple_element_t<1, std::remove_cv_t<decltype(present)>>, double>);
    STATIC_REQUIRE(std::get<1>(present) == 0.1);
    STATIC_REQUIRE(len(std::get<0>(present)) == 1);

    // Absent: the dict unchanged and the default. d.pop('x', 5) -> 5
    constexpr auto absent = hparams.pop("x"_s, 5);
    STATIC_REQUIRE(std::get<0>(absent) == hparams);
    STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(absent))>,
                                  std::remove_cv_t<decltype(hparams)>>);
    STATIC_REQUIRE(std::get<1>(absent) == 5);

    // The default may be None: d.pop('x', None) -> None
    STATIC_REQUIRE(std::get<1>(hparams.pop("x"_s, None)) == None);
    STATIC_REQUIRE(std::get<1>(dict().pop("x"_s, 1_c)) == 1);
}

TEST_CASE("dict: popitem removes the last inserted item") {
    // {'lr': 0.1, 'epochs': 10}.popitem() -> ('epochs', 10), leaving {'lr': 0.1}
    constexpr auto popped = hparams.popitem();
    STATIC_REQUIRE(
        std::is_same_v<decltype(popped),
                       const std::tuple<dict_t<pair<lr_t, double>>, std::tuple<epochs_t, int>>>);
    const auto& [rest, item] = popped;
    REQUIRE(repr(rest) == "{'lr': 0.1}");
    REQUIRE(repr(item) == "('epochs', 10)");

    // Updating an existing key does not move it: the last inserted key is still last.
    constexpr auto u = dict("a"_s = 1, "b"_s = 2).update("a"_s = 3);
    REQUIRE(repr(std::get<1>(u.popitem())) == "('b', 2)");

    // Until empty.
    constexpr auto once = std::get<0>(hparams.popitem());
    constexpr auto twice = std::get<0>(once.popitem());
    STATIC_REQUIRE(std::is_same_v<decltype(twice), const dict_t<>>);
    REQUIRE(repr(std::get<1>(once.popitem())) == "('lr', 0.1)");
}

TEST_CASE("dict: setdefault returns (new dict, value)") {
    // Present: unchanged, its value. d.setdefault('lr', 1.0) -> 0.1
    constexpr auto present = hparams.setdefault("lr"_s, 1.0);
    STATIC_REQUIRE(std::get<0>(present) == hparams);
    STATIC_REQUIRE(std::get<1>(present) == 0.1);

    // Absent: inserted last with the default. d.setdefault('seed', 42) -> 42
    constexpr auto absent = hparams.setdefault("seed"_s, 42);
    STATIC_REQUIRE(std::get<0>(absent).keys() == list("lr"_s, "epochs"_s, "seed"_s));
    STATIC_REQUIRE(std::get<1>(absent) == 42);
    REQUIRE(repr(std::get<0>(absent)) == "{'lr': 0.1, 'epochs': 10, 'seed': 42}");

    // Absent without a default: None. d.setdefault('x') -> None
    constexpr auto none = hparams.setdefault("x"_s);
    STATIC_REQUIRE(std::get<1>(none) == None);
    REQUIRE(repr(std::get<0>(none)) == "{'lr': 0.1, 'epochs': 10, 'x': None}");

    // A string literal default is stored as const char*.
    const auto text = dict().setdefault("name"_s, "resnet");
    REQUIRE(repr(std::get<0>(text)) == "{'name': 'resnet'}");
}

TEST_CASE("dict: clear and copy") {
    constexpr auto cleared = hparams.clear();
    STATIC_REQUIRE(std::is_same_v<decltype(cleared), const dict_t<>>);
    REQUIRE(repr(cleared) == "{}");

    auto original = dict("lr"_s = 0.1, "epochs"_s = 10);
    auto copy = original.copy();
    STATIC_REQUIRE(std::is_same_v<decltype(copy), decltype(original)>);
    REQUIRE(copy == original);
    copy["lr"_s] = 0.9; // a copy, not an alias
    REQUIRE(original["lr"_s] == 0.1);
    REQUIRE_FALSE(copy == original);
}

TEST_CASE("dict: setitem keeps an existing key's position and may change its type") {
    // d['lr'] = 'high' -> {'lr': 'high', 'epochs': 10}
    constexpr auto d = hparams.setitem("lr"_s, "high"_s);
    STATIC_REQUIRE(
        std::is_same_v<decltype(d), const dict_t<pair<lr_t, str<"high">>, pair<epochs_t, int>>>);
    REQUIRE(repr(d) == "{'lr': 'high', 'epochs': 10}");

    // A new key goes last: d['seed'] = 0
    constexpr auto e = hparams.setitem("seed"_s, 0);
    STATIC_REQUIRE(e.keys() == list("lr"_s, "epochs"_s, "seed"_s));
    REQUIRE(repr(e) == "{'lr': 0.1, 'epochs': 10, 'seed': 0}");

    // A key equal by hash keeps the key first written: {1: 'a'}; d[1.0] = 'b' -> {1: 'b'}
    constexpr auto n = dict(pair(1_c, "a"_s)).setitem(1.0_c, "b"_s);
    REQUIRE(repr(n) == "{1: 'b'}");

    // A string literal is stored as const char*.
    const auto lit = hparams.setitem("lr"_s, "text");
    REQUIRE(repr(lit) == "{'lr': 'text', 'epochs': 10}");

    // setitem on {} starts a dict.
    STATIC_REQUIRE(dict().setitem("a"_s, 1_c) == dict("a"_s = 1_c));
}

TEST_CASE("dict: delitem removes a key and keeps the others' order") {
    // del d['lr'] -> {'epochs': 10}
    constexpr auto d = hparams.delitem("lr"_s);
    STATIC_REQUIRE(std::is_same_v<decltype(d), const dict_t<pair<epochs_t, int>>>);
    REQUIRE(repr(d) == "{'epochs': 10}");

    constexpr auto abc = dict("a"_s = 1, "b"_s = 2, "c"_s = 3);
    STATIC_REQUIRE(abc.delitem("b"_s).keys() == list("a"_s, "c"_s));
    STATIC_REQUIRE(abc.delitem("a"_s).keys() == list("b"_s, "c"_s));
    STATIC_REQUIRE(abc.delitem("c"_s).keys() == list("a"_s, "b"_s));
    STATIC_REQUIRE(std::is_same_v<decltype(dict("a"_s = 1).delitem("a"_s)), dict_t<>>);
    // By a key equal by hash: del {1: 'a'}[True]
    STATIC_REQUIRE(len(dict(pair(1_c, "a"_s)).delitem(True)) == 0);
}

// =============================================================================================
// == and !=
// =============================================================================================

TEST_CASE("dict: == ignores order") {
    // {'lr': 0.1, 'epochs': 10} == {'epochs': 10, 'lr': 0.1} -> True
    STATIC_REQUIRE(std::is_same_v<decltype(hparams == dict("epochs"_s = 10, "lr"_s = 0.1)), bool>);
    STATIC_REQUIRE(hparams == dict("epochs"_s = 10, "lr"_s = 0.1));
    STATIC_REQUIRE(!(hparams != dict("epochs"_s = 10, "lr"_s = 0.1)));

    // Compile-time values: the answer is a type.
    constexpr auto a = dict("x"_s = 1_c, "y"_s = "s"_s);
    constexpr auto b = dict("y"_s = "s"_s, "x"_s = 1_c);
    STATIC_REQUIRE(static_true<decltype(a == b)>);
    STATIC_REQUIRE(static_false<decltype(a != b)>);

    // 1 == 1.0 == True, for values and keys alike: {1: 1} == {True: 1.0}
    STATIC_REQUIRE(static_true<decltype(dict(pair(1_c, 1_c)) == dict(pair(True, 1.0_c)))>);

    STATIC_REQUIRE(static_true<decltype(dict() == dict())>);

    // Nested dicts compare by their items too.
    constexpr auto nested1 = dict("opt"_s = dict("lr"_s = 1_c, "beta"_s = 2_c));
    constexpr auto nested2 = dict("opt"_s = dict("beta"_s = 2_c, "lr"_s = 1_c));
    STATIC_REQUIRE(static_true<decltype(nested1 == nested2)>);
}

TEST_CASE("dict: != for different sizes, keys, values and unrelated value types") {
    // Different sizes: {'a': 1} != {'a': 1, 'b': 2}, known from the types.
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = 1) == dict("a"_s = 1, "b"_s = 2))>);
    STATIC_REQUIRE(static_true<decltype(dict("a"_s = 1) != dict("a"_s = 1, "b"_s = 2))>);

    // Different keys: {'a': 1} != {'b': 1}, known from the types.
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = 1) == dict("b"_s = 1))>);

    // Different values.
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = 1_c) == dict("a"_s = 2_c))>);
    STATIC_REQUIRE(!(hparams == dict("lr"_s = 0.2, "epochs"_s = 10)));
    STATIC_REQUIRE(hparams != dict("lr"_s = 0.1, "epochs"_s = 11));

    // Values of unrelated types are unequal, not a compile error: {'a': 1} != {'a': '1'}
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = 1) == dict("a"_s = "1"_s))>);
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = 1) == dict("a"_s = list(1)))>);
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = opaque{}) == dict("a"_s = 1))>);
    STATIC_REQUIRE(static_false<decltype(dict("a"_s = None) == dict("a"_s = 0))>);
    STATIC_REQUIRE(static_true<decltype(dict("a"_s = 1) != dict("a"_s = "1"_s))>);
}

TEST_CASE("dict: == with run-time values is decided at run time") {
    const auto a = dict("n"_s = runtime_int(3), "s"_s = std::string("x"));
    const auto b = dict("s"_s = std::string("x"), "n"_s = runtime_int(3));
    const auto c = dict("s"_s = std::string("y"), "n"_s = runtime_int(3));
    STATIC_REQUIRE(std::is_same_v<decltype(a == b), bool>);
    REQUIRE(a == b);
    REQUIRE_FALSE(a == c);
    REQUIRE(a != c);
    // A run-time 3 against a compile-time 3.0.
    REQUIRE(dict("n"_s = runtime_int(3)) == dict("n"_s = 3.0_c));
    // Different key sets are unequal whatever the values.
    STATIC_REQUIRE(static_false<decltype(a == dict("n"_s = runtime_int(3)))>);
}

// =============================================================================================
// repr
// =============================================================================================

TEST_CASE("dict: repr as Python prints it") {
    REQUIRE(repr(hparams) == "{'lr': 0.1, 'epochs': 10}");
    REQUIRE(repr(dict()) == "{}");
    REQUIRE(str_of(hparams) == "{'lr': 0.1, 'epochs': 10}");

    // Nested dict and list values.
    constexpr auto nested =
        dict("a"_s = dict(pair(1_c, 2)), "b"_s = list(1, "x"_s), "c"_s = dict());
    REQUIRE(repr(nested) == "{'a': {1: 2}, 'b': [1, 'x'], 'c': {}}");

    // A dict inside a list, a tuple value, floats, bools and a str that needs double quotes.
    REQUIRE(repr(list(dict("k"_s = 1), dict())) == "[{'k': 1}, {}]");
    REQUIRE(repr(dict("t"_s = std::tuple(1, "a"_s), "one"_s = std::tuple(1))) ==
            "{'t': (1, 'a'), 'one': (1,)}");
    REQUIRE(repr(dict("eps"_s = 1e-05, "big"_s = 1e16, "two"_s = 2.0)) ==
            "{'eps': 1e-05, 'big': 1e+16, 'two': 2.0}");
    REQUIRE(repr(dict("it's"_s = True, "x"_s = False)) == "{\"it's\": True, 'x': False}");
    REQUIRE(repr(dict(pair(None, None))) == "{None: None}");

    // operator<< prints the repr.
    std::ostringstream os;
    os << hparams;
    REQUIRE(os.str() == "{'lr': 0.1, 'epochs': 10}");
}

// =============================================================================================
// Run-time values, compile-time keys
// =============================================================================================

TEST_CASE("dict: run-time values are looked up by compile-time keys") {
    // (The value is a prvalue: clang 14 crashes on `"k"_s = lvalue` next to a std::string
    // temporary in one full-expression, while printing a str<"..."> template argument.)
    auto d = dict("n"_s = runtime_int(7), "name"_s = std::string("net"), "scale"_s = 0.5);
    const int n = d["n"_s];
    STATIC_REQUIRE(!is_compile_time_v<decltype(d)>);

    // The lookups are resolved at compile time: the types say where each key is.
    STATIC_REQUIRE(std::is_same_v<decltype(d["n"_s]), int&>);
    STATIC_REQUIRE(std::is_same_v<decltype(d["name"_s]), std::string&>);
    STATIC_REQUIRE(static_true<decltype(d.contains("n"_s))>);
    STATIC_REQUIRE(static_false<decltype(d.contains("m"_s))>);
    STATIC_REQUIRE(len(d) == 3);
    STATIC_REQUIRE(d.keys() == list("n"_s, "name"_s, "scale"_s));

    REQUIRE(d["n"_s] == 7);
    REQUIRE(d["name"_s] == "net");
    REQUIRE(d.get("n"_s, 0) == 7);
    REQUIRE(repr(d) == "{'n': 7, 'name': 'net', 'scale': 0.5}");

    d["n"_s] = runtime_int(8);
    const auto e = d.update("n"_s = runtime_int(9), "extra"_s = 1_c);
    REQUIRE(e["n"_s] == 9);
    REQUIRE(repr(e) == "{'n': 9, 'name': 'net', 'scale': 0.5, 'extra': 1}");

    const auto [rest, popped] = d.pop("n"_s);
    REQUIRE(popped == 8);
    REQUIRE(repr(rest) == "{'name': 'net', 'scale': 0.5}");

    // fromkeys with a run-time value.
    const auto f = dict.fromkeys("ab"_s, n);
    REQUIRE(repr(f) == "{'a': 7, 'b': 7}");
}

TEST_CASE("dict: methods with \"k\"_s arguments on a dict holding a std::string") {
    // Each of these once crashed clang 14 (see the note above dict_t in dict.hpp); they must
    // compile on every supported compiler and keep Python's results.
    auto d = dict("n"_s = runtime_int(1), "s"_s = std::string("x"));
    const auto updated = d.update("m"_s = 2);
    const auto merged = d | dict("m"_s = 2);
    const auto rebuilt = dict(d, "m"_s = 2);
    const auto nested = d.update(dict("m"_s = 2));
    const auto set = d.setitem("m"_s, 2);
    const auto [defaulted, two] = d.setdefault("m"_s, 2);
    const auto [rest, one] = d.pop("n"_s);
    const auto deleted = d.delitem("n"_s);
    const auto s = d.get("s"_s);
    const std::string s2 = d["s"_s];
    d |= dict("n"_s = 5);
    REQUIRE(repr(updated) == "{'n': 1, 's': 'x', 'm': 2}");
    REQUIRE(merged == updated);
    REQUIRE(rebuilt == updated);
    REQUIRE(nested == updated);
    REQUIRE(set == updated);
    REQUIRE(defaulted == updated);
    REQUIRE(two == 2);
    REQUIRE(repr(rest) == "{'s': 'x'}");
    REQUIRE(one == 1);
    REQUIRE(deleted == rest);
    REQUIRE(s == "x");
    REQUIRE(s2 == "x");
    REQUIRE(d["n"_s] == 5);
}

namespace {
// A function whose argument sits in a dict: the argument is run-time, the keys are not.
auto make_config(double lr, int epochs) {
    return dict("lr"_s = lr, "epochs"_s = epochs);
}
} // namespace

TEST_CASE("dict: a dict built from function arguments") {
    auto cfg = make_config(0.25, runtime_int(4));
    STATIC_REQUIRE(std::is_same_v<decltype(cfg), std::remove_cv_t<decltype(hparams)>>);
    REQUIRE(cfg["lr"_s] == 0.25);
    REQUIRE(cfg["epochs"_s] == 4);
    REQUIRE(cfg != hparams);
    cfg |= hparams;
    REQUIRE(cfg == hparams);
}

// =============================================================================================
// constexpr
// =============================================================================================

namespace {
template <int N>
struct fixed_size {
    static constexpr int value = N;
};
} // namespace

TEST_CASE("dict: constexpr dicts, lookups in static_assert and as template arguments") {
    constexpr auto d = dict("batch"_s = 32, "layers"_s = 4_c, "dropout"_s = 0.5);
    static_assert(d["batch"_s] == 32);
    STATIC_REQUIRE(d.get("dropout"_s) == 0.5);

    // A run-time-typed value of a constexpr dict is a constant expression...
    std::array<int, d["batch"_s]> buffer{};
    STATIC_REQUIRE(buffer.size() == 32);
    STATIC_REQUIRE(fixed_size<d["batch"_s]>::value == 32);

    // ... and a compile-time value is one even through its type.
    using layers_t = std::remove_cvref_t<decltype(d["layers"_s])>;
    STATIC_REQUIRE(std::is_same_v<layers_t, int_<4>>);
    STATIC_REQUIRE(fixed_size<layers_t::value>::value == 4);

    // A dict of compile-time values is compile-time as a whole.
    constexpr auto c = dict("a"_s = 1_c, "b"_s = "x"_s, "c"_s = None);
    STATIC_REQUIRE(is_compile_time_v<decltype(c)>);
    STATIC_REQUIRE(!is_compile_time_v<decltype(d)>);

    // Chains of methods evaluate in constant expressions.
    constexpr auto chain =
        dict("a"_s = 1).update("b"_s = 2).setitem("a"_s, 10).delitem("b"_s) | dict("z"_s = 3);
    STATIC_REQUIRE(chain == dict("a"_s = 10, "z"_s = 3));
    STATIC_REQUIRE(std::get<1>(std::get<0>(chain.popitem()).pop("a"_s)) == 10);

    // Mutation through d[k] inside a constexpr function.
    constexpr int total = [] {
        auto m = dict("a"_s = 1, "b"_s = 2);
        m["a"_s] += 10;
        m["b"_s] *= 3;
        return m["a"_s] + m["b"_s];
    }();
    STATIC_REQUIRE(total == 17);
}
