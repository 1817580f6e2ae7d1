#pragma once
// NumPy broadcasting of shapes, as torch.broadcast_shapes: shapes are aligned at their last
// dimension; two extents are compatible when they are equal or one of them is 1.
//
//   broadcast_shape_t<static_shape<3, 1>, static_shape<4>>   is static_shape<3, 4>
//   broadcast_shapes(shape(3_c, 1_c), shape(n))               a shape<int_<3>, int64_t> = [3, n]
//
// Compile time: broadcast_shape_t gives the result's Extent types. Two static extents that are
// incompatible are a compile error ("staticpy: RuntimeError: The size of tensor a must match the
// size of tensor b at a non-singleton dimension"). A static extent N != 1 beside a dynamic one
// gives a static N (the dynamic one must be 1 or N, checked at run time); a static 1 beside a
// dynamic one gives a dynamic extent; two dynamic ones a dynamic one.
// Run time: broadcast_sizes / broadcast_shapes compute the extents and throw staticpy::RuntimeError
// with PyTorch's text, "The size of tensor a (3) must match the size of tensor b (4) at
// non-singleton dimension 1" (the dimension counted in the result).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/tensor/shape.hpp"

namespace staticpy {

namespace detail {

/// No dimension on this side: the other side's extent passes through.
struct missing_extent {};

template <class A, class B>
struct broadcast_extent;

template <long long N, long long M>
struct broadcast_extent<int_<N>, int_<M>> {
    static_assert(N == M || N == 1 || M == 1,
                  "staticpy: RuntimeError: The size of tensor a must match the size of tensor b at "
                  "a non-singleton dimension");
    using type = std::conditional_t<N == 1, int_<M>, int_<N>>;
};
template <long long N>
struct broadcast_extent<int_<N>, std::int64_t> {
    using type = std::conditional_t<N == 1, std::int64_t, int_<N>>;
};
template <long long N>
struct broadcast_extent<std::int64_t, int_<N>> {
    using type = std::conditional_t<N == 1, std::int64_t, int_<N>>;
};
template <>
struct broadcast_extent<std::int64_t, std::int64_t> {
    using type = std::int64_t;
};
template <class A>
struct broadcast_extent<A, missing_extent> {
    using type = A;
};
template <class B>
struct broadcast_extent<missing_extent, B> {
    using type = B;
};

/// The I-th extent of S counted so that S's last dimension is at Rank - 1 (missing before).
template <class S, std::size_t Rank, std::size_t I>
struct aligned_extent {
    static constexpr std::size_t offset = Rank - S::rank;
    static auto pick() {
        if constexpr (I < offset)
            return missing_extent{};
        else
            return shape_extent_t<S, I - offset>{};
    }
    using type = decltype(pick());
};

template <class A, class B, class Seq>
struct broadcast_shape_impl;
template <class A, class B, std::size_t... I>
struct broadcast_shape_impl<A, B, std::index_sequence<I...>> {
    static constexpr std::size_t rank = sizeof...(I);
    using type =
        shape<typename broadcast_extent<typename aligned_extent<A, rank, I>::type,
                                        typename aligned_extent<B, rank, I>::type>::type...>;
};

template <class... Ss>
struct broadcast_shapes_fold;
template <class S>
struct broadcast_shapes_fold<S> {
    using type = S;
};
template <class A, class B, class... Ss>
struct broadcast_shapes_fold<A, B, Ss...> {
    using ab = typename broadcast_shape_impl<
        A, B, std::make_index_sequence<(A::rank > B::rank ? A::rank : B::rank)>>::type;
    using type = typename broadcast_shapes_fold<ab, Ss...>::type;
};

[[noreturn]] inline void throw_broadcast_error(std::int64_t a, std::int64_t b, std::size_t dim) {
    throw RuntimeError("The size of tensor a (" + std::to_string(a) +
                       ") must match the size of tensor b (" + std::to_string(b) +
                       ") at non-singleton dimension " + std::to_string(dim));
}

} // namespace detail

/// The broadcast shape type of shape types Ss... (a compile error when two static extents clash).
///   broadcast_shape_t<static_shape<2, 1>, static_shape<3>> is static_shape<2, 3>
template <class... Ss>
using broadcast_shape_t = typename detail::broadcast_shapes_fold<std::remove_cvref_t<Ss>...>::type;

/// Broadcast two run-time size lists (any lengths) into `out` (length max of both); throws
/// RuntimeError with PyTorch's message when an extent pair is neither equal nor has a 1.
inline void broadcast_sizes_into(std::span<const std::int64_t> a, std::span<const std::int64_t> b,
                                 std::span<std::int64_t> out) {
    const std::size_t rank = out.size();
    for (std::size_t k = 0; k < rank; ++k) {
        const std::size_t i = rank - 1 - k; // result dimension, counted from the left
        const bool has_a = k < a.size();
        const bool has_b = k < b.size();
        const std::int64_t ea = has_a ? a[a.size() - 1 - k] : 1;
        const std::int64_t eb = has_b ? b[b.size() - 1 - k] : 1;
        if (ea != eb && ea != 1 && eb != 1)
            detail::throw_broadcast_error(ea, eb, i);
        out[i] = ea == 1 ? eb : ea;
    }
}

/// torch.broadcast_shapes for two run-time size lists.
///   broadcast_sizes(std::vector<std::int64_t>{3, 1}, std::vector<std::int64_t>{4}) == {3, 4}
inline std::vector<std::int64_t> broadcast_sizes(std::span<const std::int64_t> a,
                                                 std::span<const std::int64_t> b) {
    std::vector<std::int64_t> out(std::max(a.size(), b.size()));
    broadcast_sizes_into(a, b, out);
    return out;
}

/// torch.broadcast_shapes(a, b, ...) for staticpy shapes: the result's type has the static extents
/// that can be known at compile time; every extent is checked at run time.
///   auto s = broadcast_shapes(shape(3_c, 1_c), shape(n));   // shape<int_<3>, int64_t>
template <class... Ss>
requires(sizeof...(Ss) >= 1 &&
         (is_shape_v<Ss> && ...)) broadcast_shape_t<Ss...> broadcast_shapes(const Ss&... shapes) {
    using result_t = broadcast_shape_t<Ss...>;
    typename result_t::sizes_type sizes{};
    std::fill(sizes.begin(), sizes.end(), std::int64_t{1});
    auto fold = [&](const auto& s) {
        const auto& extents = s.sizes();
        // Broadcasting an earlier result against the next shape keeps PyTorch's a/b naming.
        typename result_t::sizes_type next{};
        broadcast_sizes_into(std::span<const std::int64_t>(sizes.data(), sizes.size()),
                             std::span<const std::int64_t>(extents.data(), extents.size()), next);
        sizes = next;
    };
    bool first = true;
    auto step = [&](const auto& s) {
        if (first) {
            first = false;
            const auto& extents = s.sizes();
            std::copy(extents.begin(), extents.end(),
                      sizes.end() - static_cast<std::ptrdiff_t>(extents.size()));
        } else {
            fold(s);
        }
    };
    (step(shapes), ...);
    return result_t(sizes);
}

} // namespace staticpy
