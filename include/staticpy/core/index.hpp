#pragma once
// Python's index and slice arithmetic, for every sequence: list positions, list slices and tensor
// slices resolve their bounds here, so that a list and a tensor never disagree about where
// l[-1], l.insert(-9, x) or l[5:1:-2] land. The rules are CPython's (list_item, list.insert,
// PySlice_AdjustIndices). std-only and constexpr: core/ is below both containers/ and tensor/.

#include <cstdint>
#include <optional>

namespace staticpy::detail {

/// l[i]'s element: i from the end when negative; -1 when outside [0, n).
constexpr std::int64_t wrap_index(std::int64_t i, std::int64_t n) {
    if (i < 0)
        i += n;
    return i < 0 || i >= n ? -1 : i;
}

/// A position between elements (list.insert, list.index's start and stop, a slice bound with a
/// positive step): from the end when negative, then clamped into [0, n].
constexpr std::int64_t clamp_position(std::int64_t i, std::int64_t n) {
    if (i < 0)
        i += n;
    return i < 0 ? 0 : i > n ? n : i;
}

/// The range a slice selects, as PySlice_AdjustIndices leaves it: element k of the selection is
/// start + k * step, for k < length.
struct slice_indices {
    std::int64_t start = 0;
    std::int64_t stop = 0;
    std::int64_t step = 1;
    std::int64_t length = 0;
};

/// slice(start, stop, step) over n elements; an empty optional is Python's None. step != 0
/// (Python raises ValueError first; the callers check it where they can name their error).
constexpr slice_indices adjust_slice(std::int64_t n, std::optional<std::int64_t> start,
                                     std::optional<std::int64_t> stop, std::int64_t step) {
    // A backward walk may stop before element 0, at -1, and starts at most at n - 1.
    const std::int64_t lower = step < 0 ? -1 : 0;
    const std::int64_t upper = step < 0 ? n - 1 : n;
    auto clamp = [&](std::int64_t v) {
        if (v < 0) {
            v += n;
            return v < lower ? lower : v;
        }
        return v > upper ? upper : v;
    };
    slice_indices out;
    out.step = step;
    out.start = start ? clamp(*start) : step < 0 ? upper : lower;
    out.stop = stop ? clamp(*stop) : step < 0 ? lower : upper;
    if (step > 0 && out.stop > out.start)
        out.length = (out.stop - out.start - 1) / step + 1;
    else if (step < 0 && out.stop < out.start)
        out.length = (out.start - out.stop - 1) / -step + 1;
    return out;
}

} // namespace staticpy::detail
