#pragma once
// Python's slice(start, stop, step) with compile-time bounds, resolved by core/index.hpp's
// adjust_slice (CPython's PySlice_AdjustIndices), as a tensor's slices are.
//   list(0_c, 1_c, 2_c, 3_c)[slice(None, None, -2_c)]   // [3, 1]

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/index.hpp"
#include "staticpy/core/value.hpp"

namespace staticpy {

template <class Start, class Stop, class Step>
struct slice_t {
    [[no_unique_address]] Start start;
    [[no_unique_address]] Stop stop;
    [[no_unique_address]] Step step;
};

/// slice(stop), slice(start, stop), slice(start, stop, step); each bound an int constant or None.
template <class Stop>
constexpr slice_t<none_t, Stop, none_t> slice(Stop stop) {
    return {{}, stop, {}};
}
template <class Start, class Stop, class Step = none_t>
constexpr slice_t<Start, Stop, Step> slice(Start start, Stop stop, Step step = {}) {
    return {start, stop, step};
}

template <class T>
inline constexpr bool is_slice_v = false;
template <class A, class B, class C>
inline constexpr bool is_slice_v<slice_t<A, B, C>> = true;

namespace detail {

template <class Bound>
inline constexpr bool is_slice_bound_v =
    std::is_same_v<Bound, none_t> || is_int_constant_v<Bound> || is_bool_constant_v<Bound>;

template <std::size_t N>
struct slice_positions {
    std::array<std::size_t, N + 1> index{}; // one spare so that N == 0 is a valid array
    std::size_t length = 0;
};

/// The positions a compile-time slice selects from a sequence of `size` elements.
template <class Slice, std::size_t Size>
constexpr auto resolve_slice() {
    auto bound = [](auto b) -> std::optional<std::int64_t> {
        if constexpr (std::is_same_v<decltype(b), none_t>)
            return std::nullopt;
        else
            return static_cast<std::int64_t>(decltype(b)::value);
    };
    const std::int64_t step = bound(decltype(Slice::step){}).value_or(1);
    slice_positions<Size> out;
    if (step == 0)
        return out; // reported by the caller
    const slice_indices r =
        adjust_slice(static_cast<std::int64_t>(Size), bound(decltype(Slice::start){}),
                     bound(decltype(Slice::stop){}), step);
    for (std::int64_t k = 0; k < r.length; ++k)
        out.index[out.length++] = static_cast<std::size_t>(r.start + k * step);
    return out;
}

} // namespace detail
} // namespace staticpy
