#pragma once
// How a dataset that batches itself (TensorDataset, MNIST) walks a batch's indices: PyTorch's
// index checks, and runs of consecutive indices copied at once.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "staticpy/core/error.hpp"

namespace staticpy::data::detail {

/// i as a row of a dimension of size n (negative from the end); IndexError outside it, with
/// index_select's text.
///   wrap_index(-1, 10) == 9
inline std::int64_t wrap_index(std::int64_t i, std::int64_t n) {
    if (i < -n || i >= n)
        throw IndexError("index " + std::to_string(i) +
                         " is out of bounds for dimension 0 with size " + std::to_string(n));
    return i < 0 ? i + n : i;
}

/// Calls copy(first, at, count) for the batch's indices in order: rows first .. first + count - 1
/// of a dimension of size n go to batch positions at .. at + count - 1. With merge_runs, a run of
/// consecutive indices is one call (a sequential batch: one copy); otherwise each index is one.
/// (Prefetching the next random row while copying one made LeNet-5's epoch 1.5 % slower.)
///   for_each_index_run(idx, n, true, [&](auto first, auto at, auto count) { ... });
template <class Copy>
void for_each_index_run(std::span<const std::int64_t> indices, std::int64_t n, bool merge_runs,
                        const Copy& copy) {
    for (std::size_t k = 0; k < indices.size();) {
        const std::int64_t first = wrap_index(indices[k], n);
        std::size_t end = k + 1;
        if (merge_runs)
            while (end < indices.size() && indices[end] < n &&
                   indices[end] == first + static_cast<std::int64_t>(end - k))
                ++end;
        copy(first, static_cast<std::int64_t>(k), static_cast<std::int64_t>(end - k));
        k = end;
    }
}

} // namespace staticpy::data::detail
