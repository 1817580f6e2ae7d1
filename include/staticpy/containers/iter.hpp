#pragma once
// iter(x) at compile time: the elements that Python's `for e in x` would visit, as a hana::tuple.
// One mechanism for every method that takes an iterable: list.extend, dict.fromkeys, to_list.
//   list  -> its elements        std::tuple, std::pair, hana::tuple -> their elements
//   dict  -> its keys            "abc"_s -> 'a', 'b', 'c'          std::array -> its elements

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/tuple.hpp>

#include "staticpy/containers/diagnostics.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/core/value.hpp"

namespace staticpy {
namespace hana = boost::hana;
namespace detail {

template <class T>
concept has_py_iter = requires(const T& x) {
    x.py_iter();
};

template <class T>
struct is_hana_tuple : std::false_type {};
template <class... Ts>
struct is_hana_tuple<hana::tuple<Ts...>> : std::true_type {};

template <char C>
inline constexpr fixed_string<1> char_string = [] {
    fixed_string<1> s;
    s.data[0] = C;
    return s;
}();

template <fixed_string S, std::size_t... I>
constexpr auto string_chars(str<S>, std::index_sequence<I...>) {
    return hana::make_tuple(str<char_string<S[I]>>{}...);
}

template <class T>
struct not_iterable {
    static constexpr kind k = kind_v<T>;
    STATICPY_TYPE_ERROR_PER_KIND(unless(k, kind::string), "'", "' object is not iterable");
    static_assert(k != kind::string,
                  "staticpy: TypeError: a run-time str has no compile-time length; "
                  "iterate a compile-time \"...\"_s instead");
    static_assert(k != kind::other,
                  "staticpy: TypeError: object is not iterable at compile time "
                  "(iterable: list, dict, std::tuple, hana::tuple, std::array, \"...\"_s)");
};

template <class T>
inline constexpr bool is_iterable_v =
    has_py_iter<T> || traits::is_std_tuple_or_pair_v<T> || is_hana_tuple<T>::value ||
    traits::is_std_array_v<T> || is_str_constant_v<T>;

} // namespace detail

/// The elements of an iterable as a hana::tuple, or a compile error naming Python's TypeError.
template <class T>
constexpr auto iter_elements(const T& x) {
    using U = std::remove_cvref_t<T>;
    if constexpr (detail::has_py_iter<U>) {
        return x.py_iter();
    } else if constexpr (detail::is_hana_tuple<U>::value) {
        return x;
    } else if constexpr (traits::is_std_tuple_or_pair_v<U> || traits::is_std_array_v<U>) {
        return std::apply([](const auto&... e) { return hana::make_tuple(e...); }, x);
    } else if constexpr (is_str_constant_v<U>) {
        return detail::string_chars(x, std::make_index_sequence<U::size>{});
    } else {
        (void)detail::not_iterable<U>{};
        return hana::make_tuple();
    }
}

} // namespace staticpy
