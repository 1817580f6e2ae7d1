#pragma once
// Eager joining ops with PyTorch's names and semantics: cat and stack. ops_index.hpp includes this
// header (the umbrella tensor/ops.hpp brings both).
//
//   auto ab = cat(std::make_tuple(a, b), 0_c);   // static extents along dim 0 add up
//   auto batch = stack(list(x, y, z), 0_c);      // a new static dim of extent 3
//   auto rows = cat(std::vector{r0, r1, r2}, 1); // a run-time dim: the extents are dynamic
//
// The tensors are a std::tuple (std::tie or std::forward_as_tuple work too), a staticpy list, or
// a std::vector of one tensor type. A tuple or list of tensors of different element types gives
// the promoted type (torch.result_type over the inputs). A tuple's or list's length, ranks and
// static extents are known at compile time, so mismatches among them are compile errors
// "staticpy: RuntimeError: <PyTorch's error>"; the rest are checked at run time with PyTorch's
// text. The result is a new contiguous tensor; each input is copied into its slab of it by one
// memcpy per contiguous run when it is contiguous and of the result's type, by the strided walk
// otherwise.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/tensor/promote.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

template <class... Ts>
class list;

namespace detail::index_ops {

/// The dim that a dim argument names in a tensor of rank R: a compile-time one is checked at
/// compile time, a run-time one wrapped (IndexError with PyTorch's text when out of range).
template <std::size_t R, class D>
std::size_t resolve_dim(const D& dim) {
    if constexpr (is_static_dim_v<D>)
        return wrap_dim_c<std::remove_cvref_t<D>::value, R>();
    else
        return static_cast<std::size_t>(wrap_dim(static_cast<std::int64_t>(dim), R));
}

/// What cat and stack accept as their list of tensors, seen uniformly: `count` (compile-time
/// when `fixed_count`) and the tensor types; for_each_tensor(seq, f) calls f(k, tensor_k).
template <class Seq>
struct tensor_sequence {
    static constexpr bool valid = false;
};

template <class... Ts>
requires(is_tensor_v<std::remove_cvref_t<Ts>>&&...) struct tensor_sequence<std::tuple<Ts...>> {
    static constexpr bool valid = true;
    static constexpr bool fixed_count = true;
    static constexpr std::size_t count = sizeof...(Ts);
    using tensor_types = std::tuple<std::remove_cvref_t<Ts>...>;
    template <std::size_t K>
    static const auto& get(const std::tuple<Ts...>& seq) {
        return std::get<K>(seq);
    }
};

template <class... Ts>
requires(is_tensor_v<Ts>&&...) struct tensor_sequence<list<Ts...>> {
    static constexpr bool valid = true;
    static constexpr bool fixed_count = true;
    static constexpr std::size_t count = sizeof...(Ts);
    using tensor_types = std::tuple<Ts...>;
    template <std::size_t K>
    static const auto& get(const list<Ts...>& seq) {
        return seq.template at<K>();
    }
};

template <class T, class S, class Alloc>
struct tensor_sequence<std::vector<Tensor<T, S>, Alloc>> {
    static constexpr bool valid = true;
    static constexpr bool fixed_count = false;
    using tensor_type = Tensor<T, S>;
};

template <class Seq>
concept tensors_argument = tensor_sequence<std::remove_cvref_t<Seq>>::valid;

template <class Seq, class F>
void for_each_tensor(const Seq& seq, F&& f) {
    using traits = tensor_sequence<Seq>;
    if constexpr (traits::fixed_count) {
        [&]<std::size_t... K>(std::index_sequence<K...>) {
            (f(K, traits::template get<K>(seq)), ...);
        }
        (std::make_index_sequence<traits::count>{});
    } else {
        for (std::size_t k = 0; k < seq.size(); ++k)
            f(k, seq[k]);
    }
}

template <class Seq>
std::size_t tensor_count(const Seq& seq) {
    if constexpr (tensor_sequence<Seq>::fixed_count)
        return tensor_sequence<Seq>::count;
    else
        return seq.size();
}

// ---- compile-time plans -------------------------------------------------------------------

/// What a tuple's or list's types already show to be wrong, in the order PyTorch checks it.
enum class join_issue { none, empty, zero_dim, ranks_differ, sizes_differ };

/// A dim known only at run time, for static_join_issue.
inline constexpr std::size_t runtime_dim = static_cast<std::size_t>(-1);

/// cat of shapes Ss along dim D (runtime_dim: static extents that differ may be the dim's, so
/// they are left to the run-time check), or with `Stack` stack: zero-dim tensors allowed, every
/// extent compared.
template <bool Stack, std::size_t D, class... Ss>
constexpr join_issue static_join_issue() {
    constexpr std::size_t n = sizeof...(Ss);
    if constexpr (n == 0) {
        return join_issue::empty;
    } else {
        constexpr std::size_t R = std::tuple_element_t<0, std::tuple<Ss...>>::rank;
        if constexpr (!Stack && ((Ss::rank == 0) || ...)) {
            return join_issue::zero_dim;
        } else if constexpr (!((Ss::rank == R) && ...)) {
            return join_issue::ranks_differ;
        } else if constexpr (R > 0 && (Stack || D != runtime_dim)) {
            constexpr std::array<std::array<std::int64_t, R>, n> extents{Ss::static_extents...};
            for (std::size_t i = 0; i < R; ++i) {
                if (!Stack && i == D)
                    continue;
                std::int64_t seen = -1;
                for (const auto& e : extents) {
                    if (e[i] < 0)
                        continue;
                    if (seen >= 0 && e[i] != seen)
                        return join_issue::sizes_differ;
                    seen = e[i];
                }
            }
            return join_issue::none;
        } else {
            return join_issue::none;
        }
    }
}

/// The extent type of the result of cat along dim D at dim I: the static sum along D when every
/// input's is static, the static extent elsewhere when any input's is (all are checked equal).
template <std::size_t D, std::size_t I, class... Ss>
constexpr auto cat_extent() {
    constexpr std::array<std::int64_t, sizeof...(Ss)> extents{Ss::static_extents[I]...};
    constexpr std::int64_t value = [&] {
        std::int64_t result = I == D ? 0 : -1;
        for (std::int64_t e : extents) {
            if (I == D && (e < 0 || result < 0 || __builtin_add_overflow(result, e, &result)))
                return std::int64_t{-1}; // the sum overflowing is for the shape to report
            if (I != D && e >= 0)
                return e;
        }
        return result;
    }();
    if constexpr (value >= 0)
        return int_<value>{};
    else
        return std::int64_t{};
}

template <std::size_t D, class... Ss>
struct cat_shape {
    template <std::size_t... I>
    static auto make(std::index_sequence<I...>) -> shape<decltype(cat_extent<D, I, Ss...>())...>;
    using type = decltype(make(
        std::make_index_sequence<std::tuple_element_t<0, std::tuple<Ss...>>::rank>{}));
};

/// The first tensor type of a sequence (only asked of a non-empty one).
template <class Seq>
struct first_tensor {
    using type = std::tuple_element_t<0, typename tensor_sequence<Seq>::tensor_types>;
};
template <class T, class S, class Alloc>
struct first_tensor<std::vector<Tensor<T, S>, Alloc>> {
    using type = Tensor<T, S>;
};
template <class Seq>
using first_tensor_t = typename first_tensor<Seq>::type;

/// The element type of cat's result: torch.result_type of the inputs.
template <class Seq>
struct cat_element {
    using type = typename first_tensor_t<Seq>::value_type;
};
template <class Seq>
requires tensor_sequence<Seq>::fixed_count struct cat_element<Seq> {
    template <class... Ts>
    static auto promote(std::tuple<Ts...>*)
        -> result_type_t<tensor_operand<typename Ts::value_type>...>;
    using type =
        decltype(promote(static_cast<typename tensor_sequence<Seq>::tensor_types*>(nullptr)));
};

/// The shape type of cat's result along a dim argument D: dynamic when D is a run-time dim (which
/// extent grows is then unknown), else cat_shape (a tuple or list) or the vector's tensor type's
/// shape with that extent dynamic.
template <class Seq, class D>
constexpr auto cat_shape_of() {
    using first = first_tensor_t<Seq>;
    constexpr std::size_t R = first::rank;
    if constexpr (!is_static_dim_v<D>) {
        return std::type_identity<dynamic_shape<R>>{};
    } else {
        constexpr std::size_t d = wrap_dim_c<std::remove_cvref_t<D>::value, R>();
        if constexpr (tensor_sequence<Seq>::fixed_count)
            return []<class... Ts>(std::tuple<Ts...>*) {
                return std::type_identity<
                    typename cat_shape<d, typename Ts::shape_type...>::type>{};
            }(static_cast<typename tensor_sequence<Seq>::tensor_types*>(nullptr));
        else
            return std::type_identity<
                shape_replace_t<typename first::shape_type, d, std::int64_t>>{};
    }
}
template <class Seq, class D>
using cat_shape_t = typename decltype(cat_shape_of<Seq, D>())::type;

/// The dim that static_join_issue compares around: a compile-time dim of cat, wrapped.
template <bool Stack, class D, std::size_t R>
constexpr std::size_t static_cat_dim() {
    if constexpr (Stack || !is_static_dim_v<D> || R == 0)
        return runtime_dim;
    else
        return wrap_dim_c<std::remove_cvref_t<D>::value, R>();
}

/// The compile-time checks of cat (or stack) over Seq along D, in PyTorch's order.
template <bool Stack, class Seq, class D>
constexpr join_issue static_issue() {
    using traits = tensor_sequence<Seq>;
    if constexpr (traits::fixed_count) {
        return []<class... Ts>(std::tuple<Ts...>*) {
            if constexpr (sizeof...(Ts) == 0) {
                return join_issue::empty;
            } else {
                constexpr std::size_t R = std::tuple_element_t<0, std::tuple<Ts...>>::rank;
                return static_join_issue<Stack, static_cat_dim<Stack, D, R>(),
                                         typename Ts::shape_type...>();
            }
        }(static_cast<typename traits::tensor_types*>(nullptr));
    } else {
        return first_tensor_t<Seq>::rank == 0 && !Stack ? join_issue::zero_dim : join_issue::none;
    }
}

// ---- run time -----------------------------------------------------------------------------

/// Copies src into the slab [offset, offset + src.size(d)) along dim d of `out`, a contiguous
/// buffer of sizes `out_sizes` whose other extents are src's.
template <class Out, std::size_t R, class T, class S>
void copy_into_slab(Out* out, const std::array<std::int64_t, R>& out_sizes, std::size_t d,
                    std::int64_t offset, const Tensor<T, S>& src) {
    if (src.numel() == 0)
        return;
    const auto out_strides = contiguous_strides(out_sizes);
    Out* slab = out + offset * out_strides[d];
    if constexpr (std::is_same_v<Out, T>) {
        if (src.is_contiguous()) {
            // src is `outer` runs of `run` elements, each landing whole in one run of the output.
            const std::int64_t run = src.sizes()[d] * out_strides[d];
            const std::int64_t out_run = out_sizes[d] * out_strides[d];
            const std::int64_t outer = src.numel() / run;
            for (std::int64_t o = 0; o < outer; ++o)
                std::memcpy(slab + o * out_run, src.data() + o * run,
                            static_cast<std::size_t>(run) * sizeof(T));
            return;
        }
    }
    const T* p = src.data();
    for_each_offset2(src.sizes(), 0, out_strides, 0, src.strides(),
                     [&](std::int64_t a, std::int64_t b) { slab[a] = convert<Out>(p[b]); });
}

/// torch.cat after the compile-time checks: the run-time ones, then one copy per input.
template <class Out, class OutShape, class Seq>
Tensor<Out, OutShape> cat_impl(const Seq& tensors, std::size_t d) {
    constexpr std::size_t R = OutShape::rank;
    std::array<std::int64_t, R> sizes{};
    for_each_tensor(tensors, [&](std::size_t k, const auto& t) {
        if (k == 0) {
            sizes = t.sizes();
            return;
        }
        for (std::size_t i = 0; i < R; ++i)
            if (i != d && t.sizes()[i] != sizes[i])
                throw RuntimeError("Sizes of tensors must match except in dimension " +
                                   std::to_string(d) + ". Expected size " +
                                   std::to_string(sizes[i]) + " but got size " +
                                   std::to_string(t.sizes()[i]) + " for tensor number " +
                                   std::to_string(k) + " in the list.");
        if (__builtin_add_overflow(sizes[d], t.sizes()[d], &sizes[d])) {
            sizes[d] = std::numeric_limits<std::int64_t>::max();
            throw_size_overflow(sizes);
        }
    });
    // The inputs' device (PyTorch's error where they are on two).
    Device device;
    for_each_tensor(tensors, [&](std::size_t k, const auto& t) {
        if (k == 0)
            device = t.device();
        else if (t.device() != device)
            throw_device_mismatch(device, t.device());
    });
    Tensor<Out, OutShape> out{OutShape(sizes), device};
    std::int64_t offset = 0;
    for_each_tensor(tensors, [&](std::size_t, const auto& t) {
        if (out.is_cuda()) { // each input copied into its slab, a view of the output there
            using slab_t = Tensor<Out, typename std::remove_cvref_t<decltype(t)>::shape_type>;
            slab_t(out.storage(), out.storage_offset() + offset * out.strides()[d], t.shape(),
                   out.strides())
                .copy_(t);
        } else
            copy_into_slab(out.data(), sizes, d, offset, t);
        offset += t.sizes()[d];
    });
    return out;
}

/// The tensors of a stack, each unsqueezed at dim: a std::tuple of views for a tuple or list, a
/// std::vector of views for a vector.
template <class Seq, class D>
auto unsqueezed(const Seq& tensors, const D& dim) {
    using traits = tensor_sequence<Seq>;
    if constexpr (traits::fixed_count) {
        return [&]<std::size_t... K>(std::index_sequence<K...>) {
            return std::make_tuple(traits::template get<K>(tensors).unsqueeze(dim)...);
        }
        (std::make_index_sequence<traits::count>{});
    } else {
        std::vector<decltype(tensors[0].unsqueeze(dim))> out;
        out.reserve(tensors.size());
        for (const auto& t : tensors)
            out.push_back(t.unsqueeze(dim));
        return out;
    }
}

} // namespace detail::index_ops

/// torch.cat(tensors, dim): the tensors joined along dim, which must exist in each (a zero-dim
/// tensor cannot be concatenated); the other extents must match. The element type is PyTorch's
/// promotion of the inputs' (an int64 and a float tensor give float). A compile-time dim keeps
/// the extents static where the inputs' are: a tuple's or list's static extents along dim add up.
///   auto ab = cat(std::make_tuple(zeros<float>(2_c, 3_c), ones<float>(4_c, 3_c)), 0_c);
///   static_assert(std::is_same_v<decltype(ab)::shape_type, static_shape<6, 3>>);
template <class Seq, detail::dim_argument D>
requires detail::index_ops::tensors_argument<Seq>
auto cat(const Seq& tensors, D dim) {
    namespace j = detail::index_ops;
    constexpr j::join_issue issue = j::static_issue<false, Seq, D>();
    static_assert(issue != j::join_issue::empty,
                  "staticpy: RuntimeError: torch.cat(): expected a non-empty list of Tensors");
    static_assert(issue != j::join_issue::zero_dim,
                  "staticpy: RuntimeError: zero-dimensional tensor cannot be concatenated");
    static_assert(issue != j::join_issue::ranks_differ,
                  "staticpy: RuntimeError: Tensors must have same number of dimensions");
    static_assert(issue != j::join_issue::sizes_differ,
                  "staticpy: RuntimeError: Sizes of tensors must match except in dimension dim");
    if constexpr (issue == j::join_issue::none) {
        using Result = j::cat_shape_t<Seq, D>;
        if (j::tensor_count(tensors) == 0)
            throw RuntimeError("torch.cat(): expected a non-empty list of Tensors");
        const std::size_t d = j::resolve_dim<Result::rank>(dim);
        return j::cat_impl<typename j::cat_element<Seq>::type, Result>(tensors, d);
    }
}

/// torch.stack(tensors, dim): the tensors, all of one size, joined along a new dim (in
/// [-rank - 1, rank]). A tuple or list of N tensors gives that dim the static extent N; a vector a
/// dynamic one. Element types promote as cat's.
///   auto s = stack(list(zeros<float>(2_c, 3_c), ones<float>(2_c, 3_c)), 0_c);
///   static_assert(std::is_same_v<decltype(s)::shape_type, static_shape<2, 2, 3>>);
template <class Seq, detail::dim_argument D>
requires detail::index_ops::tensors_argument<Seq>
auto stack(const Seq& tensors, D dim) {
    namespace j = detail::index_ops;
    constexpr j::join_issue issue = j::static_issue<true, Seq, D>();
    static_assert(issue != j::join_issue::empty,
                  "staticpy: RuntimeError: stack expects a non-empty TensorList");
    static_assert(issue == j::join_issue::none || issue == j::join_issue::empty,
                  "staticpy: RuntimeError: stack expects each tensor to be equal size");
    if constexpr (issue == j::join_issue::none) {
        if (j::tensor_count(tensors) == 0)
            throw RuntimeError("stack expects a non-empty TensorList");
        constexpr std::size_t R = j::first_tensor_t<Seq>::rank;
        (void)j::resolve_dim<R + 1>(dim); // PyTorch wraps the dim before comparing the sizes
        std::array<std::int64_t, R> first{};
        j::for_each_tensor(tensors, [&](std::size_t k, const auto& t) {
            if (k == 0)
                first = t.sizes();
            else if (t.sizes() != first)
                throw RuntimeError("stack expects each tensor to be equal size, but got " +
                                   detail::sizes_text(first) + " at entry 0 and " +
                                   detail::sizes_text(t.sizes()) + " at entry " +
                                   std::to_string(k));
        });
        return cat(j::unsqueezed(tensors, dim), dim);
    }
}

} // namespace staticpy
