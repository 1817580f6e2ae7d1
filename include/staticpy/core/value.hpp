#pragma once
// The Python value model that every container method rests on: what kind of Python object a C++
// type stands for, its type name, whether its value is known at compile time, and Python's ==, <
// and truth value.
//
// The comparisons return a compile-time bool (std::bool_constant) when the answer follows from the
// types alone (both operands compile-time, or kinds that Python never finds equal, such as str and
// int), and a plain bool otherwise. Folds over such results (all_true, any_true, count_true) keep
// them compile-time while every operand is, which is how list.count(1_c) becomes a constant.

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"

namespace staticpy {

enum class kind { none, boolean, integer, floating, string, list, tuple, dict, other };

/// Which Python kind a C++ type stands for. Containers and user types specialise it.
template <class T, class = void>
struct python_kind : std::integral_constant<kind, kind::other> {};

namespace detail {
template <class T>
inline constexpr bool is_char_v = std::is_same_v<T, char>;
template <class T>
inline constexpr bool is_char_array_v =
    std::is_array_v<T>&& std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>;
template <class T>
inline constexpr bool is_runtime_string_v =
    is_char_v<T> || is_char_array_v<T> || std::is_same_v<T, std::string> ||
    std::is_same_v<T, std::string_view> || std::is_same_v<T, const char*> ||
    std::is_same_v<T, char*>;
template <class T>
struct is_std_tuple : std::false_type {};
template <class... Ts>
struct is_std_tuple<std::tuple<Ts...>> : std::true_type {};
template <class A, class B>
struct is_std_tuple<std::pair<A, B>> : std::true_type {};

template <class T>
constexpr kind kind_of_scalar() {
    if constexpr (std::is_same_v<T, none_t>)
        return kind::none;
    else if constexpr (std::is_same_v<T, bool> || is_bool_constant_v<T>)
        return kind::boolean;
    else if constexpr (is_char_v<T> || is_str_constant_v<T> || is_runtime_string_v<T>)
        return kind::string;
    else if constexpr (std::is_integral_v<T> || is_int_constant_v<T>)
        return kind::integer;
    else if constexpr (std::is_floating_point_v<T> || is_float_constant_v<T>)
        return kind::floating;
    else if constexpr (is_std_tuple<T>::value)
        return kind::tuple;
    else
        return kind::other;
}
} // namespace detail

template <class T>
struct python_kind<T, std::enable_if_t<detail::kind_of_scalar<T>() != kind::other>>
    : std::integral_constant<kind, detail::kind_of_scalar<T>()> {};

template <class T>
inline constexpr kind kind_v = python_kind<std::remove_cvref_t<T>>::value;

template <class T>
inline constexpr bool is_number_v =
    kind_v<T> == kind::boolean || kind_v<T> == kind::integer || kind_v<T> == kind::floating;

/// Python's name for the type of a value of kind k, as type(x).__name__ prints it.
constexpr std::string_view python_type_name(kind k) {
    switch (k) {
    case kind::none:
        return "NoneType";
    case kind::boolean:
        return "bool";
    case kind::integer:
        return "int";
    case kind::floating:
        return "float";
    case kind::string:
        return "str";
    case kind::list:
        return "list";
    case kind::tuple:
        return "tuple";
    case kind::dict:
        return "dict";
    case kind::other:
        break;
    }
    return "object";
}
template <class T>
inline constexpr std::string_view type_name_v = python_type_name(kind_v<T>);

namespace detail {
template <bool...>
struct bool_pack {};
} // namespace detail

/// Conjunction and disjunction of a pack of bools with no recursion and no fold expression:
/// clang refuses folds over more than 256 operands, and lists of hundreds of elements are real.
template <bool... Bs>
inline constexpr bool and_v =
    std::is_same_v<detail::bool_pack<true, Bs...>, detail::bool_pack<Bs..., true>>;
template <bool... Bs>
inline constexpr bool or_v = !and_v<!Bs...>;

namespace detail {
/// How many of the bools are true, without a fold expression (see and_v).
template <std::size_t N>
constexpr std::size_t count_of(const bool (&values)[N]) {
    std::size_t n = 0;
    for (bool v : values)
        n += v ? 1 : 0;
    return n;
}
} // namespace detail

/// Whether a value's whole value is known from its type. Containers specialise it (a list is
/// compile-time when all of its elements are).
template <class T, class = void>
struct is_compile_time : std::bool_constant<is_scalar_constant_v<T>> {};
template <class... Ts>
struct is_compile_time<std::tuple<Ts...>>
    : std::bool_constant<and_v<is_compile_time<std::remove_cvref_t<Ts>>::value...>> {};

template <class T>
inline constexpr bool is_compile_time_v = is_compile_time<std::remove_cvref_t<T>>::value;

// ---------------------------------------------------------------------------------------------
// Results that are compile-time when they can be.

template <class T>
inline constexpr bool is_static_bool_v = is_bool_constant_v<std::remove_cvref_t<T>>;

namespace detail {
// Separate traits because `is_static_bool_v<B> && B::value` is ill-formed for a plain bool: && does
// not stop the substitution of B::value.
template <class B, bool = is_static_bool_v<B>>
inline constexpr bool is_static_true_v = false;
template <class B>
inline constexpr bool is_static_true_v<B, true> = std::remove_cvref_t<B>::value;
template <class B, bool = is_static_bool_v<B>>
inline constexpr bool is_static_false_v = false;
template <class B>
inline constexpr bool is_static_false_v<B, true> = !std::remove_cvref_t<B>::value;

template <class T>
constexpr bool as_bool(const T& b) {
    if constexpr (is_static_bool_v<T>)
        return T::value;
    else
        return static_cast<bool>(b);
}
} // namespace detail

/// all() over results that may each be compile-time or run-time.
template <class... Bs>
constexpr auto all_true(const Bs&... bs) {
    if constexpr (or_v<detail::is_static_false_v<Bs>...>) {
        return std::false_type{};
    } else if constexpr (and_v<is_static_bool_v<Bs>...>) {
        return std::true_type{};
    } else {
        const bool values[] = {detail::as_bool(bs)..., true};
        return detail::count_of(values) == sizeof...(Bs) + 1;
    }
}

/// any() over results that may each be compile-time or run-time.
template <class... Bs>
constexpr auto any_true(const Bs&... bs) {
    if constexpr (or_v<detail::is_static_true_v<Bs>...>) {
        return std::true_type{};
    } else if constexpr (and_v<is_static_bool_v<Bs>...>) {
        return std::false_type{};
    } else {
        const bool values[] = {detail::as_bool(bs)..., false};
        return detail::count_of(values) != 0;
    }
}

/// How many results are true: a size_ (std::integral_constant) when all are compile-time, else
/// std::size_t.
template <class... Bs>
constexpr auto count_true(const Bs&... bs) {
    if constexpr (and_v<is_static_bool_v<Bs>...>) {
        constexpr bool values[] = {std::remove_cvref_t<Bs>::value..., false};
        return size_<detail::count_of(values)>{};
    } else {
        const bool values[] = {detail::as_bool(bs)..., false};
        return detail::count_of(values);
    }
}

template <class B>
constexpr auto not_(const B& b) {
    if constexpr (is_static_bool_v<B>)
        return bool_<!std::remove_cvref_t<B>::value>{};
    else
        return !static_cast<bool>(b);
}

// ---------------------------------------------------------------------------------------------
// Scalars as plain values, so that numbers and strings of any origin compare alike.

namespace detail {

template <class T>
constexpr auto scalar_of(const T& x) {
    if constexpr (is_int_constant_v<T> || is_bool_constant_v<T> || is_float_constant_v<T>)
        return T::value;
    else if constexpr (is_str_constant_v<T>)
        return T::value;
    else if constexpr (is_char_v<T>)
        return std::string_view(&x, 1);
    else if constexpr (std::is_same_v<T, const char*> || std::is_same_v<T, char*> ||
                       is_char_array_v<T>)
        return std::string_view(x); // a string literal ends at its NUL
    else if constexpr (std::is_same_v<T, std::string>)
        return std::string_view(x);
    else
        return x;
}

/// Python's == between two numbers: exact, whatever their C++ types.
template <class A, class B>
constexpr bool number_eq(A a, B b) {
    if constexpr (std::is_same_v<A, bool>)
        return number_eq(static_cast<int>(a), b);
    else if constexpr (std::is_same_v<B, bool>)
        return number_eq(a, static_cast<int>(b));
    else if constexpr (std::is_integral_v<A> && std::is_integral_v<B>)
        return std::cmp_equal(a, b);
    else // long double holds every 64-bit integer exactly on x86-64, so this compares exactly
        return static_cast<long double>(a) == static_cast<long double>(b);
}

template <class A, class B>
constexpr bool number_lt(A a, B b) {
    if constexpr (std::is_same_v<A, bool>)
        return number_lt(static_cast<int>(a), b);
    else if constexpr (std::is_same_v<B, bool>)
        return number_lt(a, static_cast<int>(b));
    else if constexpr (std::is_integral_v<A> && std::is_integral_v<B>)
        return std::cmp_less(a, b);
    else
        return static_cast<long double>(a) < static_cast<long double>(b);
}

template <class A, class B>
concept equality_comparable_with = requires(const A& a, const B& b) {
    {a == b};
};

} // namespace detail

/// Python's a == b. Values of kinds that Python never finds equal (a str and an int, None and a
/// list) compare unequal at compile time instead of failing to compile.
///   static_assert(py_eq(1_c, 1.0_c));   static_assert(!py_eq("2"_s, 2));
template <class A, class B>
constexpr auto py_eq(const A& a, const B& b) {
    using TA = std::remove_cvref_t<A>;
    using TB = std::remove_cvref_t<B>;
    constexpr kind ka = kind_v<TA>;
    constexpr kind kb = kind_v<TB>;
    if constexpr (detail::is_std_tuple<TA>::value && detail::is_std_tuple<TB>::value) {
        // Python compares tuples element by element with its own ==: (1, 2) == (1.0, 2) and
        // (1,) != ('a',). std::tuple's == would not even compile for the latter.
        if constexpr (std::tuple_size_v<TA> != std::tuple_size_v<TB>)
            return std::false_type{};
        else
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return all_true(py_eq(std::get<I>(a), std::get<I>(b))...);
            }
        (std::make_index_sequence<std::tuple_size_v<TA>>{});
    } else if constexpr (is_compile_time_v<TA> && is_compile_time_v<TB>) {
        // Evaluate on default-constructed operands: their value is their type.
        if constexpr (is_number_v<TA> && is_number_v<TB>)
            return bool_<detail::number_eq(TA::value, TB::value)>{};
        else if constexpr (ka == kind::string && kb == kind::string)
            return bool_<TA::value == TB::value>{};
        else if constexpr (ka != kb && ka != kind::other && kb != kind::other)
            return std::false_type{};
        else if constexpr (ka == kind::none)
            return std::true_type{};
        else if constexpr (detail::equality_comparable_with<TA, TB>)
            return bool_<detail::as_bool(TA{} == TB{})>{};
        else
            return std::false_type{};
    } else if constexpr (is_number_v<TA> && is_number_v<TB>) {
        return detail::number_eq(detail::scalar_of(a), detail::scalar_of(b));
    } else if constexpr (ka == kind::string && kb == kind::string) {
        return std::string_view(detail::scalar_of(a)) == std::string_view(detail::scalar_of(b));
    } else if constexpr (ka != kb && ka != kind::other && kb != kind::other) {
        return std::false_type{}; // Python: values of different built-in kinds are never equal
    } else if constexpr (detail::equality_comparable_with<TA, TB>) {
        auto r = a == b;
        if constexpr (is_static_bool_v<decltype(r)>)
            return r;
        else
            return static_cast<bool>(r);
    } else {
        return std::false_type{}; // no __eq__: Python falls back to identity, never equal here
    }
}

namespace detail {
template <class A, class B>
inline constexpr bool orderable_v = (is_number_v<A> && is_number_v<B>) ||
                                    (kind_v<A> == kind::string && kind_v<B> == kind::string) ||
                                    (kind_v<A> == kind::list && kind_v<B> == kind::list) ||
                                    (kind_v<A> == kind::tuple && kind_v<B> == kind::tuple) ||
                                    (kind_v<A> == kind::other && kind_v<B> == kind::other);

/// Reports unorderable operands. The notes that name this template show both types.
template <class A, class B>
struct unorderable_types {
    static_assert(always_false<A, B>,
                  "staticpy: TypeError: '<' not supported between instances of these types "
                  "(Python orders numbers with numbers, str with str, list with list)");
};
} // namespace detail

/// Python's a < b for numbers, strings and (through their own operator<) lists and tuples.
/// Unorderable kinds are a compile error naming Python's TypeError.
template <class A, class B>
constexpr auto py_lt(const A& a, const B& b) {
    using TA = std::remove_cvref_t<A>;
    using TB = std::remove_cvref_t<B>;
    if constexpr (!detail::orderable_v<TA, TB>) {
        (void)detail::unorderable_types<TA, TB>{};
        return std::false_type{};
    } else if constexpr (is_compile_time_v<TA> && is_compile_time_v<TB>) {
        if constexpr (is_number_v<TA> && is_number_v<TB>)
            return bool_<detail::number_lt(TA::value, TB::value)>{};
        else if constexpr (kind_v<TA> == kind::string)
            return bool_<(TA::value < TB::value)>{};
        else
            return bool_<detail::as_bool(TA{} < TB{})>{};
    } else if constexpr (is_number_v<TA>) {
        return detail::number_lt(detail::scalar_of(a), detail::scalar_of(b));
    } else if constexpr (kind_v<TA> == kind::string) {
        return std::string_view(detail::scalar_of(a)) < std::string_view(detail::scalar_of(b));
    } else {
        auto r = a < b;
        if constexpr (is_static_bool_v<decltype(r)>)
            return r;
        else
            return static_cast<bool>(r);
    }
}

/// Python's truth value, bool(x): zero, empty and None are false.
template <class T>
constexpr auto py_bool(const T& x) {
    using U = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<U, none_t>)
        return std::false_type{};
    else if constexpr (is_bool_constant_v<U> || is_int_constant_v<U> || is_float_constant_v<U>)
        return bool_<U::value != 0>{};
    else if constexpr (is_str_constant_v<U>)
        return bool_<U::size != 0>{};
    else if constexpr (is_number_v<U>)
        return x != 0;
    else if constexpr (kind_v<U> == kind::string)
        return !std::string_view(detail::scalar_of(x)).empty();
    else if constexpr (requires { x.py_bool(); })
        return x.py_bool();
    else if constexpr (requires { x.size(); })
        return x.size() != 0;
    else
        return static_cast<bool>(x);
}

} // namespace staticpy
