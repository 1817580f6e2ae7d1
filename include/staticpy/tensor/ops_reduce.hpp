#pragma once
// Eager reductions: sum, mean, prod, var, max, min, amax, amin, argmax, argmin over all elements
// or over any dimensions (keepdim as PyTorch's), and softmax / log_softmax along a dimension.
//
//   auto total = sum(x);                     // a zero-dim tensor; int tensors sum to int64
//   auto rows = mean(x, 1_c);                // static dim: the other extents stay static
//   auto cols = sum(x, list(0_c, 2_c), True); // several dims, keepdim
//   auto [values, indices] = max(x, -1_c);   // torch.max(x, dim) gives both
//   auto p = softmax(x, 1_c);                // stable: exp(x - max) / sum
//
// A dim is a compile-time int (1_c, -1_c: a wrong one is a compile error when the rank is
// known, which it always is), a run-time integer (IndexError with PyTorch's text when out of
// range; the result's extents are then dynamic), a staticpy list or std::tuple of compile-time
// ints, or a std::array of run-time integers. keepdim is True or False (it changes the rank, so it
// must be known at compile time).
// Accumulation follows PyTorch's CPU accumulate types: float32 sums in double, integers in int64.

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/reduce.hpp"
#include "staticpy/kernels/softmax.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/reductions.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

template <class... Ts>
class list;

namespace detail {

// ---- dim specifications -------------------------------------------------------------------

template <class D>
struct dim_spec {
    static constexpr bool valid = false;
};
/// One compile-time dim.
template <class D>
requires is_int_constant_v<D>
struct dim_spec<D> {
    static constexpr bool valid = true;
    static constexpr bool is_static = true;
    static constexpr std::size_t count = 1;
    static constexpr std::array<long long, 1> values{static_cast<long long>(D::value)};
};
/// One run-time dim.
template <class D>
requires(std::is_integral_v<D> && !std::is_same_v<D, bool>) struct dim_spec<D> {
    static constexpr bool valid = true;
    static constexpr bool is_static = false;
    static constexpr std::size_t count = 1;
    static std::array<std::int64_t, 1> runtime(const D& d) {
        return {static_cast<std::int64_t>(d)};
    }
};
/// Several run-time dims.
template <class I, std::size_t K>
requires(std::is_integral_v<I> && !std::is_same_v<I, bool>) struct dim_spec<std::array<I, K>> {
    static constexpr bool valid = true;
    static constexpr bool is_static = false;
    static constexpr std::size_t count = K;
    static std::array<std::int64_t, K> runtime(const std::array<I, K>& d) {
        std::array<std::int64_t, K> out{};
        for (std::size_t i = 0; i < K; ++i)
            out[i] = static_cast<std::int64_t>(d[i]);
        return out;
    }
};
/// A run-time set of dims as a mask over rank R: the form an eager reduction hands the CUDA
/// backend (reduce_on_cuda), which reduces with keepdim (an output of rank R).
template <std::size_t R>
struct dim_mask {
    std::array<bool, R> dims{};
};
template <std::size_t R>
struct dim_spec<dim_mask<R>> {
    static constexpr bool valid = true;
    static constexpr bool is_static = false;
};
template <class D>
inline constexpr bool is_dim_mask_v = false;
template <std::size_t R>
inline constexpr bool is_dim_mask_v<dim_mask<R>> = true;

/// Several compile-time dims, as a staticpy list or a std::tuple.
template <template <class...> class L, class... Ds>
requires((std::is_same_v<L<Ds...>, list<Ds...>> || std::is_same_v<L<Ds...>, std::tuple<Ds...>>)&&(
    is_int_constant_v<Ds>&&...)) struct dim_spec<L<Ds...>> {
    static constexpr bool valid = true;
    static constexpr bool is_static = true;
    static constexpr std::size_t count = sizeof...(Ds);
    static constexpr std::array<long long, sizeof...(Ds)> values{
        static_cast<long long>(Ds::value)...};
};

/// A static dim spec as a bit mask over rank R (a compile error when a dim is out of range or
/// repeated).
template <class Spec, std::size_t R>
constexpr unsigned long long static_dim_mask() {
    unsigned long long mask = 0;
    for (long long d : Spec::values) {
        const long long r = R == 0 ? 1 : static_cast<long long>(R);
        if (d < -r || d >= r)
            return ~0ULL; // reported by the caller's static_assert
        const long long w = d < 0 ? d + r : d;
        if (R == 0)
            continue;
        if (mask & (1ULL << w))
            return ~0ULL - 1;
        mask |= 1ULL << w;
    }
    return mask;
}

template <class Spec, std::size_t R>
constexpr unsigned long long checked_static_dim_mask() {
    constexpr unsigned long long mask = static_dim_mask<Spec, R>();
    static_assert(mask != ~0ULL, "staticpy: IndexError: Dimension out of range");
    static_assert(mask != ~0ULL - 1,
                  "staticpy: RuntimeError: a dim appears multiple times in the list of dims");
    return mask;
}

template <std::size_t R>
std::array<bool, R> runtime_dim_mask(const std::int64_t* dims, std::size_t count) {
    std::array<bool, R> mask{};
    for (std::size_t i = 0; i < count; ++i) {
        const std::int64_t d = wrap_dim(dims[i], static_cast<std::int64_t>(R));
        if constexpr (R > 0) {
            if (mask[static_cast<std::size_t>(d)])
                throw RuntimeError("dim " + std::to_string(d) +
                                   " appears multiple times in the list of dims");
            mask[static_cast<std::size_t>(d)] = true;
        }
    }
    return mask;
}

template <std::size_t R>
constexpr std::array<bool, R> mask_array(unsigned long long mask) {
    std::array<bool, R> out{};
    for (std::size_t d = 0; d < R; ++d)
        out[d] = (mask >> d) & 1ULL;
    return out;
}

/// The shape type after reducing the dims in Mask of S (kept as int_<1> when Keep).
template <class S, unsigned long long Mask, bool Keep>
struct reduced_shape {
    static constexpr std::size_t R = S::rank;
    static constexpr std::size_t removed = [] {
        std::size_t n = 0;
        for (std::size_t d = 0; d < R; ++d)
            n += (Mask >> d) & 1ULL;
        return n;
    }();
    static constexpr std::size_t out_rank = Keep ? R : R - removed;
    /// The input dim of output dim I (without keepdim).
    static constexpr std::size_t kept_dim(std::size_t i) {
        for (std::size_t d = 0; d < R; ++d)
            if (!((Mask >> d) & 1ULL) && i-- == 0)
                return d;
        return R;
    }
    template <std::size_t I>
    static auto extent() {
        if constexpr (Keep) {
            if constexpr ((Mask >> I) & 1ULL)
                return int_<1>{};
            else
                return shape_extent_t<S, I>{};
        } else {
            return shape_extent_t<S, kept_dim(I)>{};
        }
    }
    template <std::size_t... I>
    static auto make(std::index_sequence<I...>) -> shape<decltype(extent<I>())...>;
    using type = decltype(make(std::make_index_sequence<out_rank>{}));
};

/// Offsets (in elements) of every index over the dims where mask[d] == want, in row-major order.
template <std::size_t R>
std::vector<std::int64_t> dim_offsets(const std::array<std::int64_t, R>& sizes,
                                      const std::array<std::int64_t, R>& strides,
                                      const std::array<bool, R>& mask, bool want) {
    std::vector<std::int64_t> offs{0};
    for (std::size_t d = 0; d < R; ++d) {
        if (mask[d] != want)
            continue;
        std::vector<std::int64_t> next;
        next.reserve(offs.size() * static_cast<std::size_t>(sizes[d]));
        for (std::int64_t o : offs)
            for (std::int64_t i = 0; i < sizes[d]; ++i)
                next.push_back(o + i * strides[d]);
        offs = std::move(next);
    }
    return offs;
}

/// The output sizes of a reduction of `sizes` over `mask`.
template <std::size_t OutRank, std::size_t R>
std::array<std::int64_t, OutRank> reduced_sizes(const std::array<std::int64_t, R>& sizes,
                                                const std::array<bool, R>& mask, bool keep) {
    std::array<std::int64_t, OutRank> out{};
    std::size_t k = 0;
    for (std::size_t d = 0; d < R && k < OutRank; ++d) { // (k < OutRank: g++ 12 -O2 can't see it)
        if (!mask[d])
            out[k++] = sizes[d];
        else if (keep)
            out[k++] = 1;
    }
    return out;
}

/// The output shape type and the reduced-dims mask of reducing a Tensor<T, S> over Dim.
template <class S, class Dim, bool Keep>
struct reduction_plan;
template <class S, class Dim, bool Keep>
requires dim_spec<Dim>::is_static struct reduction_plan<S, Dim, Keep> {
    static constexpr unsigned long long mask_bits =
        checked_static_dim_mask<dim_spec<Dim>, S::rank>();
    using out_shape = typename reduced_shape<S, mask_bits, Keep>::type;
    static std::array<bool, S::rank> mask(const Dim&) { return mask_array<S::rank>(mask_bits); }
};
template <class S, class Dim, bool Keep>
requires(!dim_spec<Dim>::is_static && !is_dim_mask_v<Dim>) struct reduction_plan<S, Dim, Keep> {
    static constexpr std::size_t R = S::rank;
    static constexpr std::size_t count = dim_spec<Dim>::count;
    static_assert(R == 0 || count <= R, "staticpy: IndexError: more dims than the tensor has");
    using out_shape = dynamic_shape<(Keep || R == 0) ? R : R - count>;
    static std::array<bool, R> mask(const Dim& d) {
        const auto dims = dim_spec<Dim>::runtime(d);
        return runtime_dim_mask<R>(dims.data(), dims.size());
    }
};

template <class S, std::size_t R>
struct reduction_plan<S, dim_mask<R>, true> {
    static_assert(S::rank == R);
    using out_shape = dynamic_shape<R>;
    static std::array<bool, R> mask(const dim_mask<R>& d) { return d.dims; }
};

template <class K>
constexpr bool keepdim_value() {
    static_assert(
        is_bool_constant_v<K>,
        "staticpy: TypeError: keepdim must be known at compile time: write True or False");
    return static_cast<bool>(K::value);
}

template <class D>
concept reduce_dim = dim_spec<std::remove_cvref_t<D>>::valid;

/// A described reduction as a value: what selects the CUDA backend's evaluation of it, by
/// argument-dependent lookup (backend/cuda/evaluate.hpp declares reduce_on_cuda for it here),
/// where the tensor is on a GPU.
template <class Reduction>
struct eager_reduce_tag {
    using reduction = Reduction;
};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class T, class S, std::size_t R>
Tensor<typename Tag::reduction::template result<T>, dynamic_shape<R>>
reduce_on_cuda(Tag, const Tensor<T, S>&, const dim_mask<R>&) {
    throw RuntimeError("staticpy: CUDA is not available here: a reduction's tensor is on the GPU, "
                       "and its translation unit does not include <staticpy/cuda.hpp>");
}

/// What a reduction with a body of its own (var, argmax, argmin) hands to the CUDA backend when
/// its tensor is on a GPU: the reduced elements as `rows` contiguous rows of `cols` (the backend's
/// row kernels, backend/cuda/row_reduce.hpp, a block per row), one result per row.
struct row_reduce_device_call {
    enum class result { var, argmax, argmin };
    result what = result::var;
    double correction = 1; // var's
    std::int64_t rows = 0, cols = 0;
};

/// Selects the CUDA backend's row reductions by argument-dependent lookup.
struct row_reduce_device_tag {};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class T, class Out>
void row_reduce_on_cuda(Tag, const row_reduce_device_call&, const Tensor<T, dynamic_shape<1>>&,
                        Tensor<Out, dynamic_shape<1>>) {
    throw RuntimeError("staticpy: CUDA is not available here: a reduction's tensor is on the GPU, "
                       "and its translation unit does not include <staticpy/cuda.hpp>");
}

/// Body's reduction of a GPU tensor x over mask, into out (contiguous, on x's device): the
/// reduced dims moved last and made contiguous (a view when they are already last), each output
/// element's elements one row.
template <class Body, class T, class S, class Out, class OutShape>
void reduce_rows_on_cuda(const Tensor<T, S>& x, const std::array<bool, S::rank>& mask,
                         const Body& body, Tensor<Out, OutShape>& out) {
    constexpr std::size_t R = S::rank;
    std::array<std::int64_t, R> sizes{}, strides{};
    std::size_t d = 0;
    for (const bool reduced : {false, true})
        for (std::size_t k = 0; k < R; ++k)
            if (mask[k] == reduced) {
                sizes[d] = x.sizes()[k];
                strides[d] = x.strides()[k];
                ++d;
            }
    const Tensor<T, dynamic_shape<R>> moved(x.storage(), x.storage_offset(),
                                            dynamic_shape<R>(sizes), strides);
    const auto rows_first = moved.contiguous();
    row_reduce_device_call call = body.device_call();
    call.rows = out.numel();
    call.cols = call.rows == 0 ? 0 : x.numel() / call.rows;
    const dynamic_shape<1> flat_in(x.numel()), flat_out(out.numel());
    row_reduce_on_cuda(
        row_reduce_device_tag{}, call,
        Tensor<T, dynamic_shape<1>>(rows_first.storage(), rows_first.storage_offset(), flat_in,
                                    {1}),
        Tensor<Out, dynamic_shape<1>>(out.storage(), out.storage_offset(), flat_out, {1}));
}

/// The reduction of x over mask into a new tensor. A described reduction (sum, prod, mean, amax,
/// amin) folds through kernels::reduce, the loop the graph's fused reductions run (SIMD,
/// threads), or on a GPU through the CUDA backend's reduction kernels; the others run
/// `body(base_pointer, inner_offsets)` for every output element, or on a GPU the backend's row
/// kernel for the body (body.device_call()).
template <class Out, class OutShape, class T, class S, class Body>
Tensor<Out, OutShape> reduce_into(const Tensor<T, S>& x, const std::array<bool, S::rank>& mask,
                                  bool keep, Body&& body) {
    const OutShape out_shape(reduced_sizes<OutShape::rank>(x.sizes(), mask, keep));
    if constexpr (requires { typename std::remove_cvref_t<Body>::description; }) {
        using Reduction = typename std::remove_cvref_t<Body>::description;
        if constexpr (std::is_same_v<Out, typename Reduction::template result<T>>) {
            if (x.is_cuda()) { // reduced with keepdim there; the result seen without the dims
                const auto kept =
                    reduce_on_cuda(eager_reduce_tag<Reduction>{}, x, dim_mask<S::rank>{mask});
                return Tensor<Out, OutShape>(kept.storage(), kept.storage_offset(), out_shape,
                                             contiguous_strides(out_shape.sizes()));
            }
        }
    }
    if constexpr (requires { body.device_call(); }) {
        if (x.is_cuda()) {
            Tensor<Out, OutShape> out(out_shape, x.device());
            reduce_rows_on_cuda(x, mask, body, out);
            return out;
        }
    }
    Tensor<Out, OutShape> out(out_shape);
    if constexpr (requires { typename std::remove_cvref_t<Body>::description; }) {
        using Reduction = typename std::remove_cvref_t<Body>::description;
        const auto layout = kernels::reduce_layout_of(x.sizes(), mask);
        const auto nest = kernels::coalesce(
            x.sizes(), std::array<std::array<std::int64_t, S::rank>, 2>{x.strides(), layout.sink});
        kernels::reduce<Reduction>(kernels::read_kernel<T>{x.data()}, nest, x.numel(), layout,
                                   out.data());
    } else {
        const auto outer = dim_offsets(x.sizes(), x.strides(), mask, false);
        const auto inner = dim_offsets(x.sizes(), x.strides(), mask, true);
        const T* p = x.data();
        Out* q = out.data();
        const auto n = static_cast<std::int64_t>(outer.size());
        if (out.numel() != 0)
            for (std::int64_t k = 0; k < n; ++k)
                q[k] = body(p + outer[static_cast<std::size_t>(k)], inner);
    }
    return out;
}

// ---- the reducers: one body each, used for full and per-dim reductions ----------------------

/// A described reduction (reductions.hpp: reduction::sum, ...): reduce_into folds it through
/// kernels::reduce.
template <class Reduction>
struct described_body {
    using description = Reduction;
    template <class T>
    using result = typename Reduction::template result<T>;
    template <class T>
    static void check() {
        Reduction::template check_dtype<T>();
    }
};
struct var_body {
    double correction = 1;
    template <class T>
    using result = T;
    template <class T>
    static void check() {
        static_assert(
            std::is_floating_point_v<T>,
            "staticpy: RuntimeError: std and var only support floating point and complex dtypes");
    }
    template <class T>
    T operator()(const T* base, const std::vector<std::int64_t>& inner) const {
        const auto n = static_cast<double>(inner.size());
        if (inner.empty())
            return std::numeric_limits<T>::quiet_NaN();
        double mean = 0;
        for (std::int64_t o : inner)
            mean += static_cast<double>(base[o]);
        mean /= n;
        double m2 = 0;
        for (std::int64_t o : inner) {
            const double dx = static_cast<double>(base[o]) - mean;
            m2 += dx * dx;
        }
        const double dof = n - correction > 0 ? n - correction : 0.0;
        if (dof == 0)
            return m2 == 0 || m2 != m2 ? std::numeric_limits<T>::quiet_NaN()
                                       : std::numeric_limits<T>::infinity();
        return static_cast<T>(m2 / dof);
    }
    /// On a GPU: the row kernel with the same formulas (backend/cuda/row_reduce.hpp).
    [[nodiscard]] row_reduce_device_call device_call() const {
        return {row_reduce_device_call::result::var, correction};
    }
};
/// argmax/argmin: the first index of the extremum; a NaN counts as the extremum.
template <class Cmp>
struct arg_extremum_body {
    template <class T>
    using result = std::int64_t;
    template <class T>
    static void check() {}
    template <class T>
    std::int64_t operator()(const T* base, const std::vector<std::int64_t>& inner) const {
        std::int64_t best_i = 0;
        T best = base[inner.front()];
        if constexpr (std::is_floating_point_v<T>) {
            if (best != best)
                return 0;
        }
        const auto n = static_cast<std::int64_t>(inner.size());
        for (std::int64_t i = 1; i < n; ++i) {
            const T v = base[inner[static_cast<std::size_t>(i)]];
            if constexpr (std::is_floating_point_v<T>) {
                if (v != v)
                    return i;
            }
            if (Cmp::apply(v, best)) {
                best = v;
                best_i = i;
            }
        }
        return best_i;
    }
    [[nodiscard]] static row_reduce_device_call device_call() {
        return {std::is_same_v<Cmp, fn::gt> ? row_reduce_device_call::result::argmax
                                            : row_reduce_device_call::result::argmin};
    }
};

/// Full reduction (all elements) to a zero-dim tensor.
template <class Body, class T, class S>
auto reduce_all(const Tensor<T, S>& x, const Body& body = {}) {
    Body::template check<T>();
    std::array<bool, S::rank> mask{};
    mask.fill(true);
    return reduce_into<typename Body::template result<T>, shape<>>(x, mask, false, body);
}

/// Reduction over Dim, keepdim Keep.
template <class Body, bool Keep, class T, class S, class Dim>
auto reduce_dim_impl(const Tensor<T, S>& x, const Dim& dim, const Body& body = {}) {
    Body::template check<T>();
    using plan = reduction_plan<S, std::remove_cvref_t<Dim>, Keep>;
    return reduce_into<typename Body::template result<T>, typename plan::out_shape>(
        x, plan::mask(dim), Keep, body);
}

} // namespace detail

/// torch.return_types.max / min: the values and their indices (int64) along a dim.
///   auto [values, indices] = max(x, 1_c);
template <class V, class I>
struct values_indices {
    V values;
    I indices;
};

// ---- sum, prod, mean, var -----------------------------------------------------------------------

#define STATICPY_REDUCTION(Name, Body)                                                             \
    template <class T, class S>                                                                    \
    auto Name(const Tensor<T, S>& x) {                                                             \
        return detail::reduce_all<Body>(x);                                                        \
    }                                                                                              \
    template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>              \
    auto Name(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {                                  \
        return detail::reduce_dim_impl<Body, detail::keepdim_value<Keep>()>(x, dim);               \
    }

/// torch.sum(x) / x.sum(dim, keepdim): int and bool tensors sum to int64.
///   sum(x, 1_c, True)
STATICPY_REDUCTION(sum, detail::described_body<reduction::sum>)
/// torch.prod: int and bool tensors multiply to int64.
STATICPY_REDUCTION(prod, detail::described_body<reduction::prod>)
/// torch.mean: floating tensors only (a compile error otherwise, as PyTorch's error); an empty
/// reduction is NaN.
STATICPY_REDUCTION(mean, detail::described_body<reduction::mean>)
#undef STATICPY_REDUCTION

/// torch.var with PyTorch's default correction=1 (unbiased); one element gives NaN.
///   var(x)   var(x, 0_c)   var(x, 0_c, True, 0)   (the last: correction=0, the biased variance)
template <class T, class S>
auto var(const Tensor<T, S>& x) {
    return detail::reduce_all<detail::var_body>(x);
}
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto var(const Tensor<T, S>& x, const Dim& dim, Keep = {}, double correction = 1) {
    return detail::reduce_dim_impl<detail::var_body, detail::keepdim_value<Keep>()>(
        x, dim, detail::var_body{correction});
}

// ---- max, min, amax, amin, argmax, argmin -----------------------------------------------------

/// torch.max(x): the largest element, as a zero-dim tensor (NaN if any is NaN).
/// torch.max(x, dim, keepdim): values_indices{values, indices} along dim.
/// torch.max(a, b) with two tensors: torch.maximum.
template <class T, class S>
auto max(const Tensor<T, S>& x) {
    reduction::amax::check_input(x.sizes(), std::array<bool, S::rank>{}, true);
    return detail::reduce_all<detail::described_body<reduction::amax>>(x);
}
template <class T, class S>
auto min(const Tensor<T, S>& x) {
    reduction::amin::check_input(x.sizes(), std::array<bool, S::rank>{}, true);
    return detail::reduce_all<detail::described_body<reduction::amin>>(x);
}

/// torch.max(a, b) / torch.min(a, b) with two tensors: torch.maximum / torch.minimum. The
/// same-type overloads are there so that an unqualified max(a, b) prefers them to std::max, which
/// argument-dependent lookup also finds.
template <class T, class S, class U, class S2>
auto max(const Tensor<T, S>& a, const Tensor<U, S2>& b) {
    return maximum(a, b);
}
template <class T, class S>
auto max(const Tensor<T, S>& a, const Tensor<T, S>& b) {
    return maximum(a, b);
}
template <class T, class S, class U, class S2>
auto min(const Tensor<T, S>& a, const Tensor<U, S2>& b) {
    return minimum(a, b);
}
template <class T, class S>
auto min(const Tensor<T, S>& a, const Tensor<T, S>& b) {
    return minimum(a, b);
}

namespace detail {
/// torch.max(x, dim) / torch.min(x, dim), named by the reduction's whole_name in errors.
template <class Reduction, class Cmp, bool Keep, class T, class S, class Dim>
auto extremum_with_indices(const Tensor<T, S>& x, const Dim& dim) {
    using plan = reduction_plan<S, std::remove_cvref_t<Dim>, Keep>;
    static_assert(dim_spec<std::remove_cvref_t<Dim>>::count == 1,
                  "staticpy: TypeError: max()/min() with indices take one dim");
    check_nonempty(Reduction::whole_name, x.sizes(), plan::mask(dim), false);
    auto values = reduce_dim_impl<described_body<Reduction>, Keep>(x, dim);
    auto indices = reduce_dim_impl<arg_extremum_body<Cmp>, Keep>(x, dim);
    return values_indices<decltype(values), decltype(indices)>{std::move(values),
                                                               std::move(indices)};
}
} // namespace detail

template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
requires(!is_tensor_v<Dim>) auto max(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {
    return detail::extremum_with_indices<reduction::amax, fn::gt, detail::keepdim_value<Keep>()>(
        x, dim);
}
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
requires(!is_tensor_v<Dim>) auto min(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {
    return detail::extremum_with_indices<reduction::amin, fn::lt, detail::keepdim_value<Keep>()>(
        x, dim);
}

namespace detail {
/// amax, amin, argmax and argmin along dims: PyTorch's check that no reduced dim is empty, then
/// the reduction with the given body.
template <class Body, class Keep, class T, class S, class Dim>
auto reduce_nonempty(const char* name, const Tensor<T, S>& x, const Dim& dim) {
    constexpr bool keep = keepdim_value<Keep>();
    using plan = reduction_plan<S, std::remove_cvref_t<Dim>, keep>;
    check_nonempty(name, x.sizes(), plan::mask(dim), false);
    return reduce_dim_impl<Body, keep>(x, dim);
}
} // namespace detail

/// torch.amax / amin: the values only, over any dims.
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto amax(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {
    return detail::reduce_nonempty<detail::described_body<reduction::amax>, Keep>(
        reduction::amax::name, x, dim);
}
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto amin(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {
    return detail::reduce_nonempty<detail::described_body<reduction::amin>, Keep>(
        reduction::amin::name, x, dim);
}

/// torch.argmax(x): the index of the first largest element of the flattened tensor (int64,
/// zero-dim); argmax(x, dim, keepdim) along dim. A NaN counts as the largest.
template <class T, class S>
auto argmax(const Tensor<T, S>& x) {
    detail::check_nonempty("argmax", x.sizes(), std::array<bool, S::rank>{}, true);
    return detail::reduce_all<detail::arg_extremum_body<fn::gt>>(x);
}
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto argmax(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {
    static_assert(detail::dim_spec<Dim>::count == 1, "staticpy: TypeError: argmax() takes one dim");
    return detail::reduce_nonempty<detail::arg_extremum_body<fn::gt>, Keep>("argmax", x, dim);
}
template <class T, class S>
auto argmin(const Tensor<T, S>& x) {
    detail::check_nonempty("argmin", x.sizes(), std::array<bool, S::rank>{}, true);
    return detail::reduce_all<detail::arg_extremum_body<fn::lt>>(x);
}
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto argmin(const Tensor<T, S>& x, const Dim& dim, Keep = {}) {
    static_assert(detail::dim_spec<Dim>::count == 1, "staticpy: TypeError: argmin() takes one dim");
    return detail::reduce_nonempty<detail::arg_extremum_body<fn::lt>, Keep>("argmin", x, dim);
}

// ---- softmax, log_softmax ---------------------------------------------------------------------

namespace detail {
/// softmax (or log_softmax) of x along dim into q, a contiguous buffer of x's sizes that does not
/// overlap x or is x's own (contiguous) memory: every element is read before it is written, at the
/// same place. What eager softmax fills its new tensor with, and what a graph whose output is a
/// softmax writes into()'s tensor with.
template <bool Log, class T, class S, class Dim>
void softmax_into(const Tensor<T, S>& x, const Dim& dim, T* q) {
    static_assert(
        std::is_floating_point_v<T>,
        "staticpy: RuntimeError: softmax and log_softmax are only implemented for floating "
        "point tensors");
    static_assert(dim_spec<Dim>::count == 1, "staticpy: TypeError: softmax() takes one dim");
    using plan = reduction_plan<S, Dim, true>;
    const auto mask = plan::mask(dim);
    if (x.numel() == 0)
        return;
    if constexpr (S::rank >= 1) {
        // Along the last dim (every classifier head): the vectorised, threaded row kernel.
        if (mask[S::rank - 1]) {
            const auto rows = x.contiguous();
            const std::int64_t cols = x.sizes()[S::rank - 1];
            kernels::softmax_rows<Log>(rows.data(), q, x.numel() / cols, cols);
            return;
        }
    }
    const auto out_strides = contiguous_strides(x.sizes());
    const auto outer_in = dim_offsets(x.sizes(), x.strides(), mask, false);
    const auto inner_in = dim_offsets(x.sizes(), x.strides(), mask, true);
    const auto outer_out = dim_offsets(x.sizes(), out_strides, mask, false);
    const auto inner_out = dim_offsets(x.sizes(), out_strides, mask, true);
    const T* p = x.data();
    const std::size_t n = inner_in.size();
    for (std::size_t k = 0; k < outer_in.size(); ++k) {
        const T* a = p + outer_in[k];
        T* b = q + outer_out[k];
        // Subtract the max so that exp never overflows: softmax(x) == softmax(x - max).
        T m = a[inner_in[0]];
        for (std::size_t j = 1; j < n; ++j)
            m = fn::maximum::apply(m, a[inner_in[j]]);
        double total = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const T e = fn::exp::apply(static_cast<T>(a[inner_in[j]] - m));
            if constexpr (!Log)
                b[inner_out[j]] = e;
            total += static_cast<double>(e);
        }
        if constexpr (Log) {
            const T log_total = static_cast<T>(std::log(total));
            for (std::size_t j = 0; j < n; ++j)
                b[inner_out[j]] = a[inner_in[j]] - m - log_total;
        } else {
            const T inv = static_cast<T>(1.0 / total);
            for (std::size_t j = 0; j < n; ++j)
                b[inner_out[j]] = b[inner_out[j]] * inv;
        }
    }
}

template <bool Log, class T, class S, class Dim>
Tensor<T, S> softmax_impl(const Tensor<T, S>& x, const Dim& dim) {
    Tensor<T, S> out(x.shape());
    softmax_into<Log>(x, dim, out.data());
    return out;
}
} // namespace detail

/// torch.softmax(x, dim): exp(x - max) / sum(exp(x - max)) along dim (stable for large inputs).
///   auto p = softmax(logits, -1_c);
template <class T, class S, detail::reduce_dim Dim>
Tensor<T, S> softmax(const Tensor<T, S>& x, const Dim& dim) {
    return detail::softmax_impl<false>(x, dim);
}
/// torch.log_softmax(x, dim): x - max - log(sum(exp(x - max))) along dim.
template <class T, class S, detail::reduce_dim Dim>
Tensor<T, S> log_softmax(const Tensor<T, S>& x, const Dim& dim) {
    return detail::softmax_impl<true>(x, dim);
}

} // namespace staticpy
