#pragma once
// What the dataset, sampler and collate headers share: how a composite keeps its members, the
// optional arguments that PyTorch spells None, and the uniform permutation behind every shuffle.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <ranges>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"

namespace staticpy::data::detail {

/// D as a composite keeps it: std::reference_wrapper<X> counts as the lvalue X&.
template <class D>
struct held_target {
    using type = std::conditional_t<std::is_lvalue_reference_v<D>, D, std::remove_cvref_t<D>>;
};
template <class D>
requires(std::is_same_v<
         std::remove_cvref_t<D>,
         std::reference_wrapper<typename std::remove_cvref_t<D>::type>>) struct held_target<D> {
    using type = typename std::remove_cvref_t<D>::type&;
};
template <class D>
using held_target_t = typename held_target<D>::type;

/// How a composite (Subset, ConcatDataset, BatchSampler, ...) keeps a member. Python's composites
/// hold references, so an lvalue argument is referenced (it must outlive the composite); an rvalue
/// is moved into shared ownership, so that copies of the composite, and the subsets that one
/// random_split returns, share one dataset instead of copying it.
template <class D>
class held {
    using target = held_target_t<D>;

public:
    /// The member's type, const-qualified when a const lvalue was given.
    using element_type = std::remove_reference_t<target>;

    held() = default;
    template <class A>
    requires(!std::is_same_v<std::remove_cvref_t<A>, held>) explicit held(A&& a) {
        if constexpr (std::is_lvalue_reference_v<target>)
            ptr_ = std::addressof(static_cast<target>(a));
        else
            ptr_ = std::make_shared<element_type>(std::forward<A>(a));
    }

    [[nodiscard]] element_type& get() const noexcept { return *ptr_; }

private:
    std::conditional_t<std::is_lvalue_reference_v<target>, element_type*,
                       std::shared_ptr<element_type>>
        ptr_{};
};

/// The type of a member kept as held<D> keeps it.
template <class D>
using member_t = typename held<D>::element_type;

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

/// An optional integer, as PyTorch's `num_samples=None`: an integer (bool excluded, as PyTorch
/// rejects it), staticpy::None or std::nullopt.
class optional_int {
public:
    optional_int() = default;
    optional_int(none_t) {}         // NOLINT: implicit, stands for None
    optional_int(std::nullopt_t) {} // NOLINT
    template <std::integral I>
    requires(!std::is_same_v<I, bool>) optional_int(I v) // NOLINT: implicit, as an int argument
        : value_(static_cast<std::int64_t>(v)) {}

    [[nodiscard]] bool has_value() const noexcept { return value_.has_value(); }
    [[nodiscard]] std::int64_t value() const { return *value_; }
    [[nodiscard]] std::int64_t value_or(std::int64_t v) const { return value_.value_or(v); }

private:
    std::optional<std::int64_t> value_;
};

/// A `generator=None` argument: a staticpy::Generator (referenced, as PyTorch shares the object,
/// so successive epochs continue its sequence), or nothing.
class generator_arg {
public:
    generator_arg() = default;
    generator_arg(none_t) {}                  // NOLINT: implicit, stands for None
    generator_arg(std::nullopt_t) {}          // NOLINT
    generator_arg(Generator& g) : gen_(&g) {} // NOLINT: implicit, as a generator= argument

    [[nodiscard]] Generator* get() const noexcept { return gen_; }

private:
    Generator* gen_ = nullptr;
};

/// A uniform random permutation of 0..n-1 (Fisher-Yates over Generator::randint, whose draws are
/// unbiased). Not torch.randperm's stream: the engines differ, so the orders differ from PyTorch's.
inline std::vector<std::int64_t> randperm(std::int64_t n, Generator& gen) {
    std::vector<std::int64_t> perm(static_cast<std::size_t>(n > 0 ? n : 0));
    for (std::size_t i = 0; i < perm.size(); ++i)
        perm[i] = static_cast<std::int64_t>(i);
    for (std::int64_t i = n - 1; i > 0; --i)
        std::swap(perm[static_cast<std::size_t>(i)],
                  perm[static_cast<std::size_t>(gen.randint(0, i + 1))]);
    return perm;
}

/// Python's warnings.warn(msg) with the default UserWarning category, on stderr.
inline void warn(const std::string& message) {
    std::cerr << "UserWarning: " << message << '\n';
}

/// warn(message) the first time this text is warned in the process, as Python's default
/// warnings filter ("default": once per text and place) shows a repeated warning once; callers
/// warn each message from one place, so the text alone is the key. Thread-safe: loaders on
/// several threads may warn at once.
///   warn_once("Length of split at index 1 is 0. This might result in an empty dataset.");
///   warn_once("Length of split at index 1 is 0. ...");   // the same text again: silent
inline void warn_once(const std::string& message) {
    static std::mutex mutex;
    static std::set<std::string> shown;
    std::lock_guard lock(mutex);
    if (shown.insert(message).second)
        warn(message);
}

/// Python's len() of a dataset or sampler: its size() (any integer type), else std::ranges::size.
template <class S>
std::int64_t length(S& s) {
    if constexpr (requires { s.size(); })
        return static_cast<std::int64_t>(s.size());
    else
        return static_cast<std::int64_t>(std::ranges::size(s));
}

template <class S>
concept sized = requires(S& s) {
    { s.size() } -> std::convertible_to<std::int64_t>;
}
|| std::ranges::sized_range<S>;

} // namespace staticpy::data::detail
