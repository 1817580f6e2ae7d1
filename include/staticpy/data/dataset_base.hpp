#pragma once
// What a dataset is, as PyTorch's torch/utils/data/dataset.py's Dataset and IterableDataset: the
// concepts a dataset models (no base class needed), how its samples are read, and the optional
// base Dataset that gives `a + b`, whose results ConcatDataset and ChainDataset are defined in
// concat_dataset.hpp and chain_dataset.hpp.

#include <concepts>
#include <cstdint>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>

namespace staticpy::data {

// ---- concepts -------------------------------------------------------------------------------

/// A map-style dataset: size() and the sample at an index, ds[i] or ds.get(i).
///   struct Squares { std::int64_t size() const { return 10; }
///                    std::int64_t operator[](std::int64_t i) const { return i * i; } };
template <class D>
concept MapDataset = requires(D& d) {
    { d.size() } -> std::convertible_to<std::int64_t>;
}
&&(
    requires(D& d, std::int64_t i) { d[i]; } || requires(D & d, std::int64_t i) { d.get(i); });

/// An iterable-style dataset: any input range (PyTorch's IterableDataset.__iter__).
///   std::vector<int> v{1, 2, 3};
///   static_assert(IterableDataset<decltype(v)>);
template <class D>
concept IterableDataset = std::ranges::input_range<D>;

/// The sample at index i of a map dataset: ds[i] when it has one, else ds.get(i).
///   auto s = getitem(ds, 3);
///   auto s2 = getitem(ds, -1);   // whatever negative indices mean to ds
template <MapDataset D>
decltype(auto) getitem(D& ds, std::int64_t i) {
    if constexpr (requires { ds[i]; })
        return ds[i];
    else
        return ds.get(i);
}

/// The type of a map dataset's samples, by value.
///   static_assert(std::is_same_v<sample_t<std::vector<int>>, int>);
template <class D>
using sample_t = std::remove_cvref_t<decltype(getitem(std::declval<D&>(), std::int64_t{}))>;

template <class... Ds>
class ConcatDataset;
template <class... Ds>
class ChainDataset; // defined for one or more Ds

/// An optional base that gives a dataset PyTorch's `+` (Dataset.__add__ / IterableDataset.__add__):
/// map datasets concatenate into a ConcatDataset, iterable ones chain into a ChainDataset. Every
/// dataset of this header derives from it; a user dataset may, and need not otherwise.
///   auto both = train + extra;   // ConcatDataset: len(train) + len(extra) samples
///   auto s = both[-1];           // extra's last sample
struct Dataset {
    template <class A, class B>
    requires(
        (std::derived_from<std::remove_cvref_t<A>, Dataset> ||
         std::derived_from<std::remove_cvref_t<B>,
                           Dataset>)&&((MapDataset<std::remove_reference_t<A>> &&
                                        MapDataset<std::remove_reference_t<B>>) ||
                                       (IterableDataset<std::remove_reference_t<A>> &&
                                        IterableDataset<std::remove_reference_t<B>>))) friend auto
    operator+(A&& a, B&& b) {
        if constexpr (MapDataset<std::remove_reference_t<A>> &&
                      MapDataset<std::remove_reference_t<B>>)
            return ConcatDataset<A, B>(
                std::tuple<A&&, B&&>(std::forward<A>(a), std::forward<B>(b)));
        else
            return ChainDataset<A, B>(std::tuple<A&&, B&&>(std::forward<A>(a), std::forward<B>(b)));
    }
};

} // namespace staticpy::data
