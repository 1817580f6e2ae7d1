#pragma once
// Collation, as PyTorch's torch/utils/data/_utils/collate.py: default_collate turns a list of
// samples into a batch, default_convert passes one sample through when batching is off.
//
//   std::vector<std::tuple<Tensor<float, static_shape<3>>, int>> samples = ...;
//   auto [x, y] = default_collate(samples);   // x: [n, 3] float32, y: [n] int64
//
// The batch's type follows from the sample's type at compile time; what only the values can tell
// (tensor sizes, the length of a std::vector, the keys of a std::map) is checked at run time with
// PyTorch's errors. A sample type default_collate does not know is a compile error: give the
// DataLoader a collate_fn of your own for it.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <ranges>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::data {

namespace detail {

template <class T>
struct is_std_vector : std::false_type {};
template <class T, class A>
struct is_std_vector<std::vector<T, A>> : std::true_type {};

template <class T>
struct is_string_map : std::false_type {};
template <class V, class C, class A>
struct is_string_map<std::map<std::string, V, C, A>> : std::true_type {};

/// The element type a number collates into: Python's int is int64 and its float is float64, so
/// every C++ integer but bool and uint8_t (Tensor element types of their own) becomes int64, and
/// long double becomes float64; float stays float32.
template <class N>
using collated_number_t =
    std::conditional_t<std::is_same_v<N, bool> || std::is_same_v<N, std::uint8_t> ||
                           std::is_same_v<N, float> || std::is_same_v<N, double>,
                       N, std::conditional_t<std::is_floating_point_v<N>, double, std::int64_t>>;

template <class T>
struct collate_traits {
    static constexpr bool supported = false;
};

template <class T>
inline constexpr bool collatable_v = collate_traits<std::remove_cvref_t<T>>::supported;

// The collated type of a member, void when it has none (so that naming a container of an
// unsupported type is not itself an error: `supported` reports it).
template <class T, bool = collatable_v<T>>
struct collated {
    using type = void;
};
template <class T>
struct collated<T, true> {
    using type = typename collate_traits<T>::type;
};
template <class T>
using collated_t = typename collated<T>::type;

template <class T>
requires std::is_arithmetic_v<T>
struct collate_traits<T> {
    static constexpr bool supported = true;
    using type = Tensor<collated_number_t<T>, dynamic_shape<1>>;
};
template <class T, class S>
struct collate_traits<Tensor<T, S>> {
    static constexpr bool supported = true;
    using type = Tensor<T, typename staticpy::detail::shape_cat<shape<std::int64_t>, S>::type>;
};
template <>
struct collate_traits<std::string> {
    static constexpr bool supported = true;
    using type = std::vector<std::string>;
};
template <>
struct collate_traits<std::string_view> {
    static constexpr bool supported = true;
    using type = std::vector<std::string>;
};
template <>
struct collate_traits<const char*> {
    static constexpr bool supported = true;
    using type = std::vector<std::string>;
};
template <class... Ts>
struct collate_traits<std::tuple<Ts...>> {
    static constexpr bool supported = (collatable_v<Ts> && ...);
    using type = std::tuple<collated_t<Ts>...>;
};
template <class A, class B>
struct collate_traits<std::pair<A, B>> {
    static constexpr bool supported = collatable_v<A> && collatable_v<B>;
    using type = std::pair<collated_t<A>, collated_t<B>>;
};
template <class... Ts>
struct collate_traits<list<Ts...>> {
    static constexpr bool supported = (collatable_v<Ts> && ...);
    using type = list<collated_t<Ts>...>;
};
template <class... K, class... V>
struct collate_traits<dict_t<pair<K, V>...>> {
    static constexpr bool supported = (collatable_v<V> && ...);
    using type = dict_t<pair<K, collated_t<V>>...>;
};
template <class V, class C, class A>
struct collate_traits<std::map<std::string, V, C, A>> {
    static constexpr bool supported = collatable_v<V>;
    using type = std::map<std::string, collated_t<V>>;
};
template <class V, class A>
struct collate_traits<std::vector<V, A>> {
    static constexpr bool supported = collatable_v<V>;
    using type = std::vector<collated_t<V>>;
};
template <class V, std::size_t N>
struct collate_traits<std::array<V, N>> {
    static constexpr bool supported = collatable_v<V>;
    using type = std::array<collated_t<V>, N>;
};

template <class T>
struct unsupported_sample {
    static_assert(staticpy::detail::always_false<T>,
                  "staticpy: TypeError: default_collate: batch must contain tensors, numbers, "
                  "strings, dicts or lists (std::tuple, std::vector, std::array, std::map with "
                  "std::string keys, staticpy list and dict); give the DataLoader a collate_fn "
                  "for other sample types");
};

/// Collates the elements proj(s) of every sample s of batch (a forward range). Projections let
/// nested fields be collated in place, without first copying them out of each sample.
template <class E, class Batch, class Proj>
typename collate_traits<E>::type collate_field(const Batch& batch, std::int64_t n, Proj proj);

template <class Batch, class Proj>
decltype(auto) first_of(const Batch& batch, Proj& proj) {
    return proj(*std::ranges::begin(batch));
}

template <class Batch, class Proj, class... K, class... V>
auto collate_dict(const Batch& batch, std::int64_t n, Proj& proj, dict_t<pair<K, V>...>*) {
    using Out = dict_t<pair<K, collated_t<V>>...>;
    return Out(hana::make_tuple(pair<K, typename collate_traits<V>::type>(
        K{}, collate_field<V>(
                 batch, n, [&proj](const auto& s) -> const auto& { return proj(s)[K{}]; }))...));
}

template <class E, class Batch, class Proj>
typename collate_traits<E>::type collate_field(const Batch& batch, std::int64_t n, Proj proj) {
    using Out = typename collate_traits<E>::type;
    if constexpr (std::is_arithmetic_v<E>) {
        using U = typename Out::value_type;
        Out out{dynamic_shape<1>(n)};
        U* p = out.data();
        for (const auto& s : batch)
            *p++ = static_cast<U>(proj(s));
        return out;
    } else if constexpr (is_tensor_v<E>) {
        using S = typename E::shape_type;
        const E& first = first_of(batch, proj);
        std::array<std::int64_t, S::rank + 1> sizes{};
        sizes[0] = n;
        for (std::size_t d = 0; d < S::rank; ++d)
            sizes[d + 1] = first.sizes()[d];
        Out out{typename Out::shape_type(sizes)};
        const std::int64_t step = first.numel();
        auto* dst = out.data();
        std::int64_t i = 0;
        for (const auto& s : batch) {
            const E& t = proj(s);
            if (t.sizes() != first.sizes())
                throw RuntimeError("stack expects each tensor to be equal size, but got " +
                                   staticpy::detail::sizes_text(first.sizes()) +
                                   " at entry 0 and " + staticpy::detail::sizes_text(t.sizes()) +
                                   " at entry " + std::to_string(i));
            if (t.is_contiguous()) {
                std::copy_n(t.data(), step, dst + i * step);
            } else {
                if constexpr (S::rank == 0)
                    dst[i] = t.item();
                else
                    out[i].copy_(t);
            }
            ++i;
        }
        return out;
    } else if constexpr (std::is_same_v<Out, std::vector<std::string>> &&
                         !is_std_vector<E>::value) {
        Out out;
        out.reserve(static_cast<std::size_t>(n));
        for (const auto& s : batch)
            out.emplace_back(proj(s));
        return out;
    } else if constexpr (traits::is_std_tuple_or_pair_v<E>) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return Out(collate_field<std::tuple_element_t<I, E>>(
                batch,
                n, [&proj](const auto& s) -> const auto& { return std::get<I>(proj(s)); })...);
        }
        (std::make_index_sequence<std::tuple_size_v<E>>{});
    } else if constexpr (is_list_v<E>) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return Out(collate_field<
                       std::remove_cvref_t<decltype(std::declval<const E&>().template at<I>())>>(
                batch,
                n, [&proj](const auto& s) -> const auto& { return proj(s).template at<I>(); })...);
        }
        (std::make_index_sequence<E::size()>{});
    } else if constexpr (is_dict_v<E>) {
        return collate_dict(batch, n, proj, static_cast<E*>(nullptr));
    } else if constexpr (is_string_map<E>::value) {
        Out out;
        for (const auto& entry : first_of(batch, proj)) {
            const std::string& key = entry.first;
            out.emplace(key, collate_field<typename E::mapped_type>(
                                 batch, n, [&proj, &key ](const auto& s) -> const auto& {
                                     const E& m = proj(s);
                                     const auto it = m.find(key);
                                     if (it == m.end())
                                         throw KeyError("'" + key + "'");
                                     return it->second;
                                 }));
        }
        return out;
    } else if constexpr (traits::is_std_array_v<E>) {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return Out{collate_field<typename E::value_type>(
                batch, n, [&proj](const auto& s) -> const auto& { return proj(s)[I]; })...};
        }
        (std::make_index_sequence<std::tuple_size_v<E>>{});
    } else if constexpr (is_std_vector<E>::value) {
        // A Python list sample: every sample must have as many elements, then the batch is
        // transposed and each position collated.
        const std::size_t len = first_of(batch, proj).size();
        for (const auto& s : batch)
            if (proj(s).size() != len)
                throw RuntimeError("each element in list of batch should be of equal size");
        Out out;
        out.reserve(len);
        for (std::size_t j = 0; j < len; ++j)
            out.push_back(collate_field<typename E::value_type>(
                batch, n, [&proj, j ](const auto& s) -> const auto& { return proj(s)[j]; }));
        return out;
    } else {
        (void)unsupported_sample<E>{};
        return Out{};
    }
}

} // namespace detail

/// Whether default_collate takes batches of T: numbers, Tensors, strings, and std::tuple,
/// std::pair, std::vector, std::array, std::map<std::string, X>, staticpy list and dict of them.
///   static_assert(collatable<std::tuple<int, std::string>>);
///   static_assert(!collatable<std::set<int>>);
template <class T>
concept collatable = detail::collatable_v<T>;

/// The batch type default_collate makes of samples of type T.
///   static_assert(std::is_same_v<collate_t<int>, Tensor<std::int64_t, dynamic_shape<1>>>);
///   static_assert(std::is_same_v<collate_t<std::string>, std::vector<std::string>>);
template <class T>
using collate_t = typename detail::collate_traits<std::remove_cvref_t<T>>::type;

/// torch.utils.data.default_collate: a batch from a list of samples, recursively. Numbers give a
/// 1-D Tensor (int64 for C++ integers, as Python's int, float64 for double, float32 for float,
/// bool, uint8); Tensors are stacked along a new first dimension (its extent dynamic, the others
/// as static as the samples'); std::tuple, std::pair, std::array, staticpy lists and
/// std::vector give the same kind of sequence of collated fields; staticpy dicts and
/// std::map<std::string, X> the same keys with collated values; strings a
/// std::vector<std::string>. Errors, as PyTorch: RuntimeError("stack expects each tensor to be
/// equal size, but got [2] at entry 0 and [3] at entry 1"), RuntimeError("each element in list
/// of batch should be of equal size"), KeyError for a std::map key missing from a later sample,
/// IndexError("list index out of range") for an empty batch (PyTorch reads batch[0]).
///   auto b = default_collate(std::vector<std::tuple<int, double>>{{1, 0.5}, {2, 1.5}});
///   std::get<0>(b);   // tensor([1, 2]), int64
template <std::ranges::forward_range Batch>
requires collatable<std::ranges::range_value_t<Batch>>
auto default_collate(const Batch& batch) {
    using E = std::remove_cvref_t<std::ranges::range_value_t<Batch>>;
    const auto n = static_cast<std::int64_t>(std::ranges::distance(batch));
    if (n == 0)
        throw IndexError("list index out of range");
    return detail::collate_field<E>(batch, n, [](const E& s) -> const E& { return s; });
}

/// torch.utils.data.default_convert: what a DataLoader applies to each sample when automatic
/// batching is off. PyTorch converts NumPy arrays (and sequences of them) into Tensors and leaves
/// everything else as it is; staticpy has no NumPy arrays, so the sample is returned unchanged.
///   auto s = default_convert(std::tuple(1, 2.0));   // the same tuple
///   auto t = default_convert(zeros<float>(3));      // the same Tensor handle
template <class Sample>
std::remove_cvref_t<Sample> default_convert(Sample&& sample) {
    return std::forward<Sample>(sample);
}

/// default_collate as a function object: the DataLoader's default collate_fn.
///   DataLoaderOptions<DefaultCollate> opts{.batch_size = 4};
///   auto batch = DefaultCollate{}(samples);
struct DefaultCollate {
    template <std::ranges::forward_range Batch>
    requires collatable<std::ranges::range_value_t<Batch>>
    auto operator()(const Batch& batch) const { return default_collate(batch); }
};

/// default_convert as a function object: the collate_fn of a DataLoader without automatic
/// batching (it marks itself per-sample, so that the DataLoader hands it one sample at a time).
///   DataLoaderOptions<DefaultConvert> opts{.batch_size = std::nullopt};
///   auto s = DefaultConvert{}(sample);
struct DefaultConvert {
    static constexpr bool per_sample = true;
    template <class Sample>
    std::remove_cvref_t<Sample> operator()(Sample&& sample) const {
        return default_convert(std::forward<Sample>(sample));
    }
};

} // namespace staticpy::data
