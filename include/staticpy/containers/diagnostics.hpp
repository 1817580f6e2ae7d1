#pragma once
// Compile-time errors of list and dict that must show what Python shows.
//
// A static_assert's text is a string literal (until C++26), so it cannot contain the offending
// value or type name. Two mechanisms get them onto the first lines of the error anyway:
//   - STATICPY_TYPE_ERROR_PER_KIND pastes each Python type name into one static_assert per kind,
//     of which only the one for the offending kind fires;
//   - the raise:: tags carry a compile-time value's repr as a char pack in the failing
//     requirement: clang prints the requirement beside the message, g++ in the note right under
//     it ("'staticpy::raise::KeyError<...'m', 'i'...>' evaluates to false"). A char pack rather
//     than a fixed_string because clang 14 prints a fixed_string as character codes.

#include <array>
#include <cstddef>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/value.hpp"

/// One static_assert per Python type named in `before "type" after`; k is the offending kind,
/// or detail::kind_handled_elsewhere for a kind the caller reports with its own text.
#define STATICPY_TYPE_ERROR_PER_KIND(k, before, after)                                             \
    static_assert((k) != ::staticpy::kind::none, "staticpy: TypeError: " before "NoneType" after); \
    static_assert((k) != ::staticpy::kind::boolean, "staticpy: TypeError: " before "bool" after);  \
    static_assert((k) != ::staticpy::kind::integer, "staticpy: TypeError: " before "int" after);   \
    static_assert((k) != ::staticpy::kind::floating,                                               \
                  "staticpy: TypeError: " before "float" after);                                   \
    static_assert((k) != ::staticpy::kind::string, "staticpy: TypeError: " before "str" after);    \
    static_assert((k) != ::staticpy::kind::list, "staticpy: TypeError: " before "list" after);     \
    static_assert((k) != ::staticpy::kind::tuple, "staticpy: TypeError: " before "tuple" after);   \
    static_assert((k) != ::staticpy::kind::dict, "staticpy: TypeError: " before "dict" after)

namespace staticpy {

namespace detail {

/// Matches no kind: STATICPY_TYPE_ERROR_PER_KIND then stays silent.
inline constexpr auto kind_handled_elsewhere = static_cast<kind>(-1);

/// k, or kind_handled_elsewhere when it is one of the kinds the caller words itself.
template <class... Handled>
constexpr kind unless(kind k, Handled... handled) {
    return ((k == handled) || ...) ? kind_handled_elsewhere : k;
}

/// Python's repr of a compile-time scalar, as characters (at most 40, enough for a key).
template <class V>
constexpr auto repr_chars() {
    struct text {
        std::array<char, 48> c{};
        std::size_t n = 0;
        constexpr void add(char x) { c[n++] = x; }
        constexpr void add(std::string_view s) {
            for (std::size_t i = 0; i < s.size() && n < 40; ++i)
                add(s[i]);
        }
    } out;
    if constexpr (std::is_same_v<V, none_t>) {
        out.add(std::string_view("None"));
    } else if constexpr (is_bool_constant_v<V>) {
        out.add(std::string_view(V::value ? "True" : "False"));
    } else if constexpr (is_int_constant_v<V>) {
        const auto v = static_cast<long long>(V::value);
        unsigned long long u =
            v < 0 ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
        char digits[20]{};
        std::size_t k = 0;
        do {
            digits[k++] = static_cast<char>('0' + u % 10);
            u /= 10;
        } while (u != 0);
        if (v < 0)
            out.add('-');
        while (k > 0)
            out.add(digits[--k]);
    } else if constexpr (is_str_constant_v<V>) {
        // Python quotes with ' unless the text holds a ' and no ".
        const bool has_single = V::value.find('\'') != std::string_view::npos;
        const bool has_double = V::value.find('"') != std::string_view::npos;
        const char quote = has_single && !has_double ? '"' : '\'';
        out.add(quote);
        out.add(V::value);
        out.add(quote);
    }
    return out;
}

template <char... C>
struct repr_text {};
template <class V>
struct value_of_type {};

template <class V>
constexpr auto repr_of_type() {
    if constexpr (is_int_constant_v<V> || is_bool_constant_v<V> || is_str_constant_v<V> ||
                  std::is_same_v<V, none_t>) {
        constexpr auto t = repr_chars<V>();
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return repr_text<t.c[I]...>{};
        }
        (std::make_index_sequence<t.n>{});
    } else {
        return value_of_type<V>{}; // a float: its type is the most a compiler prints of it
    }
}

} // namespace detail

/// The tags whose template argument is the value Python's message shows; never true, so that
/// static_assert(raise::KeyError<...>, ...) always fires and shows the argument.
namespace raise {
template <class V>
using repr = decltype(detail::repr_of_type<V>());

template <class Repr>
inline constexpr bool KeyError = false;
template <class Repr>
inline constexpr bool ValueError = false;
template <class Value>
inline constexpr bool TypeError = false;
} // namespace raise

} // namespace staticpy
