#pragma once
// Eager elementwise ops: every one is `elementwise<F>(args...)` applied to an op description from
// functors.hpp, with NumPy broadcasting (broadcast.hpp) and PyTorch's type promotion
// (promote.hpp), and run as one kernel of kernels/elementwise.hpp: the loop the graph's fused
// kernels run too (contiguous fast path, SIMD batches, threads). Each returns a new contiguous
// Tensor that owns its elements.
//
//   auto y = relu(x * w + 1.0f);          // Tensor<float, broadcast shape of x and w>
//   auto m = x > 0;                       // Tensor<bool, ...>
//   auto z = where(m, x, 0.0);            // float32: a Python float never widens a float tensor
//
// Arguments: Tensors, and Python-like scalars (C++ arithmetic values, or compile-time 2_c, 2.5_c,
// True) on either side. Shapes broadcast at compile time as far as their static extents allow
// (two static extents that clash are a compile error) and are checked at run time otherwise
// (staticpy::RuntimeError, PyTorch's text).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/selection.hpp"
#include "staticpy/kernels/elementwise.hpp"
#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/promote.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace detail {

template <class X>
inline constexpr bool is_tensor_arg_v = is_tensor_v<std::remove_cvref_t<X>>;

/// A Python number: a C++ arithmetic value or a staticpy compile-time number.
template <class X>
inline constexpr bool is_scalar_arg_v =
    std::is_arithmetic_v<std::remove_cvref_t<X>> || is_number_constant_v<std::remove_cvref_t<X>>;

/// The hook of the value types that record ops instead of (or besides) computing them: the graph
/// layer's traced values, and the tape's recorded values (autograd.hpp). Such a type names its
/// family (symbolic_family<X>::type); every elementwise op with one among its arguments then goes
/// to symbolic_elementwise<Family, F>, and every op object (op_objects.hpp) to
/// symbolic_op<Family>, which the family defines. The eager ops need nothing from those layers.
template <class X>
struct symbolic_family {
    using type = void;
};
template <class X>
using symbolic_family_t = typename symbolic_family<std::remove_cvref_t<X>>::type;
template <class X>
inline constexpr bool is_symbolic_arg_v = !std::is_void_v<symbolic_family_t<X>>;
template <class Family, class F>
struct symbolic_elementwise;
template <class Family>
struct symbolic_op;

/// The family of the first symbolic argument (void if none).
template <class... Args>
struct first_family {
    using type = void;
};
template <class A, class... Args>
struct first_family<A, Args...> {
    using type = std::conditional_t<is_symbolic_arg_v<A>, symbolic_family_t<A>,
                                    typename first_family<Args...>::type>;
};
template <class... Args>
using first_family_t = typename first_family<Args...>::type;

template <class X>
inline constexpr bool is_elementwise_arg_v =
    is_tensor_arg_v<X> || is_scalar_arg_v<X> || is_symbolic_arg_v<X>;

/// The promotion operand that an argument is.
template <class X, bool = is_tensor_arg_v<X>>
struct operand_of {
    using type = scalar_operand<std::remove_cvref_t<X>>;
};
template <class X>
struct operand_of<X, true> {
    using tensor = std::remove_cvref_t<X>;
    using type =
        operand<typename tensor::value_type,
                tensor::rank == 0 ? operand_priority::zero_dim : operand_priority::dimensioned>;
};
template <class X>
using operand_of_t = typename operand_of<X>::type;

/// The shape an argument broadcasts with: a tensor's, or shape<> for a scalar.
template <class X, bool = is_tensor_arg_v<X>>
struct arg_shape {
    using type = shape<>;
};
template <class X>
struct arg_shape<X, true> {
    using type = typename std::remove_cvref_t<X>::shape_type;
};
template <class X>
using arg_shape_t = typename arg_shape<X>::type;

template <class X>
const auto& shape_of_arg(const X& x) {
    if constexpr (is_tensor_arg_v<X>) {
        return x.shape();
    } else {
        static constexpr shape<> empty{};
        return empty;
    }
}

/// A scalar's value as C: compile-time constants through their ::value.
template <class C, class X>
constexpr C scalar_value(const X& x) {
    using U = std::remove_cvref_t<X>;
    if constexpr (is_number_constant_v<U>)
        return static_cast<C>(U::value);
    else
        return static_cast<C>(x);
}

/// The type operand I of F is read as: the condition of `where` stays bool, the rest `Compute`.
template <class F, std::size_t I, class Compute>
using operand_compute_t =
    std::conditional_t<F::kind == fn::op_kind::select && I == 0, bool, Compute>;

/// How an eager op is one kernel of kernels/elementwise.hpp: F over its arguments, the tensors
/// read from memory (the kernel's leaves, in argument order) and the scalars held as values
/// already converted to the type F computes in.
template <class F, class Compute, class Result, class... Args>
struct elementwise_kernel {
    static constexpr std::size_t arity = sizeof...(Args);
    static constexpr std::array<bool, arity> is_leaf{is_tensor_arg_v<Args>...};
    static constexpr std::size_t leaves = selection::count(is_leaf);
    /// Argument I's position among the leaves.
    static constexpr std::array<std::size_t, arity + 1> leaf_index = selection::ranks(is_leaf);
    using value_type = Result;
    static constexpr int cost = F::cost;
    template <std::size_t I>
    using compute_of = operand_compute_t<F, I, Compute>;
    template <class X>
    static constexpr bool reads_compute_type() {
        if constexpr (is_tensor_arg_v<X>)
            return std::is_same_v<typename std::remove_cvref_t<X>::value_type, Compute>;
        else
            return true;
    }
    template <std::size_t... I>
    static constexpr bool reads_compute_types(std::index_sequence<I...>) {
        return ((std::is_same_v<compute_of<I>, Compute> && reads_compute_type<Args>()) && ...);
    }
    /// Batches when F allows them and nothing needs converting: every value is one float type
    /// (where's bool condition tensor is not: its values are not a batch's mask).
    static constexpr bool simd = F::vectorized && kernels::simd_type_v<Result> &&
                                 std::is_same_v<Compute, Result> &&
                                 reads_compute_types(std::index_sequence_for<Args...>{});

    template <std::size_t I, class X>
    static auto operand_of(const X& x) {
        if constexpr (is_tensor_arg_v<X>)
            return x.data();
        else
            return scalar_value<compute_of<I>>(x);
    }
    template <class Seq>
    struct operands_of;
    template <std::size_t... I>
    struct operands_of<std::index_sequence<I...>> {
        using type = std::tuple<decltype(operand_of<I>(std::declval<const Args&>()))...>;
    };
    using operands_t = typename operands_of<std::index_sequence_for<Args...>>::type;
    using offsets_t = std::array<std::int64_t, leaves + 1>;

    operands_t operands;

    explicit elementwise_kernel(const Args&... args)
        : operands([&]<std::size_t... I>(std::index_sequence<I...>) {
              return operands_t{operand_of<I>(args)...};
          }(std::index_sequence_for<Args...>{})) {}

    template <std::size_t I>
    compute_of<I> value(const offsets_t& off) const {
        if constexpr (is_leaf[I])
            return static_cast<compute_of<I>>(std::get<I>(operands)[off[leaf_index[I]]]);
        else
            return std::get<I>(operands);
    }
    Result at(const offsets_t& off) const {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return static_cast<Result>(F::apply(value<I>(off)...));
        }
        (std::index_sequence_for<Args...>{});
    }

#if STATICPY_HAS_XSIMD
    /// The batch side: the tensors' pointers, the scalars already splat into batches.
    struct batch_reader {
        using batch = kernels::batch_t<std::conditional_t<simd, Result, float>>;
        template <std::size_t I>
        using slot_t = std::conditional_t<is_leaf[I], std::tuple_element_t<I, operands_t>, batch>;
        template <class Seq>
        struct slots_of;
        template <std::size_t... I>
        struct slots_of<std::index_sequence<I...>> {
            using type = std::tuple<slot_t<I>...>;
        };
        typename slots_of<std::index_sequence_for<Args...>>::type slots;

        template <bool AllUnit>
        STATICPY_KERNEL_FLATTEN batch at(const offsets_t& off, const offsets_t& inner) const {
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                return F::apply(read<I, AllUnit>(off, inner)...);
            }
            (std::index_sequence_for<Args...>{});
        }
        template <std::size_t I, bool AllUnit>
        batch read(const offsets_t& off, const offsets_t& inner) const {
            if constexpr (!is_leaf[I]) {
                return std::get<I>(slots);
            } else {
                constexpr std::size_t l = leaf_index[I];
                const auto* p = std::get<I>(slots) + off[l];
                if constexpr (AllUnit)
                    return batch::load_unaligned(p);
                else
                    return kernels::load_strided<batch>(p, inner[l]);
            }
        }
    };
    batch_reader batches() const {
        batch_reader b;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((std::get<I>(b.slots) =
                  typename batch_reader::template slot_t<I>(std::get<I>(operands))),
             ...);
        }
        (std::index_sequence_for<Args...>{});
        return b;
    }
#endif
};

/// The tensor an elementwise op with functor F over Args returns.
template <class F, class... Args>
using elementwise_result_t = Tensor<typename functor_types<F, operand_of_t<Args>...>::result,
                                    broadcast_shape_t<arg_shape_t<Args>...>>;

/// Whether an argument of type X (as forwarded: not a reference for an rvalue) can lend its
/// memory to the result Out: a non-const rvalue tensor of exactly Out's type.
template <class X, class Out>
inline constexpr bool lends_storage_v =
    !std::is_reference_v<X> && !std::is_const_v<X> && std::is_same_v<X, Out>;

/// Whether tensor t may be overwritten by the result of shape `sizes`: no other tensor shares its
/// memory (so nothing can observe the change), it is all of that memory, contiguous, and each
/// result element is computed from t's element at the same place only (no broadcasting of t).
template <class T, class S, std::size_t R>
bool can_lend_storage(const Tensor<T, S>& t, const std::array<std::int64_t, R>& sizes) {
    const auto& st = t.storage();
    return st.is_owning() && st.use_count() == 1 && t.storage_offset() == 0 &&
           t.numel() == st.size() && t.is_contiguous() && t.sizes() == sizes;
}

/// The loop behind every eager elementwise op. `lender` is an argument that is a temporary no one
/// else sees (or null): the result is written over its memory, as an in-place op would, so that a
/// chain such as tanh(a * x + b) allocates one tensor, not three, and each pass after the first
/// reads and writes memory still in cache.
template <class F, class... Args, std::size_t... I>
auto elementwise_impl(std::index_sequence<I...>, elementwise_result_t<F, Args...>* lender,
                      const Args&... args) {
    using out_t = elementwise_result_t<F, Args...>;
    using compute = typename functor_types<F, operand_of_t<Args>...>::compute;
    const typename out_t::shape_type s = broadcast_shapes(shape_of_arg(args)...);
    using kernel = elementwise_kernel<F, compute, typename out_t::value_type, Args...>;
    constexpr std::size_t R = out_t::rank;
    // Each tensor's strides over the output (0 where it broadcasts), the output's last; the
    // kernel and the strides are taken before the lender's memory changes hands.
    std::array<std::array<std::int64_t, R>, kernel::leaves + 1> strides{};
    (
        [&] {
            if constexpr (kernel::is_leaf[I])
                strides[kernel::leaf_index[I]] =
                    kernels::broadcast_strides(args.sizes(), args.strides(), s.sizes());
        }(),
        ...);
    const kernel k(args...);
    out_t out =
        lender != nullptr && can_lend_storage(*lender, s.sizes()) ? std::move(*lender) : out_t(s);
    strides[kernel::leaves] = out.strides();
    kernels::store(k, kernels::coalesce(s.sizes(), strides), out.data(), out.numel());
    return out;
}

/// An eager elementwise op F as a value: what selects the CUDA backend's evaluation of it, by
/// argument-dependent lookup (backend/cuda/evaluate.hpp declares elementwise_on_cuda for it here),
/// where the tensors are on a GPU.
template <class F>
struct eager_elementwise_tag {
    template <class... Args>
    using result = elementwise_result_t<F, Args...>;
};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class... Args>
typename Tag::template result<Args...> elementwise_on_cuda(Tag, const Args&...) {
    throw RuntimeError("staticpy: CUDA is not available here: an op's tensors are on the GPU, and "
                       "its translation unit does not include <staticpy/cuda.hpp>");
}

/// An in-place elementwise rule over tensors (nn's for_each_element: the optimisers' steps) as a
/// value: what selects the CUDA backend's run of it (backend/cuda/element_rule.hpp), by
/// argument-dependent lookup, where the tensors are on a GPU.
struct element_rule_tag {};

/// The fallback where the translation unit does not include <staticpy/cuda.hpp>.
template <class Tag, class Rule, class... Tensors>
void for_each_element_on_cuda(Tag, const Rule&, Tensors&...) {
    throw RuntimeError("staticpy: CUDA is not available here: an optimiser's tensors are on the "
                       "GPU, and its translation unit does not include <staticpy/cuda.hpp>");
}

/// The first argument that may lend its memory to the result (see lends_storage_v), or null.
template <class Out, class... Args>
Out* storage_lender(Args&&... args) {
    Out* lender = nullptr;
    (
        [&] {
            if constexpr (lends_storage_v<Args, Out>)
                if (lender == nullptr)
                    lender = &args;
        }(),
        ...);
    return lender;
}

/// Whether argument X is a scalar or a tensor of its rank's dynamic shape.
template <class X>
inline constexpr bool is_rank_erased_arg_v = [] {
    using A = std::remove_cvref_t<X>;
    if constexpr (is_tensor_v<A>)
        return is_dynamic_shape_v<typename A::shape_type>;
    else
        return true;
}();

/// A tensor argument as a tensor of its rank's dynamic shape (an rvalue's storage moved on, so
/// that it can still lend its memory); a scalar as it is.
template <class X>
decltype(auto) rank_erased_arg(X&& x) {
    using A = std::remove_cvref_t<X>;
    if constexpr (is_tensor_v<A>)
        return Tensor<typename A::value_type, dynamic_shape<A::rank>>(std::forward<X>(x));
    else
        return std::forward<X>(x);
}

} // namespace detail

/// The arguments an elementwise op takes: tensors and scalars, at least one tensor (or traced
/// value).
template <class... Args>
concept elementwise_args = (detail::is_elementwise_arg_v<Args> && ...) &&
                           ((detail::is_tensor_arg_v<Args> || detail::is_symbolic_arg_v<Args>) ||
                            ...);

/// Applies functor F (fn::add, fn::sigmoid, ...) elementwise, with broadcasting and promotion:
/// the loop behind every eager elementwise op.
///   auto y = elementwise<fn::mul>(x, 2.0f);      // x * 2
/// A tensor passed as an rvalue that no other tensor shares lends its memory to the result.
template <class F, class... Args>
requires elementwise_args<Args...>
auto elementwise(Args&&... args) {
    static_assert(sizeof...(Args) == F::arity, "staticpy: TypeError: wrong number of arguments");
    if constexpr ((detail::is_symbolic_arg_v<Args> || ...)) {
        return detail::symbolic_elementwise<detail::first_family_t<Args...>, F>::apply(
            std::as_const(args)...);
    } else if constexpr (!(detail::is_rank_erased_arg_v<Args> && ...)) {
        // The loop depends on the operands' dtypes and ranks, not on their static extents: it
        // runs on the tensors seen with dynamic shapes, one instantiation per (F, dtypes, ranks)
        // for every shape, and the result takes its static shape back (checked, no copy).
        using out_t = detail::elementwise_result_t<F, std::remove_cvref_t<Args>...>;
        return out_t(elementwise<F>(detail::rank_erased_arg(std::forward<Args>(args))...));
    } else {
        const Device device = detail::check_same_device(args...);
        using out_t = detail::elementwise_result_t<F, std::remove_cvref_t<Args>...>;
        if (device.is_cuda())
            return out_t(
                elementwise_on_cuda(detail::eager_elementwise_tag<F>{}, std::as_const(args)...));
        return detail::elementwise_impl<F, std::remove_cvref_t<Args>...>(
            std::index_sequence_for<Args...>{},
            detail::storage_lender<out_t, Args...>(std::forward<Args>(args)...),
            std::as_const(args)...);
    }
}

namespace fn {
template <class F, class... X>
auto call(const X&... x) {
    return elementwise<F>(x...);
}
} // namespace fn

// ---- named functions ------------------------------------------------------------------------

// Forwarding references: a temporary tensor argument lends its memory to the result.
#define STATICPY_UNARY_OP(Name)                                                                    \
    template <class X>                                                                             \
    requires elementwise_args<X>                                                                   \
    auto Name(X&& x) {                                                                             \
        return elementwise<fn::Name>(std::forward<X>(x));                                          \
    }
#define STATICPY_BINARY_OP(Name)                                                                   \
    template <class A, class B>                                                                    \
    requires elementwise_args<A, B>                                                                \
    auto Name(A&& a, B&& b) {                                                                      \
        return elementwise<fn::Name>(std::forward<A>(a), std::forward<B>(b));                      \
    }

/// torch.neg, abs, sign, square, floor, ceil, round (half to even), exp, expm1, log, log1p, sqrt,
/// rsqrt, reciprocal, sin, cos, tanh, erf, sigmoid, relu, and torch.nn.functional's gelu (exact
/// erf form) and silu. Integer and bool tensors give float32 for the math functions, as PyTorch;
/// gelu and silu take floating tensors only.
///   auto y = sigmoid(x);   auto r = round(x);
STATICPY_UNARY_OP(neg)
STATICPY_UNARY_OP(abs)
STATICPY_UNARY_OP(sign)
STATICPY_UNARY_OP(square)
STATICPY_UNARY_OP(floor)
STATICPY_UNARY_OP(ceil)
STATICPY_UNARY_OP(round)
STATICPY_UNARY_OP(exp)
STATICPY_UNARY_OP(expm1)
STATICPY_UNARY_OP(log)
STATICPY_UNARY_OP(log1p)
STATICPY_UNARY_OP(sqrt)
STATICPY_UNARY_OP(rsqrt)
STATICPY_UNARY_OP(reciprocal)
STATICPY_UNARY_OP(sin)
STATICPY_UNARY_OP(cos)
STATICPY_UNARY_OP(tanh)
STATICPY_UNARY_OP(erf)
STATICPY_UNARY_OP(sigmoid)
STATICPY_UNARY_OP(relu)
STATICPY_UNARY_OP(gelu)
STATICPY_UNARY_OP(silu)

/// stop_gradient(x) (MindSpore's ops.stop_gradient, JAX's lax.stop_gradient) and torch.detach:
/// x's value, through which no gradient flows: what grad differentiates sees a constant. On a
/// tensor, x itself (sharing its storage, as PyTorch's detach); traced, a node that costs nothing
/// in its fused kernel; recorded on the tape, a Var with no history.
///   auto target = stop_gradient(y);   auto frozen = w.detach();
template <class X>
requires elementwise_args<X>
auto stop_gradient(const X& x) {
    if constexpr (detail::is_symbolic_arg_v<X>)
        return elementwise<fn::stop_gradient>(x);
    else
        return x;
}
template <class X>
requires elementwise_args<X>
auto detach(const X& x) {
    return stop_gradient(x);
}

/// torch.add, sub, mul, div (true division), pow, maximum, minimum (NaN propagates), and the
/// comparisons eq, ne, lt, le, gt, ge (bool results). A scalar may stand on either side.
///   auto z = maximum(x, 0.5);   auto p = pow(2, x);
STATICPY_BINARY_OP(add)
STATICPY_BINARY_OP(sub)
STATICPY_BINARY_OP(mul)
STATICPY_BINARY_OP(div)
STATICPY_BINARY_OP(pow)
STATICPY_BINARY_OP(maximum)
STATICPY_BINARY_OP(minimum)
STATICPY_BINARY_OP(eq)
STATICPY_BINARY_OP(ne)
STATICPY_BINARY_OP(lt)
STATICPY_BINARY_OP(le)
STATICPY_BINARY_OP(gt)
STATICPY_BINARY_OP(ge)

#undef STATICPY_UNARY_OP
#undef STATICPY_BINARY_OP

/// torch.nn.functional.leaky_relu(x, negative_slope=0.01): x where x > 0, else x * negative_slope,
/// computed in x's (floating) type.
///   auto y = leaky_relu(x, 0.2);
template <class X, class Slope = double>
requires elementwise_args<X, Slope>
auto leaky_relu(const X& x, const Slope& negative_slope = 0.01) {
    return elementwise<fn::leaky_relu>(x, negative_slope);
}

/// torch.nn.functional.softplus(x, beta=1, threshold=20): log(1 + exp(beta * x)) / beta, and x
/// where beta * x > threshold; computed in x's (floating) type.
///   auto y = softplus(x);   auto z = softplus(x, 2.0, 10.0);
template <class X, class Beta = double, class Threshold = double>
requires elementwise_args<X, Beta, Threshold>
auto softplus(const X& x, const Beta& beta = 1.0, const Threshold& threshold = 20.0) {
    return elementwise<fn::softplus>(x, beta, threshold);
}

/// torch.clamp(x, min, max) and its alias torch.clip: each element limited to [min, max], with
/// type promotion over all three (an int tensor clamped by 0.5 is float32), NaN propagating, and
/// max winning where min > max. Either bound may be None (then it is maximum(x, min) or
/// minimum(x, max)); both None is PyTorch's error.
///   auto y = clamp(x, 0.0, 6.0);   auto z = clamp(x, None, 1.0);
template <class X, class Lo, class Hi>
requires elementwise_args<X, Lo, Hi>
auto clamp(const X& x, const Lo& lo, const Hi& hi) {
    return elementwise<fn::clamp>(x, lo, hi);
}
template <class X, class Lo>
requires elementwise_args<X, Lo>
auto clamp(const X& x, const Lo& lo, none_t = None) {
    return elementwise<fn::maximum>(x, lo);
}
template <class X, class Hi>
requires elementwise_args<X, Hi>
auto clamp(const X& x, none_t, const Hi& hi) {
    return elementwise<fn::minimum>(x, hi);
}
template <class X>
requires elementwise_args<X>
auto clamp(const X& x, none_t, none_t = None) {
    static_assert(sizeof(X) == 0,
                  "staticpy: RuntimeError: torch.clamp: At least one of 'min' or 'max' must not "
                  "be None");
    return x;
}
template <class X, class... Bounds>
requires elementwise_args<X>
auto clip(const X& x, const Bounds&... bounds) {
    return clamp(x, bounds...);
}

/// torch.where(cond, a, b): a where cond, else b; cond is a bool tensor (or a bool), a and b
/// tensors or scalars, all broadcast together.
///   auto y = where(x > 0, x, 0.0f);
template <class C, class A, class B>
requires elementwise_args<C, A, B>
auto where(const C& cond, const A& a, const B& b) {
    return elementwise<fn::where>(cond, a, b);
}

/// torch.masked_fill(x, mask, value) / x.masked_fill(mask, value): value where mask (a bool
/// tensor) is true, else x, in x's dtype (the value converted to it, as PyTorch's); mask and x
/// broadcast together. Its derivative is where's: x's gradient is g where mask is false, a
/// tensor value's the sum of g where it is true.
///   auto y = x.masked_fill(x < 0.0f, 0.0f);
template <class X, class M, class V>
requires elementwise_args<X, M, V> && requires {
    typename X::value_type;
}
auto masked_fill(const X& x, const M& mask, const V& value) {
    auto filled = where(mask, value, x);
    using T = typename X::value_type;
    if constexpr (std::is_same_v<typename decltype(filled)::value_type, T>)
        return filled;
    else
        return cast<T>(filled);
}

namespace detail {
template <class Self>
struct where_method {
    template <class C, class B>
    static auto apply(const C& cond, const Self& a, const B& b) {
        return staticpy::where(cond, a, b);
    }
};
} // namespace detail

/// Tensor.to(dtype) as an elementwise op: the elements converted to To (a new tensor, even
/// when To is the element type already).
///   auto i = cast<std::int64_t>(x);
template <class To, class X>
requires elementwise_args<X>
auto cast(const X& x) {
    return elementwise<fn::cast<To>>(x);
}

// ---- operators --------------------------------------------------------------------------------

/// x + y, x - y, x * y, x / y (true division), -x, and the comparisons, elementwise. A temporary
/// operand lends its memory to the result: a * x + b allocates one tensor.
template <class A, class B>
requires elementwise_args<A, B>
auto operator+(A&& a, B&& b) {
    return elementwise<fn::add>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator-(A&& a, B&& b) {
    return elementwise<fn::sub>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator*(A&& a, B&& b) {
    return elementwise<fn::mul>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator/(A&& a, B&& b) {
    return elementwise<fn::div>(std::forward<A>(a), std::forward<B>(b));
}
template <class X>
requires elementwise_args<X>
auto operator-(X&& x) {
    return elementwise<fn::neg>(std::forward<X>(x));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator==(A&& a, B&& b) {
    return elementwise<fn::eq>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator!=(A&& a, B&& b) {
    return elementwise<fn::ne>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator<(A&& a, B&& b) {
    return elementwise<fn::lt>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator<=(A&& a, B&& b) {
    return elementwise<fn::le>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator>(A&& a, B&& b) {
    return elementwise<fn::gt>(std::forward<A>(a), std::forward<B>(b));
}
template <class A, class B>
requires elementwise_args<A, B>
auto operator>=(A&& a, B&& b) {
    return elementwise<fn::ge>(std::forward<A>(a), std::forward<B>(b));
}

} // namespace staticpy
