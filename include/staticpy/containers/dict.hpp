#pragma once
// Python's dict as a heterogeneous compile-time container: compile-time keys, values of any type.
//
//   constexpr auto d = dict("lr"_s = 0.1, "epochs"_s = 10);     // {'lr': 0.1, 'epochs': 10}
//   constexpr auto e = d.update("epochs"_s = 20, "seed"_s = 1);  // {'lr': 0.1, 'epochs': 20,
//   'seed': 1}
//
// Keys are compile-time str, int, float, bool or None, compared as Python hashes them: 1_c, 1.0_c
// and True are one key. Every way of building a dict follows Python's order rule: a key keeps the
// position of its first occurrence and takes the value of its last (construction, update, |,
// fromkeys, setitem). Methods that mutate in Python return the new dict here, since a new key or a
// value of another type changes the dict's type (MindSpore's graph mode does the same).

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include "staticpy/containers/iter.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/core/value.hpp"

namespace staticpy {

template <class... Items>
class dict_t;

template <class... Items>
struct python_kind<dict_t<Items...>> : std::integral_constant<kind, kind::dict> {};
template <class... Items>
struct is_compile_time<dict_t<Items...>>
    : std::bool_constant<and_v<is_compile_time<decltype(Items::value)>::value...>> {};

template <class T>
inline constexpr bool is_dict_v = false;
template <class... Items>
inline constexpr bool is_dict_v<dict_t<Items...>> = true;

namespace detail {

/// A key as Python hashes it: numbers by value (1 == 1.0 == True), str by text, None alone.
struct key_id {
    int category = 0; // 0 number, 1 str, 3 None
    long double number = 0;
    std::string_view text{};
    friend constexpr bool operator==(const key_id& a, const key_id& b) {
        // A NaN key is one key with itself: Python finds `nan` in {nan: 1} by identity, and a
        // compile-time float_ is the same object wherever it is written. (NaN != NaN would also
        // make every lookup of it run past the end of the key table.)
        const bool same_number =
            a.number == b.number || (a.number != a.number && b.number != b.number);
        return a.category == b.category && same_number && a.text == b.text;
    }
};

template <class K>
constexpr key_id key_id_of() {
    if constexpr (std::is_same_v<K, none_t>)
        return {3, 0, {}};
    else
        return {sort_key_of<K>().category, sort_key_of<K>().number, sort_key_of<K>().text};
}

template <class K>
struct bad_key {
    static constexpr kind k = kind_v<std::decay_t<K>>; // decay: "lr" (char[3]) is a run-time str
    static_assert(k != kind::integer,
                  "staticpy: TypeError: The key should be a compile-time str, "
                  "int, float, bool or None, but got a run-time int (write 1_c)");
    static_assert(k != kind::floating, "staticpy: TypeError: The key should be a compile-time str, "
                                       "int, float, bool or None, but got a run-time float");
    static_assert(k != kind::boolean,
                  "staticpy: TypeError: The key should be a compile-time str, "
                  "int, float, bool or None, but got a run-time bool (write True)");
    static_assert(k != kind::string,
                  "staticpy: TypeError: The key should be a compile-time str, "
                  "int, float, bool or None, but got a run-time str (write \"k\"_s)");
    static_assert(k != kind::list, "staticpy: TypeError: unhashable type: 'list'");
    static_assert(k != kind::dict, "staticpy: TypeError: unhashable type: 'dict'");
    static_assert(k != kind::tuple, "staticpy: TypeError: The key should be a compile-time str, "
                                    "int, float, bool or None, but got a tuple");
    static_assert(k != kind::other, "staticpy: TypeError: The key should be a compile-time str, "
                                    "int, float, bool or None, but got another type");
};

template <class K>
inline constexpr bool is_key_v = is_scalar_constant_v<K>;

/// d["k"_s] on a non-const dict whose value is a compile-time constant: reads as the constant
/// (it is one, by inheritance), refuses assignment with Python's TypeError and the way out.
template <class V>
struct constant_item : V {
    template <class U>
    constexpr const constant_item& operator=(const U&) const {
        static_assert(std::is_same_v<U, V> || std::is_same_v<U, constant_item>,
                      "staticpy: TypeError: d[k] = v cannot assign in place: the stored value is a "
                      "compile-time constant, or v's type differs from it; write "
                      "d2 = d.setitem(k, v) or d2 = d | dict(k = v), which return the new dict");
        return *this;
    }
    // Exact matches, so that no C++20 rewritten comparison against V's own operators (whose
    // results are bool_constants, not bool) is preferred for a derived class.
    template <class U>
    friend constexpr auto operator==(const constant_item& a, const U& b) {
        return static_cast<const V&>(a) == b;
    }
    template <class U>
    friend constexpr auto operator!=(const constant_item& a, const U& b) {
        return static_cast<const V&>(a) != b;
    }
};

// Python's text, less the element's index (#0), which a static_assert cannot format.
template <class T>
struct bad_item {
    static_assert(always_false<T>,
                  "staticpy: TypeError: cannot convert dictionary update sequence element to a "
                  "sequence (an item is \"k\"_s = v, pair(k, v), std::pair or a 2-element "
                  "std::tuple)");
};

/// One (key, value) argument, in any of the forms dict accepts, as a staticpy::pair.
template <class Arg>
constexpr auto to_item(const Arg& arg) {
    if constexpr (requires {
                      arg.key;
                      arg.value;
                  }) {
        return pair<std::remove_cvref_t<decltype(arg.key)>,
                    std::remove_cvref_t<decltype(arg.value)>>{arg.key, arg.value};
    } else if constexpr (traits::is_std_tuple_or_pair_v<Arg>) {
        if constexpr (std::tuple_size_v<Arg> == 2) {
            return pair<std::tuple_element_t<0, Arg>, std::tuple_element_t<1, Arg>>{
                std::get<0>(arg), std::get<1>(arg)};
        } else {
            static_assert(std::tuple_size_v<Arg> == 2,
                          "staticpy: ValueError: dictionary update sequence element has the wrong "
                          "length; 2 is required");
            return pair<none_t, none_t>{};
        }
    } else {
        (void)bad_item<Arg>{};
        return pair<none_t, none_t>{};
    }
}

/// Where each distinct key first stands, and where it last stands: Python's order rule.
template <std::size_t N>
struct dedup_plan {
    positions<N> first; // result position r takes its key from first.index[r]
    positions<N> last;  // ... and its value from last.index[r]
};

/// A hash of a key consistent with key_id's ==: equal numbers hash alike whatever their type.
constexpr std::uint64_t key_hash(const key_id& id) {
    std::uint64_t h = 1469598103934665603ULL ^ static_cast<std::uint64_t>(id.category);
    auto mix = [&](std::uint64_t v) {
        for (int byte = 0; byte < 8; ++byte) {
            h ^= (v >> (8 * byte)) & 0xff;
            h *= 1099511628211ULL;
        }
    };
    if (id.number != id.number)
        mix(0x7ff8000000000000ULL); // every NaN is one key
    else if (id.number == static_cast<long double>(static_cast<long long>(id.number)) &&
             id.number < 9.2e18L && id.number > -9.2e18L)
        mix(static_cast<std::uint64_t>(static_cast<long long>(id.number)));
    else
        mix(std::bit_cast<std::uint64_t>(static_cast<double>(id.number)));
    for (char c : id.text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

/// Python's order rule in one pass over an open-addressing hash table: O(n) steps, where
/// comparing every key with every other one would exceed clang's constexpr step limit at a
/// few hundred keys.
template <class... Ks>
constexpr auto plan_dedup() {
    constexpr std::size_t n = sizeof...(Ks);
    constexpr std::array<key_id, n + 1> ids{key_id_of<Ks>()..., key_id{}};
    constexpr std::size_t capacity = std::bit_ceil(2 * n + 2);
    std::array<std::size_t, capacity> table{}; // 1 + the result position holding that key
    dedup_plan<n> plan;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t slot = key_hash(ids[i]) & (capacity - 1);
        while (table[slot] != 0 && !(ids[plan.first.index[table[slot] - 1]] == ids[i]))
            slot = (slot + 1) & (capacity - 1);
        if (table[slot] == 0) {
            plan.first.push(i);
            plan.last.push(i);
            table[slot] = plan.first.length;
        } else {
            plan.last.index[table[slot] - 1] = i; // the last value wins
        }
    }
    return plan;
}

/// The one type that stands for every key equal to K: 1_c, 1.0_c and True all map to int_<1>,
/// so that a lookup is an overload resolution (key_index) instead of a search.
template <class K>
constexpr auto canonical_key() {
    if constexpr (is_str_constant_v<K> || std::is_same_v<K, none_t>) {
        return K{};
    } else {
        constexpr long double v = static_cast<long double>(K::value);
        if constexpr (v != v)
            return float_<0x7ff8000000000000ULL>{};
        else if constexpr (v < 9.2e18L && v > -9.2e18L &&
                           static_cast<long double>(static_cast<long long>(v)) == v)
            return int_<static_cast<long long>(v)>{};
        else
            return float_<std::bit_cast<std::uint64_t>(static_cast<double>(v))>{};
    }
}
template <class K>
using canonical_key_t = decltype(canonical_key<K>());

template <class Canonical, std::size_t I>
struct key_slot {
    static size_<I> find(const Canonical*);
};

/// Inherits one find() per key: the position of a key is the overload that its canonical
/// type selects (Boost.MP11's technique), the fallback giving the size when it is absent.
template <class Positions, class... Ks>
struct key_index;
template <std::size_t... I, class... Ks>
struct key_index<std::index_sequence<I...>, Ks...> : key_slot<canonical_key_t<Ks>, I>... {
    using key_slot<canonical_key_t<Ks>, I>::find...;
    static size_<sizeof...(Ks)> find(const void*);
};

template <class Item>
using key_of = std::remove_cvref_t<decltype(std::declval<Item>().key)>;
template <class Item>
using value_of = std::remove_cvref_t<decltype(std::declval<Item>().value)>;

/// The dict of items (pairs), duplicates resolved as Python resolves them. The one mechanism
/// behind construction, update, |, setitem and fromkeys.
template <class... Items>
constexpr auto dict_from_items(const hana::tuple<Items...>& items) {
    if constexpr (!and_v<is_key_v<key_of<Items>>...>) {
        constexpr std::size_t bad = [] {
            constexpr bool ok[] = {is_key_v<key_of<Items>>...};
            std::size_t i = 0;
            while (ok[i])
                ++i;
            return i;
        }();
        using K = key_of<std::remove_cvref_t<decltype(hana::at_c<bad>(items))>>;
        (void)bad_key<K>{};
        return None;
    } else {
        constexpr auto plan = plan_dedup<key_of<Items>...>();
        return [&]<std::size_t... R>(std::index_sequence<R...>) {
            return dict_t<pair<
                key_of<std::remove_cvref_t<decltype(hana::at_c<plan.first.index[R]>(items))>>,
                value_of<std::remove_cvref_t<decltype(hana::at_c<plan.last.index[R]>(items))>>>...>(
                hana::make_tuple(
                    pair<key_of<
                             std::remove_cvref_t<decltype(hana::at_c<plan.first.index[R]>(items))>>,
                         value_of<
                             std::remove_cvref_t<decltype(hana::at_c<plan.last.index[R]>(items))>>>{
                        {}, hana::at_c<plan.last.index[R]>(items).value}...));
        }
        (std::make_index_sequence<plan.first.length>{});
    }
}

/// The items of each argument: a dict gives its items, an iterable of pairs its elements, and
/// a single pair (or "k"_s = v) itself.
template <class Arg>
constexpr auto items_of(const Arg& arg) {
    if constexpr (is_dict_v<Arg>) {
        return arg.entries;
    } else if constexpr (is_list_v<Arg> || is_hana_tuple<Arg>::value) {
        return hana::unpack(iter_elements(arg),
                            [](const auto&... e) { return hana::make_tuple(to_item(e)...); });
    } else if constexpr (is_number_v<Arg> || std::is_same_v<Arg, none_t>) {
        // dict(1) / d.update(1): Python's "'int' object is not iterable", not a pair error.
        return iter_elements(arg); // a compile error; the empty tuple it returns adds none
    } else {
        return hana::make_tuple(to_item(arg));
    }
}

/// The elements of the tuples, in order, in one hana::tuple: hana::flatten of a tuple of them,
/// without <boost/hana/flatten.hpp>, whose Monad concept costs more to compile than dict. One
/// step: each element is picked by its (tuple, position) pair, computed once; joining the tuples
/// pairwise built every prefix, code quadratic in the items (a deep model's parameter dict).
template <class... Ts>
constexpr auto concat_all(const Ts&... ts) {
    constexpr std::array<std::size_t, sizeof...(Ts) + 1> sizes{
        decltype(hana::size(std::declval<const Ts&>()))::value..., 0};
    constexpr std::size_t total = [&] {
        std::size_t n = 0;
        for (std::size_t k : sizes)
            n += k;
        return n;
    }();
    struct place {
        std::size_t tuple = 0, index = 0;
    };
    constexpr auto places = [&] {
        std::array<place, total> out{};
        std::size_t at = 0;
        for (std::size_t t = 0; t < sizeof...(Ts); ++t)
            for (std::size_t i = 0; i < sizes[t]; ++i)
                out[at++] = place{t, i};
        return out;
    }();
    const auto all = std::forward_as_tuple(ts...);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return hana::make_tuple(
            hana::at_c<places[I].index>(std::get<places[I].tuple>(all))...);
    }
    (std::make_index_sequence<total>{});
}

template <class... Args>
constexpr auto dict_from_args(const Args&... args) {
    return dict_from_items(concat_all(items_of(args)...));
}

} // namespace detail

// Keys, items and dicts passed to the methods below are taken by value. Keys are empty types, so
// this costs nothing; and clang 14 crashes (a segfault printing a "k"_s literal-operator-template
// call) when a failed constant evaluation, which it tries on `auto e = d.pop("k"_s)` for a dict
// holding a std::string, would name a reference bound to a "k"_s temporary in its note.
template <class... Items>
class dict_t {
public:
    static constexpr std::size_t N = sizeof...(Items);

    /// The (key, value) pairs in insertion order, as a hana::tuple of staticpy::pair.
    hana::tuple<Items...> entries;

    constexpr dict_t() requires(and_v<std::is_default_constructible_v<Items>...>) = default;
    constexpr explicit dict_t(hana::tuple<Items...> items) : entries(std::move(items)) {}

    [[nodiscard]] static constexpr std::size_t size() { return N; }

    // ---------------------------------------------------------------- lookup

    /// d["k"_s]: a reference to the value; a compile error naming KeyError when absent.
    // Written out rather than through value_at/checked_position: a program reads many keys, and
    // every helper template instantiated per key is compile time.
    template <class K>
    constexpr const auto& operator[](K) const& {
        constexpr std::size_t p = checked_position<K>();
        return hana::at_c<p>(entries).value;
    }
    // A compile-time value lives in its type, so d["k"_s] = v cannot store v: that d[k] is a
    // constant_item, whose operator= says so (and names setitem and |) instead of C++'s "no match
    // for operator=" or, for a str, str's own item-building operator=.
    template <class K>
    constexpr decltype(auto) operator[](K) & {
        constexpr std::size_t p = checked_position<K>();
        using V = std::remove_cvref_t<decltype(hana::at_c<p>(entries).value)>;
        if constexpr (is_scalar_constant_v<V>)
            return detail::constant_item<V>{};
        else
            return (hana::at_c<p>(entries).value);
    }

    /// d.get(k) is the value or None; d.get(k, default) the value or default.
    template <class K, class D = none_t>
    [[nodiscard]] constexpr auto get(K, const D& fallback = {}) const {
        check_key<K>();
        if constexpr (position_of<K>() == N)
            return fallback;
        else
            return value_at<position_of<K>()>(*this);
    }

    /// k in d: compile-time for a compile-time key; a run-time str or number is looked up at
    /// run time among the keys.
    template <class K>
    [[nodiscard]] constexpr auto contains(const K& k) const {
        if constexpr (detail::is_key_v<K>) {
            return bool_<(position_of<K>() < N)>{};
        } else if constexpr (std::is_array_v<K> &&
                             std::is_same_v<std::remove_cv_t<std::remove_extent_t<K>>, char>) {
            // "lr" in d: a string literal binds as char[N], which is no str kind of its own.
            return contains(std::string_view(k));
        } else if constexpr (kind_v<K> == kind::list || kind_v<K> == kind::dict) {
            (void)detail::bad_key<K>{}; // Python: [1] in d is a TypeError, not False
            return std::false_type{};
        } else {
            return unpack_positions(
                [&](auto... i) { return any_true(py_eq(key_at<decltype(i)::value>(), k)...); });
        }
    }

    /// The keys, values and (key, value) tuples, in insertion order, as lists.
    [[nodiscard]] static constexpr auto keys() { return list<detail::key_of<Items>...>{}; }
    [[nodiscard]] constexpr auto values() const {
        return unpack_positions([&](auto... i) {
            return list<detail::value_of<Items>...>(value_at<decltype(i)::value>(*this)...);
        });
    }
    [[nodiscard]] constexpr auto items() const {
        return unpack_positions([&](auto... i) {
            return list<std::tuple<detail::key_of<Items>, detail::value_of<Items>>...>(
                std::tuple(key_at<decltype(i)::value>(), value_at<decltype(i)::value>(*this))...);
        });
    }

    // ---------------------------------------------------------------- Python's methods

    /// Python's dict.fromkeys(iterable, value=None): every key from a list, tuple, dict (its
    /// keys) or "str"_s (its characters), each with value; repeated keys collapse.
    template <class Iterable, class V = none_t>
    [[nodiscard]] static constexpr auto fromkeys(const Iterable& keys, const V& value = {}) {
        return hana::unpack(iter_elements(keys), [&](const auto&... k) {
            // decay_t: a string literal value is stored as const char*, as "k"_s = "text" does.
            return detail::dict_from_items(hana::make_tuple(
                pair<std::remove_cvref_t<decltype(k)>, std::decay_t<const V&>>{k, value}...));
        });
    }

    /// Python's d.update(other, k=v, ...): other is a dict or an iterable of pairs; each
    /// argument may also be a single pair or "k"_s = v. Returns the updated dict.
    template <class... Args>
    [[nodiscard]] constexpr auto update(Args... args) const {
        return detail::dict_from_args(*this, args...);
    }

    /// Returns (new dict, value). Without a default, a missing key is a compile error (KeyError).
    template <class K, class... D>
    [[nodiscard]] constexpr auto pop(K, const D&... fallback) const {
        static_assert(sizeof...(D) <= 1, "staticpy: TypeError: pop expected at most 2 arguments");
        check_key<K>();
        constexpr std::size_t p = position_of<K>();
        if constexpr (p == N && sizeof...(D) == 1) {
            return std::tuple(*this, fallback...);
        } else {
            if constexpr (p == N)
                key_error<K>();
            if constexpr (p == N)
                return std::tuple(*this, None);
            else
                return std::tuple(without<p>(), value_at<p>(*this));
        }
    }

    /// Returns (new dict, (key, value)) for the last inserted item.
    [[nodiscard]] constexpr auto popitem() const {
        static_assert(N > 0, "staticpy: KeyError: 'popitem(): dictionary is empty'");
        if constexpr (N == 0)
            return std::tuple(*this, None);
        else
            return std::tuple(without<N - 1>(),
                              std::tuple(key_at<N - 1>(), value_at<N - 1>(*this)));
    }

    /// Returns (new dict, value): the value of k, inserting k with default when it is absent.
    template <class K, class D = none_t>
    [[nodiscard]] constexpr auto setdefault(K k, const D& fallback = {}) const {
        check_key<K>();
        if constexpr (position_of<K>() < N)
            return std::tuple(*this, value_at<position_of<K>()>(*this));
        else
            return std::tuple(update(pair<K, std::decay_t<const D&>>{k, fallback}), fallback);
    }

    [[nodiscard]] static constexpr dict_t<> clear() { return dict_t<>{}; }
    [[nodiscard]] constexpr dict_t copy() const { return *this; }

    /// Python's d[k] = v as a new dict: an existing key keeps its position, the value (and its
    /// type) is replaced; a new key goes last. (d["k"_s] = v assigns in place, as C++ does.)
    template <class K, class V>
    [[nodiscard]] constexpr auto setitem(K k, const V& v) const {
        return update(pair<K, std::decay_t<const V&>>{k, v}); // decay_t: "text" as const char*
    }

    /// Python's del d[k], as a new dict; KeyError when k is absent.
    template <class K>
    [[nodiscard]] constexpr auto delitem(K) const {
        return without<checked_position<K>()>();
    }

    // ---------------------------------------------------------------- operators

    /// d | e: the keys of d then e's new ones; e's values win.
    template <class... Others>
    [[nodiscard]] friend constexpr auto operator|(const dict_t& a, dict_t<Others...> b) {
        return a.update(b);
    }

    /// d |= e works in place when it keeps d's type (no new key, same value types); otherwise
    /// write d2 = d | e, since a C++ variable cannot change its type.
    template <class... Others>
    constexpr dict_t& operator|=(dict_t<Others...> other) {
        using merged = decltype(update(other));
        static_assert(std::is_same_v<merged, dict_t>,
                      "staticpy: TypeError: d |= e would change the dict's type (a new key or a "
                      "value of another type); write auto d2 = d | e");
        if constexpr (std::is_same_v<merged, dict_t>)
            *this = update(other);
        return *this;
    }

    /// Equal when both have the same keys, each with an equal value, whatever the order.
    template <class... Others>
    [[nodiscard]] friend constexpr auto operator==(const dict_t& a, const dict_t<Others...>& b) {
        if constexpr (N != sizeof...(Others)) {
            return std::false_type{};
        } else {
            return a.unpack_positions([&](auto... i) {
                return all_true(a.template value_equal_in<decltype(i)::value>(b)...);
            });
        }
    }
    template <class... Others>
    [[nodiscard]] friend constexpr auto operator!=(const dict_t& a, const dict_t<Others...>& b) {
        return not_(a == b);
    }

    // ---------------------------------------------------------------- protocols

    [[nodiscard]] constexpr auto py_iter() const {
        return unpack_positions(
            [&](auto... i) { return hana::make_tuple(key_at<decltype(i)::value>()...); });
    }
    [[nodiscard]] static constexpr auto py_bool() { return bool_<(N > 0)>{}; }

    void repr_into(std::string& out) const {
        out += '{';
        unpack_positions([&](auto... i) {
            ((out += (decltype(i)::value == 0 ? "" : ", "),
              staticpy::repr_into(out, key_at<decltype(i)::value>()), out += ": ",
              staticpy::repr_into(out, value_at<decltype(i)::value>(*this))),
             ...);
        });
        out += '}';
    }
    /// Streams repr(d); a template so that only <iosfwd> is needed here.
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                         const dict_t& d) {
        return os << repr(d);
    }

    /// Position of key K among the keys, N when absent.
    template <class K>
    static constexpr std::size_t position_of() {
        if constexpr (!detail::is_key_v<K>) {
            return N;
        } else {
            using index = detail::key_index<std::make_index_sequence<N>, detail::key_of<Items>...>;
            return decltype(index::find(
                static_cast<const detail::canonical_key_t<K>*>(nullptr)))::value;
        }
    }

    template <std::size_t I>
    [[nodiscard]] static constexpr auto key_at() {
        return detail::key_of<
            std::remove_cvref_t<decltype(hana::at_c<I>(std::declval<hana::tuple<Items...>&>()))>>{};
    }
    template <std::size_t I, class Self>
    static constexpr auto& value_at(Self& self) {
        return hana::at_c<I>(self.entries).value;
    }

    template <class F>
    constexpr decltype(auto) unpack_positions(F&& f) const {
        return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
            return f(size_<I>{}...);
        }
        (std::make_index_sequence<N>{});
    }

private:
    template <class... Others>
    friend class dict_t;

    template <class K>
    static constexpr void check_key() {
        if constexpr (!detail::is_key_v<K>)
            (void)detail::bad_key<K>{};
    }

    template <class K>
    static constexpr std::size_t checked_position() {
        check_key<K>();
        constexpr std::size_t p = position_of<K>();
        if constexpr (detail::is_key_v<K> && p == N)
            key_error<K>();
        return p < N ? p : 0;
    }

    // Only instantiated for a missing key: the tag that shows it is built for the error alone.
    template <class K>
    static constexpr void key_error() {
        (void)raise::with<raise::KeyError, K>{}; // fires its static_assert
    }

    template <std::size_t P>
    constexpr auto without() const {
        return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>,
                                                       std::index_sequence<J...>) {
            return dict_t<std::remove_cvref_t<decltype(hana::at_c<I>(entries))>...,
                          std::remove_cvref_t<decltype(hana::at_c<P + 1 + J>(entries))>...>(
                hana::make_tuple(hana::at_c<I>(entries)..., hana::at_c<P + 1 + J>(entries)...));
        }
        (std::make_index_sequence<P>{}, std::make_index_sequence<N - P - 1>{});
    }

    /// Whether b holds the I-th key of *this with an equal value.
    template <std::size_t I, class... Others>
    constexpr auto value_equal_in(const dict_t<Others...>& b) const {
        using K = decltype(key_at<I>());
        constexpr std::size_t q = dict_t<Others...>::template position_of<K>();
        if constexpr (q == sizeof...(Others))
            return std::false_type{};
        else
            return py_eq(value_at<I>(*this), dict_t<Others...>::template value_at<q>(b));
    }
};

namespace detail {
/// The `dict` object: called, it builds a dict; dict.fromkeys is Python's classmethod.
struct dict_builder {
    /// dict("lr"_s = 0.1, pair(1_c, "a"_s), std::pair{...}, other_dict, list_of_pairs...)
    template <class... Args>
    constexpr auto operator()(Args... args) const {
        return dict_from_args(args...);
    }
    template <class Iterable, class V = none_t>
    static constexpr auto fromkeys(const Iterable& keys, const V& value = {}) {
        return dict_t<>::fromkeys(keys, value);
    }
};
} // namespace detail

/// Python's dict: dict("lr"_s = 0.1, "epochs"_s = 10), dict.fromkeys(list("a"_s, "b"_s), 0).
inline constexpr detail::dict_builder dict{};

} // namespace staticpy
