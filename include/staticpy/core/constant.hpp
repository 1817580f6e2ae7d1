#pragma once
// Compile-time values: the Python literals whose value lives in their type, so that results
// computed from them (list.count, dict lookups, slices) are constant expressions.
//
//   "lr"_s    a str        (staticpy::str<"lr">)
//   3_c       an int       (staticpy::int_<3>, a std::integral_constant<long long, 3>)
//   2.5_c     a float      (staticpy::float_<bits of 2.5>)
//   True      a bool       (std::true_type), False likewise
//   None      NoneType     (staticpy::none_t)
//
// Results computed at compile time are std::integral_constant too (std::bool_constant for
// predicates), so they compare with plain numbers: static_assert(l.count(1_c) == 1).
// std::integral_constant and hana's integral constants are recognised as compile-time ints too.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "staticpy/core/fixed_string.hpp"

namespace staticpy {

/// Python's None.   dict.get("missing"_s) == None
struct none_t {
    friend constexpr std::true_type operator==(none_t, none_t) { return {}; }
    friend constexpr std::false_type operator!=(none_t, none_t) { return {}; }
};
inline constexpr none_t None{};

inline constexpr std::true_type True{};
inline constexpr std::false_type False{};

/// A compile-time int.   int_<3>{} + 1_c == 4_c
template <long long N>
struct int_ : std::integral_constant<long long, N> {
    constexpr int_<-N> operator-() const { return {}; }
    constexpr int_ operator+() const { return {}; }
};

/// A key and its value: what dict is built from.   dict(pair(1_c, "a"_s), "b"_s = 2)
template <class K, class V>
struct pair {
    [[no_unique_address]] K key{};
    V value{};

    constexpr pair() = default;
    constexpr pair(K k, V v) : key(std::move(k)), value(std::move(v)) {}
};
template <class K, class V>
pair(K, V) -> pair<K, V>;

/// A compile-time str. The `=` builds a keyword-style dict item, as Python's dict(lr=0.1).
///   auto d = dict("lr"_s = 0.1);
template <fixed_string S>
struct str {
    static constexpr std::string_view value = S.view();
    static constexpr std::size_t size = S.size();
    constexpr operator std::string_view() const { return value; }  // NOLINT: implicit on purpose

    template <class V>
    constexpr pair<str, std::decay_t<V>> operator=(V&& v) const {  // NOLINT: builds, not assigns
        return {{}, std::forward<V>(v)};
    }

    template <fixed_string T>
    friend constexpr std::bool_constant<S.view() == T.view()> operator==(str, str<T>) {
        return {};
    }
    template <fixed_string T>
    friend constexpr std::bool_constant<S.view() != T.view()> operator!=(str, str<T>) {
        return {};
    }
};

/// A compile-time float. Its value is carried as the bits of a double, which C++20 allows as a
/// template argument on every compiler (clang 14 has no floating-point template parameters).
template <std::uint64_t Bits>
struct float_ {
    static constexpr double value = std::bit_cast<double>(Bits);
    using value_type = double;
    constexpr operator double() const { return value; }  // NOLINT: implicit on purpose
    constexpr auto operator-() const {
        return float_<std::bit_cast<std::uint64_t>(-value)>{};
    }
    constexpr float_ operator+() const { return {}; }
};

// ---------------------------------------------------------------------------------------------
// Traits that recognise compile-time scalars, whichever library made them.

namespace detail {
template <class T>
concept integral_constant_like = requires {
    typename T::value_type;
    { T::value } -> std::convertible_to<typename T::value_type>;
} && std::is_integral_v<typename T::value_type> && std::is_empty_v<T> &&
                                  std::is_default_constructible_v<T>;

template <class T>
struct is_str_constant : std::false_type {};
template <fixed_string S>
struct is_str_constant<str<S>> : std::true_type {};

template <class T>
struct is_float_constant : std::false_type {};
template <std::uint64_t B>
struct is_float_constant<float_<B>> : std::true_type {};
}  // namespace detail

template <class T>
inline constexpr bool is_bool_constant_v = [] {
    if constexpr (detail::integral_constant_like<T>)
        return std::is_same_v<std::remove_cv_t<typename T::value_type>, bool>;
    else
        return false;
}();
template <class T>
inline constexpr bool is_int_constant_v =
    detail::integral_constant_like<T> && !is_bool_constant_v<T>;
template <class T>
inline constexpr bool is_float_constant_v = detail::is_float_constant<T>::value;
template <class T>
inline constexpr bool is_str_constant_v = detail::is_str_constant<T>::value;

/// A scalar whose value is in its type: int, bool, float and str constants and None.
template <class T>
inline constexpr bool is_scalar_constant_v =
    detail::integral_constant_like<T> || is_float_constant_v<T> || is_str_constant_v<T> ||
    std::is_same_v<T, none_t>;

// ---------------------------------------------------------------------------------------------
// Arithmetic and comparisons between compile-time numbers stay compile-time, as Python's do when
// MindSpore folds them: 1_c + 2_c is int_<3>, 1_c / 2_c is float_<0.5> (true division),
// 1_c < 2.5_c is std::true_type. At least one operand must be a staticpy constant.

namespace detail {
template <class T>
inline constexpr bool is_staticpy_number_v = is_float_constant_v<T> || [] {
    if constexpr (integral_constant_like<T>)
        return std::is_base_of_v<std::integral_constant<long long, T::value>, T>;
    else
        return false;
}();
template <class T>
inline constexpr bool is_number_constant_v = integral_constant_like<T> || is_float_constant_v<T>;

template <class A, class B>
concept constant_operands = is_number_constant_v<A> && is_number_constant_v<B> &&
                            (is_staticpy_number_v<A> || is_staticpy_number_v<B>);

template <class T>
constexpr auto promoted_value() {
    if constexpr (is_float_constant_v<T>) return T::value;
    else return static_cast<long long>(T::value);
}
}  // namespace detail

#define STATICPY_CONSTANT_ARITHMETIC(op)                                                           \
    template <class A, class B>                                                                    \
        requires detail::constant_operands<A, B>                                                   \
    constexpr auto operator op(A, B) {                                                             \
        constexpr auto v = detail::promoted_value<A>() op detail::promoted_value<B>();             \
        if constexpr (std::is_floating_point_v<decltype(v)>)                                       \
            return float_<std::bit_cast<std::uint64_t>(static_cast<double>(v))>{};                 \
        else                                                                                       \
            return int_<static_cast<long long>(v)>{};                                              \
    }
STATICPY_CONSTANT_ARITHMETIC(+)
STATICPY_CONSTANT_ARITHMETIC(-)
STATICPY_CONSTANT_ARITHMETIC(*)
STATICPY_CONSTANT_ARITHMETIC(%)
#undef STATICPY_CONSTANT_ARITHMETIC

/// Python's true division: 1_c / 2_c is 0.5.
template <class A, class B>
    requires detail::constant_operands<A, B>
constexpr auto operator/(A, B) {
    static_assert(B::value != 0, "staticpy: ZeroDivisionError: division by zero");
    constexpr double v = static_cast<double>(detail::promoted_value<A>()) /
                         static_cast<double>(B::value == 0 ? 1 : B::value);
    return float_<std::bit_cast<std::uint64_t>(v)>{};
}

#define STATICPY_CONSTANT_COMPARISON(op)                                                           \
    template <class A, class B>                                                                    \
        requires detail::constant_operands<A, B>                                                   \
    constexpr auto operator op(A, B) {                                                             \
        return std::bool_constant<(static_cast<long double>(A::value) op static_cast<long double>(B::value))>{}; \
    }
STATICPY_CONSTANT_COMPARISON(==)
STATICPY_CONSTANT_COMPARISON(!=)
STATICPY_CONSTANT_COMPARISON(<)
STATICPY_CONSTANT_COMPARISON(<=)
STATICPY_CONSTANT_COMPARISON(>)
STATICPY_CONSTANT_COMPARISON(>=)
#undef STATICPY_CONSTANT_COMPARISON

// ---------------------------------------------------------------------------------------------
// Literals.

namespace detail {

struct parsed_number {
    bool is_float = false;
    bool ok = true;  // false: malformed or out of range
    unsigned long long integer = 0;
    long double floating = 0;
};

constexpr int digit_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return 99;
}

constexpr long double power_of_ten(int exponent) {
    // Exact in long double up to 10^27; the caller divides by it for a negative exponent, which
    // (unlike multiplying by 0.1) rounds once.
    long double result = 1;
    for (int i = 0; i < exponent; ++i) result *= 10.0L;
    return result;
}

/// Parses the characters of a numeric literal the way the compiler does (digit separators,
/// 0x/0b/0 prefixes, decimal floats with exponents). Hexadecimal floats are not supported.
template <std::size_t N>
constexpr parsed_number parse_number(const char (&literal)[N]) {
    char text[N + 2]{};  // padded, so that looking at a prefix never reads past the end
    for (std::size_t k = 0; k < N; ++k) text[k] = literal[k];
    parsed_number out;
    std::size_t i = 0;
    const std::size_t n = N;
    bool decimal_float = false;
    for (std::size_t k = 0; k < n; ++k)
        if (text[k] == '.' || ((text[k] == 'e' || text[k] == 'E') &&
                               !(n > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))))
            decimal_float = true;
    if (decimal_float) {
        out.is_float = true;
        unsigned long long mantissa = 0;
        int exponent = 0;
        int digits = 0;
        bool after_point = false;
        for (; i < n && text[i] != 'e' && text[i] != 'E'; ++i) {
            if (text[i] == '\'') continue;
            if (text[i] == '.') { after_point = true; continue; }
            if (digits < 19) {
                mantissa = mantissa * 10 + static_cast<unsigned>(text[i] - '0');
                if (mantissa != 0) ++digits;
                if (after_point) --exponent;
            } else if (!after_point) {
                ++exponent;  // digits beyond what a mantissa holds still scale the value
            }
        }
        if (i < n) {  // exponent part
            ++i;
            bool negative = false;
            if (i < n && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
            int e = 0;
            for (; i < n; ++i) e = e * 10 + (text[i] - '0');
            exponent += negative ? -e : e;
        }
        out.floating = exponent < 0 ? static_cast<long double>(mantissa) / power_of_ten(-exponent)
                                    : static_cast<long double>(mantissa) * power_of_ten(exponent);
        return out;
    }
    unsigned base = 10;
    if (n > 1 && text[0] == '0') {
        if (text[1] == 'x' || text[1] == 'X') { base = 16; i = 2; }
        else if (text[1] == 'b' || text[1] == 'B') { base = 2; i = 2; }
        else { base = 8; i = 1; }
    }
    for (; i < n; ++i) {
        if (text[i] == '\'') continue;
        const auto d = static_cast<unsigned>(digit_value(text[i]));
        if (d >= base) { out.ok = false; break; }
        if (out.integer > (~0ULL - d) / base) { out.ok = false; break; }
        out.integer = out.integer * base + d;
    }
    return out;
}

}  // namespace detail

namespace literals {

/// "abc"_s: a compile-time str.
template <fixed_string S>
constexpr str<S> operator""_s() {
    return {};
}

/// 3_c is a compile-time int (int_<3>); 2.5_c a compile-time float.
template <char... Cs>
constexpr auto operator""_c() {
    constexpr char text[] = {Cs...};
    constexpr detail::parsed_number parsed = detail::parse_number(text);
    static_assert(parsed.ok, "staticpy: OverflowError: integer literal does not fit in a long long");
    if constexpr (parsed.is_float) {
        return float_<std::bit_cast<std::uint64_t>(static_cast<double>(parsed.floating))>{};
    } else {
        static_assert(parsed.integer <= 0x7fffffffffffffffULL,
                      "staticpy: OverflowError: integer literal does not fit in a long long");
        return int_<static_cast<long long>(parsed.integer)>{};
    }
}

}  // namespace literals

/// A compile-time int, for generated code that has the number but not a literal.
template <long long N>
inline constexpr int_<N> int_c{};

/// Compile-time results: a length or position, and a truth value.
template <std::size_t N>
using size_ = std::integral_constant<std::size_t, N>;
template <bool B>
using bool_ = std::bool_constant<B>;

}  // namespace staticpy
