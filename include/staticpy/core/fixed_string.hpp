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

} // namespace staticpy
