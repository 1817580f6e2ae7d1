#pragma once
// Datasets, as PyTorch's torch/utils/data/dataset.py: TensorDataset, StackDataset, ConcatDataset,
// ChainDataset, Subset, random_split and `a + b`.
//
//   auto ds = staticpy::data::TensorDataset(x, y);        // x: [N, 784], y: [N]
//   auto [train, val] = ...random_split(ds, {0.9, 0.1}, gen) ...;  // two Subsets
//
// A dataset is any type that models a concept, no base class needed: MapDataset (size() and
// ds[i] or ds.get(i)) or IterableDataset (a range). Composites follow Python's reference
// semantics: an lvalue member is referenced and must outlive the composite, an rvalue member is
// moved into shared ownership (see detail::held). Python's `assert`s (AssertionError) are
// ValueErrors here, with the same text: staticpy has no AssertionError, and a failed argument
// check is what the assertion means.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "staticpy/containers/convert.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/data/detail/common.hpp"
#include "staticpy/tensor/tensor.hpp"

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

// ---- TensorDataset ----------------------------------------------------------------------------

namespace detail {
template <class T>
inline constexpr bool is_tensor_dataset_member_v = false;
template <class T, class S>
inline constexpr bool is_tensor_dataset_member_v<Tensor<T, S>> = (S::rank > 0);

/// The first extent of each static-first-dimension tensor, or -1.
template <class T>
constexpr std::int64_t static_first_extent() {
    return T::shape_type::static_extents[0];
}
template <class... Ts>
constexpr bool static_first_extents_agree() {
    std::int64_t first = -1;
    bool ok = true;
    for (std::int64_t e : {static_first_extent<Ts>()...}) {
        if (e < 0)
            continue;
        if (first >= 0 && e != first)
            ok = false;
        first = e;
    }
    return ok;
}

/// The rows of t at `indices` (along dimension 0, negative ones from the end) stacked into a new
/// contiguous tensor: what default_collate makes of the samples t[i], without making them. From
/// contiguous storage each run of consecutive indices is one memcpy into the batch (a shuffled
/// batch: one per sample); from a strided t each row is copied through a view.
template <class T, class S>
auto gather_rows(const Tensor<T, S>& t, std::span<const std::int64_t> indices) {
    using Out = Tensor<
        T, typename staticpy::detail::shape_cat<shape<std::int64_t>, shape_erase_t<S, 0>>::type>;
    const std::int64_t n = t.sizes()[0];
    auto sizes = t.sizes();
    sizes[0] = static_cast<std::int64_t>(indices.size());
    Out out{typename Out::shape_type(sizes)};
    std::int64_t row = 1;
    for (std::size_t d = 1; d < S::rank; ++d)
        row *= sizes[d];
    const auto wrap = [n](std::int64_t i) {
        if (i < -n || i >= n)
            throw IndexError("index " + std::to_string(i) +
                             " is out of bounds for dimension 0 with size " + std::to_string(n));
        return i < 0 ? i + n : i;
    };
    T* dst = out.data();
    const bool contiguous = t.is_contiguous();
    for (std::size_t k = 0; k < indices.size();) {
        const std::int64_t first = wrap(indices[k]);
        std::size_t end = k + 1;
        if (contiguous) {
            while (end < indices.size() && indices[end] < n &&
                   indices[end] == first + static_cast<std::int64_t>(end - k))
                ++end;
            std::memcpy(dst + static_cast<std::int64_t>(k) * row, t.data() + first * row,
                        static_cast<std::size_t>(row) * (end - k) * sizeof(T));
        } else if constexpr (S::rank == 1) {
            dst[k] = t.data()[first * t.strides()[0]];
        } else {
            out[static_cast<std::int64_t>(k)].copy_(t[first]);
        }
        k = end;
    }
    return out;
}
} // namespace detail

/// torch.utils.data.TensorDataset: sample i is the tuple of each tensor's i-th slice along its
/// first dimension (views, no copy). Tensors are handles, so they are kept by value.
///   auto ds = TensorDataset(zeros<float>(100, 784), zeros<std::int64_t>(100));
///   auto [x, y] = ds[0];   // x: Tensor [784], y: 0-dim Tensor
template <class... Tensors>
class TensorDataset : public Dataset {
    static_assert(sizeof...(Tensors) > 0,
                  "staticpy: IndexError: TensorDataset needs at least one tensor (PyTorch's "
                  "len() fails with: tuple index out of range)");
    static_assert((detail::is_tensor_dataset_member_v<Tensors> && ...),
                  "staticpy: IndexError: dimension specified as 0 but tensor has no dimensions "
                  "(TensorDataset takes Tensors of rank >= 1)");
    static_assert(detail::static_first_extents_agree<Tensors...>(),
                  "staticpy: ValueError: Size mismatch between tensors");

public:
    /// The tensors, as PyTorch's `.tensors`.
    std::tuple<Tensors...> tensors;

    /// ValueError("Size mismatch between tensors") when their first dimensions differ.
    ///   TensorDataset(zeros<float>(3, 2), zeros<float>(4));  // throws
    explicit TensorDataset(Tensors... ts) : tensors(std::move(ts)...) {
        const std::int64_t n = size();
        std::apply(
            [n](const auto&... t) {
                if (!((t.sizes()[0] == n) && ...))
                    throw ValueError("Size mismatch between tensors");
            },
            tensors);
    }

    /// len(ds): the first tensor's size(0).
    [[nodiscard]] std::int64_t size() const { return std::get<0>(tensors).sizes()[0]; }

    /// ds[i]: std::tuple of views; negative i counts from the end; IndexError out of range.
    ///   auto [x, y] = ds[-1];
    [[nodiscard]] auto operator[](std::int64_t i) const {
        return std::apply([i](const auto&... t) { return std::tuple(t[i]...); }, tensors);
    }

    /// The batch default_collate makes of the samples at `indices`, gathered straight from the
    /// tensors (one memcpy per sample, or per run of consecutive indices, into each batch
    /// tensor; no per-sample tensors). The DataLoader takes this path with the default
    /// collate_fn; same errors as ds[i] and default_collate.
    ///   std::vector<std::int64_t> idx{4, 0, 1};
    ///   auto [xb, yb] = ds.gather(idx);   // == default_collate of ds[4], ds[0], ds[1]
    [[nodiscard]] auto gather(std::span<const std::int64_t> indices) const {
        if (indices.empty())
            throw IndexError("list index out of range"); // default_collate's batch[0]
        return std::apply(
            [indices](const auto&... t) { return std::tuple(detail::gather_rows(t, indices)...); },
            tensors);
    }
};

// ---- StackDataset -------------------------------------------------------------------------

namespace detail {
/// A StackDataset argument: a dataset (tuple form) or a "name"_s = dataset pair (dict form).
template <class A, class Plain = std::remove_cvref_t<A>>
struct stack_member {
    static constexpr bool named = false;
    using key = void;
    using dataset = A;
};
template <class A, class K, class V>
struct stack_member<A, pair<K, V>> {
    static constexpr bool named = is_str_constant_v<K>;
    using key = K;
    using dataset = V; // the pair owns a copy, or holds a std::reference_wrapper (std::ref(ds))
};

template <class A>
decltype(auto) stack_dataset_argument(A&& a) {
    if constexpr (stack_member<A>::named && std::is_lvalue_reference_v<A>)
        return (a.value);
    else if constexpr (stack_member<A>::named)
        return std::move(a.value);
    else
        return std::forward<A>(a);
}
} // namespace detail

/// torch.utils.data.StackDataset: sample i gathers sample i of each dataset. Positional datasets
/// give a std::tuple; "name"_s = dataset arguments give a staticpy dict with those keys. Mixing
/// both, or passing none, is a compile error with PyTorch's text; unequal lengths are a
/// ValueError("Size mismatch between datasets").
///   auto ds = StackDataset("image"_s = images, "label"_s = labels);
///   auto s = ds[0];   // s["image"_s], s["label"_s]
template <class... Args>
class StackDataset : public Dataset {
    static_assert(sizeof...(Args) > 0,
                  "staticpy: ValueError: At least one dataset should be passed");
    static constexpr bool named = (detail::stack_member<Args>::named && ...);
    static_assert(named || !(detail::stack_member<Args>::named || ...),
                  "staticpy: ValueError: Supported either ``tuple``- (via ``args``) or``dict``- "
                  "(via ``kwargs``) like input/output, but both types are given.");
    static_assert((MapDataset<std::remove_reference_t<
                       detail::held_target_t<typename detail::stack_member<Args>::dataset>>> &&
                   ...),
                  "staticpy: TypeError: StackDataset takes map-style datasets");

public:
    /// From the datasets (lvalues referenced, rvalues owned) or from "name"_s = dataset pairs.
    ///   StackDataset(images, labels)                          // samples: std::tuple
    ///   StackDataset("x"_s = std::ref(images), "y"_s = labels) // samples: dict
    template <class... A>
    requires(sizeof...(A) == sizeof...(Args) && sizeof...(A) > 0) explicit StackDataset(A&&... args)
        : datasets_(members(detail::stack_dataset_argument<A>(std::forward<A>(args))...)) {
        const auto& first = std::get<0>(datasets_).get();
        length_ = detail::length(first);
        std::apply(
            [this](const auto&... d) {
                if (!((detail::length(d.get()) == length_) && ...))
                    throw ValueError("Size mismatch between datasets");
            },
            datasets_);
    }

    /// len(ds): the common length.
    [[nodiscard]] std::int64_t size() const noexcept { return length_; }

    /// ds[i]: a std::tuple (positional form) or a dict (named form) of the samples at i.
    ///   auto [x, y] = StackDataset(xs, ys)[2];
    [[nodiscard]] auto operator[](std::int64_t i) const {
        return std::apply(
            [i](const auto&... d) {
                if constexpr (named)
                    return staticpy::dict(
                        pair<typename detail::stack_member<Args>::key,
                             sample_t<std::remove_reference_t<decltype(d.get())>>>{
                            {}, getitem(d.get(), i)}...);
                else
                    return std::tuple<sample_t<std::remove_reference_t<decltype(d.get())>>...>(
                        getitem(d.get(), i)...);
            },
            datasets_);
    }

private:
    using members_t = std::tuple<detail::held<typename detail::stack_member<Args>::dataset>...>;
    template <class... A>
    static members_t members(A&&... a) {
        return members_t(
            detail::held<typename detail::stack_member<Args>::dataset>(std::forward<A>(a))...);
    }

    members_t datasets_;
    std::int64_t length_ = 0;
};
template <class... A>
StackDataset(A&&...) -> StackDataset<A...>;

// ---- ConcatDataset ------------------------------------------------------------------------

namespace detail {
template <class D>
using member_t = typename held<D>::element_type;

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

/// The tuple of holders of a composite, each built from the matching element of t.
template <class Members, class Tuple, std::size_t... I>
Members make_members(Tuple&& t, std::index_sequence<I...>) {
    return Members(std::tuple_element_t<I, Members>(std::get<I>(std::move(t)))...);
}
template <class Members, class Tuple>
Members make_members(Tuple&& t) {
    return make_members<Members>(std::move(t),
                                 std::make_index_sequence<std::tuple_size_v<Members>>{});
}

template <class... Ds>
struct first_type;
template <class D, class... Ds>
struct first_type<D, Ds...> {
    using type = D;
};

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

// ---- ChainDataset -------------------------------------------------------------------------

/// torch.utils.data.ChainDataset: iterates its iterable datasets one after another, each begun
/// when reached. From a std::vector of one range type, or a std::tuple / staticpy list of several
/// (`a + b` of iterable datasets builds one). The element type is the common type of theirs.
///   auto chained = ChainDataset(std::vector{stream_a, stream_b});
///   for (auto x : chained) { ... }
// (Defined as a partial specialization so that constructors give no deduction guides with an
// empty pack: the guides below are the ones.)
template <class D0, class... Dn>
class ChainDataset<D0, Dn...> : public Dataset {
    static constexpr bool runtime_list = sizeof...(Dn) == 0;
    static_assert(IterableDataset<detail::member_t<D0>> &&
                      (IterableDataset<detail::member_t<Dn>> && ...),
                  "staticpy: ValueError: ChainDataset only supports IterableDataset");

    using members_t = std::conditional_t<runtime_list, std::vector<detail::held<D0>>,
                                         std::tuple<detail::held<D0>, detail::held<Dn>...>>;

public:
    using value_type = std::common_type_t<std::ranges::range_value_t<detail::member_t<D0>>,
                                          std::ranges::range_value_t<detail::member_t<Dn>>...>;

    /// From a std::vector of datasets of one type (lvalue: referenced elements; rvalue: owned).
    ///   ChainDataset(std::vector{a, b})
    template <class V>
    requires(runtime_list&& std::same_as<std::remove_cvref_t<V>,
                                         std::vector<std::remove_cvref_t<detail::held_target_t<
                                             D0>>>>) explicit ChainDataset(V&& datasets) {
        for (auto& d : datasets) {
            if constexpr (std::is_lvalue_reference_v<V>)
                datasets_.emplace_back(d);
            else
                datasets_.emplace_back(std::move(d));
        }
    }
    /// From a std::tuple of datasets (std::tie: referenced).   ChainDataset(std::tie(a, b))
    template <class... T>
    requires(sizeof...(T) == sizeof...(Dn) + 1) explicit ChainDataset(std::tuple<T...> t) {
        if constexpr (runtime_list)
            datasets_.emplace_back(std::forward<T>(std::get<0>(t))...);
        else
            datasets_ = detail::make_members<members_t>(std::move(t));
    }
    /// From a staticpy list (copies).   ChainDataset(list(a, b))
    template <class... T>
    requires(sizeof...(T) == sizeof...(Dn) + 1) explicit ChainDataset(const list<T...>& l)
        : ChainDataset(to_tuple(l)) {}

    /// len(chain): the sum of the members' lengths (each must be sized, as Python's len()).
    ///   ChainDataset(std::vector{a, b}).size() == a.size() + b.size()
    [[nodiscard]] std::int64_t size() const requires(detail::sized<detail::member_t<D0>> &&
                                                     (detail::sized<detail::member_t<Dn>> && ...)) {
        std::int64_t total = 0;
        if constexpr (runtime_list)
            for (const auto& d : datasets_)
                total += detail::length(d.get());
        else
            std::apply([&](const auto&... d) { ((total += detail::length(d.get())), ...); },
                       datasets_);
        return total;
    }

    class iterator {
        using variant_t =
            std::variant<std::monostate, std::ranges::iterator_t<detail::member_t<D0>&>,
                         std::ranges::iterator_t<detail::member_t<Dn>&>...>;

    public:
        using value_type = ChainDataset::value_type;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::input_iterator_tag;

        iterator() = default;
        explicit iterator(const ChainDataset* self) : self_(self) { enter(0); }

        value_type operator*() const {
            return std::visit(
                [](const auto& it) -> value_type {
                    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(it)>, std::monostate>)
                        throw IndexError("dereferencing an exhausted ChainDataset iterator");
                    else
                        return *it;
                },
                current_);
        }
        iterator& operator++() {
            std::visit(
                [](auto& it) {
                    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(it)>,
                                                  std::monostate>)
                        ++it;
                },
                current_);
            settle();
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, std::default_sentinel_t) {
            return it.member_ >= it.count();
        }

    private:
        [[nodiscard]] std::size_t count() const {
            if constexpr (runtime_list)
                return self_->datasets_.size();
            else
                return sizeof...(Dn) + 1;
        }
        // Begins member k, then skips exhausted members.
        void enter(std::size_t k) {
            member_ = k;
            if (member_ < count()) {
                if constexpr (runtime_list)
                    current_.template emplace<1>(std::ranges::begin(self_->datasets_[k].get()));
                else
                    begin_member(k, std::index_sequence_for<D0, Dn...>{});
                settle();
            }
        }
        template <std::size_t... I>
        void begin_member(std::size_t k, std::index_sequence<I...>) {
            (void)((k == I ? (current_.template emplace<I + 1>(
                                  std::ranges::begin(std::get<I>(self_->datasets_).get())),
                              true)
                           : false) ||
                   ...);
        }
        void settle() {
            if (member_ < count() && at_end())
                enter(member_ + 1);
        }
        [[nodiscard]] bool at_end() const {
            if constexpr (runtime_list)
                return std::get<1>(current_) == std::ranges::end(self_->datasets_[member_].get());
            else
                return at_end_of(std::index_sequence_for<D0, Dn...>{});
        }
        template <std::size_t... I>
        [[nodiscard]] bool at_end_of(std::index_sequence<I...>) const {
            bool end = false;
            (void)((member_ == I ? (end = std::get<I + 1>(current_) ==
                                          std::ranges::end(std::get<I>(self_->datasets_).get()),
                                    true)
                                 : false) ||
                   ...);
            return end;
        }

        const ChainDataset* self_ = nullptr;
        std::size_t member_ = 0;
        variant_t current_{};
    };

    /// Range-for over the samples of every member in turn.
    ///   for (auto x : chained) sum += x;
    [[nodiscard]] iterator begin() const { return iterator(this); }
    [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

private:
    members_t datasets_;
};

template <class X>
ChainDataset(std::vector<X>&) -> ChainDataset<X&>;
template <class X>
ChainDataset(const std::vector<X>&) -> ChainDataset<const X&>;
template <class X>
ChainDataset(std::vector<X>&&) -> ChainDataset<X>;
template <class... T>
ChainDataset(std::tuple<T...>) -> ChainDataset<T...>;
template <class... T>
ChainDataset(list<T...>) -> ChainDataset<T...>;

// ---- Subset and random_split -------------------------------------------------------------------

/// torch.utils.data.Subset: the samples of `dataset` at `indices` (an lvalue dataset is
/// referenced, an rvalue owned).
///   auto evens = Subset(ds, {0, 2, 4});
///   auto s = evens[1];   // ds[2]
template <class D>
class Subset : public Dataset {
    static_assert(MapDataset<detail::member_t<D>>, "staticpy: TypeError: Subset of a map dataset");

public:
    /// PyTorch's `.indices`.
    std::vector<std::int64_t> indices;

    template <class A>
    requires(!std::same_as<std::remove_cvref_t<A>, detail::held<D>>)
        Subset(A&& dataset, std::vector<std::int64_t> idx)
        : indices(std::move(idx)), dataset_(std::forward<A>(dataset)) {}
    /// A subset sharing an already held dataset (what random_split builds).
    Subset(detail::held<D> dataset, std::vector<std::int64_t> idx)
        : indices(std::move(idx)), dataset_(std::move(dataset)) {}

    /// PyTorch's `.dataset`.
    [[nodiscard]] auto& dataset() const noexcept { return dataset_.get(); }
    /// len(subset): the number of indices.
    [[nodiscard]] std::int64_t size() const noexcept {
        return static_cast<std::int64_t>(indices.size());
    }
    /// subset[i] is dataset[indices[i]]; i indexes the list as Python's does (negative from the
    /// end, IndexError("list index out of range") outside).
    ///   evens[-1];
    [[nodiscard]] decltype(auto) operator[](std::int64_t i) const {
        const std::int64_t n = size();
        if (i < -n || i >= n)
            throw IndexError("list index out of range");
        return getitem(dataset_.get(), indices[static_cast<std::size_t>(i < 0 ? i + n : i)]);
    }

private:
    detail::held<D> dataset_;
};
template <class A>
Subset(A&&, std::vector<std::int64_t>) -> Subset<A>;

/// torch.utils.data.random_split: disjoint Subsets of the given lengths, in a random order drawn
/// from `generator` (the default generator when none is given). Lengths are integers summing to
/// len(dataset), or fractions summing to 1: each split gets floor(len * fraction) and the
/// remainder is handed out one by one, round-robin from the first (106 by {.1, .2, .3, .4} gives
/// 11, 22, 31, 42), with PyTorch's warning for an empty split (once per process, as Python's
/// warnings). Errors, as PyTorch: ValueError("Fraction at index i is not between 0 and 1"),
/// ValueError("Sum of input lengths does not equal the length of the input dataset!"). Every subset
/// shares the dataset (an lvalue is referenced, an rvalue owned by the subsets together).
///   staticpy::Generator g(42);
///   auto parts = random_split(ds, {0.8, 0.2}, g);   // std::vector of two Subsets
template <class D, class Number>
requires(std::is_arithmetic_v<Number> && !std::is_same_v<Number, bool>) auto random_split(
    D&& dataset, const std::vector<Number>& lengths, Generator& generator = default_generator()) {
    static_assert(MapDataset<detail::member_t<D>>,
                  "staticpy: TypeError: random_split of a map dataset");
    detail::held<D> shared(std::forward<D>(dataset));
    const std::int64_t n = detail::length(shared.get());

    // Python's plain left-to-right sum(), then math.isclose (rel_tol 1e-09) with 1.
    double total = 0;
    for (Number l : lengths)
        total += static_cast<double>(l);
    std::vector<std::int64_t> sizes;
    if (std::fabs(total - 1.0) <= 1e-09 * std::max(std::fabs(total), 1.0) && total <= 1.0) {
        for (std::size_t i = 0; i < lengths.size(); ++i) {
            const double frac = static_cast<double>(lengths[i]);
            if (frac < 0 || frac > 1)
                throw ValueError("Fraction at index " + std::to_string(i) +
                                 " is not between 0 and 1");
            sizes.push_back(static_cast<std::int64_t>(std::floor(static_cast<double>(n) * frac)));
        }
        std::int64_t assigned = 0;
        for (std::int64_t s : sizes)
            assigned += s;
        for (std::int64_t i = 0; i < n - assigned; ++i)
            ++sizes[static_cast<std::size_t>(i) % sizes.size()];
        for (std::size_t i = 0; i < sizes.size(); ++i)
            if (sizes[i] == 0)
                detail::warn_once("Length of split at index " + std::to_string(i) +
                                  " is 0. This might result in an empty dataset.");
    } else {
        if (total != static_cast<double>(n))
            throw ValueError(
                "Sum of input lengths does not equal the length of the input dataset!");
        for (Number l : lengths) {
            // PyTorch lets these through to randperm and slicing; here they are refused rather
            // than silently misread (staticpy's own text).
            if (static_cast<double>(l) != std::floor(static_cast<double>(l)))
                throw TypeError("random_split: lengths must be integers or fractions summing to 1");
            if (l < 0)
                throw ValueError("random_split: lengths must not be negative");
            sizes.push_back(static_cast<std::int64_t>(l));
        }
    }
    std::int64_t sum = 0;
    for (std::int64_t s : sizes)
        sum += s;
    if (sum != n)
        throw ValueError("Sum of input lengths does not equal the length of the input dataset!");

    const std::vector<std::int64_t> perm = [&] {
        const auto lock = staticpy::detail::lock_if_default(generator);
        return detail::randperm(sum, generator);
    }();
    std::vector<Subset<D>> out;
    out.reserve(sizes.size());
    auto at = perm.begin();
    for (std::int64_t s : sizes) {
        out.emplace_back(shared, std::vector<std::int64_t>(at, at + s));
        at += s;
    }
    return out;
}
template <class D, class Number>
requires(std::is_arithmetic_v<Number> && !std::is_same_v<Number, bool>) auto random_split(
    D&& dataset, std::initializer_list<Number> lengths,
    Generator& generator = default_generator()) {
    return random_split(std::forward<D>(dataset), std::vector<Number>(lengths), generator);
}

} // namespace staticpy::data
