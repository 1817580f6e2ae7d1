#pragma once
// The standard-library type tests that several layers need, defined once. Each name says exactly
// what it matches: Python treats a std::pair as a 2-tuple where staticpy prints or compares values,
// but a graph input must be a real std::tuple, so both questions have their own name.

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace staticpy::traits {

/// std::tuple<Ts...> only (not std::pair, not std::array).
template <class T>
inline constexpr bool is_std_tuple_v = false;
template <class... Ts>
inline constexpr bool is_std_tuple_v<std::tuple<Ts...>> = true;

/// std::pair<A, B>.
template <class T>
inline constexpr bool is_std_pair_v = false;
template <class A, class B>
inline constexpr bool is_std_pair_v<std::pair<A, B>> = true;

/// What Python would show as a tuple: a std::tuple or a std::pair.
template <class T>
inline constexpr bool is_std_tuple_or_pair_v = is_std_tuple_v<T> || is_std_pair_v<T>;

/// std::array<T, N>.
template <class T>
inline constexpr bool is_std_array_v = false;
template <class T, std::size_t N>
inline constexpr bool is_std_array_v<std::array<T, N>> = true;

namespace detail {
template <class... Ts>
struct pack_first {
    using type = void; // an empty pack has no first type; void lets callers test for it
};
template <class T, class... Ts>
struct pack_first<T, Ts...> {
    using type = T;
};
} // namespace detail

/// The first type of a pack, void for an empty pack.
template <class... Ts>
using pack_first_t = typename detail::pack_first<Ts...>::type;

} // namespace staticpy::traits
