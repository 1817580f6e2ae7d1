#pragma once
// Python's list as a heterogeneous compile-time container on Boost.Hana.
//
//   constexpr auto l = list(1_c, 2.5_c, "a"_s);      // [1, 2.5, 'a']
//   static_assert(l.extend(list(4_c)).count(4_c) == 1);
//
// Where Python mutates a list in place, the element types may change, so staticpy returns the new
// list instead (MindSpore's graph mode does the same): `l2 = l.append(x)`. Positions, lengths and
// the results of count/index/in/== over compile-time elements are compile-time
// (std::integral_constant, std::bool_constant). Run-time values may sit in a list; then
// value-dependent methods run at run time, and a method whose result type would depend on a
// run-time value works only where that type is the same whatever the value (a list whose elements
// share one type), else it is a compile error.

#include <array>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include "staticpy/containers/diagnostics.hpp"
#include "staticpy/containers/iter.hpp"
#include "staticpy/containers/slice.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/index.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/core/value.hpp"

namespace staticpy {

template <class... Ts>
class list;

template <class... Ts>
struct python_kind<list<Ts...>> : std::integral_constant<kind, kind::list> {};
template <class... Ts>
struct is_compile_time<list<Ts...>> : std::bool_constant<and_v<is_compile_time<Ts>::value...>> {};

template <class T>
inline constexpr bool is_list_v = false;
template <class... Ts>
inline constexpr bool is_list_v<list<Ts...>> = true;

/// Keyword arguments of sort/sorted: l.sort(kw::key = f, kw::reverse = True).
namespace kw {
template <class F>
struct key_arg {
    F fn;
};
template <class B>
struct reverse_arg {
    B value;
};
struct key_t {
    template <class F>
    constexpr key_arg<F> operator=(F fn) const { // NOLINT: keyword-argument syntax
        return {fn};
    }
};
struct reverse_t {
    template <class B>
    constexpr reverse_arg<B> operator=(B b) const { // NOLINT: keyword-argument syntax
        return {b};
    }
};
inline constexpr key_t key{};
inline constexpr reverse_t reverse{};
} // namespace kw

namespace detail {

template <class T>
inline constexpr bool is_index_constant_v = is_int_constant_v<T> || is_bool_constant_v<T>;

/// True when every element has one type, so that a run-time position cannot change a type.
template <class... Ts>
inline constexpr bool all_same_v = and_v<std::is_same_v<traits::pack_first_t<Ts...>, Ts>...>;

// Python names the offending type in these messages (see diagnostics.hpp).
template <class T>
struct bad_list_index {
    // An int reaches here only as a char, which Python would call a str.
    STATICPY_TYPE_ERROR_PER_KIND(unless(kind_v<T>, kind::integer, kind::boolean),
                                 "list indices must be integers or slices, not ", "");
    static_assert(kind_v<T> != kind::other,
                  "staticpy: TypeError: list indices must be integers or slices");
};

template <class T>
struct bad_repeat_count {
    static constexpr kind k = kind_v<T>;
    STATICPY_TYPE_ERROR_PER_KIND(unless(k, kind::integer, kind::boolean),
                                 "can't multiply sequence by non-int of type '", "'");
    static_assert(k != kind::integer && k != kind::boolean,
                  "staticpy: TypeError: a list can only be repeated a compile-time number of "
                  "times (write 3_c, not 3)");
    static_assert(k != kind::other, "staticpy: TypeError: can't multiply sequence by non-int");
};

template <class T>
struct bad_concatenation {
    STATICPY_TYPE_ERROR_PER_KIND(kind_v<T>, "can only concatenate list (not \"", "\") to list");
    static_assert(kind_v<T> != kind::other,
                  "staticpy: TypeError: can only concatenate list (not another type) to list");
};

template <class Dummy = void>
struct runtime_index_on_mixed_list {
    static_assert(always_false<Dummy>,
                  "staticpy: TypeError: a run-time index needs a list whose elements share one "
                  "type; use a compile-time index such as 1_c");
};

/// core's clamp_position as an element position (list.insert, list.index's bounds).
constexpr std::size_t list_position(long long i, std::size_t n) {
    return static_cast<std::size_t>(clamp_position(i, static_cast<std::int64_t>(n)));
}

template <class Bound>
constexpr long long bound_value(const Bound& b, long long if_none) {
    if constexpr (std::is_same_v<Bound, none_t>)
        return if_none;
    else
        return static_cast<long long>(scalar_of(b));
}

/// A list of positions computed at compile time; a structural type, so that it can be a
/// template argument from which an index_sequence is unpacked.
template <std::size_t Capacity>
struct positions {
    std::array<std::size_t, Capacity + 1> index{};
    std::size_t length = 0;
    constexpr void push(std::size_t i) { index[length++] = i; }
};

template <auto P, class F, std::size_t... K>
constexpr decltype(auto) with_positions_impl(F&& f, std::index_sequence<K...>) {
    return f(std::index_sequence<P.index[K]...>{});
}
/// Calls f with std::index_sequence<positions in P...>.
template <auto P, class F>
constexpr decltype(auto) with_positions(F&& f) {
    return with_positions_impl<P>(std::forward<F>(f), std::make_index_sequence<P.length>{});
}

/// Status of a comparison result: 1 compile-time true, 0 compile-time false, 2 run time.
template <class B>
inline constexpr int eq_status = [] {
    if constexpr (is_static_bool_v<B>)
        return std::remove_cvref_t<B>::value ? 1 : 0;
    else
        return 2;
}();

// Sorting keys known at compile time. Scalars are compared as values (one instantiation per
// element); anything else compares through py_lt on the types (one per pair).
struct sort_key {
    int category = 2; // 0 number, 1 string, 2 other
    long double number = 0;
    std::string_view text{};
};

template <class K>
constexpr sort_key sort_key_of() {
    if constexpr (is_number_v<K> && is_compile_time_v<K>)
        return {0, static_cast<long double>(K::value), {}};
    else if constexpr (is_str_constant_v<K>)
        return {1, 0, K::value};
    else
        return {};
}

template <class... Ks>
struct unorderable_mix {
    static constexpr bool has_number = or_v<(sort_key_of<Ks>().category == 0)...>;
    static constexpr bool has_string = or_v<(sort_key_of<Ks>().category == 1)...>;
    static constexpr bool has_other = or_v<(sort_key_of<Ks>().category == 2)...>;
    static_assert(!(has_number && has_string),
                  "staticpy: TypeError: '<' not supported between instances of 'str' and 'int'");
};

/// Sorts the positions order[0, n) by less(a, b), equal ones kept in order as Python's sort keeps
/// them. An insertion sort: std::stable_sort is not constexpr, and n is a list's length.
template <class Order, class Less>
constexpr void stable_sort_in_place(Order& order, std::size_t n, Less less) {
    for (std::size_t i = 1; i < n; ++i) {
        const std::size_t current = order[i];
        std::size_t j = i;
        for (; j > 0 && less(current, order[j - 1]); --j)
            order[j] = order[j - 1];
        order[j] = current;
    }
}

template <bool Reverse, class... Ks>
constexpr auto stable_sort_positions() {
    constexpr std::size_t n = sizeof...(Ks);
    positions<n> order;
    for (std::size_t i = 0; i < n; ++i)
        order.push(i);
    if constexpr (n > 1) {
        constexpr std::array<sort_key, n> keys{sort_key_of<Ks>()...};
        constexpr bool scalars = and_v<(sort_key_of<Ks>().category != 2)...>;
        // Only built when some key is not a scalar: the pairwise table costs n*n instantiations.
        constexpr auto table = [] {
            std::array<bool, n * n> lt{};
            if constexpr (!scalars) {
                std::size_t i = 0;
                (
                    [&]<class A>(A*) {
                        std::size_t j = 0;
                        ((lt[i * n + j++] =
                              decltype(py_lt(std::declval<A>(), std::declval<Ks>()))::value),
                         ...);
                        ++i;
                    }(static_cast<Ks*>(nullptr)),
                    ...);
            }
            return lt;
        }();
        auto less = [&](std::size_t a, std::size_t b) {
            if (Reverse)
                std::swap(a, b);
            if constexpr (scalars) {
                if (keys[a].category == 0)
                    return keys[a].number < keys[b].number;
                return keys[a].text < keys[b].text;
            } else {
                return table[a * n + b];
            }
        };
        stable_sort_in_place(order.index, n, less);
    }
    return order;
}

template <class T>
struct is_key_arg : std::false_type {};
template <class F>
struct is_key_arg<kw::key_arg<F>> : std::true_type {};
template <class T>
struct is_reverse_arg : std::false_type {};
template <class B>
struct is_reverse_arg<kw::reverse_arg<B>> : std::true_type {};

struct identity_key {
    template <class T>
    constexpr const T& operator()(const T& x) const {
        return x;
    }
};

template <class Dummy = void>
struct no_compile_time_order {
    static_assert(always_false<Dummy>,
                  "staticpy: TypeError: sort needs elements whose order is known at compile time, "
                  "or elements that share one type");
};

} // namespace detail

template <class... Ts>
class list {
public:
    static constexpr std::size_t N = sizeof...(Ts);

    /// The elements, as a hana::tuple: every Hana algorithm applies to them.
    hana::tuple<Ts...> elements;

    constexpr list() requires(and_v<std::is_default_constructible_v<Ts>...>) = default;
    constexpr list(Ts... xs) // NOLINT: list(1, 2) reads as Python's [1, 2]
        requires(N > 0)
        : elements(std::move(xs)...) {}
    constexpr explicit list(hana::tuple<Ts...> xs) : elements(std::move(xs)) {}

    // ---------------------------------------------------------------- size and elements

    [[nodiscard]] static constexpr std::size_t size() { return N; }

    template <std::size_t I>
    [[nodiscard]] constexpr const auto& at() const& {
        return hana::at_c<I>(elements);
    }
    template <std::size_t I>
    [[nodiscard]] constexpr auto& at() & {
        return hana::at_c<I>(elements);
    }

    /// l[1_c], l[-1_c] (a reference), l[slice(1_c, None, 2_c)] (a new list); l[i] with a
    /// run-time i when all elements share one type.
    template <class Index>
    requires(!detail::is_index_constant_v<Index>) constexpr decltype(auto)
    operator[](const Index& i) const& {
        return getitem(*this, i);
    }
    template <class Index>
    requires(!detail::is_index_constant_v<Index>) constexpr decltype(auto)
    operator[](const Index& i) & {
        return getitem(*this, i);
    }
    // The commonest case, l[1_c], without the general getitem: one instantiation per index
    // rather than three, and always inlined, so that even an unoptimised build emits no function
    // of its own per index (code generation is a third of the cost of reading many elements).
    template <class Index>
    requires detail::is_index_constant_v<Index>
    [[gnu::always_inline]] constexpr const auto& operator[](const Index&) const& {
        constexpr long long p = detail::wrap_index(Index::value, N);
        static_assert(p >= 0, "staticpy: IndexError: list index out of range");
        return hana::at_c<static_cast<std::size_t>(p < 0 ? 0 : p)>(elements);
    }
    template <class Index>
    requires detail::is_index_constant_v<Index>
    [[gnu::always_inline]] constexpr auto& operator[](const Index&) & {
        constexpr long long p = detail::wrap_index(Index::value, N);
        static_assert(p >= 0, "staticpy: IndexError: list index out of range");
        return hana::at_c<static_cast<std::size_t>(p < 0 ? 0 : p)>(elements);
    }

    // ---------------------------------------------------------------- Python's methods

    /// [1, 2].append(3) -> [1, 2, 3]
    template <class X>
    [[nodiscard]] constexpr auto append(X x) const {
        return concat(*this, list<X>(std::move(x)));
    }

    /// Appends the elements of a list, std::tuple, dict (its keys) or "str"_s (its characters).
    template <class Iterable>
    [[nodiscard]] constexpr auto extend(const Iterable& iterable) const {
        return concat(*this, list_from(iter_elements(iterable)));
    }

    /// Inserts before position i, clamped as Python clamps it: insert(-5_c, x) on 3 elements
    /// inserts first.
    template <class Index, class X>
    [[nodiscard]] constexpr auto insert(const Index& i, X x) const {
        if constexpr (detail::is_index_constant_v<Index>) {
            constexpr std::size_t p = detail::list_position(Index::value, N);
            return splice<p, p>(list<X>(std::move(x)));
        } else if constexpr (std::is_integral_v<Index>) {
            if constexpr (!detail::all_same_v<Ts..., X>) {
                (void)detail::runtime_index_on_mixed_list<X>{};
                return *this;
            } else {
                const std::size_t p = detail::list_position(static_cast<long long>(i), N);
                return select_runtime<N + 1>(p, [&](auto P) {
                    return splice<decltype(P)::value, decltype(P)::value>(list<X>(x));
                });
            }
        } else {
            (void)detail::bad_list_index<Index>{};
            return *this;
        }
    }

    /// Removes the first element equal to x: ValueError when there is none.
    template <class X>
    [[nodiscard]] constexpr auto remove(const X& x) const {
        constexpr std::array<int, N + 1> status{
            detail::eq_status<decltype(py_eq(std::declval<Ts>(), x))>..., 0};
        constexpr std::size_t first = first_match(status, 0, N);
        if constexpr (first == N) {
            static_assert(first != N, "staticpy: ValueError: list.remove(x): x not in list");
            return *this;
        } else if constexpr (status[first] == 1) {
            return without<first>();
        } else {
            // The answer depends on run-time values: fine while every candidate result has the
            // same type, i.e. the candidates share one type.
            constexpr std::size_t last = first_static_true(status, first + 1, N);
            if constexpr (!same_types_between(first, last)) {
                (void)detail::runtime_index_on_mixed_list<X>{};
                return *this;
            } else {
                using result_t = decltype(without<first>());
                std::optional<result_t> result;
                [&]<std::size_t... I>(std::index_sequence<I...>) {
                    // Only the candidates are instantiated: removing an element outside
                    // [first, last] gives a list of another type than result_t.
                    (
                        [&] {
                            if constexpr (I >= first && I <= last) {
                                if (!result && ((I == last && status[last] == 1) ||
                                                detail::as_bool(py_eq(at<I>(), x))))
                                    result.emplace(without<I>());
                            }
                        }(),
                        ...);
                }
                (std::make_index_sequence<N>{});
                if (!result)
                    throw ValueError("list.remove(x): x not in list");
                return *result;
            }
        }
    }

    /// Returns (new list, element); the index defaults to -1, as Python's.
    ///   auto [rest, last] = list(1_c, 2_c).pop();
    template <class Index = int_<-1>>
    [[nodiscard]] constexpr auto pop(const Index& i = {}) const {
        if constexpr (detail::is_index_constant_v<Index>) {
            static_assert(N > 0, "staticpy: IndexError: pop from empty list");
            constexpr long long p = detail::wrap_index(Index::value, N);
            static_assert(N == 0 || p >= 0, "staticpy: IndexError: pop index out of range");
            if constexpr (N == 0 || p < 0)
                return std::tuple(*this, None);
            else
                return std::tuple(without<static_cast<std::size_t>(p)>(),
                                  at<static_cast<std::size_t>(p)>());
        } else if constexpr (std::is_integral_v<Index>) {
            if constexpr (N == 0) {
                // Whatever the index, an empty list has nothing to pop: known at compile time
                // (and there is no element type to return).
                static_assert(N > 0, "staticpy: IndexError: pop from empty list");
                return std::tuple(*this, None);
            } else if constexpr (!detail::all_same_v<Ts...>) {
                (void)detail::runtime_index_on_mixed_list<Index>{};
                return std::tuple(*this, None);
            } else {
                const long long p = detail::wrap_index(static_cast<long long>(i), N);
                if (p < 0)
                    throw IndexError("pop index out of range");
                return select_runtime<N>(static_cast<std::size_t>(p), [&](auto P) {
                    return std::tuple(without<decltype(P)::value>(), at<decltype(P)::value>());
                });
            }
        } else {
            (void)detail::bad_list_index<Index>{};
            return std::tuple(*this, None);
        }
    }

    /// [] of the same kind.
    [[nodiscard]] static constexpr list<> clear() { return {}; }

    /// A copy: a list is a value.
    [[nodiscard]] constexpr list copy() const { return *this; }

    /// Position of the first element equal to x in [start, stop), Python's clamping of both.
    /// A size_<i> (std::integral_constant, usable as a template argument) when the comparisons
    /// are compile-time; ValueError when x is absent.
    template <class X, class Start = none_t, class Stop = none_t>
    [[nodiscard]] constexpr auto index(const X& x, const Start& start = {},
                                       const Stop& stop = {}) const {
        constexpr bool static_bounds =
            (std::is_same_v<Start, none_t> || detail::is_index_constant_v<Start>)&&(
                std::is_same_v<Stop, none_t> || detail::is_index_constant_v<Stop>);
        if constexpr (static_bounds) {
            constexpr std::size_t lo = detail::list_position(detail::bound_value(Start{}, 0), N);
            constexpr std::size_t hi =
                detail::list_position(detail::bound_value(Stop{}, static_cast<long long>(N)), N);
            constexpr std::array<int, N + 1> status{
                detail::eq_status<decltype(py_eq(std::declval<Ts>(), x))>..., 0};
            constexpr std::size_t first = first_match(status, lo, hi);
            if constexpr (first == N || first >= hi) {
                (void)raise::with<raise::ValueError, X>{}; // fires its static_assert
                return size_<N>{};
            } else if constexpr (status[first] == 1) {
                return size_<first>{};
            } else {
                return find_runtime(x, first, hi);
            }
        } else {
            static_assert(std::is_same_v<Start, none_t> || std::is_integral_v<Start>,
                          "staticpy: TypeError: slice indices must be integers or None");
            static_assert(std::is_same_v<Stop, none_t> || std::is_integral_v<Stop>,
                          "staticpy: TypeError: slice indices must be integers or None");
            return find_runtime(
                x, detail::list_position(detail::bound_value(start, 0), N),
                detail::list_position(detail::bound_value(stop, static_cast<long long>(N)), N));
        }
    }

    /// How many elements equal x, Python's == (1 == 1.0 == True).
    ///   static_assert(list(1_c, 1.0_c, True).count(1_c) == 3);
    template <class X>
    [[nodiscard]] constexpr auto count(const X& x) const {
        return hana::unpack(elements, [&](const auto&... e) { return count_true(py_eq(e, x)...); });
    }

    /// MindSpore's graph-mode count: an element counts only when its Python type is x's type,
    /// so [1, 1.0, True].count(1) is 1 there, 3 in Python.
    template <class X>
    [[nodiscard]] constexpr auto count_same_type(const X& x) const {
        return unpack_indices(
            [&](auto... i) { return count_true(strict_eq(at<decltype(i)::value>(), x)...); });
    }

    /// x in l.
    template <class X>
    [[nodiscard]] constexpr auto contains(const X& x) const {
        return hana::unpack(elements, [&](const auto&... e) { return any_true(py_eq(e, x)...); });
    }

    /// A stable sort of compile-time elements; kw::key = f sorts by f(x), kw::reverse = True
    /// descends. Elements that share one type may be run-time values (then it sorts at run time).
    template <class... Args>
    [[nodiscard]] constexpr auto sort(Args... args) const {
        auto key = pick_key(args...);
        constexpr bool reverse = pick_reverse<Args...>();
        using key_fn = decltype(key);
        if constexpr (and_v<is_compile_time_v<std::invoke_result_t<key_fn, const Ts&>>...>) {
            using check = detail::unorderable_mix<
                std::remove_cvref_t<std::invoke_result_t<key_fn, const Ts&>>...>;
            static_assert(sizeof(check) > 0);
            constexpr auto order = detail::stable_sort_positions<
                reverse, std::remove_cvref_t<std::invoke_result_t<key_fn, const Ts&>>...>();
            return pick_positions<order>();
        } else if constexpr (detail::all_same_v<Ts...>) {
            return sort_runtime(key, reverse);
        } else {
            (void)detail::no_compile_time_order<key_fn>{};
            return *this;
        }
    }

    /// [1, 2, 3].reverse() -> [3, 2, 1]
    [[nodiscard]] constexpr auto reverse() const {
        return unpack_indices([&](auto... i) {
            return pick(std::index_sequence<(N - 1 - decltype(i)::value)...>{});
        });
    }

    /// Python's l[i] = v as a new list whose i-th element is v (its type may change), and
    /// l[a:b:c] = iterable: a simple slice (no step, or 1) takes any number of elements, an
    /// extended one exactly as many as it selects.
    template <class Index, class V>
    [[nodiscard]] constexpr auto setitem(const Index& i, V v) const {
        if constexpr (is_slice_v<Index>) {
            static_assert(detail::is_iterable_v<V>,
                          "staticpy: TypeError: can only assign an iterable");
            const auto values = list_from(iter_elements(v));
            constexpr std::size_t M = decltype(values)::N;
            constexpr bool simple = detail::bound_value(decltype(Index::step){}, 1) == 1;
            constexpr auto selected = slice_positions<Index>();
            static_assert(simple || selected.length == M,
                          "staticpy: ValueError: attempt to assign sequence of another size to "
                          "extended slice");
            // Positions into concat(*this, values): k < N is an old element, N + j a new one.
            constexpr auto order = [&] {
                detail::positions<N + M> out;
                if constexpr (simple) {
                    const std::size_t lo =
                        detail::list_position(detail::bound_value(decltype(Index::start){}, 0), N);
                    const std::size_t hi = std::max(
                        lo, detail::list_position(detail::bound_value(decltype(Index::stop){},
                                                                      static_cast<long long>(N)),
                                                  N));
                    for (std::size_t k = 0; k < lo; ++k)
                        out.push(k);
                    for (std::size_t j = 0; j < M; ++j)
                        out.push(N + j);
                    for (std::size_t k = hi; k < N; ++k)
                        out.push(k);
                } else if (selected.length == M) {
                    for (std::size_t k = 0; k < N; ++k) {
                        std::size_t from = k;
                        for (std::size_t j = 0; j < M; ++j)
                            if (selected.index[j] == k)
                                from = N + j;
                        out.push(from);
                    }
                }
                return out;
            }();
            return concat(*this, values).template pick_positions<order>();
        } else if constexpr (detail::is_index_constant_v<Index>) {
            constexpr long long p = detail::wrap_index(Index::value, N);
            static_assert(p >= 0, "staticpy: IndexError: list assignment index out of range");
            if constexpr (p < 0)
                return *this;
            else
                return splice<static_cast<std::size_t>(p), static_cast<std::size_t>(p) + 1>(
                    list<V>(std::move(v)));
        } else if constexpr (std::is_integral_v<Index>) {
            if constexpr (!detail::all_same_v<Ts..., V>) {
                (void)detail::runtime_index_on_mixed_list<V>{};
                return *this;
            } else {
                // Checked here for Python's text: l[i] would say "list index out of range".
                const long long p = detail::wrap_index(static_cast<long long>(i), N);
                if (p < 0)
                    throw IndexError("list assignment index out of range");
                list result = *this;
                result[p] = std::move(v);
                return result;
            }
        } else {
            (void)detail::bad_list_index<Index>{};
            return *this;
        }
    }

    /// Python's del l[i] / del l[a:b:c], as a new list.
    template <class Index>
    [[nodiscard]] constexpr auto delitem(const Index& i) const {
        if constexpr (is_slice_v<Index>) {
            constexpr auto selected = slice_positions<Index>();
            constexpr auto kept = [&] {
                detail::positions<N> out;
                for (std::size_t k = 0; k < N; ++k) {
                    bool dropped = false;
                    for (std::size_t s = 0; s < selected.length; ++s)
                        dropped |= selected.index[s] == k;
                    if (!dropped)
                        out.push(k);
                }
                return out;
            }();
            return pick_positions<kept>();
        } else if constexpr (detail::is_index_constant_v<Index>) {
            constexpr long long p = detail::wrap_index(Index::value, N);
            static_assert(p >= 0, "staticpy: IndexError: list assignment index out of range");
            if constexpr (p < 0)
                return *this;
            else
                return without<static_cast<std::size_t>(p)>();
        } else if constexpr (std::is_integral_v<Index>) {
            if constexpr (N == 0) {
                // Every position of an empty list is out of range: known at compile time.
                static_assert(N > 0, "staticpy: IndexError: list assignment index out of range");
                return *this;
            } else if constexpr (!detail::all_same_v<Ts...>) {
                (void)detail::runtime_index_on_mixed_list<Index>{};
                return *this;
            } else {
                const long long p = detail::wrap_index(static_cast<long long>(i), N);
                if (p < 0)
                    throw IndexError("list assignment index out of range");
                return select_runtime<N>(static_cast<std::size_t>(p),
                                         [&](auto P) { return without<decltype(P)::value>(); });
            }
        } else {
            (void)detail::bad_list_index<Index>{};
            return *this;
        }
    }

    // ---------------------------------------------------------------- operators

    template <class... Us>
    [[nodiscard]] friend constexpr auto operator+(const list& a, const list<Us...>& b) {
        return concat(a, b);
    }
    template <class Other>
    requires(!is_list_v<Other>) friend constexpr list operator+(const list& a, const Other&) {
        (void)detail::bad_concatenation<Other>{};
        return a;
    }

    /// l * 3_c repeats; a count <= 0 gives []. The count must be a compile-time int.
    template <class Count>
    [[nodiscard]] friend constexpr auto operator*(const list& a, const Count&) {
        if constexpr (detail::is_index_constant_v<Count>) {
            constexpr long long times = Count::value < 0 ? 0 : static_cast<long long>(Count::value);
            constexpr auto order = [] {
                detail::positions<N* static_cast<std::size_t>(times)> out;
                for (long long t = 0; t < times; ++t)
                    for (std::size_t k = 0; k < N; ++k)
                        out.push(k);
                return out;
            }();
            return a.template pick_positions<order>();
        } else {
            (void)detail::bad_repeat_count<Count>{};
            return a;
        }
    }
    template <class Count>
    requires(!is_list_v<Count>) [[nodiscard]] friend constexpr auto operator*(const Count& n,
                                                                              const list& a) {
        return a * n;
    }

    template <class... Us>
    [[nodiscard]] friend constexpr auto operator==(const list& a, const list<Us...>& b) {
        if constexpr (N != sizeof...(Us)) {
            return std::false_type{};
        } else {
            return a.unpack_indices([&](auto... i) {
                return all_true(py_eq(a.template at<decltype(i)::value>(),
                                      b.template at<decltype(i)::value>())...);
            });
        }
    }
    template <class... Us>
    [[nodiscard]] friend constexpr auto operator!=(const list& a, const list<Us...>& b) {
        return not_(a == b);
    }
    template <class... Us>
    [[nodiscard]] friend constexpr auto operator<(const list& a, const list<Us...>& b) {
        return lexicographic<0, false>(a, b);
    }
    template <class... Us>
    [[nodiscard]] friend constexpr auto operator<=(const list& a, const list<Us...>& b) {
        return lexicographic<0, true>(a, b);
    }
    template <class... Us>
    [[nodiscard]] friend constexpr auto operator>(const list& a, const list<Us...>& b) {
        return b < a;
    }
    template <class... Us>
    [[nodiscard]] friend constexpr auto operator>=(const list& a, const list<Us...>& b) {
        return b <= a;
    }

    // ---------------------------------------------------------------- protocols

    /// The elements for iter_elements (extend, fromkeys, to_list, ...).
    [[nodiscard]] constexpr const hana::tuple<Ts...>& py_iter() const { return elements; }
    [[nodiscard]] static constexpr auto py_bool() { return bool_<(N > 0)>{}; }

    void repr_into(std::string& out) const {
        out += '[';
        unpack_indices([&](auto... i) {
            ((out += (decltype(i)::value == 0 ? "" : ", "),
              staticpy::repr_into(out, at<decltype(i)::value>())),
             ...);
        });
        out += ']';
    }
    /// Streams repr(l); a template so that only <iosfwd> is needed here.
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                         const list& l) {
        return os << repr(l);
    }

    // ---------------------------------------------------------------- building blocks

    /// The list of the elements at positions I...
    template <std::size_t... I>
    [[nodiscard]] constexpr auto pick(std::index_sequence<I...>) const {
        return list<std::remove_cvref_t<decltype(hana::at_c<I>(elements))>...>(
            hana::at_c<I>(elements)...);
    }

    template <auto P>
    [[nodiscard]] constexpr auto pick_positions() const {
        return detail::with_positions<P>([&](auto seq) { return pick(seq); });
    }

    /// Calls f(size_<0>, ..., size_<N-1>{}).
    template <class F>
    constexpr decltype(auto) unpack_indices(F&& f) const {
        return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
            return f(size_<I>{}...);
        }
        (std::make_index_sequence<N>{});
    }

    template <class Slice>
    static constexpr auto slice_positions() {
        using Start = decltype(Slice::start);
        using Stop = decltype(Slice::stop);
        using Step = decltype(Slice::step);
        static_assert(detail::is_slice_bound_v<Start> && detail::is_slice_bound_v<Stop> &&
                          detail::is_slice_bound_v<Step>,
                      "staticpy: TypeError: slice indices must be compile-time integers or None");
        if constexpr (!std::is_same_v<Step, none_t>)
            static_assert(Step::value != 0, "staticpy: ValueError: slice step cannot be zero");
        constexpr auto resolved = detail::resolve_slice<Slice, N>();
        detail::positions<N> out;
        for (std::size_t k = 0; k < resolved.length; ++k)
            out.push(resolved.index[k]);
        return out;
    }

private:
    template <class... Us>
    friend class list;

    template <class... Us>
    static constexpr list<Us...> list_from(hana::tuple<Us...> xs) {
        return list<Us...>(std::move(xs));
    }

    template <class... Us>
    static constexpr auto concat(const list& a, const list<Us...>& b) {
        return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>,
                                                       std::index_sequence<J...>) {
            return list<Ts..., Us...>(a.template at<I>()..., b.template at<J>()...);
        }
        (std::make_index_sequence<N>{}, std::make_index_sequence<sizeof...(Us)>{});
    }

    /// Elements [0, From) + inserted + [To, N).
    template <std::size_t From, std::size_t To, class... Us>
    constexpr auto splice(const list<Us...>& inserted) const {
        return [&]<std::size_t... I, std::size_t... J, std::size_t... K>(
            std::index_sequence<I...>, std::index_sequence<J...>, std::index_sequence<K...>) {
            return list<std::remove_cvref_t<decltype(at<I>())>..., Us...,
                        std::remove_cvref_t<decltype(at<To + K>())>...>(
                at<I>()..., inserted.template at<J>()..., at<To + K>()...);
        }
        (std::make_index_sequence<From>{}, std::make_index_sequence<sizeof...(Us)>{},
         std::make_index_sequence<N - To>{});
    }

    template <std::size_t P>
    constexpr auto without() const {
        return splice<P, P + 1>(list<>{});
    }

    /// Runs make(size_<p>{}) for a run-time p < Count; every result has one type.
    template <std::size_t Count, class Make>
    static constexpr auto select_runtime(std::size_t p, Make&& make) {
        using result_t = decltype(make(size_<0>{}));
        std::optional<result_t> result;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((p == I ? (void)result.emplace(make(size_<I>{})) : void()), ...);
        }
        (std::make_index_sequence<Count>{});
        return *result;
    }

    static constexpr std::size_t first_match(const std::array<int, N + 1>& status, std::size_t lo,
                                             std::size_t hi) {
        for (std::size_t i = lo; i < hi && i < N; ++i)
            if (status[i] != 0)
                return i;
        return N;
    }
    /// The first sure match in [lo, hi), else the last possible one (lo - 1 when none is).
    static constexpr std::size_t first_static_true(const std::array<int, N + 1>& status,
                                                   std::size_t lo, std::size_t hi) {
        // Not simply hi - 1: a trailing element that can never match (a str after run-time
        // floats) is no candidate, and its type must not count against the others'.
        std::size_t last = lo - 1;
        for (std::size_t i = lo; i < hi; ++i) {
            if (status[i] == 1)
                return i;
            if (status[i] == 2)
                last = i;
        }
        return last;
    }
    /// Whether positions lo..hi all hold one type.
    static constexpr bool same_types_between(std::size_t lo, std::size_t hi) {
        constexpr std::array<std::size_t, N + 1> type_ids = [] {
            std::array<std::size_t, N + 1> ids{};
            std::size_t k = 0;
            ((ids[k] = type_id_of<Ts>(), ++k), ...);
            return ids;
        }();
        for (std::size_t i = lo; i <= hi && i < N; ++i)
            if (type_ids[i] != type_ids[lo])
                return false;
        return true;
    }
    /// The position of T's first occurrence among Ts: equal ids, equal types.
    template <class T>
    static constexpr std::size_t type_id_of() {
        constexpr bool is[N + 1] = {std::is_same_v<T, Ts>..., false};
        for (std::size_t i = 0; i < N; ++i)
            if (is[i])
                return i;
        return N;
    }

    template <class X>
    constexpr std::size_t find_runtime(const X& x, std::size_t lo, std::size_t hi) const {
        std::size_t found = N;
        unpack_indices([&](auto... i) {
            ((found == N && decltype(i)::value >= lo && decltype(i)::value < hi &&
                      detail::as_bool(py_eq(at<decltype(i)::value>(), x))
                  ? (void)(found = decltype(i)::value)
                  : void()),
             ...);
        });
        if (found == N)
            throw ValueError(repr(x) + " is not in list");
        return found;
    }

    template <class A, class B>
    static constexpr auto strict_eq(const A& a, const B& b) {
        if constexpr (kind_v<A> != kind_v<B>)
            return std::false_type{};
        else
            return py_eq(a, b);
    }

    template <class... Args>
    static constexpr auto pick_key(const Args&... args) {
        auto keys = std::tuple_cat([&] {
            if constexpr (detail::is_key_arg<Args>::value)
                return std::tuple(args.fn);
            else
                return std::tuple<>();
        }()...);
        static_assert(
            ((detail::is_key_arg<Args>::value || detail::is_reverse_arg<Args>::value) && ... &&
             true),
            "staticpy: TypeError: sort() takes only keyword arguments kw::key and kw::reverse");
        if constexpr (std::tuple_size_v<decltype(keys)> == 0)
            return detail::identity_key{};
        else
            return std::get<0>(keys);
    }
    template <class... Args>
    static constexpr bool pick_reverse() {
        bool reverse = false;
        (
            [&] {
                if constexpr (detail::is_reverse_arg<Args>::value) {
                    using B = decltype(Args::value);
                    static_assert(
                        is_bool_constant_v<B> || is_int_constant_v<B>,
                        "staticpy: TypeError: sort's reverse must be known at compile time "
                        "(staticpy::True or False)");
                    if constexpr (is_bool_constant_v<B> || is_int_constant_v<B>)
                        reverse = B::value != 0;
                }
            }(),
            ...);
        return reverse;
    }

    template <class Key>
    constexpr list sort_runtime(const Key& key, bool reverse) const {
        using T = traits::pack_first_t<Ts...>;
        std::array<T, N> values{at<0>()};
        unpack_indices(
            [&](auto... i) { ((values[decltype(i)::value] = at<decltype(i)::value>()), ...); });
        std::array<std::size_t, N> order{};
        for (std::size_t k = 0; k < N; ++k)
            order[k] = k;
        auto less = [&](std::size_t a, std::size_t b) {
            return reverse ? detail::as_bool(py_lt(key(values[b]), key(values[a])))
                           : detail::as_bool(py_lt(key(values[a]), key(values[b])));
        };
        detail::stable_sort_in_place(order, N, less);
        list result = *this;
        unpack_indices([&](auto... i) {
            ((result.template at<decltype(i)::value>() = values[order[decltype(i)::value]]), ...);
        });
        return result;
    }

    /// Python's list comparison: the first unequal pair decides with <, else the lengths do.
    /// Pairs after a compile-time decision are never compared, as Python never compares them.
    template <std::size_t I, bool OrEqual, class... Us>
    static constexpr auto lexicographic(const list& a, const list<Us...>& b) {
        constexpr std::size_t M = sizeof...(Us);
        if constexpr (I == N || I == M) {
            return bool_<(OrEqual ? N <= M : N < M)>{};
        } else {
            using eq_t = decltype(py_eq(a.template at<I>(), b.template at<I>()));
            if constexpr (detail::eq_status<eq_t> == 1) {
                return lexicographic<I + 1, OrEqual>(a, b);
            } else if constexpr (detail::eq_status<eq_t> == 0) {
                return py_lt(a.template at<I>(), b.template at<I>());
            } else {
                if (detail::as_bool(py_eq(a.template at<I>(), b.template at<I>())))
                    return detail::as_bool(lexicographic<I + 1, OrEqual>(a, b));
                return detail::as_bool(py_lt(a.template at<I>(), b.template at<I>()));
            }
        }
    }

    template <class Self, class Index>
    static constexpr decltype(auto) getitem(Self& self, const Index& i) {
        if constexpr (is_slice_v<Index>) {
            constexpr auto selected = slice_positions<Index>();
            return self.template pick_positions<selected>();
        } else if constexpr (detail::is_index_constant_v<Index>) {
            constexpr long long p = detail::wrap_index(Index::value, N);
            static_assert(p >= 0, "staticpy: IndexError: list index out of range");
            if constexpr (p < 0)
                return None;
            else
                return (hana::at_c<static_cast<std::size_t>(p)>(self.elements));
        } else if constexpr (std::is_integral_v<Index> && !std::is_same_v<Index, char>) {
            if constexpr (N == 0) {
                // Every position of an empty list is out of range: known at compile time.
                static_assert(N > 0, "staticpy: IndexError: list index out of range");
                return None;
            } else if constexpr (!detail::all_same_v<Ts...>) {
                (void)detail::runtime_index_on_mixed_list<Index>{};
                return None;
            } else {
                const long long p = detail::wrap_index(static_cast<long long>(i), N);
                if (p < 0)
                    throw IndexError("list index out of range");
                auto* element = &hana::at_c<0>(self.elements);
                self.unpack_indices([&](auto... k) {
                    ((decltype(k)::value == static_cast<std::size_t>(p)
                          ? (void)(element = &hana::at_c<decltype(k)::value>(self.elements))
                          : void()),
                     ...);
                });
                return (*element);
            }
        } else {
            (void)detail::bad_list_index<Index>{};
            return None;
        }
    }
};

template <class... Ts>
list(Ts...) -> list<Ts...>;

// ------------------------------------------------------------------- structured bindings

template <std::size_t I, class... Ts>
constexpr const auto& get(const list<Ts...>& l) {
    return l.template at<I>();
}
template <std::size_t I, class... Ts>
constexpr auto& get(list<Ts...>& l) {
    return l.template at<I>();
}
template <std::size_t I, class... Ts>
constexpr auto&& get(list<Ts...>&& l) {
    return std::move(l.template at<I>());
}

} // namespace staticpy

template <class... Ts>
struct std::tuple_size<staticpy::list<Ts...>> : std::integral_constant<std::size_t, sizeof...(Ts)> {
};
template <std::size_t I, class... Ts>
struct std::tuple_element<I, staticpy::list<Ts...>> {
    using type =
        std::remove_cvref_t<decltype(std::declval<staticpy::list<Ts...>&>().template at<I>())>;
};

// The builtins over any iterable need the complete list; included last so that list.hpp alone
// keeps offering them.
#include "staticpy/containers/builtins.hpp"
