#pragma once
// Python's builtins over any iterable (a list, dict, std::tuple, std::array, hana::tuple, "str"_s):
// len, to_list, for_each, enumerate, zip, map, filter, reduce, sum, all, any, sorted, reversed and
// `in`. Each takes the elements through iter_elements and returns a list.
//   static_assert(sum(list(1_c, 2_c)) == 3_c);

#include <array>
#include <cstddef>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/concat.hpp>
#include <boost/hana/fold_left.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/unpack.hpp>

#include "staticpy/containers/iter.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/value.hpp"

namespace staticpy {

/// Python's len(): a size_<n> (std::integral_constant) for anything whose length is known at
/// compile time, so that it can size an array or be a template argument.
template <class T>
constexpr auto len(const T& x) {
    using U = std::remove_cvref_t<T>;
    if constexpr (is_str_constant_v<U>)
        return size_<U::size>{};
    else if constexpr (detail::is_iterable_v<U>)
        return size_<decltype(hana::size(iter_elements(x)))::value>{};
    else if constexpr (kind_v<U> == kind::string)
        return std::string_view(detail::scalar_of(x)).size();
    else
        return x.size();
}

/// Python's list(iterable).   to_list("ab"_s) -> ['a', 'b']
template <class Iterable>
constexpr auto to_list(const Iterable& iterable) {
    return hana::unpack(iter_elements(iterable), [](const auto&... e) {
        return list<std::remove_cvref_t<decltype(e)>...>(e...);
    });
}

/// Calls f on every element, in order (f may modify them through a non-const list).
template <class... Ts, class F>
constexpr void for_each(list<Ts...>& l, F&& f) {
    l.unpack_indices([&](auto... i) { (f(l.template at<decltype(i)::value>()), ...); });
}
template <class Iterable, class F>
constexpr void for_each(const Iterable& iterable, F&& f) {
    hana::unpack(iter_elements(iterable), [&](const auto&... e) { (f(e), ...); });
}

/// Python's enumerate: a list of (index, element) tuples; the index is a compile-time int.
template <class Iterable, class Start = int_<0>>
constexpr auto enumerate(const Iterable& iterable, Start = {}) {
    static_assert(detail::is_index_constant_v<Start>,
                  "staticpy: TypeError: enumerate's start must be a compile-time int");
    return hana::unpack(iter_elements(iterable), [](const auto&... e) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return list(std::tuple(int_<Start::value + static_cast<long long>(I)>{}, e)...);
        }
        (std::index_sequence_for<decltype(e)...>{});
    });
}

namespace detail {
template <std::size_t I, class... Tuples>
constexpr auto zip_row(const Tuples&... ts) {
    return std::tuple(hana::at_c<I>(ts)...);
}
} // namespace detail

/// Python's zip: tuples of the i-th elements, as long as the shortest iterable.
template <class... Iterables>
constexpr auto zip(const Iterables&... iterables) {
    // The shortest length; Python's zip() of nothing is empty.
    constexpr std::size_t n = [] {
        const std::size_t lengths[] = {
            decltype(hana::size(iter_elements(std::declval<const Iterables&>())))::value..., 0};
        std::size_t shortest = sizeof...(Iterables) == 0 ? 0 : lengths[0];
        for (std::size_t k = 0; k < sizeof...(Iterables); ++k)
            shortest = lengths[k] < shortest ? lengths[k] : shortest;
        return shortest;
    }();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return list(detail::zip_row<I>(iter_elements(iterables)...)...);
    }
    (std::make_index_sequence<n>{});
}

/// Python's map(f, iterable, ...): f over the elements (over zipped elements for several).
template <class F, class Iterable, class... More>
constexpr auto map(F&& f, const Iterable& iterable, const More&... more) {
    if constexpr (sizeof...(More) == 0) {
        return hana::unpack(iter_elements(iterable),
                            [&](const auto&... e) { return list(f(e)...); });
    } else {
        return hana::unpack(zip(iterable, more...).elements,
                            [&](const auto&... row) { return list(std::apply(f, row)...); });
    }
}

/// Python's filter(pred, iterable) with a predicate whose answer is known at compile time
/// (returns a hana::bool_ or an integral constant). filter(None, l) keeps the truthy elements.
template <class Pred, class Iterable>
constexpr auto filter(Pred pred, const Iterable& iterable) {
    auto elements = iter_elements(iterable);
    return hana::unpack(elements, [&](const auto&... e) {
        auto test = [&](const auto& x) {
            if constexpr (std::is_same_v<Pred, none_t>)
                return py_bool(x);
            else
                return py_bool(pred(x));
        };
        static_assert((is_static_bool_v<decltype(test(e))> && ... && true),
                      "staticpy: TypeError: filter needs a predicate whose result is known at "
                      "compile time (return a hana::bool_ or an integral constant)");
        constexpr std::array<bool, sizeof...(e) + 1> kept{decltype(test(e))::value..., false};
        constexpr auto order = [&] {
            detail::positions<sizeof...(e)> out;
            for (std::size_t k = 0; k < sizeof...(e); ++k)
                if (kept[k])
                    out.push(k);
            return out;
        }();
        return list<std::remove_cvref_t<decltype(e)>...>(e...).template pick_positions<order>();
    });
}

/// functools.reduce(f, iterable[, initial]).
template <class F, class Iterable, class... Initial>
constexpr auto reduce(F&& f, const Iterable& iterable, const Initial&... initial) {
    static_assert(sizeof...(Initial) <= 1,
                  "staticpy: TypeError: reduce expected at most 3 arguments");
    auto all = hana::concat(hana::make_tuple(initial...), iter_elements(iterable));
    static_assert(decltype(hana::size(all))::value > 0,
                  "staticpy: TypeError: reduce() of empty iterable with no initial value");
    if constexpr (decltype(hana::size(all))::value == 0)
        return None;
    else
        return hana::fold_left(all, f);
}

/// Python's sum(iterable, start=0).   sum(list(1_c, 2_c)) == 3_c
template <class Iterable, class Start = int_<0>>
constexpr auto sum(const Iterable& iterable, const Start& start = {}) {
    return hana::fold_left(iter_elements(iterable), start,
                           [](const auto& a, const auto& b) { return a + b; });
}

/// Python's all(iterable) and any(iterable), by truth value.
template <class Iterable>
constexpr auto all(const Iterable& iterable) {
    return hana::unpack(iter_elements(iterable),
                        [](const auto&... e) { return all_true(py_bool(e)...); });
}
template <class Iterable>
constexpr auto any(const Iterable& iterable) {
    return hana::unpack(iter_elements(iterable),
                        [](const auto&... e) { return any_true(py_bool(e)...); });
}

/// Python's sorted(iterable, key=..., reverse=...) and reversed(iterable), as lists.
template <class Iterable, class... Args>
constexpr auto sorted(const Iterable& iterable, Args... args) {
    return to_list(iterable).sort(args...);
}
template <class Iterable>
constexpr auto reversed(const Iterable& iterable) {
    return to_list(iterable).reverse();
}

namespace detail {
/// Whether part occurs in text. By index rather than string_view::find, whose pointer test
/// g++ -fsanitize=undefined cannot evaluate in a constant expression.
constexpr bool has_substring(std::string_view text, std::string_view part) {
    for (std::size_t i = 0; i + part.size() <= text.size(); ++i) {
        std::size_t k = 0;
        while (k < part.size() && text[i + k] == part[k])
            ++k;
        if (k == part.size())
            return true;
    }
    return false;
}
} // namespace detail

/// x in iterable. For a str, Python's `in` is a substring test: "ab"_s in "cab"_s.
template <class X, class Iterable>
constexpr auto in(const X& x, const Iterable& iterable) {
    using I = std::remove_cvref_t<Iterable>;
    using XT = std::remove_cvref_t<X>;
    if constexpr (kind_v<I> == kind::string) {
        static_assert(kind_v<XT> == kind::string,
                      "staticpy: TypeError: 'in <string>' requires string as left operand");
        if constexpr (is_str_constant_v<I> && is_str_constant_v<XT>)
            return bool_<detail::has_substring(I::value, XT::value)>{};
        else
            return detail::has_substring(std::string_view(detail::scalar_of(iterable)),
                                         std::string_view(detail::scalar_of(x)));
    } else if constexpr (requires { iterable.contains(x); }) {
        return iterable.contains(x);
    } else {
        return to_list(iterable).contains(x);
    }
}

} // namespace staticpy
