#pragma once
// The leaves of a structure of values: std::tuples, staticpy lists and dict values nest, and a
// predicate Leaf<X> says which values are leaves (tensors, traced values, tape Vars, parameters).
// The one walk that jit's tracing, grad's marks and gradients and the optimisers' states share.
//
//   leaf_count<Leaf, X>::value        how many leaves X holds
//   leaf_offsets<Leaf, Ts...>()       the index of each element's first leaf
//   map_leaves<Leaf, K>(x, f)         x with its leaf j replaced by f(integral_constant<K + j>,
//   leaf)

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/traits.hpp"

namespace staticpy::detail {

/// How many leaves (values for which Leaf<X>::value holds) X holds, through std::tuples,
/// staticpy lists and dict values.
template <template <class> class Leaf, class X>
struct leaf_count : std::integral_constant<std::size_t, Leaf<X>::value ? 1 : 0> {};
template <template <class> class Leaf, class... Ts>
struct leaf_count<Leaf, std::tuple<Ts...>>
    : std::integral_constant<std::size_t, (leaf_count<Leaf, Ts>::value + ... + 0)> {};
template <template <class> class Leaf, class... Ts>
struct leaf_count<Leaf, list<Ts...>>
    : std::integral_constant<std::size_t, (leaf_count<Leaf, Ts>::value + ... + 0)> {};
template <template <class> class Leaf, class... K, class... V>
struct leaf_count<Leaf, dict_t<pair<K, V>...>>
    : std::integral_constant<std::size_t, (leaf_count<Leaf, V>::value + ... + 0)> {};

/// The index of each element's first leaf: an exclusive prefix sum of their leaf counts.
template <template <class> class Leaf, class... Ts>
constexpr std::array<std::size_t, sizeof...(Ts) + 1> leaf_offsets() {
    std::array<std::size_t, sizeof...(Ts) + 1> a{};
    std::size_t n = 0, i = 0;
    ((a[i++] = n, n += leaf_count<Leaf, std::remove_cvref_t<Ts>>::value), ...);
    a[i] = n;
    return a;
}

/// Anything but a std::tuple, list or dict: the leaves of a parameter structure (its tensors,
/// and None where a gradient is absent).
template <class X>
struct is_structure_leaf
    : std::bool_constant<!traits::is_std_tuple_v<X> && !is_list_v<X> && !is_dict_v<X>> {};

/// x with its K-th, K+1-th, ... leaves replaced by f(integral_constant<K + j>, leaf j), in the
/// same containers (the same keys); a value that is neither a leaf nor a container stays.
template <template <class> class Leaf, std::size_t K, class X, class F>
auto map_leaves(const X& x, const F& f) {
    using U = std::remove_cvref_t<X>;
    if constexpr (Leaf<U>::value) {
        return f(std::integral_constant<std::size_t, K>{}, x);
    } else if constexpr (is_list_v<U>) {
        return boost::hana::unpack(x.elements, [&](const auto&... e) {
            constexpr auto start = leaf_offsets<Leaf, decltype(e)...>();
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                // the element types spelt out: list{...} of one list would copy it instead
                return list<decltype(map_leaves<Leaf, K + start[J]>(e, f))...>(
                    boost::hana::make_tuple(map_leaves<Leaf, K + start[J]>(e, f)...));
            }
            (std::make_index_sequence<sizeof...(e)>{});
        });
    } else if constexpr (is_dict_v<U>) {
        return boost::hana::unpack(x.entries, [&](const auto&... p) {
            constexpr auto start = leaf_offsets<Leaf, decltype(p.value)...>();
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                auto items = boost::hana::make_tuple(
                    pair(p.key, map_leaves<Leaf, K + start[J]>(p.value, f))...);
                return dict_t<std::remove_cvref_t<decltype(pair(
                    p.key, map_leaves<Leaf, K + start[J]>(p.value, f)))>...>(items);
            }
            (std::make_index_sequence<sizeof...(p)>{});
        });
    } else if constexpr (traits::is_std_tuple_v<U>) {
        return [&]<class... Ts>(const std::tuple<Ts...>& t) {
            constexpr auto start = leaf_offsets<Leaf, Ts...>();
            return [&]<std::size_t... J>(std::index_sequence<J...>) {
                return std::tuple<decltype(map_leaves<Leaf, K + start[J]>(std::get<J>(t), f))...>{
                    map_leaves<Leaf, K + start[J]>(std::get<J>(t), f)...};
            }
            (std::index_sequence_for<Ts...>{});
        }(x);
    } else {
        return x;
    }
}

} // namespace staticpy::detail
