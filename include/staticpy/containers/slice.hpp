#pragma once
// Python's slice(start, stop, step) with compile-time bounds, resolved exactly as CPython's
// PySlice_AdjustIndices: negative bounds count from the end, out-of-range bounds are clamped,
// negative steps walk backwards, None means "from the end that the step starts at".
//   list(0_c, 1_c, 2_c, 3_c)[slice(None, None, -2_c)]   // [3, 1]

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
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
    using Start = decltype(Slice::start);
    using Stop = decltype(Slice::stop);
    using Step = decltype(Slice::step);
    const long long n = static_cast<long long>(Size);
    long long step = 1;
    if constexpr (!std::is_same_v<Step, none_t>)
        step = static_cast<long long>(Step::value);
    const long long lower = step < 0 ? -1 : 0;
    const long long upper = step < 0 ? n - 1 : n;
    auto clamp = [&](long long v) {
        if (v < 0) {
            v += n;
            return v < lower ? lower : v;
        }
        return v > upper ? upper : v;
    };
    long long start = step < 0 ? upper : lower;
    long long stop = step < 0 ? lower : upper;
    if constexpr (!std::is_same_v<Start, none_t>)
        start = clamp(static_cast<long long>(Start::value));
    if constexpr (!std::is_same_v<Stop, none_t>)
        stop = clamp(static_cast<long long>(Stop::value));
    slice_positions<Size> out;
    if (step == 0)
        return out; // reported by the caller
    for (long long i = start; step > 0 ? i < stop : i > stop; i += step)
        out.index[out.length++] = static_cast<std::size_t>(i);
    return out;
}

} // namespace detail
} // namespace staticpy
