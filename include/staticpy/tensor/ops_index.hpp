#pragma once
// Eager indexing ops with PyTorch's names and semantics: index_select, gather, one_hot, and the
// ops their derivatives are made of (index_add, scatter_add, select_scatter, slice_scatter).
// cat and stack are in ops_join.hpp, which this header includes.
//
//   auto rows = index_select(x, 0_c, idx);        // x[idx[0]], x[idx[1]], ... along dim 0
//   auto picked = gather(logits, 1_c, labels);    // picked[i][j] = logits[i][labels[i][j]]
//   auto targets = one_hot(labels, 10_c);         // int64, the last extent static 10
//   auto grad = scatter_add(zeros_like(logits), 1_c, labels, upstream);   // gather's adjoint
//
// Each returns a new contiguous tensor. Dims are compile-time (1_c, -1_c) or run-time ints, as
// everywhere; a compile-time dim keeps the result's extents static where they are known. What the
// types already show to be wrong (an index of the wrong dtype or rank, static extents that cannot
// fit) is a compile error "staticpy: <PyTorch's error>"; the rest is checked at run time with
// PyTorch's error type and text, every index before any element is read through it.
//
// All four index-driven ops are one walk (indexed_walk): over an iteration space, each position p
// pairs an element of a "direct" operand at p with an element of a "target" operand at p with
// p[dim] replaced by the index's value there. gather and index_select read the target into the
// direct result; scatter_add and index_add add the direct source into the target result.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/loop.hpp"
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/index_device.hpp"
#include "staticpy/tensor/ops_join.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {
namespace detail::index_ops {

/// A tensor's sizes and strides as PyTorch's indexing kernels see them (ensure_nonempty_dim): a
/// zero-dim tensor is one element in one dim.
template <std::size_t R>
struct layout {
    std::array<std::int64_t, R> sizes{};
    std::array<std::int64_t, R> strides{};
};

template <std::size_t R>
inline constexpr std::size_t nonempty_rank = R > 0 ? R : 1;

template <class T, class S>
layout<nonempty_rank<S::rank>> nonempty_layout(const Tensor<T, S>& t) {
    if constexpr (S::rank == 0)
        return {{1}, {1}};
    else
        return {t.sizes(), t.strides()};
}

/// The first R of a nonempty layout's sizes: a zero-dim tensor's one dim dropped again.
template <std::size_t R, std::size_t N>
std::array<std::int64_t, R> first_sizes(const std::array<std::int64_t, N>& sizes) {
    std::array<std::int64_t, R> out{};
    std::copy_n(sizes.begin(), R, out.begin());
    return out;
}

template <class I>
inline constexpr bool is_index_element_v =
    std::is_same_v<I, std::int64_t> || std::is_same_v<I, std::int32_t>;

/// A 0-dim or 1-dim index as index_select and index_add read it: its layout over one dim.
template <class I, class SI>
layout<1> index_vector_layout(const Tensor<I, SI>& index) {
    return nonempty_layout(index);
}

/// The first value of `index` (in row-major order over `l`) outside [0, bound), if any. Every
/// index-driven op checks its whole index with this before using it: a loop over each contiguous
/// run of the index that stops at the first offender (as fast as a branch-free scan, measured).
template <class I, std::size_t R>
std::optional<std::int64_t> first_out_of_range(const I* index, const layout<R>& l,
                                               std::int64_t bound) {
    std::optional<std::int64_t> first;
    if (std::find(l.sizes.begin(), l.sizes.end(), 0) != l.sizes.end())
        return first;
    // One unsigned comparison tells both v < 0 and v >= bound.
    const auto limit = static_cast<std::uint64_t>(bound);
    const auto nest =
        kernels::coalesce(l.sizes, std::array<std::array<std::int64_t, R>, 1>{l.strides});
    kernels::for_each_run(nest, 0, nest.outer(),
                          [&](const std::array<std::int64_t, 1>& at, std::int64_t length,
                              const std::array<std::int64_t, 1>& step) {
                              if (first)
                                  return;
                              const I* run = index + at[0];
                              for (std::int64_t j = 0; j < length; ++j) {
                                  const auto v = static_cast<std::int64_t>(run[j * step[0]]);
                                  if (static_cast<std::uint64_t>(v) >= limit) {
                                      first = v;
                                      return;
                                  }
                              }
                          });
    return first;
}

/// The walk of every index-driven op (see the header comment): f(direct offset, target offset) for
/// every position of `sizes`, the target's offset taken with index[position] along `dim`. The
/// index is read through `index_strides` over the same space (a vector index: its stride along
/// dim, 0 elsewhere). Every index value must already lie in [0, target's extent along dim).
template <std::size_t R, class I, class F>
void indexed_walk(const std::array<std::int64_t, R>& sizes, std::size_t dim,
                  const std::array<std::int64_t, R>& direct_strides, const I* index,
                  const std::array<std::int64_t, R>& index_strides,
                  std::array<std::int64_t, R> target_strides, F&& f) {
    const std::int64_t step = target_strides[dim];
    target_strides[dim] = 0;
    kernels::for_each_offsets<R, 3>(
        sizes, {0, 0, 0}, {direct_strides, index_strides, target_strides},
        [&](const std::array<std::int64_t, 3>& o) {
            f(o[0], o[2] + static_cast<std::int64_t>(index[o[1]]) * step);
        });
}

/// The strides of a vector index over an iteration space of rank R: its own along dim.
template <std::size_t R>
std::array<std::int64_t, R> vector_index_strides(std::size_t dim, std::int64_t stride) {
    std::array<std::int64_t, R> strides{};
    strides[dim] = stride;
    return strides;
}

/// A walk's space with one operand's strides, as the CUDA backend takes it (index_device.hpp).
template <std::size_t R>
index_space device_space(const std::array<std::int64_t, R>& sizes,
                         const std::array<std::int64_t, R>& strides) {
    static_assert(R <= max_device_index_rank);
    index_space space;
    space.rank = R;
    std::copy(sizes.begin(), sizes.end(), space.sizes.begin());
    std::copy(strides.begin(), strides.end(), space.strides.begin());
    return space;
}

/// An op of more dims than the GPU's index kernels take.
[[noreturn]] inline void throw_too_many_dims_on_cuda(std::size_t rank) {
    throw RuntimeError("staticpy: an indexing op on GPU tensors takes at most " +
                       std::to_string(max_device_index_rank) + " dims, not " +
                       std::to_string(rank) + " (copy its tensors with .cpu())");
}

/// first_out_of_range of an index tensor on either device.
template <class I, class SI, std::size_t R>
std::optional<std::int64_t> first_out_of_range_in(const Tensor<I, SI>& index, const layout<R>& l,
                                                  std::int64_t bound) {
    if (index.is_cuda()) {
        if constexpr (R <= max_device_index_rank)
            return first_out_of_range_on_cuda(index_device_tag{}, device_space(l.sizes, l.strides),
                                              index, bound);
        else
            throw_too_many_dims_on_cuda(R);
    }
    return first_out_of_range(index.data(), l, bound);
}

/// indexed_walk on GPU tensors (index_device.hpp's call): reading, out[p] = in[target];
/// accumulating, out[target] += alpha * in[p].
template <std::size_t R, class I, class SI, class U, class SU, class T, class S>
void indexed_walk_on_device(bool accumulate, const std::array<std::int64_t, R>& sizes,
                            std::size_t dim, const std::array<std::int64_t, R>& direct_strides,
                            const Tensor<I, SI>& index,
                            const std::array<std::int64_t, R>& index_strides,
                            const std::array<std::int64_t, R>& target_strides,
                            const Tensor<U, SU>& in, Tensor<T, S>& out, T alpha) {
    if constexpr (R <= max_device_index_rank) {
        indexed_walk_call call;
        call.accumulate = accumulate;
        call.rank = R;
        call.dim = dim;
        std::copy(sizes.begin(), sizes.end(), call.sizes.begin());
        std::copy(direct_strides.begin(), direct_strides.end(), call.direct_strides.begin());
        std::copy(index_strides.begin(), index_strides.end(), call.index_strides.begin());
        std::copy(target_strides.begin(), target_strides.end(), call.target_strides.begin());
        indexed_walk_on_cuda(index_device_tag{}, call, index, in, out, alpha);
    } else {
        throw_too_many_dims_on_cuda(R);
    }
}

/// a + b * alpha as PyTorch's add kernel computes it in T: integers wrap (never signed-overflow
/// UB), bools or.
template <class T>
T add_scaled(T a, T b, T alpha) {
    if constexpr (std::is_same_v<T, bool>) {
        return a || (b && alpha);
    } else if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(
            static_cast<U>(a) + static_cast<U>(static_cast<U>(b) * static_cast<U>(alpha))));
    } else {
        return a + b * alpha;
    }
}

/// Whether no static extent of shape A exceeds B's, dim Skip aside (none when Skip >= rank): the
/// static part of PyTorch's "index.size(d) <= self.size(d)" checks.
template <class A, class B, std::size_t Skip>
constexpr bool static_extents_within() {
    if constexpr (A::rank == B::rank) {
        for (std::size_t i = 0; i < A::rank; ++i)
            if (i != Skip && A::static_extents[i] >= 0 && B::static_extents[i] >= 0 &&
                A::static_extents[i] > B::static_extents[i])
                return false;
    }
    return true;
}

/// static_extents_within apart from dim D, when D is known at compile time (a run-time dim may
/// be any of them: nothing is known to be wrong).
template <class A, class B, class D>
constexpr bool static_extents_within_apart_from() {
    if constexpr (is_static_dim_v<D>)
        return static_extents_within<A, B, wrap_dim_c<std::remove_cvref_t<D>::value, B::rank>()>();
    else
        return true;
}

/// The wrapped compile-time dim of D in rank R, or `runtime_dim` for a run-time D.
template <class D, std::size_t R>
constexpr std::size_t static_dim_or_runtime() {
    if constexpr (is_static_dim_v<D>)
        return wrap_dim_c<std::remove_cvref_t<D>::value, R>();
    else
        return runtime_dim;
}

/// The extent that an index of shape SI (0-dim or 1-dim) gives the dim it selects along.
template <class SI>
struct index_count_extent {
    using type = shape_extent_t<SI, 0>;
};
template <>
struct index_count_extent<shape<>> {
    using type = int_<1>;
};

/// index_select's result shape type: S with dim D's extent the index's count.
template <class S, class D, class SI>
constexpr auto index_select_shape_of() {
    if constexpr (S::rank == 0)
        return std::type_identity<S>{};
    else if constexpr (is_static_dim_v<D>)
        return std::type_identity<shape_replace_t<S, static_dim_or_runtime<D, S::rank>(),
                                                  typename index_count_extent<SI>::type>>{};
    else
        return std::type_identity<dynamic_shape<S::rank>>{};
}

/// `out` (a tensor of its own: x.clone(), or zeros for a view's derivative) with the elements of
/// `src` copied into view_of(out): select_scatter and slice_scatter, with PyTorch's check that src
/// has the view's size.
template <class T, class S, class U, class S2, class ViewOf>
Tensor<T, S> scatter_into_view(Tensor<T, S> out, const Tensor<U, S2>& src, ViewOf&& view_of) {
    auto view = view_of(out);
    using V = typename decltype(view)::shape_type;
    constexpr bool fits = V::rank == S2::rank && [] {
        for (std::size_t i = 0; i < V::rank; ++i)
            if (V::static_extents[i] >= 0 && S2::static_extents[i] >= 0 &&
                V::static_extents[i] != S2::static_extents[i])
                return false;
        return true;
    }();
    static_assert(fits,
                  "staticpy: RuntimeError: expected src to have a size equal to the slice of self");
    if constexpr (fits) {
        if (!(view.shape() == src.shape()))
            throw RuntimeError(
                "expected src to have a size equal to the slice of self. src size = " +
                sizes_text(src.sizes()) + ", slice size = " + sizes_text(view.sizes()));
        view.copy_(src);
    }
    return out;
}

} // namespace detail::index_ops

// ---- index_select ----------------------------------------------------------------------------

/// torch.index_select(x, dim, index): the slices x.select(dim, i) for each i of index (a 1-D or
/// 0-D int64 or int32 tensor), in index's order, along dim. An index outside [0, x.size(dim)) is
/// IndexError "index out of range in self" (negative ones too, as PyTorch's). With a compile-time
/// dim the result is x's shape type with dim's extent the index's (static for a static index).
///   auto idx = tensor<std::int64_t>({2, 0});
///   print(index_select(tensor<float>({{1, 2, 3}, {4, 5, 6}}), 1_c, idx));  // [[3, 1], [6, 4]]
template <class T, class S, detail::dim_argument D, class I, class SI>
auto index_select(const Tensor<T, S>& x, D dim, const Tensor<I, SI>& index) {
    namespace ix = detail::index_ops;
    static_assert(SI::rank <= 1,
                  "staticpy: IndexError: index_select(): Index is supposed to be a vector");
    static_assert(
        ix::is_index_element_v<I>,
        "staticpy: RuntimeError: index_select(): Expected dtype int32 or int64 for index");
    using Result = typename decltype(ix::index_select_shape_of<S, D, SI>())::type;
    const std::size_t d = ix::resolve_dim<S::rank>(dim);
    const std::int64_t n = index.numel();
    if (S::rank == 0 && n != 1)
        throw IndexError("index_select(): Index to scalar can have only 1 value, got " +
                         std::to_string(n) + " value(s)");
    const auto in = ix::nonempty_layout(x);
    auto out_sizes = in.sizes;
    out_sizes[d] = n;
    Tensor<T, Result> out{Result(ix::first_sizes<S::rank>(out_sizes)),
                          detail::check_same_device(x, index)};
    if (n == 0)
        return out;
    const std::int64_t bound = in.sizes[d];
    if (S::rank > 1 && x.numel() == 0 && bound == 0)
        throw RuntimeError("index_select(): self indexing axis dim should be positive");
    const auto at = ix::index_vector_layout(index);
    if (ix::first_out_of_range_in(index, at, bound))
        throw IndexError("index out of range in self");
    if (out.numel() == 0)
        return out;
    const auto out_strides = detail::contiguous_strides(out_sizes);
    if (out.is_cuda()) {
        ix::indexed_walk_on_device(
            false, out_sizes, d, out_strides, index,
            ix::vector_index_strides<ix::nonempty_rank<S::rank>>(d, at.strides[0]), in.strides, x,
            out, T(1));
        return out;
    }
    T* q = out.data();
    const T* p = x.data();
    if (x.is_contiguous() && out_strides[d] > 1) {
        // Each selected slice is `outer` contiguous blocks of `block` elements.
        const std::int64_t block = out_strides[d];
        const std::int64_t outer = out.numel() / (n * block);
        const I* idx = index.data();
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t i = 0; i < n; ++i)
                std::memcpy(q + (o * n + i) * block,
                            p + (o * bound + static_cast<std::int64_t>(idx[i * at.strides[0]])) *
                                    block,
                            static_cast<std::size_t>(block) * sizeof(T));
        return out;
    }
    ix::indexed_walk(out_sizes, d, out_strides, index.data(),
                     ix::vector_index_strides<ix::nonempty_rank<S::rank>>(d, at.strides[0]),
                     in.strides, [&](std::int64_t a, std::int64_t b) { q[a] = p[b]; });
    return out;
}

// ---- gather / scatter_add ------------------------------------------------------------------

/// torch.gather(x, dim, index): out[i][j][k] = x[index[i][j][k]][j][k] for dim 0 (likewise for
/// the others); the result has index's shape type. index is int64 with x's rank; its extents
/// other than dim's must not exceed x's. An index outside [0, x.size(dim)) is RuntimeError "index 5
/// is out of bounds for dimension 1 with size 4".
///   auto g = gather(tensor<float>({{1, 2}, {3, 4}}), 1_c, tensor<std::int64_t>({{0, 0}, {1, 0}}));
///   print(g);  // [[1, 1], [4, 3]]
template <class T, class S, detail::dim_argument D, class I, class SI>
Tensor<T, SI> gather(const Tensor<T, S>& x, D dim, const Tensor<I, SI>& index) {
    namespace ix = detail::index_ops;
    static_assert(std::is_same_v<I, std::int64_t>,
                  "staticpy: RuntimeError: gather(): Expected dtype int64 for index");
    constexpr std::size_t R = ix::nonempty_rank<S::rank>;
    static_assert(R == ix::nonempty_rank<SI::rank>,
                  "staticpy: RuntimeError: Index tensor must have the same number of dimensions as "
                  "input tensor");
    static_assert(ix::static_extents_within_apart_from<SI, S, D>(),
                  "staticpy: RuntimeError: Size does not match: expected index to be smaller than "
                  "self apart from dimension dim");
    const std::size_t d = ix::resolve_dim<S::rank>(dim);
    Tensor<T, SI> out(index.shape(), detail::check_same_device(x, index));
    if (index.numel() == 0)
        return out;
    const auto in = ix::nonempty_layout(x);
    const auto at = ix::nonempty_layout(index);
    for (std::size_t i = 0; i < R; ++i)
        if (i != d && at.sizes[i] > in.sizes[i])
            throw RuntimeError("Size does not match at dimension " + std::to_string(i) +
                               " expected index " + detail::sizes_text(index.sizes()) +
                               " to be smaller than self " + detail::sizes_text(x.sizes()) +
                               " apart from dimension " + std::to_string(d));
    if (const auto bad = ix::first_out_of_range_in(index, at, in.sizes[d]))
        throw RuntimeError("index " + std::to_string(*bad) + " is out of bounds for dimension " +
                           std::to_string(d) + " with size " + std::to_string(in.sizes[d]));
    if (out.is_cuda()) {
        ix::indexed_walk_on_device(false, at.sizes, d, detail::contiguous_strides(at.sizes), index,
                                   at.strides, in.strides, x, out, T(1));
        return out;
    }
    T* q = out.data();
    const T* p = x.data();
    // Along a contiguous last dim the walk's innermost run is the tight loop
    // q[j] = p[index[j]] over a row.
    ix::indexed_walk(at.sizes, d, detail::contiguous_strides(at.sizes), index.data(), at.strides,
                     in.strides, [&](std::int64_t a, std::int64_t b) { q[a] = p[b]; });
    return out;
}

namespace detail::index_ops {
/// scatter_add's checks and walk, adding src onto `out`: a tensor of its own that holds self's
/// elements (x.clone(), or zeros for gather's derivative).
template <class T, class S, detail::dim_argument D, class I, class SI, class U, class S2>
Tensor<T, S> scatter_add_onto(Tensor<T, S> out, D dim, const Tensor<I, SI>& index,
                              const Tensor<U, S2>& src) {
    namespace ix = detail::index_ops;
    static_assert(std::is_same_v<I, std::int64_t>,
                  "staticpy: RuntimeError: scatter(): Expected dtype int64 for index");
    static_assert(
        std::is_same_v<U, T>,
        "staticpy: RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype");
    constexpr std::size_t R = ix::nonempty_rank<S::rank>;
    static_assert(R == ix::nonempty_rank<SI::rank>,
                  "staticpy: RuntimeError: Index tensor must have the same number of dimensions as "
                  "self tensor");
    static_assert(R == ix::nonempty_rank<S2::rank>,
                  "staticpy: RuntimeError: Index tensor must have the same number of dimensions as "
                  "src tensor");
    static_assert(ix::static_extents_within_apart_from<SI, S, D>() &&
                      ix::static_extents_within<SI, S2, SI::rank>(),
                  "staticpy: RuntimeError: Expected index to be smaller than self apart from "
                  "dimension dim and to be smaller size than src");
    const std::size_t d = ix::resolve_dim<S::rank>(dim);
    detail::check_same_device(out, index, src);
    if (index.numel() == 0)
        return out;
    const auto target = ix::nonempty_layout(out);
    const auto at = ix::nonempty_layout(index);
    const auto from = ix::nonempty_layout(src);
    for (std::size_t i = 0; i < R; ++i)
        if ((i != d && at.sizes[i] > target.sizes[i]) || at.sizes[i] > from.sizes[i])
            throw RuntimeError("Expected index " + detail::sizes_text(index.sizes()) +
                               " to be smaller than self " + detail::sizes_text(out.sizes()) +
                               " apart from dimension " + std::to_string(d) +
                               " and to be smaller size than src " +
                               detail::sizes_text(src.sizes()));
    if (const auto bad = ix::first_out_of_range_in(index, at, target.sizes[d]))
        throw RuntimeError("index " + std::to_string(*bad) + " is out of bounds for dimension " +
                           std::to_string(d) + " with size " + std::to_string(target.sizes[d]));
    if (out.is_cuda()) {
        ix::indexed_walk_on_device(true, at.sizes, d, from.strides, index, at.strides,
                                   target.strides, src, out, T(1));
        return out;
    }
    T* q = out.data();
    const T* p = src.data();
    ix::indexed_walk(
        at.sizes, d, from.strides, index.data(), at.strides, target.strides,
        [&](std::int64_t a, std::int64_t b) { q[b] = ix::add_scaled(q[b], p[a], T(1)); });
    return out;
}
} // namespace detail::index_ops

/// torch.scatter_add(x, dim, index, src): x with out[index[i][j]][j] += src[i][j] for dim 0
/// (likewise for the others), for every position of index; gather's adjoint. index is int64 with
/// x's and src's rank, no larger than src, nor than x outside dim; src has x's dtype. An index
/// outside [0, x.size(dim)) is RuntimeError "index 5 is out of bounds for dimension 1 with size 4".
///   auto s = scatter_add(zeros<float>(2_c, 3_c), 1_c, tensor<std::int64_t>({{0, 0}, {2, 0}}),
///                        ones<float>(2_c, 2_c));   // [[2, 0, 0], [1, 0, 1]]
template <class T, class S, detail::dim_argument D, class I, class SI, class U, class S2>
Tensor<T, S> scatter_add(const Tensor<T, S>& x, D dim, const Tensor<I, SI>& index,
                         const Tensor<U, S2>& src) {
    return detail::index_ops::scatter_add_onto(x.clone(), dim, index, src);
}

// ---- index_add -------------------------------------------------------------------------------

namespace detail::index_ops {
/// index_add's checks and walk, adding alpha * source onto `out`: a tensor of its own that holds
/// self's elements (x.clone(), or zeros for index_select's derivative).
template <class T, class S, detail::dim_argument D, class I, class SI, class U, class S2,
          class Alpha>
Tensor<T, S> index_add_onto(Tensor<T, S> out, D dim, const Tensor<I, SI>& index,
                            const Tensor<U, S2>& source, Alpha alpha) {
    namespace ix = detail::index_ops;
    static_assert(SI::rank <= 1,
                  "staticpy: IndexError: index_add_(): Index is supposed to be a vector");
    static_assert(ix::is_index_element_v<I>,
                  "staticpy: RuntimeError: index_add_(): Expected dtype int32/int64 for index");
    static_assert(std::is_same_v<U, T>,
                  "staticpy: RuntimeError: index_add_(): self and source must have the same "
                  "scalar type");
    constexpr std::size_t R = ix::nonempty_rank<S::rank>;
    static_assert(R == ix::nonempty_rank<S2::rank>,
                  "staticpy: RuntimeError: index_add_(): source must have the same number of "
                  "dimensions as self");
    static_assert(std::is_arithmetic_v<Alpha> || detail::is_number_constant_v<Alpha>,
                  "staticpy: TypeError: index_add(): alpha must be a number");
    static_assert(std::is_floating_point_v<T> ||
                      !(std::is_floating_point_v<Alpha> || is_float_constant_v<Alpha>),
                  "staticpy: RuntimeError: For integral input tensors, argument alpha must not be "
                  "a floating point number.");
    constexpr std::size_t sd = ix::static_dim_or_runtime<D, S::rank>();
    if constexpr (sd != ix::runtime_dim && S2::rank == S::rank && S::rank > 0) {
        constexpr std::int64_t count = SI::rank == 0 ? 1 : SI::static_extents[0];
        constexpr std::int64_t wanted = S2::static_extents[sd];
        static_assert(count < 0 || wanted < 0 || count == wanted,
                      "staticpy: RuntimeError: index_add_(): Number of indices should be equal to "
                      "source.size(dim)");
    }
    const std::size_t d = ix::resolve_dim<S::rank>(dim);
    detail::check_same_device(out, index, source);
    const auto target = ix::nonempty_layout(out);
    auto from = ix::nonempty_layout(source);
    const std::int64_t n = index.numel();
    if (n != from.sizes[d])
        throw RuntimeError("index_add_(): Number of indices (" + std::to_string(n) +
                           ") should be equal to source.size(dim): (" +
                           std::to_string(from.sizes[d]) + "), for dim: " + std::to_string(d));
    // PyTorch adds source.select(dim, i) into out.select(dim, index[i]) as a binary op over the
    // two slices: source's slice broadcasts to out's, with the broadcast's errors.
    std::array<std::int64_t, R> sizes = target.sizes;
    sizes[d] = n;
    bool grows = false;
    for (std::size_t i = R; i-- > 0;) {
        if (i == d)
            continue;
        const std::int64_t a = target.sizes[i], b = from.sizes[i];
        if (a != b && a != 1 && b != 1)
            throw RuntimeError("The size of tensor a (" + std::to_string(a) +
                               ") must match the size of tensor b (" + std::to_string(b) +
                               ") at non-singleton dimension " + std::to_string(i < d ? i : i - 1));
        grows = grows || (a == 1 && b != 1);
        if (b == 1 && a != 1)
            from.strides[i] = 0;
    }
    if (grows) {
        std::array<std::int64_t, R - 1> slice{}, broadcast{};
        for (std::size_t i = 0, j = 0; i < R; ++i)
            if (i != d) {
                slice[j] = target.sizes[i];
                broadcast[j++] = std::max(target.sizes[i], from.sizes[i]);
            }
        throw RuntimeError("output with shape " + detail::sizes_text(slice) +
                           " doesn't match the broadcast shape " + detail::sizes_text(broadcast));
    }
    const auto at = ix::index_vector_layout(index);
    if (ix::first_out_of_range_in(index, at, target.sizes[d]))
        throw IndexError("index out of range in self");
    const T scale = [&] {
        if constexpr (detail::is_number_constant_v<Alpha>)
            return detail::convert<T>(Alpha::value);
        else
            return detail::convert<T>(alpha);
    }();
    if (out.is_cuda()) {
        ix::indexed_walk_on_device(true, sizes, d, from.strides, index,
                                   ix::vector_index_strides<R>(d, at.strides[0]), target.strides,
                                   source, out, scale);
        return out;
    }
    T* q = out.data();
    const T* p = source.data();
    ix::indexed_walk(
        sizes, d, from.strides, index.data(), ix::vector_index_strides<R>(d, at.strides[0]),
        target.strides,
        [&](std::int64_t a, std::int64_t b) { q[b] = ix::add_scaled(q[b], p[a], scale); });
    return out;
}
} // namespace detail::index_ops

/// torch.index_add(x, dim, index, source, alpha=1): x with out.select(dim, index[i]) +=
/// alpha * source.select(dim, i) for each i; index_select's adjoint. index is a 1-D (or 0-D)
/// int64 or int32 tensor with source.size(dim) values; source has x's dtype and rank, and its
/// other extents are x's (or 1: broadcast, as PyTorch's). An index outside [0, x.size(dim)) is
/// IndexError "index out of range in self". Integer tensors take an integer alpha.
///   auto a = index_add(zeros<float>(3_c), 0_c, tensor<std::int64_t>({0, 2, 0}),
///                      tensor<float>({1, 2, 3}), 2);   // [8, 0, 4]
template <class T, class S, detail::dim_argument D, class I, class SI, class U, class S2,
          class Alpha = int_<1>>
Tensor<T, S> index_add(const Tensor<T, S>& x, D dim, const Tensor<I, SI>& index,
                       const Tensor<U, S2>& source, Alpha alpha = {}) {
    return detail::index_ops::index_add_onto(x.clone(), dim, index, source, alpha);
}

// ---- one_hot ---------------------------------------------------------------------------------

/// torch.nn.functional.one_hot(index, num_classes=-1): an int64 tensor of index's shape plus a
/// last dim of num_classes, 1 at each index value and 0 elsewhere; -1 infers max(index) + 1. A
/// compile-time num_classes (10_c) makes the last extent static. index is int64; a value below 0
/// is RuntimeError "Class values must be non-negative.", one not below num_classes "Class values
/// must be smaller than num_classes.".
///   auto h = one_hot(tensor<std::int64_t>({0, 2}), 3_c);  // shape<std::int64_t, int_<3>>
///   print(h);                                              // [[1, 0, 0], [0, 0, 1]]
template <class I, class SI, class C = int_<-1>>
requires detail::dim_argument<C>
auto one_hot(const Tensor<I, SI>& index, C num_classes = {}) {
    static_assert(std::is_same_v<I, std::int64_t>,
                  "staticpy: RuntimeError: one_hot is only applicable to index tensor of type "
                  "LongTensor.");
    constexpr std::int64_t static_classes = [] {
        if constexpr (is_int_constant_v<std::remove_cvref_t<C>>)
            return static_cast<std::int64_t>(std::remove_cvref_t<C>::value);
        else
            return std::int64_t{-1};
    }();
    static_assert(static_classes == -1 || static_classes >= 1,
                  "staticpy: RuntimeError: one_hot(): a compile-time num_classes is -1 (inferred) "
                  "or positive: any other raises Class values must be smaller than num_classes.");
    using Extent = std::conditional_t<(static_classes >= 1), int_<static_classes>, std::int64_t>;
    using Result = shape_insert_t<SI, SI::rank, Extent>;
    std::int64_t classes = detail::extent_value(num_classes);
    std::array<std::int64_t, SI::rank + 1> sizes{};
    std::copy_n(index.sizes().begin(), SI::rank, sizes.begin());
    const std::int64_t n = index.numel();
    if (n == 0) {
        if (classes <= 0)
            throw RuntimeError("Can not infer total number of classes from empty tensor.");
        sizes[SI::rank] = classes;
        return Tensor<std::int64_t, Result>{Result(sizes), index.device()};
    }
    const auto on_host = index.cpu(); // the values checked there: a GPU index's copied over
    const I* p = on_host.data();
    std::int64_t low = p[0], high = p[0];
    detail::for_each_offset(on_host.sizes(), 0, on_host.strides(), [&](std::int64_t o) {
        low = std::min<std::int64_t>(low, p[o]);
        high = std::max<std::int64_t>(high, p[o]);
    });
    if (low < 0)
        throw RuntimeError("Class values must be non-negative.");
    if (classes == -1) // max + 1 wraps for INT64_MAX as PyTorch's does, then fails as a size
        classes = static_cast<std::int64_t>(static_cast<std::uint64_t>(high) + 1);
    else if (classes <= high)
        throw RuntimeError("Class values must be smaller than num_classes.");
    sizes[SI::rank] = classes;
    if (index.is_cuda()) {
        // A 1 added at each index value along the last dim: the index walk of index_add, its
        // source one element read everywhere (strides 0).
        auto out = zeros<std::int64_t>(Result(sizes), index.device());
        constexpr std::size_t R = SI::rank + 1;
        std::array<std::int64_t, R> walk{}, index_strides{};
        std::copy_n(index.sizes().begin(), SI::rank, walk.begin());
        std::copy_n(index.strides().begin(), SI::rank, index_strides.begin());
        walk[SI::rank] = 1;
        detail::index_ops::indexed_walk_on_device(
            true, walk, SI::rank, std::array<std::int64_t, R>{}, index, index_strides,
            detail::contiguous_strides(sizes), full<std::int64_t>(shape<>{}, 1, index.device()),
            out, std::int64_t{1});
        return out;
    }
    Tensor<std::int64_t, Result> out{Result(sizes)};
    std::int64_t* q = out.data();
    std::fill_n(q, out.numel(), std::int64_t{0});
    std::int64_t row = 0;
    detail::for_each_offset(index.sizes(), 0, index.strides(),
                            [&](std::int64_t o) { q[row++ * classes + p[o]] = 1; });
    return out;
}

// ---- select_scatter / slice_scatter ----------------------------------------------------------

/// torch.select_scatter(x, src, dim, index): a copy of x with x.select(dim, index) replaced by
/// src, which must have that slice's size (its elements converted to x's dtype, as copy_ does).
///   auto y = select_scatter(zeros<float>(2_c, 2_c), ones<float>(2_c), 0_c, 1);  // row 1 ones
///   static_assert(std::is_same_v<decltype(y)::shape_type, static_shape<2, 2>>);
template <class T, class S, class U, class S2, detail::dim_argument D>
Tensor<T, S> select_scatter(const Tensor<T, S>& x, const Tensor<U, S2>& src, D dim,
                            std::int64_t index) {
    return detail::index_ops::scatter_into_view(
        x.clone(), src, [&](const Tensor<T, S>& out) { return out.select(dim, index); });
}

/// torch.slice_scatter(x, src, dim=0, start=None, end=None, step=1): a copy of x with
/// x.slice(dim, start, end, step) replaced by src, which must have that slice's size.
///   auto y = slice_scatter(zeros<float>(4_c), ones<float>(2_c), 0_c, 0_c, None, 2_c);  // 1 0 1 0
///   auto z = slice_scatter(zeros<float>(4_c, 2_c), ones<float>(1, 2), 0_c, 3);  // row 3 is ones
template <class T, class S, class U, class S2, detail::dim_argument D = int_<0>,
          class Start = none_t, class Stop = none_t, class Step = int_<1>>
Tensor<T, S> slice_scatter(const Tensor<T, S>& x, const Tensor<U, S2>& src, D dim = {},
                           Start start = {}, Stop stop = {}, Step step = {}) {
    return detail::index_ops::scatter_into_view(
        x.clone(), src, [&](const Tensor<T, S>& out) { return out.slice(dim, start, stop, step); });
}

} // namespace staticpy
