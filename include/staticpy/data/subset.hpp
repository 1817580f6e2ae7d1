#pragma once
// torch.utils.data.Subset and random_split: the samples of a dataset at some indices, and a
// dataset dealt at random into disjoint Subsets.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/data/concat_dataset.hpp"
#include "staticpy/data/dataset_base.hpp"
#include "staticpy/data/detail/common.hpp"

namespace staticpy::data {

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

namespace detail {
/// Python's plain left-to-right sum() of random_split's lengths.
template <class Number>
double python_sum(const std::vector<Number>& lengths) {
    double total = 0;
    for (Number l : lengths)
        total += static_cast<double>(l);
    return total;
}

/// Whether lengths summing to `total` are fractions: math.isclose (rel_tol 1e-09) with 1, and
/// not above 1.
inline bool are_fractions(double total) {
    return std::fabs(total - 1.0) <= 1e-09 * std::max(std::fabs(total), 1.0) && total <= 1.0;
}

/// The split sizes for fractions of n: floor(n * fraction) each, the remainder handed out one
/// by one from the first split, and PyTorch's warning for a split left empty.
template <class Number>
std::vector<std::int64_t> sizes_of_fractions(const std::vector<Number>& fractions,
                                             std::int64_t n) {
    std::vector<std::int64_t> sizes;
    for (std::size_t i = 0; i < fractions.size(); ++i) {
        const double frac = static_cast<double>(fractions[i]);
        if (frac < 0 || frac > 1)
            throw ValueError("Fraction at index " + std::to_string(i) + " is not between 0 and 1");
        sizes.push_back(static_cast<std::int64_t>(std::floor(static_cast<double>(n) * frac)));
    }
    std::int64_t assigned = 0;
    for (std::int64_t s : sizes)
        assigned += s;
    for (std::int64_t i = 0; i < n - assigned; ++i)
        ++sizes[static_cast<std::size_t>(i) % sizes.size()];
    for (std::size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] == 0)
            warn_once("Length of split at index " + std::to_string(i) +
                      " is 0. This might result in an empty dataset.");
    return sizes;
}

/// The split sizes given as whole lengths, whose sum, `total`, must be n.
template <class Number>
std::vector<std::int64_t> sizes_of_lengths(const std::vector<Number>& lengths, double total,
                                           std::int64_t n) {
    if (total != static_cast<double>(n))
        throw ValueError("Sum of input lengths does not equal the length of the input dataset!");
    std::vector<std::int64_t> sizes;
    for (Number l : lengths) {
        // PyTorch lets these through to randperm and slicing; here they are refused rather
        // than silently misread (staticpy's own text).
        if (static_cast<double>(l) != std::floor(static_cast<double>(l)))
            throw TypeError("random_split: lengths must be integers or fractions summing to 1");
        if (l < 0)
            throw ValueError("random_split: lengths must not be negative");
        sizes.push_back(static_cast<std::int64_t>(l));
    }
    return sizes;
}
} // namespace detail

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
    const double total = detail::python_sum(lengths);
    const std::vector<std::int64_t> sizes = detail::are_fractions(total)
                                                ? detail::sizes_of_fractions(lengths, n)
                                                : detail::sizes_of_lengths(lengths, total, n);
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
