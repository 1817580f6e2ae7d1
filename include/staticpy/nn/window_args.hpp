#pragma once
// The (height, width) template arguments of the 2-D layers (nn::Conv2d, nn::MaxPool2d,
// nn::AvgPool2d): kernel size, stride, padding and dilation are each one integer for both dims or
// std::array{h, w}, as PyTorch takes an int or an (h, w) tuple:
//
//   nn::Conv2d<3, 16, std::array{3, 5}, 1, std::array{1, 2}>   // kernel 3 x 5, padding (1, 2)
//
// An integer stays an integer in the layer's type name (Conv2d<1, 6, 5, 1, 2, ...>), so the
// common square layers read as before.

#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "staticpy/core/constant.hpp"

namespace staticpy::nn::detail {

template <class A>
inline constexpr bool is_hw_number_v = std::is_integral_v<A> && !std::is_same_v<A, bool>;
template <class A>
inline constexpr bool is_hw_pair_v = false;
template <class I>
inline constexpr bool is_hw_pair_v<std::array<I, 2>> = is_hw_number_v<I>;

/// V (an integer or std::array{h, w}) as h and w, and as the functional form's compile-time
/// (height, width) pair.
template <auto V>
struct hw {
    // (a class-type template parameter is a const object)
    using type = std::remove_cvref_t<decltype(V)>;
    static_assert(is_hw_number_v<type> || is_hw_pair_v<type>,
                  "staticpy: TypeError: a layer's kernel size, stride, padding and dilation are "
                  "each an integer or std::array{height, width}");
    static constexpr std::int64_t at(std::size_t i) {
        if constexpr (is_hw_pair_v<type>)
            return static_cast<std::int64_t>(V[i]);
        else if constexpr (is_hw_number_v<type>)
            return static_cast<std::int64_t>(V);
        else
            return 0;
    }
    static constexpr std::int64_t h = at(0), w = at(1);
    static constexpr std::array<std::int64_t, 2> value{h, w};
    using arg = std::tuple<int_<h>, int_<w>>;
};

} // namespace staticpy::nn::detail
