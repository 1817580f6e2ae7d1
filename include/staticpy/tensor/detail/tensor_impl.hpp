#pragma once
// The view operations and comparisons of Tensor (declared in tensor.hpp).

#include "staticpy/tensor/tensor.hpp"

namespace staticpy {
namespace detail {

/// Whether every extent of S has the same type (all dynamic, or all static and equal): then a
/// run-time dimension argument doesn't change which extents are static.
template <class S>
inline constexpr bool uniform_shape_v = [] {
    for (std::int64_t e : S::static_extents)
        if (e != S::static_extents[0])
            return false;
    return true;
}();

/// The shape type after dropping a dimension that is only known at run time.
template <class S>
using erase_runtime_t = std::conditional_t<uniform_shape_v<S> && (S::rank > 0), shape_erase_t<S, 0>,
                                           dynamic_shape<S::rank - 1>>;

/// The shape type after changing the dims of S in a way only known at run time (same rank).
template <class S>
using permute_runtime_t = std::conditional_t<uniform_shape_v<S>, S, dynamic_shape<S::rank>>;

template <class B>
constexpr bool is_tensor_none_bound() {
    return std::is_same_v<std::remove_cvref_t<B>, none_t>;
}
template <class B>
constexpr bool is_static_tensor_bound() {
    return is_tensor_none_bound<B>() || is_int_constant_v<std::remove_cvref_t<B>>;
}
template <class B>
constexpr std::int64_t tensor_bound_value(const B& b, std::int64_t if_none) {
    if constexpr (is_tensor_none_bound<B>())
        return if_none;
    else if constexpr (is_int_constant_v<std::remove_cvref_t<B>>)
        return std::remove_cvref_t<B>::value;
    else
        return static_cast<std::int64_t>(b);
}

struct slice_range {
    std::int64_t start, length, step;
};

/// PyTorch's slice of n elements: Python's clamping (core/index.hpp), steps > 0 only (the
/// callers reject the others with PyTorch's ValueError).
constexpr slice_range resolve_tensor_slice(std::int64_t n, std::int64_t start, std::int64_t stop,
                                           std::int64_t step) {
    const slice_indices r = adjust_slice(n, start, stop, step);
    return {r.start, r.length, step};
}

template <class A>
inline constexpr long long static_arg_v = [] {
    if constexpr (is_int_constant_v<std::remove_cvref_t<A>>)
        return static_cast<long long>(std::remove_cvref_t<A>::value);
    else
        return static_cast<long long>(-2); // run time
}();

template <class A>
using arg_extent_t = std::conditional_t<is_int_constant_v<std::remove_cvref_t<A>>,
                                        int_<static_arg_v<A>>, std::int64_t>;

/// infer_size: the sizes reshape(args) means for `numel` elements, with PyTorch's errors.
template <std::size_t N>
std::array<std::int64_t, N> infer_size(const std::array<std::int64_t, N>& shape,
                                       std::int64_t numel) {
    std::int64_t product = 1;
    std::int64_t infer = -1;
    bool has_zero = false;
    bool overflow = false;
    for (std::size_t i = 0; i < N; ++i) {
        if (shape[i] == -1) {
            if (infer >= 0)
                throw RuntimeError("only one dimension can be inferred");
            infer = static_cast<std::int64_t>(i);
        } else if (shape[i] >= 0) {
            has_zero = has_zero || shape[i] == 0;
            overflow = overflow || __builtin_mul_overflow(product, shape[i], &product);
        } else {
            throw RuntimeError("invalid shape dimension " + std::to_string(shape[i]));
        }
    }
    if (has_zero)
        product = 0;   // the sizes' own overflow, if any, is the shape's to report
    else if (overflow) // more elements than any tensor holds, so never numel
        throw RuntimeError("shape '" + sizes_text(shape) + "' is invalid for input of size " +
                           std::to_string(numel));
    auto out = shape;
    if (numel == product || (infer >= 0 && product > 0 && numel % product == 0)) {
        if (infer >= 0) {
            out[static_cast<std::size_t>(infer)] = numel / product;
        }
        // Zero elements fit any sizes, but their strides must still fit int64.
        if (!sizes_fit(out))
            throw_size_overflow(out);
        return out;
    }
    if (infer >= 0 && product == 0)
        throw RuntimeError("cannot reshape tensor of 0 elements into shape " + sizes_text(shape) +
                           " because the unspecified dimension size -1 can be any value and is "
                           "ambiguous");
    throw RuntimeError("shape '" + sizes_text(shape) + "' is invalid for input of size " +
                       std::to_string(numel));
}

/// The result shape type of reshape(A...) of a tensor of shape S, with its compile-time checks.
template <class S, class... A>
constexpr auto reshape_shape_type() {
    constexpr std::array<long long, sizeof...(A) + 1> args{static_arg_v<A>..., 0};
    constexpr int inferred_count = [&] {
        int c = 0;
        for (std::size_t i = 0; i < sizeof...(A); ++i)
            c += args[i] == -1;
        return c;
    }();
    constexpr bool all_static = ((is_int_constant_v<std::remove_cvref_t<A>>)&&...);
    static_assert(inferred_count <= 1,
                  "staticpy: RuntimeError: only one dimension can be inferred");
    static_assert(((static_arg_v<A> >= -2) && ...),
                  "staticpy: RuntimeError: invalid shape dimension");
    constexpr long long known = [&] {
        long long p = 1;
        for (std::size_t i = 0; i < sizeof...(A); ++i)
            if (args[i] >= 0)
                p *= args[i];
        return p;
    }();
    if constexpr (S::is_static && all_static) {
        constexpr long long n = S::static_numel;
        static_assert(inferred_count == 1 ? (known > 0 && n % known == 0) : known == n,
                      "staticpy: RuntimeError: shape is invalid for input of this size");
        constexpr std::int64_t inferred = inferred_count == 1 && known > 0 ? n / known : -1;
        return std::type_identity<
            shape<typename reshape_extent<arg_extent_t<A>, inferred>::type...>>{};
    } else {
        return std::type_identity<shape<typename reshape_extent<arg_extent_t<A>, -1>::type...>>{};
    }
}

template <class S, std::size_t Lead, std::size_t I, class A>
constexpr auto expand_extent_of() {
    constexpr long long v = static_arg_v<A>;
    if constexpr (v >= 0)
        return std::type_identity<int_<v>>{};
    else if constexpr (v == -1 && I >= Lead)
        return std::type_identity<shape_extent_t<S, I - Lead>>{};
    else
        return std::type_identity<std::int64_t>{};
}
template <class S, std::size_t Lead, std::size_t I, class A>
struct expand_extent {
    using type = typename decltype(expand_extent_of<S, Lead, I, A>())::type;
};

/// The dimension a compile-time dim argument names (0 for a run-time one: unused then).
template <class D, std::size_t R>
constexpr std::size_t static_dim_or_zero() {
    if constexpr (is_static_dim_v<D>)
        return wrap_dim_c<std::remove_cvref_t<D>::value, R>();
    else
        return 0;
}

/// The result shape type of expand(A...) of a tensor of shape S, with its compile-time checks.
template <class S, class... A, std::size_t... I>
constexpr auto expand_shape_type(std::index_sequence<I...>) {
    constexpr std::size_t n = sizeof...(A);
    constexpr std::size_t lead = n - S::rank;
    constexpr std::array<long long, n + 1> args{static_arg_v<A>..., 0};
    constexpr bool leading_ok = [&] {
        for (std::size_t i = 0; i < lead; ++i)
            if (args[i] == -1)
                return false;
        return true;
    }();
    static_assert(leading_ok,
                  "staticpy: RuntimeError: The expanded size of the tensor (-1) isn't allowed in a "
                  "leading, non-existing dimension");
    constexpr bool sizes_ok = [&] {
        for (std::size_t i = lead; i < n; ++i) {
            const long long have = S::static_extents[i - lead];
            if (args[i] >= 0 && have >= 0 && have != 1 && have != args[i])
                return false;
        }
        return true;
    }();
    static_assert(sizes_ok,
                  "staticpy: RuntimeError: The expanded size of the tensor must match the existing "
                  "size at non-singleton dimension");
    return std::type_identity<shape<typename expand_extent<S, lead, I, A>::type...>>{};
}

} // namespace detail

// ---- select / indexing -----------------------------------------------------------------------

template <class T, class Shape>
template <detail::dim_argument D>
auto Tensor<T, Shape>::select(D dim, std::int64_t index) const {
    static_assert(rank > 0, "staticpy: IndexError: select() cannot be applied to a 0-dim tensor.");
    std::size_t d = 0;
    using Result = std::conditional_t<detail::is_static_dim_v<D>,
                                      shape_erase_t<Shape, detail::static_dim_or_zero<D, rank>()>,
                                      detail::erase_runtime_t<Shape>>;
    if constexpr (detail::is_static_dim_v<D>)
        d = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
    else
        d = static_cast<std::size_t>(detail::wrap_dim(dim, rank));
    const std::int64_t n = shape_[d];
    if (index < -n || index >= n)
        throw IndexError("select(): index " + std::to_string(index) +
                         " out of range for tensor of size " + detail::sizes_text(sizes()) +
                         " at dimension " + std::to_string(d));
    if (index < 0)
        index += n;
    std::array<std::int64_t, rank - 1> new_sizes{};
    std::array<std::int64_t, rank - 1> new_strides{};
    for (std::size_t i = 0, j = 0; i < rank; ++i) {
        if (i == d)
            continue;
        new_sizes[j] = shape_[i];
        new_strides[j++] = strides_[i];
    }
    return Tensor<T, Result>(storage_, offset_ + index * strides_[d], Result(new_sizes),
                             new_strides);
}

template <class T, class Shape>
auto Tensor<T, Shape>::operator[](std::int64_t index) const {
    static_assert(rank > 0,
                  "staticpy: IndexError: invalid index of a 0-dim tensor. Use `tensor.item()` "
                  "in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    const std::int64_t n = shape_[0];
    if (index < -n || index >= n)
        throw IndexError("index " + std::to_string(index) +
                         " is out of bounds for dimension 0 with size " + std::to_string(n));
    return select(int_<0>{}, index);
}

template <class T, class Shape>
template <class A, class B, class C>
auto Tensor<T, Shape>::operator[](const slice_t<A, B, C>& s) const {
    if constexpr (std::is_same_v<C, none_t>)
        return slice(int_<0>{}, s.start, s.stop, int_<1>{});
    else
        return slice(int_<0>{}, s.start, s.stop, s.step);
}

// ---- slice / narrow --------------------------------------------------------------------------

template <class T, class Shape>
template <detail::dim_argument D, class Start, class Stop, class Step>
auto Tensor<T, Shape>::slice(D dim, Start start, Stop stop, Step step) const {
    static_assert(rank > 0, "staticpy: IndexError: slice() cannot be applied to a 0-dim tensor.");
    static_assert(detail::is_static_tensor_bound<Start>() || std::is_integral_v<Start>,
                  "staticpy: TypeError: slice indices must be integers or None");
    static_assert(detail::is_static_tensor_bound<Stop>() || std::is_integral_v<Stop>,
                  "staticpy: TypeError: slice indices must be integers or None");
    if constexpr (is_int_constant_v<Step>)
        static_assert(Step::value > 0, "staticpy: ValueError: step must be greater than zero");
    const std::int64_t st = detail::tensor_bound_value(step, 1);
    if (st <= 0)
        throw ValueError("step must be greater than zero");
    std::size_t d = 0;
    if constexpr (detail::is_static_dim_v<D>)
        d = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
    else
        d = static_cast<std::size_t>(detail::wrap_dim(dim, rank));
    const std::int64_t n = shape_[d];
    const auto r = detail::resolve_tensor_slice(n, detail::tensor_bound_value(start, 0),
                                                detail::tensor_bound_value(stop, n), st);
    auto new_sizes = sizes();
    auto new_strides = strides_;
    new_sizes[d] = r.length;
    new_strides[d] = strides_[d] * r.step;
    const std::int64_t off = offset_ + (r.length > 0 ? r.start * strides_[d] : 0);
    if constexpr (detail::is_static_dim_v<D>) {
        constexpr std::size_t dc = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
        constexpr std::int64_t ext = Shape::static_extents[dc];
        if constexpr (ext >= 0 && detail::is_static_tensor_bound<Start>() &&
                      detail::is_static_tensor_bound<Stop>() &&
                      (is_int_constant_v<Step> || std::is_same_v<Step, none_t>)) {
            constexpr auto rs = detail::resolve_tensor_slice(
                ext, detail::tensor_bound_value(Start{}, 0),
                detail::tensor_bound_value(Stop{}, ext), detail::tensor_bound_value(Step{}, 1));
            using Result = shape_replace_t<Shape, dc, int_<rs.length>>;
            return Tensor<T, Result>(storage_, off, Result(new_sizes), new_strides);
        } else {
            using Result = shape_replace_t<Shape, dc, std::int64_t>;
            return Tensor<T, Result>(storage_, off, Result(new_sizes), new_strides);
        }
    } else {
        using Result = detail::permute_runtime_t<Shape>;
        return Tensor<T, Result>(storage_, off, Result(new_sizes), new_strides);
    }
}

template <class T, class Shape>
template <detail::dim_argument D>
auto Tensor<T, Shape>::narrow(D dim, std::int64_t start, std::int64_t length) const {
    static_assert(rank > 0,
                  "staticpy: RuntimeError: narrow() cannot be applied to a 0-dim tensor.");
    std::size_t d = 0;
    if constexpr (detail::is_static_dim_v<D>)
        d = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
    else
        d = static_cast<std::size_t>(detail::wrap_dim(dim, rank));
    const std::int64_t n = shape_[d];
    if (start < -n || start > n)
        throw IndexError("start out of range (expected to be in range of [" + std::to_string(-n) +
                         ", " + std::to_string(n) + "], but got " + std::to_string(start) + ")");
    if (start < 0)
        start += n;
    if (length < 0 || start > n - length)
        throw RuntimeError("start (" + std::to_string(start) + ") + length (" +
                           std::to_string(length) + ") exceeds dimension size (" +
                           std::to_string(n) + ").");
    return slice(dim, start, start + length, int_<1>{});
}

// ---- transpose / permute ---------------------------------------------------------------------

template <class T, class Shape>
template <detail::dim_argument D0, detail::dim_argument D1>
auto Tensor<T, Shape>::transpose(D0 d0, D1 d1) const {
    std::size_t a = 0, b = 0;
    if constexpr (detail::is_static_dim_v<D0>)
        a = detail::wrap_dim_c<std::remove_cvref_t<D0>::value, rank>();
    else
        a = static_cast<std::size_t>(detail::wrap_dim(d0, rank));
    if constexpr (detail::is_static_dim_v<D1>)
        b = detail::wrap_dim_c<std::remove_cvref_t<D1>::value, rank>();
    else
        b = static_cast<std::size_t>(detail::wrap_dim(d1, rank));
    if constexpr (rank == 0) {
        return *this;
    } else {
        auto new_sizes = sizes();
        auto new_strides = strides_;
        std::swap(new_sizes[a], new_sizes[b]);
        std::swap(new_strides[a], new_strides[b]);
        if constexpr (detail::is_static_dim_v<D0> && detail::is_static_dim_v<D1>) {
            constexpr std::size_t ca = detail::wrap_dim_c<std::remove_cvref_t<D0>::value, rank>();
            constexpr std::size_t cb = detail::wrap_dim_c<std::remove_cvref_t<D1>::value, rank>();
            using Result = shape_replace_t<shape_replace_t<Shape, ca, shape_extent_t<Shape, cb>>,
                                           cb, shape_extent_t<Shape, ca>>;
            return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
        } else {
            using Result = detail::permute_runtime_t<Shape>;
            return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
        }
    }
}

template <class T, class Shape>
auto Tensor<T, Shape>::t() const {
    static_assert(rank <= 2, "staticpy: RuntimeError: t() expects a tensor with <= 2 dimensions");
    if constexpr (rank == 2)
        return transpose(int_<0>{}, int_<1>{});
    else
        return *this;
}

template <class T, class Shape>
template <detail::dim_argument... D>
auto Tensor<T, Shape>::permute(D... dims) const {
    static_assert(sizeof...(D) == rank,
                  "staticpy: RuntimeError: number of dims don't match in permute");
    constexpr bool all_static = (detail::is_static_dim_v<D> && ...);
    std::array<std::size_t, rank> order{static_cast<std::size_t>(
        detail::wrap_dim(static_cast<std::int64_t>(detail::extent_value(dims)), rank))...};
    sizes_type new_sizes{};
    strides_type new_strides{};
    std::array<bool, rank> seen{};
    for (std::size_t i = 0; i < rank; ++i) {
        if (seen[order[i]])
            throw RuntimeError("permute(): duplicate dims are not allowed.");
        seen[order[i]] = true;
        new_sizes[i] = shape_[order[i]];
        new_strides[i] = strides_[order[i]];
    }
    if constexpr (all_static && rank > 0) {
        constexpr std::array<std::size_t, rank> c{
            detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>()...};
        constexpr bool unique = [&] {
            for (std::size_t i = 0; i < rank; ++i)
                for (std::size_t j = i + 1; j < rank; ++j)
                    if (c[i] == c[j])
                        return false;
            return true;
        }();
        static_assert(unique, "staticpy: RuntimeError: permute(): duplicate dims are not allowed.");
        using Result = staticpy::shape<
            shape_extent_t<Shape, detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>()>...>;
        return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
    } else {
        using Result = detail::permute_runtime_t<Shape>;
        return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
    }
}

// ---- view / reshape / flatten ----------------------------------------------------------------

template <class T, class Shape>
template <class... A>
requires extent_arguments<A...>
auto Tensor<T, Shape>::view(A... extents) const {
    using Result = typename decltype(detail::reshape_shape_type<Shape, A...>())::type;
    constexpr std::size_t n = sizeof...(A);
    const auto new_sizes =
        detail::infer_size(std::array<std::int64_t, n>{detail::extent_value(extents)...}, numel());
    std::array<std::int64_t, n> new_strides{};
    if (!detail::compute_view_strides(sizes(), strides_, new_sizes, new_strides))
        throw RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.");
    return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
}

template <class T, class Shape>
template <class... Es>
auto Tensor<T, Shape>::view(const staticpy::shape<Es...>& s) const {
    return s.apply([&](auto... extents) { return view(extents...); });
}

template <class T, class Shape>
template <class... A>
requires extent_arguments<A...>
auto Tensor<T, Shape>::reshape(A... extents) const {
    using Result = typename decltype(detail::reshape_shape_type<Shape, A...>())::type;
    constexpr std::size_t n = sizeof...(A);
    const auto new_sizes =
        detail::infer_size(std::array<std::int64_t, n>{detail::extent_value(extents)...}, numel());
    std::array<std::int64_t, n> new_strides{};
    if (detail::compute_view_strides(sizes(), strides_, new_sizes, new_strides))
        return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
    const Tensor copy = contiguous_copy();
    return Tensor<T, Result>(copy.storage_, 0, Result(new_sizes),
                             detail::contiguous_strides(new_sizes));
}

template <class T, class Shape>
template <class... Es>
auto Tensor<T, Shape>::reshape(const staticpy::shape<Es...>& s) const {
    return s.apply([&](auto... extents) { return reshape(extents...); });
}

template <class T, class Shape>
auto Tensor<T, Shape>::flatten() const {
    if constexpr (Shape::is_static)
        return reshape(int_<Shape::static_numel>{});
    else
        return reshape(std::int64_t{-1});
}

template <class T, class Shape>
template <class Start, class End>
requires is_int_constant_v<Start> && is_int_constant_v<End>
auto Tensor<T, Shape>::flatten(Start, End) const {
    if constexpr (rank == 0) {
        return reshape(int_<1>{});
    } else {
        constexpr std::size_t first = detail::wrap_dim_c<Start::value, rank>();
        constexpr std::size_t last = detail::wrap_dim_c<End::value, rank>();
        static_assert(first <= last, "staticpy: RuntimeError: flatten() has invalid args: "
                                     "start_dim cannot come after end_dim");
        constexpr bool merged_static = [] {
            for (std::size_t d = first; d <= last; ++d)
                if (Shape::static_extents[d] < 0)
                    return false;
            return true;
        }();
        constexpr long long merged_static_size = [] {
            long long n = 1;
            for (std::size_t d = first; d <= last; ++d)
                n *= Shape::static_extents[d] < 0 ? 1 : Shape::static_extents[d];
            return n;
        }();
        std::int64_t merged = 1;
        for (std::size_t d = first; d <= last; ++d)
            merged *= shape_[d];
        // Each kept dim keeps its extent (static or not); the merged one is static when all of
        // its dims are.
        const auto kept = [&]<std::size_t D>(std::integral_constant<std::size_t, D>) {
            if constexpr (Shape::static_extents[D] >= 0)
                return int_<Shape::static_extents[D]>{};
            else
                return shape_[D];
        };
        const auto merged_extent = [&] {
            if constexpr (merged_static)
                return int_<merged_static_size>{};
            else
                return merged;
        };
        return [&]<std::size_t... B, std::size_t... A>(std::index_sequence<B...>,
                                                       std::index_sequence<A...>) {
            return reshape(kept(std::integral_constant<std::size_t, B>{})..., merged_extent(),
                           kept(std::integral_constant<std::size_t, last + 1 + A>{})...);
        }
        (std::make_index_sequence<first>{}, std::make_index_sequence<rank - 1 - last>{});
    }
}

// ---- expand ----------------------------------------------------------------------------------

template <class T, class Shape>
template <class... A>
requires extent_arguments<A...>
auto Tensor<T, Shape>::expand(A... extents) const {
    constexpr std::size_t n = sizeof...(A);
    static_assert(n >= rank,
                  "staticpy: RuntimeError: expand: the number of sizes provided must be greater or "
                  "equal to the number of dimensions in the tensor");
    using Result = typename decltype(detail::expand_shape_type<Shape, A...>(
        std::make_index_sequence<n>{}))::type;
    const std::array<std::int64_t, n> target{detail::extent_value(extents)...};
    std::array<std::int64_t, n> new_sizes{};
    std::array<std::int64_t, n> new_strides{};
    for (std::int64_t i = static_cast<std::int64_t>(n) - 1; i >= 0; --i) {
        const auto ui = static_cast<std::size_t>(i);
        const std::int64_t offset = static_cast<std::int64_t>(n) - 1 - i;
        const std::int64_t d = static_cast<std::int64_t>(rank) - 1 - offset;
        std::int64_t size = d >= 0 ? shape_[static_cast<std::size_t>(d)] : 1;
        std::int64_t stride = d >= 0 ? strides_[static_cast<std::size_t>(d)]
                                     : (ui + 1 < n ? new_sizes[ui + 1] * new_strides[ui + 1] : 1);
        std::int64_t t = target[ui];
        if (t == -1) {
            if (d < 0)
                throw RuntimeError(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, "
                    "non-existing dimension " +
                    std::to_string(i));
            t = size;
        }
        if (t < 0)
            throw RuntimeError("Trying to create tensor with negative dimension " +
                               std::to_string(t) + ": " + detail::sizes_text(target));
        if (size != t) {
            if (size != 1)
                throw RuntimeError("The expanded size of the tensor (" + std::to_string(t) +
                                   ") must match the existing size (" + std::to_string(size) +
                                   ") at non-singleton dimension " + std::to_string(i) +
                                   ".  Target sizes: " + detail::sizes_text(target) +
                                   ".  Tensor sizes: " + detail::sizes_text(sizes()));
            size = t;
            stride = 0;
        }
        new_sizes[ui] = size;
        new_strides[ui] = stride;
    }
    return Tensor<T, Result>(storage_, offset_, Result(new_sizes), new_strides);
}

template <class T, class Shape>
template <class... Es>
auto Tensor<T, Shape>::broadcast_to(const staticpy::shape<Es...>& s) const {
    return s.apply([&](auto... extents) { return expand(extents...); });
}

// ---- squeeze / unsqueeze ---------------------------------------------------------------------

template <class T, class Shape>
template <detail::dim_argument D>
auto Tensor<T, Shape>::squeeze(D dim) const {
    if constexpr (rank == 0) {
        (void)detail::wrap_dim(detail::extent_value(dim), 0);
        return *this;
    } else {
        std::size_t d = 0;
        if constexpr (detail::is_static_dim_v<D>)
            d = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
        else
            d = static_cast<std::size_t>(detail::wrap_dim(dim, rank));
        auto erase = [&]<class Result>(std::type_identity<Result>) {
            if (shape_[d] != 1)
                throw RuntimeError("squeeze(): dimension " + std::to_string(d) + " has size " +
                                   std::to_string(shape_[d]) +
                                   ", not 1; a staticpy Tensor's rank is fixed at compile time, so "
                                   "squeeze() of a dynamic extent requires size 1");
            std::array<std::int64_t, rank - 1> ns{}, nt{};
            for (std::size_t i = 0, j = 0; i < rank; ++i) {
                if (i == d)
                    continue;
                ns[j] = shape_[i];
                nt[j++] = strides_[i];
            }
            return Tensor<T, Result>(storage_, offset_, Result(ns), nt);
        };
        if constexpr (detail::is_static_dim_v<D>) {
            constexpr std::size_t dc = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
            constexpr std::int64_t ext = Shape::static_extents[dc];
            if constexpr (ext >= 0 && ext != 1)
                return *this;
            else
                return erase(std::type_identity<shape_erase_t<Shape, dc>>{});
        } else {
            static_assert(
                detail::uniform_shape_v<Shape> && Shape::static_extents[0] < 0,
                "staticpy: TypeError: squeeze(dim) of a shape with static extents needs a "
                "compile-time dim (0_c): the result's rank depends on it");
            return erase(std::type_identity<dynamic_shape<rank - 1>>{});
        }
    }
}

template <class T, class Shape>
auto Tensor<T, Shape>::squeeze() const {
    constexpr std::size_t kept = [] {
        std::size_t c = 0;
        for (std::int64_t e : Shape::static_extents)
            c += e != 1;
        return c;
    }();
    constexpr auto keep = [] {
        std::array<std::size_t, kept + 1> k{};
        std::size_t j = 0;
        for (std::size_t i = 0; i < rank; ++i)
            if (Shape::static_extents[i] != 1)
                k[j++] = i;
        return k;
    }();
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        using Result = staticpy::shape<shape_extent_t<Shape, keep[I]>...>;
        return Tensor<T, Result>(storage_, offset_,
                                 Result(std::array<std::int64_t, kept>{shape_[keep[I]]...}),
                                 std::array<std::int64_t, kept>{strides_[keep[I]]...});
    }
    (std::make_index_sequence<kept>{});
}

template <class T, class Shape>
template <detail::dim_argument D>
auto Tensor<T, Shape>::unsqueeze(D dim) const {
    std::size_t d = 0;
    if constexpr (detail::is_static_dim_v<D>)
        d = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank + 1>();
    else
        d = static_cast<std::size_t>(detail::wrap_dim(dim, rank + 1));
    std::array<std::int64_t, rank + 1> ns{}, nt{};
    for (std::size_t i = 0, j = 0; i <= rank; ++i) {
        if (i == d) {
            ns[i] = 1;
            nt[i] = d >= rank ? 1 : shape_[d] * strides_[d];
        } else {
            ns[i] = shape_[j];
            nt[i] = strides_[j++];
        }
    }
    if constexpr (detail::is_static_dim_v<D>) {
        using Result =
            shape_insert_t<Shape, detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank + 1>(),
                           int_<1>>;
        return Tensor<T, Result>(storage_, offset_, Result(ns), nt);
    } else {
        using Result = dynamic_shape<rank + 1>;
        return Tensor<T, Result>(storage_, offset_, Result(ns), nt);
    }
}

// ---- allclose --------------------------------------------------------------------------------

template <class T, class Shape>
template <class S2>
bool Tensor<T, Shape>::allclose(const Tensor<T, S2>& other, double rtol, double atol) const {
    static_assert(S2::rank == rank, "staticpy: RuntimeError: allclose: tensors of different ranks");
    if (!(other.shape() == shape_))
        throw RuntimeError("The size of tensor a (" + first_mismatch(other.sizes(), true) +
                           ") must match the size of tensor b (" +
                           first_mismatch(other.sizes(), false) + ") at non-singleton dimension " +
                           first_mismatch_dim(other.sizes()));
    bool close = true;
    const T* p = storage_.data();
    const T* q = other.storage_.data();
    detail::for_each_offset2(sizes(), offset_, strides_, other.offset_, other.strides_,
                             [&](std::int64_t a, std::int64_t b) {
                                 const double x = static_cast<double>(p[a]);
                                 const double y = static_cast<double>(q[b]);
                                 if (x == y)
                                     return;
                                 if (!(std::isfinite(x) && std::isfinite(y)) ||
                                     !(std::fabs(x - y) <= atol + rtol * std::fabs(y)))
                                     close = false;
                             });
    return close;
}

} // namespace staticpy
