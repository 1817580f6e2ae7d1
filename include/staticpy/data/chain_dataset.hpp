#pragma once
// torch.utils.data.ChainDataset: iterable datasets one after another, over a run-time list of one
// type (a std::vector) or a compile-time list of several (a std::tuple, a staticpy list, `a + b`).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "staticpy/containers/convert.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data {

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

} // namespace staticpy::data
