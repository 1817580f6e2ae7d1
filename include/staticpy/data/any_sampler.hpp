#pragma once
// The samplers a DataLoader takes, as one type each: DataLoaderOptions::sampler and
// ::batch_sampler are fields of an aggregate, so they cannot be templates over the sampler's
// type.

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/data/detail/common.hpp"
#include "staticpy/data/detail/erased_range.hpp"
#include "staticpy/data/sampler.hpp"

namespace staticpy::data {

/// A sampler of any type behind one type, as DataLoaderOptions::sampler takes it: any range of
/// integer indices (SequentialSampler, RandomSampler, std::vector<std::int64_t>, ...), itself a
/// range of std::int64_t. An lvalue is referenced (it must outlive the loader), an rvalue owned,
/// as composites do.
///   any_sampler s = RandomSampler(ds, g);
///   DataLoader loader(ds, {.batch_size = 4, .sampler = SubsetRandomSampler({0, 2, 4}, g)});
class any_sampler : public detail::erased_range<std::int64_t> {
public:
    template <class S>
    requires(!std::derived_from<std::remove_cvref_t<S>, detail::erased_range<std::int64_t>> &&
             Sampler<std::remove_reference_t<detail::held_target_t<S>>>)
        any_sampler(S&& s) { // NOLINT: implicit, as a sampler= argument
        assign(std::forward<S>(s), [](auto i) { return static_cast<std::int64_t>(i); });
    }
};

/// A batch sampler of any type behind one type, as DataLoaderOptions::batch_sampler takes it:
/// any range of ranges of integer indices (BatchSampler, std::vector<std::vector<int64_t>>,
/// ...), itself a range of std::vector<std::int64_t>.
///   any_batch_sampler b = BatchSampler(SequentialSampler(10), 3, false);
///   DataLoader loader(ds, {.batch_sampler = b});
class any_batch_sampler : public detail::erased_range<std::vector<std::int64_t>> {
public:
    template <class S>
    requires(!std::derived_from<std::remove_cvref_t<S>,
                                detail::erased_range<std::vector<std::int64_t>>> &&
             BatchSamplerLike<std::remove_reference_t<detail::held_target_t<S>>>)
        any_batch_sampler(S&& s) { // NOLINT: implicit, as a batch_sampler= argument
        assign(std::forward<S>(s), [](auto&& batch) {
            std::vector<std::int64_t> out;
            for (auto i : batch)
                out.push_back(static_cast<std::int64_t>(i));
            return out;
        });
    }
};

} // namespace staticpy::data
