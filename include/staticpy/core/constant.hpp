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
#include <limits>
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
    static constexpr auto text = S; // the fixed_string itself, for building other strs' texts
    constexpr operator std::string_view() const { return value; } // NOLINT: implicit on purpose

    template <class V>
    constexpr pair<str, std::decay_t<V>> operator=(V&& v) const { // NOLINT: builds, not assigns
        return {{}, std::forward<V>(v)};
    }

    /// "a"_s + "b"_s is "ab"_s, as Python's str +.
    template <fixed_string T>
    friend constexpr str<S + T> operator+(str, str<T>) {
        return {};
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
    constexpr operator double() const { return value; } // NOLINT: implicit on purpose
    constexpr auto operator-() const { return float_<std::bit_cast<std::uint64_t>(-value)>{}; }
    constexpr float_ operator+() const { return {}; }
};

// ---------------------------------------------------------------------------------------------
// Traits that recognise compile-time scalars, whichever library made them.

namespace detail {
template <class T>
concept integral_constant_like = requires {
    typename T::value_type;
    { T::value } -> std::convertible_to<typename T::value_type>;
}
&&std::is_integral_v<typename T::value_type>&& std::is_empty_v<T>&&
    std::is_default_constructible_v<T>;

template <class T>
struct is_str_constant : std::false_type {};
template <fixed_string S>
struct is_str_constant<str<S>> : std::true_type {};

template <class T>
struct is_float_constant : std::false_type {};
template <std::uint64_t B>
struct is_float_constant<float_<B>> : std::true_type {};
} // namespace detail

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

// Shortcuts for staticpy's own constants and std's bools: answered by matching the type, without
// the concept check above. Generated code names thousands of constants, and each check is an
// instantiation.
template <long long N>
inline constexpr bool is_bool_constant_v<int_<N>> = false;
template <bool B>
inline constexpr bool is_bool_constant_v<std::integral_constant<bool, B>> = true;
template <long long N>
inline constexpr bool is_int_constant_v<int_<N>> = true;
template <bool B>
inline constexpr bool is_int_constant_v<std::integral_constant<bool, B>> = false;
template <long long N>
inline constexpr bool is_scalar_constant_v<int_<N>> = true;
template <bool B>
inline constexpr bool is_scalar_constant_v<std::integral_constant<bool, B>> = true;

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
    if constexpr (is_float_constant_v<T>)
        return T::value;
    else
        return static_cast<long long>(T::value);
}
} // namespace detail

#define STATICPY_CONSTANT_ARITHMETIC(op)                                                           \
    template <class A, class B>                                                                    \
    requires detail::constant_operands<A, B>                                                       \
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
#undef STATICPY_CONSTANT_ARITHMETIC

namespace detail {
/// std::fmod in a constant expression (it is constexpr only from C++23), exact as fmod is:
/// subtracting t = |y| * 2^k from r when t <= r < 2t is exact (Sterbenz).
constexpr double fmod_exact(double x, double y) {
    const double inf = std::numeric_limits<double>::infinity();
    if (x != x || y != y || x == inf || x == -inf || y == 0)
        return std::numeric_limits<double>::quiet_NaN();
    const double m = y < 0 ? -y : y;
    double r = x < 0 ? -x : x;
    if (m == inf || r < m)
        return x;
    double t = m;
    while (t * 2 <= r)
        t *= 2;
    for (; t >= m; t /= 2)
        if (r >= t)
            r -= t;
    return x < 0 ? -r : r;
}
} // namespace detail

/// Python's %: the result has the divisor's sign (-7_c % 3_c is 2, not C++'s -1), and floats
/// work (5.5_c % 2_c is 1.5).
template <class A, class B>
requires detail::constant_operands<A, B>
constexpr auto operator%(A, B) {
    constexpr auto a = detail::promoted_value<A>();
    constexpr auto b = detail::promoted_value<B>();
    if constexpr (std::is_floating_point_v<decltype(a + b)>) {
        static_assert(b != 0, "staticpy: ZeroDivisionError: float modulo");
        // CPython's float_rem: fmod, then moved into the divisor's sign.
        constexpr double v = [] {
            double mod = detail::fmod_exact(static_cast<double>(a), static_cast<double>(b));
            if (mod != 0) {
                if ((b < 0) != (mod < 0))
                    mod += static_cast<double>(b);
            } else {
                mod = b < 0 ? -0.0 : 0.0;
            }
            return mod;
        }();
        return float_<std::bit_cast<std::uint64_t>(v)>{};
    } else {
        static_assert(b != 0, "staticpy: ZeroDivisionError: integer modulo by zero");
        constexpr long long v = [] {
            const long long mod = a % (b == 0 ? 1 : b);
            return mod != 0 && ((mod < 0) != (b < 0)) ? mod + b : mod;
        }();
        return int_<v>{};
    }
}

/// Python's true division: 1_c / 2_c is 0.5.
template <class A, class B>
requires detail::constant_operands<A, B>
constexpr auto operator/(A, B) {
    // Python's texts: "division by zero" for ints, "float division by zero" when a float is in.
    static_assert(B::value != 0 || is_float_constant_v<A> || is_float_constant_v<B>,
                  "staticpy: ZeroDivisionError: division by zero");
    static_assert(B::value != 0 || !(is_float_constant_v<A> || is_float_constant_v<B>),
                  "staticpy: ZeroDivisionError: float division by zero");
    constexpr double v = static_cast<double>(detail::promoted_value<A>()) /
                         static_cast<double>(B::value == 0 ? 1 : B::value);
    return float_<std::bit_cast<std::uint64_t>(v)>{};
}

#define STATICPY_CONSTANT_COMPARISON(op)                                                           \
    template <class A, class B>                                                                    \
    requires detail::constant_operands<A, B>                                                       \
    constexpr auto operator op(A, B) {                                                             \
        return std::bool_constant<(static_cast<long double>(A::value)                              \
                                       op static_cast<long double>(B::value))>{};                  \
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
    bool hex_float = false; // 0x1.8p1: C++ has them, Python has no such literal
    bool ok = true;         // false: malformed or out of range
    unsigned long long integer = 0;
    double floating = 0;
};

constexpr int digit_value(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/// An unsigned integer of up to 4096 bits, for reading decimal floats exactly: Python (and the
/// compiler) round a literal to the nearest double once, which arithmetic in long double does not
/// (its 10^k are inexact beyond 10^27, and each operation rounds again). The loops run over the
/// limbs in use only, to keep literals cheap to compile.
struct big_uint {
    static constexpr int capacity = 128;
    std::uint32_t limb[capacity]{}; // little-endian
    int size = 0;                   // limbs in use; limb[size - 1] != 0

    constexpr void mul_add(std::uint32_t m, std::uint32_t a) {
        std::uint64_t carry = a;
        for (int k = 0; k < size; ++k) {
            const std::uint64_t v = std::uint64_t{limb[k]} * m + carry;
            limb[k] = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
        if (carry != 0 && size < capacity)
            limb[size++] = static_cast<std::uint32_t>(carry);
    }
    constexpr void mul_pow10(int k) {
        for (; k >= 9; k -= 9)
            mul_add(1000000000U, 0);
        constexpr std::uint32_t small[9] = {1,      10,      100,      1000,     10000,
                                            100000, 1000000, 10000000, 100000000};
        mul_add(small[k], 0);
    }
    [[nodiscard]] constexpr int bit_length() const {
        return size == 0 ? 0 : (size - 1) * 32 + static_cast<int>(std::bit_width(limb[size - 1]));
    }
    [[nodiscard]] constexpr bool bit(int i) const { return ((limb[i / 32] >> (i % 32)) & 1U) != 0; }
    [[nodiscard]] constexpr big_uint shifted_left(int s) const {
        big_uint out;
        const int words = s / 32;
        const int bits = s % 32;
        for (int k = 0; k < size; ++k) {
            out.limb[k + words] |= limb[k] << bits;
            if (bits != 0)
                out.limb[k + words + 1] |= limb[k] >> (32 - bits);
        }
        out.size = size + words + 1 < capacity ? size + words + 1 : capacity;
        out.trim();
        return out;
    }
    constexpr void halve() {
        for (int k = 0; k < size; ++k)
            limb[k] = (limb[k] >> 1) | (k + 1 < size ? limb[k + 1] << 31 : 0U);
        trim();
    }
    [[nodiscard]] constexpr bool less_equal(const big_uint& o) const {
        if (size != o.size)
            return size < o.size;
        for (int k = size - 1; k >= 0; --k)
            if (limb[k] != o.limb[k])
                return limb[k] < o.limb[k];
        return true;
    }
    constexpr void subtract(const big_uint& o) { // requires o <= *this
        std::int64_t borrow = 0;
        for (int k = 0; k < size; ++k) {
            const std::int64_t v = std::int64_t{limb[k]} - (k < o.size ? o.limb[k] : 0U) - borrow;
            borrow = v < 0 ? 1 : 0;
            limb[k] = static_cast<std::uint32_t>(v + (borrow << 32));
        }
        trim();
    }
    constexpr void trim() {
        while (size > 0 && limb[size - 1] == 0)
            --size;
    }
    [[nodiscard]] constexpr bool is_zero() const { return size == 0; }
};

/// The double nearest to (q + a fraction, non-zero when `sticky`) * 2^exp2, ties to even, with
/// subnormals and overflow to inf, as IEEE-754 rounds.
constexpr double round_to_double(std::uint64_t q, int exp2, bool sticky) {
    const int length = static_cast<int>(std::bit_width(q));
    const int shift = std::max(length - 53, -1074 - exp2); // bits of q below the last kept one
    std::uint64_t mantissa = 0;
    if (shift <= 0) {
        mantissa = q << -shift;
    } else if (shift <= 64) {
        mantissa = shift == 64 ? 0 : q >> shift;
        const std::uint64_t rest = shift == 64 ? q : q & ((std::uint64_t{1} << shift) - 1);
        const std::uint64_t half = std::uint64_t{1} << (shift - 1);
        if (rest > half || (rest == half && (sticky || (mantissa & 1U) != 0)))
            ++mantissa;
    }
    int scale = exp2 + shift; // the weight of mantissa's last bit
    if (mantissa == (std::uint64_t{1} << 53)) {
        mantissa >>= 1;
        ++scale;
    }
    if (mantissa < (std::uint64_t{1} << 52))
        return std::bit_cast<double>(mantissa); // subnormal
    const int biased = scale + 52 + 1023;
    if (biased >= 2047)
        return std::numeric_limits<double>::infinity();
    return std::bit_cast<double>((static_cast<std::uint64_t>(biased) << 52) |
                                 (mantissa & ((std::uint64_t{1} << 52) - 1)));
}

/// The double nearest to mantissa * 10^exponent (mantissa has `digits` significant digits).
constexpr double decimal_to_double(const big_uint& mantissa, int digits, int exponent) {
    if (mantissa.is_zero() || digits + exponent < -330)
        return 0.0;
    if (digits + exponent > 310)
        return std::numeric_limits<double>::infinity();
    if (digits <= 15 && exponent >= -22 && exponent <= 22) {
        // Clinger's fast path: both operands are exact doubles, so one operation rounds once.
        const double m = static_cast<double>(
            mantissa.limb[0] | (mantissa.size > 1 ? std::uint64_t{mantissa.limb[1]} << 32 : 0));
        double power = 1;
        for (int k = 0; k < (exponent < 0 ? -exponent : exponent); ++k)
            power *= 10;
        return exponent < 0 ? m / power : m * power;
    }
    if (exponent >= 0) {
        big_uint value = mantissa;
        value.mul_pow10(exponent);
        const int length = value.bit_length();
        const int low = length > 64 ? length - 64 : 0; // bits below the 64 we keep
        std::uint64_t q = 0;
        for (int i = length - 1; i >= low; --i)
            q = (q << 1) | (value.bit(i) ? 1U : 0U);
        bool sticky = false;
        for (int i = 0; i < low; ++i)
            sticky = sticky || value.bit(i);
        return round_to_double(q, low, sticky);
    }
    // mantissa / 10^-exponent: 63 or 64 bits of quotient by long division, and a sticky remainder.
    big_uint power;
    power.limb[0] = 1;
    power.size = 1;
    power.mul_pow10(-exponent);
    const int s = 63 + power.bit_length() - mantissa.bit_length();
    big_uint numerator = mantissa.shifted_left(s > 0 ? s : 0);
    big_uint divisor = power.shifted_left((s < 0 ? -s : 0) + 63);
    std::uint64_t q = 0;
    for (int i = 63; i >= 0; --i, divisor.halve()) {
        if (divisor.less_equal(numerator)) {
            numerator.subtract(divisor);
            q |= std::uint64_t{1} << i;
        }
    }
    return round_to_double(q, -s, !numerator.is_zero());
}

/// Parses the characters of a numeric literal the way the compiler does (digit separators,
/// 0x/0b/0 prefixes, decimal floats with exponents). Hexadecimal floats are not supported.
template <std::size_t N>
constexpr parsed_number parse_number(const char (&literal)[N]) {
    char text[N + 2]{}; // padded, so that looking at a prefix never reads past the end
    for (std::size_t k = 0; k < N; ++k)
        text[k] = literal[k];
    parsed_number out;
    std::size_t i = 0;
    const std::size_t n = N;
    const bool hex = n > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    bool decimal_float = false;
    for (std::size_t k = 0; k < n; ++k) {
        if (hex && (text[k] == '.' || text[k] == 'p' || text[k] == 'P'))
            out.hex_float = true;
        if (!hex && (text[k] == '.' || text[k] == 'e' || text[k] == 'E'))
            decimal_float = true;
    }
    if (out.hex_float) {
        out.is_float = true;
        out.ok = false;
        return out;
    }
    if (decimal_float) {
        out.is_float = true;
        // Up to 800 significant digits exactly (a double's exact decimal value has at most 767);
        // a non-zero digit beyond them is kept as a final 1, to break a tie as the text would.
        big_uint mantissa;
        int exponent = 0;
        int digits = 0;
        bool dropped_nonzero = false;
        bool after_point = false;
        for (; i < n && text[i] != 'e' && text[i] != 'E'; ++i) {
            if (text[i] == '\'')
                continue;
            if (text[i] == '.') {
                after_point = true;
                continue;
            }
            const auto d = static_cast<std::uint32_t>(text[i] - '0');
            if (digits < 800) {
                mantissa.mul_add(10, d);
                if (digits > 0 || d != 0)
                    ++digits;
                if (after_point)
                    --exponent;
            } else {
                dropped_nonzero = dropped_nonzero || d != 0;
                if (!after_point)
                    ++exponent; // digits beyond the 800 still scale the value
            }
        }
        if (dropped_nonzero) {
            mantissa.mul_add(10, 1);
            ++digits;
            --exponent;
        }
        if (i < n) { // exponent part
            ++i;
            bool negative = false;
            if (i < n && (text[i] == '-' || text[i] == '+'))
                negative = text[i++] == '-';
            int e = 0;
            for (; i < n; ++i)
                if (e < 100000)
                    e = e * 10 + (text[i] - '0'); // past it: 0 or inf anyway
            exponent += negative ? -e : e;
        }
        out.floating = decimal_to_double(mantissa, digits, exponent);
        return out;
    }
    unsigned base = 10;
    if (n > 1 && text[0] == '0') {
        if (text[1] == 'x' || text[1] == 'X') {
            base = 16;
            i = 2;
        } else if (text[1] == 'b' || text[1] == 'B') {
            base = 2;
            i = 2;
        } else {
            base = 8;
            i = 1;
        }
    }
    for (; i < n; ++i) {
        if (text[i] == '\'')
            continue;
        const auto d = static_cast<unsigned>(digit_value(text[i]));
        if (d >= base) {
            out.ok = false;
            break;
        }
        if (out.integer > (~0ULL - d) / base) {
            out.ok = false;
            break;
        }
        out.integer = out.integer * base + d;
    }
    return out;
}

} // namespace detail

namespace literals {

/// The str constant that "abc"_s refers to.
template <fixed_string S>
inline constexpr str<S> str_c{};

/// "abc"_s: a compile-time str. It returns a reference to str_c<S> rather than a new str<S>:
/// clang 14 crashes (a segfault in the front end) when a literal operator template with a
/// class-type parameter returns its value and that value then meets a std::string in a
/// std::tuple; returning a reference avoids that path. Copies are free: a str is empty.
template <fixed_string S>
constexpr const str<S>& operator""_s() {
    return str_c<S>;
}

/// 3_c is a compile-time int (int_<3>); 2.5_c a compile-time float.
template <char... Cs>
constexpr auto operator""_c() {
    constexpr char text[] = {Cs...};
    constexpr detail::parsed_number parsed = detail::parse_number(text);
    static_assert(!parsed.hex_float,
                  "staticpy: SyntaxError: hexadecimal floating literals are not Python; write a "
                  "decimal one");
    static_assert(parsed.ok || parsed.hex_float,
                  "staticpy: OverflowError: integer literal does not fit in a long long");
    if constexpr (parsed.is_float) {
        return float_<std::bit_cast<std::uint64_t>(static_cast<double>(parsed.floating))>{};
    } else {
        static_assert(parsed.integer <= 0x7fffffffffffffffULL,
                      "staticpy: OverflowError: integer literal does not fit in a long long");
        return int_<static_cast<long long>(parsed.integer)>{};
    }
}

} // namespace literals

/// A compile-time int, for generated code that has the number but not a literal.
template <long long N>
inline constexpr int_<N> int_c{};

/// Compile-time results: a length or position, and a truth value.
template <std::size_t N>
using size_ = std::integral_constant<std::size_t, N>;
template <bool B>
using bool_ = std::bool_constant<B>;

} // namespace staticpy
