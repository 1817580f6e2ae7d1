#pragma once
// torch.utils.data.ConcatDataset: map datasets one after another, over a run-time list of one
// type (a std::vector) or a compile-time list of several (a std::tuple, a staticpy list, `a + b`).

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/containers/convert.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data {

namespace detail {
/// Python's `cumsum` of ConcatDataset: running totals of the lengths.
template <class Range>
std::vector<std::int64_t> cumulative(const Range& lengths) {
    std::vector<std::int64_t> r;
    std::int64_t s = 0;
    for (std::int64_t l : lengths)
        r.push_back(s += l);
    return r;
}

/// ConcatDataset's index arithmetic: the member and the index within it (bisect_right).
inline std::pair<std::size_t, std::int64_t> locate(const std::vector<std::int64_t>& cumulative,
                                                   std::int64_t idx) {
    const std::int64_t n = cumulative.empty() ? 0 : cumulative.back();
    if (idx < 0) {
        if (-idx > n)
            throw ValueError("absolute value of index should not exceed dataset length");
        idx += n;
    }
    const auto k = static_cast<std::size_t>(
        std::upper_bound(cumulative.begin(), cumulative.end(), idx) - cumulative.begin());
    if (k == cumulative.size()) // Python: self.datasets[len(datasets)]
        throw IndexError("list index out of range");
    return {k, k == 0 ? idx : idx - cumulative[k - 1]};
}

/// Whether the members' samples have a common type, which a sample of several members is.
template <class... Ds>
concept common_samples = requires {
    typename std::common_type_t<sample_t<member_t<Ds>>...>;
};
} // namespace detail

/// torch.utils.data.ConcatDataset over a run-time list of datasets of one type, D (a
/// std::vector: an lvalue vector's elements are referenced, an rvalue's owned). Empty members
/// are skipped; negative indices count from the end.
///   auto ds = ConcatDataset(std::vector{a, b, c});
///   auto last = ds[-1];
template <class D>
class ConcatDataset<D> : public Dataset {
    static_assert(MapDataset<detail::member_t<D>>,
                  "staticpy: ValueError: ConcatDataset does not support IterableDataset");

public:
    using sample_type = sample_t<detail::member_t<D>>;

    /// ValueError("datasets should not be an empty iterable") for an empty vector.
    ///   ConcatDataset(std::vector<Squares>{});   // throws
    template <class V>
    requires std::same_as<std::remove_cvref_t<V>,
                          std::vector<std::remove_cvref_t<detail::held_target_t<D>>>>
    explicit ConcatDataset(V&& datasets) {
        for (auto& d : datasets) {
            if constexpr (std::is_lvalue_reference_v<V>)
                datasets_.emplace_back(d);
            else
                datasets_.emplace_back(std::move(d));
        }
        init();
    }
    /// From a one-element std::tuple (what `std::tie(a)` or the tuple deduction gives).
    template <class T>
    explicit ConcatDataset(std::tuple<T> t) {
        datasets_.emplace_back(std::forward<T>(std::get<0>(t)));
        init();
    }

    /// PyTorch's `cumulative_sizes`: running totals of the members' lengths.
    std::vector<std::int64_t> cumulative_sizes;

    /// len(ds): the sum of the lengths.
    [[nodiscard]] std::int64_t size() const noexcept { return cumulative_sizes.back(); }

    /// ds[i]: the sample, found by binary search; ValueError("absolute value of index should not
    /// exceed dataset length") below -len, IndexError("list index out of range") from len on.
    ///   ds[0]; ds[-1];
    [[nodiscard]] sample_type operator[](std::int64_t idx) const {
        const auto [k, i] = detail::locate(cumulative_sizes, idx);
        return getitem(datasets_[k].get(), i);
    }

private:
    void init() {
        if (datasets_.empty())
            throw ValueError("datasets should not be an empty iterable");
        std::vector<std::int64_t> lengths;
        for (const auto& d : datasets_)
            lengths.push_back(detail::length(d.get()));
        cumulative_sizes = detail::cumulative(lengths);
    }

    std::vector<detail::held<D>> datasets_;
};

/// torch.utils.data.ConcatDataset over datasets of different types, given as a std::tuple (e.g.
/// std::tie(a, b): referenced), a staticpy list (list(a, b): copies) or by `a + b`. A sample is
/// the std::common_type of the members' samples (for identical sample types, that type; for a
/// static-shape and a dynamic-shape Tensor, the dynamic one): C++ needs one return type where
/// Python's could differ per member. Wrap members whose samples have none in a map to a
/// std::variant.
///   auto ds = ConcatDataset(std::tie(images, more_images));
///   auto x = ds[len_a];   // more_images[0]
template <class D0, class D1, class... Ds>
class ConcatDataset<D0, D1, Ds...> : public Dataset {
    static_assert(MapDataset<detail::member_t<D0>> && MapDataset<detail::member_t<D1>> &&
                      (MapDataset<detail::member_t<Ds>> && ...),
                  "staticpy: ValueError: ConcatDataset does not support IterableDataset");
    static_assert(detail::common_samples<D0, D1, Ds...>,
                  "staticpy: TypeError: ConcatDataset's datasets have samples of no common type");

public:
    using sample_type =
        std::common_type_t<sample_t<detail::member_t<D0>>, sample_t<detail::member_t<D1>>,
                           sample_t<detail::member_t<Ds>>...>;

    /// From a tuple of the datasets (references in it are kept as references).
    ///   ConcatDataset(std::tie(a, b))
    template <class... T>
    requires(sizeof...(T) == sizeof...(Ds) + 2) explicit ConcatDataset(std::tuple<T...> t)
        : datasets_(detail::make_members<members_t>(std::move(t))) {
        init();
    }
    /// From a staticpy list of the datasets (copied, as Python's list(...) copies references).
    ///   ConcatDataset(list(a, b))
    template <class... T>
    requires(sizeof...(T) == sizeof...(Ds) + 2) explicit ConcatDataset(const list<T...>& l)
        : ConcatDataset(to_tuple(l)) {}

    /// PyTorch's `cumulative_sizes`.
    std::vector<std::int64_t> cumulative_sizes;

    /// len(ds): the sum of the lengths.
    [[nodiscard]] std::int64_t size() const noexcept { return cumulative_sizes.back(); }

    /// ds[i], as ConcatDataset<D>::operator[], converted to sample_type.
    ///   ds[-1];
    [[nodiscard]] sample_type operator[](std::int64_t idx) const {
        const auto [k, i] = detail::locate(cumulative_sizes, idx);
        return dispatch(k, i, std::make_index_sequence<sizeof...(Ds) + 2>{});
    }

private:
    using members_t = std::tuple<detail::held<D0>, detail::held<D1>, detail::held<Ds>...>;

    void init() {
        cumulative_sizes = detail::cumulative(std::apply(
            [](const auto&... d) { return std::vector<std::int64_t>{detail::length(d.get())...}; },
            datasets_));
    }

    template <std::size_t... I>
    sample_type dispatch(std::size_t k, std::int64_t i, std::index_sequence<I...>) const {
        std::optional<sample_type> out;
        (void)((k == I ? (out.emplace(getitem(std::get<I>(datasets_).get(), i)), true) : false) ||
               ...);
        return std::move(*out);
    }

    members_t datasets_;
};

template <class X>
ConcatDataset(std::vector<X>&) -> ConcatDataset<X&>;
template <class X>
ConcatDataset(const std::vector<X>&) -> ConcatDataset<const X&>;
template <class X>
ConcatDataset(std::vector<X>&&) -> ConcatDataset<X>;
template <class... T>
ConcatDataset(std::tuple<T...>) -> ConcatDataset<T...>;
template <class... T>
ConcatDataset(list<T...>) -> ConcatDataset<T...>;

} // namespace staticpy::data
