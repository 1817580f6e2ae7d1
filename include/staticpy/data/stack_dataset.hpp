#pragma once
// torch.utils.data.StackDataset: sample i of each of several datasets, as a tuple or, with
// named datasets, a dict.

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/containers/dict.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/data/concat_dataset.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data {

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

} // namespace staticpy::data
