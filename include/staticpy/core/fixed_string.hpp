#pragma once
// A string usable as a template argument: the carrier of compile-time str values ("abc"_s).
// Hana's own "abc"_s is a GNU extension that -Wpedantic rejects; a class-type template parameter
// is standard C++20.

#include <cstddef>
#include <string_view>

namespace staticpy {

template <std::size_t N>
struct fixed_string {
    char data[N + 1]{}; // NUL-terminated so that c_str() works

    constexpr fixed_string() = default;
    constexpr fixed_string(const char (&text)[N + 1]) { // NOLINT: implicit on purpose
        for (std::size_t i = 0; i < N; ++i)
            data[i] = text[i];
    }
    [[nodiscard]] static constexpr std::size_t size() { return N; }
    [[nodiscard]] constexpr std::string_view view() const { return {data, N}; }
    [[nodiscard]] constexpr const char* c_str() const { return data; }
    [[nodiscard]] constexpr char operator[](std::size_t i) const { return data[i]; }
};

template <std::size_t N>
fixed_string(const char (&)[N]) -> fixed_string<N - 1>;

/// a + b: the text of a, then b's (a str's +, and the dotted names of nested modules' parameters).
template <std::size_t N, std::size_t M>
constexpr fixed_string<N + M> operator+(const fixed_string<N>& a, const fixed_string<M>& b) {
    fixed_string<N + M> out;
    for (std::size_t i = 0; i < N; ++i)
        out.data[i] = a.data[i];
    for (std::size_t i = 0; i < M; ++i)
        out.data[N + i] = b.data[i];
    return out;
}

/// The decimal digits of a non-negative V ("0", "12"): a Sequential's child names.
template <std::size_t V>
constexpr auto decimal_fixed_string() {
    constexpr std::size_t digits = [] {
        std::size_t n = 1;
        for (std::size_t v = V; v >= 10; v /= 10)
            ++n;
        return n;
    }();
    fixed_string<digits> out;
    std::size_t v = V;
    for (std::size_t i = digits; i-- > 0; v /= 10)
        out.data[i] = static_cast<char>('0' + v % 10);
    return out;
}

} // namespace staticpy
