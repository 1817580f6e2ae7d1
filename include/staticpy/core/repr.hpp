#pragma once
// repr() and str() as Python prints them: [1, 2.5, 'a'], {'lr': 0.1}, (1,), None, True, 1e-05.
// Containers print themselves through a member `repr_into(std::string&) const`; any other type
// that can be streamed with << prints that way.

#include <array>
#include <charconv>
#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/value.hpp"

namespace staticpy {

template <class T>
void repr_into(std::string& out, const T& x);

namespace detail {

/// Python's repr of a float: the shortest text that reads back to the same value, in fixed
/// notation unless the decimal exponent is below -4 or above 15 (then 1e-05, 1e+16).
template <class F>
void float_repr_into(std::string& out, F value) {
    if (value != value) {
        out += "nan";
        return;
    }
    if (value == std::numeric_limits<F>::infinity() ||
        value == -std::numeric_limits<F>::infinity()) {
        out += value < 0 ? "-inf" : "inf";
        return;
    }
    std::array<char, 64> buf{};
    auto [end, ec] =
        std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::scientific);
    (void)ec; // 64 characters always suffice for a shortest scientific float
    std::string_view text(buf.data(), static_cast<std::size_t>(end - buf.data()));
    if (text.front() == '-') {
        out += '-';
        text.remove_prefix(1);
    }
    const auto e_pos = text.find('e');
    std::string digits;
    for (char c : text.substr(0, e_pos))
        if (c != '.')
            digits += c;
    int exponent = 0;
    std::from_chars(text.data() + e_pos + 1 + (text[e_pos + 1] == '+'), text.data() + text.size(),
                    exponent);
    while (digits.size() > 1 && digits.back() == '0')
        digits.pop_back();
    const int point = exponent + 1; // digits d1d2... stand for 0.d1d2... * 10^point
    const int n = static_cast<int>(digits.size());
    if (point <= -4 || point > 16) {
        out += digits[0];
        if (n > 1) {
            out += '.';
            out.append(digits, 1);
        }
        out += 'e';
        out += exponent < 0 ? '-' : '+';
        const int magnitude = exponent < 0 ? -exponent : exponent;
        if (magnitude < 10)
            out += '0';
        out += std::to_string(magnitude);
    } else if (point <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-point), '0');
        out += digits;
    } else if (point >= n) {
        out += digits;
        out.append(static_cast<std::size_t>(point - n), '0');
        out += ".0";
    } else {
        out.append(digits, 0, static_cast<std::size_t>(point));
        out += '.';
        out.append(digits, static_cast<std::size_t>(point));
    }
}

/// Python's repr of a str: single quotes unless the text holds ' and no ", with escapes.
inline void string_repr_into(std::string& out, std::string_view s) {
    const bool has_single = s.find('\'') != std::string_view::npos;
    const bool has_double = s.find('"') != std::string_view::npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    out += quote;
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == quote || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (u < 0x20 || u == 0x7f) {
            constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else
            out += c;
    }
    out += quote;
}

template <class T>
concept has_repr_member = requires(const T& x, std::string& out) {
    x.repr_into(out);
};
template <class T>
concept streamable = requires(std::ostream& os, const T& x) {
    os << x;
};
template <class T>
concept iterable_range = requires(const T& x) {
    x.begin();
    x.end();
};

/// Prints a streamable type through its operator<<. Defined in core/print.hpp, which owns the
/// heavy <ostream>; the container headers stay light without it.
template <class T>
struct stream_repr;

template <class Tuple, std::size_t... I>
void tuple_repr_into(std::string& out, const Tuple& t, std::index_sequence<I...>) {
    out += '(';
    ((out += (I == 0 ? "" : ", "), repr_into(out, std::get<I>(t))), ...);
    if (sizeof...(I) == 1)
        out += ',';
    out += ')';
}

} // namespace detail

/// Appends Python's repr of x to out.
template <class T>
void repr_into(std::string& out, const T& x) {
    using U = std::remove_cvref_t<T>;
    if constexpr (detail::has_repr_member<U>)
        x.repr_into(out);
    else if constexpr (std::is_same_v<U, none_t>)
        out += "None";
    else if constexpr (kind_v<U> == kind::boolean)
        out += detail::scalar_of(x) ? "True" : "False";
    else if constexpr (kind_v<U> == kind::integer)
        out += std::to_string(detail::scalar_of(x));
    else if constexpr (kind_v<U> == kind::floating)
        detail::float_repr_into(out, detail::scalar_of(x));
    else if constexpr (kind_v<U> == kind::string)
        detail::string_repr_into(out, std::string_view(detail::scalar_of(x)));
    else if constexpr (detail::is_std_tuple<U>::value)
        detail::tuple_repr_into(out, x, std::make_index_sequence<std::tuple_size_v<U>>{});
    else if constexpr (detail::iterable_range<U> && !detail::streamable<U>) {
        out += '[';
        bool first = true;
        for (const auto& e : x) {
            if (!first)
                out += ", ";
            first = false;
            repr_into(out, e);
        }
        out += ']';
    } else if constexpr (detail::streamable<U>) {
        detail::stream_repr<U>::into(out, x); // an incomplete type here: include print.hpp
    } else {
        out += "<object>";
    }
}

/// Python's repr(x).   repr(list(1, 2.5, "a"_s)) == "[1, 2.5, 'a']"
template <class T>
std::string repr(const T& x) {
    std::string out;
    repr_into(out, x);
    return out;
}

/// Python's str(x): like repr, except that a str is its own text.   str("a"_s) == "a"
template <class T>
std::string str_of(const T& x) {
    if constexpr (kind_v<T> == kind::string)
        return std::string(std::string_view(detail::scalar_of(x)));
    else
        return repr(x);
}

} // namespace staticpy
