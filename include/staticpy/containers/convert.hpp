#pragma once
// Conversions of a list to the standard containers: std::tuple, std::array, std::vector.
//   auto a = to_array(list(1_c, 2_c));   // std::array<long long, 2>{1, 2}

#include <array>
#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <boost/hana/unpack.hpp>

#include "staticpy/containers/list.hpp"

namespace staticpy {

// ------------------------------------------------------------------- conversions

/// A std::tuple of the elements.
template <class... Ts>
constexpr std::tuple<Ts...> to_tuple(const list<Ts...>& l) {
    return hana::unpack(l.elements, [](const auto&... e) { return std::tuple<Ts...>(e...); });
}

namespace detail {
/// An element as an array stores it: a compile-time scalar as its value (a str constant's view is
/// of static storage), anything else as itself. Not scalar_of, whose views of a std::string or a
/// char point into the list, and would dangle once a temporary list is gone.
template <class T>
constexpr auto array_value_of(const T& x) {
    if constexpr (is_scalar_constant_v<T> && !std::is_same_v<T, none_t>)
        return scalar_of(x);
    else
        return x;
}
template <class... Ts>
concept have_common_type = requires {
    typename std::common_type<decltype(array_value_of(std::declval<const Ts&>()))...>::type;
};
template <class... Ts>
struct array_element {
    using common = std::common_type_t<decltype(array_value_of(std::declval<const Ts&>()))...>;
    // "a"_s beside a std::string: own the text rather than view a copy.
    using type = std::conditional_t<std::is_same_v<common, std::string_view> &&
                                        (std::is_same_v<Ts, std::string> || ...),
                                    std::string, common>;
};
} // namespace detail

/// A std::array of the elements' common type (compile-time scalars become their values).
template <class... Ts>
constexpr auto to_array(const list<Ts...>& l) {
    if constexpr (sizeof...(Ts) == 0) {
        return std::array<int, 0>{};
    } else if constexpr (!detail::have_common_type<Ts...>) {
        static_assert(
            detail::have_common_type<Ts...>,
            "staticpy: TypeError: the list's elements have no common type for a std::array");
        return std::array<int, 0>{};
    } else {
        using T = typename detail::array_element<Ts...>::type;
        return hana::unpack(l.elements, [](const auto&... e) {
            return std::array<T, sizeof...(Ts)>{static_cast<T>(detail::array_value_of(e))...};
        });
    }
}

/// A std::vector of the elements' common type.
template <class... Ts>
std::vector<typename decltype(to_array(std::declval<const list<Ts...>&>()))::value_type>
to_vector(const list<Ts...>& l) {
    auto a = to_array(l);
    return {a.begin(), a.end()};
}

} // namespace staticpy
