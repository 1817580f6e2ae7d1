#pragma once
// A Tensor's shape: its rank is known at compile time, and each extent is either static (an
// int_<N>, known at compile time) or dynamic (a std::int64_t, known at run time). It reads like a
// staticpy list of extents:
//   auto s = staticpy::shape(2_c, n);          // shape<int_<2>, std::int64_t>: a static 2, a
//   run-time n static_assert(decltype(s)::static_extent<0>() == 2); repr(s) == "Size([2, 5])" // as
//   torch.Size prints
// A fully static shape lets operations check shapes at compile time; a dynamic one is checked
// when the operation runs.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"

namespace staticpy {

template <class... Extents>
class shape;

namespace detail {

template <class E>
struct extent_traits {
    static constexpr bool valid = false;
};
template <long long N>
struct extent_traits<int_<N>> {
    static constexpr bool valid = N >= 0;
    static constexpr std::int64_t value = N; // static extent
};
template <>
struct extent_traits<std::int64_t> {
    static constexpr bool valid = true;
    static constexpr std::int64_t value = -1; // dynamic
};

/// The Extent type that an argument stands for: a compile-time int becomes int_<N>, any run-time
/// integer std::int64_t.
template <class A, class = void>
struct extent_of {
    using type = std::int64_t;
};
template <class A>
struct extent_of<A, std::enable_if_t<is_int_constant_v<A>>> {
    using type = int_<static_cast<long long>(A::value)>;
};
template <class A>
using extent_of_t = typename extent_of<std::remove_cvref_t<A>>::type;

template <class A>
inline constexpr bool is_extent_argument_v = is_int_constant_v<std::remove_cvref_t<A>> ||
                                             (std::is_integral_v<std::remove_cvref_t<A>> &&
                                              !std::is_same_v<std::remove_cvref_t<A>, bool>);

template <class A>
constexpr std::int64_t extent_value(const A& a) {
    if constexpr (is_int_constant_v<std::remove_cvref_t<A>>)
        return static_cast<std::int64_t>(std::remove_cvref_t<A>::value);
    else
        return static_cast<std::int64_t>(a);
}

template <class T>
struct is_shape : std::false_type {};
template <class... Es>
struct is_shape<shape<Es...>> : std::true_type {};

template <std::size_t R, class... Es>
struct repeat_dynamic : repeat_dynamic<R - 1, std::int64_t, Es...> {};
template <class... Es>
struct repeat_dynamic<0, Es...> {
    using type = shape<Es...>;
};

// Type-level editing of shapes: what the view operations compute their result type with.
template <class A, class B>
struct shape_cat;
template <class... As, class... Bs>
struct shape_cat<shape<As...>, shape<Bs...>> {
    using type = shape<As..., Bs...>;
};

template <std::size_t I, class S>
struct shape_element;
template <std::size_t I, class E, class... Es>
struct shape_element<I, shape<E, Es...>> : shape_element<I - 1, shape<Es...>> {};
template <class E, class... Es>
struct shape_element<0, shape<E, Es...>> {
    using type = E;
};

template <class S, class Seq>
struct shape_pick;
template <class S, std::size_t... I>
struct shape_pick<S, std::index_sequence<I...>> {
    using type = shape<typename shape_element<I, S>::type...>;
};

template <std::size_t Offset, class Seq>
struct offset_seq;
template <std::size_t Offset, std::size_t... I>
struct offset_seq<Offset, std::index_sequence<I...>> {
    using type = std::index_sequence<(Offset + I)...>;
};

/// S[Begin:End] as a shape type.
template <class S, std::size_t Begin, std::size_t End>
using shape_range_t = typename shape_pick<
    S, typename offset_seq<Begin, std::make_index_sequence<End - Begin>>::type>::type;

} // namespace detail

template <class S>
inline constexpr bool is_shape_v = detail::is_shape<std::remove_cvref_t<S>>::value;

/// A shape of rank R whose extents are all dynamic.   dynamic_shape<2> is shape<int64_t, int64_t>
template <std::size_t R>
using dynamic_shape = typename detail::repeat_dynamic<R>::type;

/// Whether S is its rank's dynamic_shape. Code whose work depends on a tensor's dtype and rank
/// alone runs on that shape, compiled once per (dtype, rank) rather than once per static shape;
/// this says whether a tensor is already seen so.
template <class S>
inline constexpr bool is_dynamic_shape_v = std::is_same_v<S, dynamic_shape<S::rank>>;

/// A fully static shape.   static_shape<2, 3> is shape<int_<2>, int_<3>>
template <long long... N>
using static_shape = shape<int_<N>...>;

/// The I-th Extent type of shape S (int_<N> or std::int64_t).
template <class S, std::size_t I>
using shape_extent_t = typename detail::shape_element<I, S>::type;

/// S with every extent dynamic: the type of a shape whose values are only known at run time.
template <class S>
using make_dynamic_t = dynamic_shape<S::rank>;

/// S without its dimension I.
template <class S, std::size_t I>
using shape_erase_t = typename detail::shape_cat<detail::shape_range_t<S, 0, I>,
                                                 detail::shape_range_t<S, I + 1, S::rank>>::type;

/// S with E inserted before dimension I.
template <class S, std::size_t I, class E>
using shape_insert_t = typename detail::shape_cat<
    typename detail::shape_cat<detail::shape_range_t<S, 0, I>, shape<E>>::type,
    detail::shape_range_t<S, I, S::rank>>::type;

/// S with dimension I replaced by E.
template <class S, std::size_t I, class E>
using shape_replace_t = shape_insert_t<shape_erase_t<S, I>, I, E>;

namespace detail {

/// Whether the product of `sizes`, zeros counted as 1, fits in int64. It bounds numel() and every
/// contiguous stride, so one check here keeps each later product in range, including a zero next
/// to huge sizes, whose numel is 0 but whose strides are not.
template <std::size_t R>
constexpr bool sizes_fit(const std::array<std::int64_t, R>& sizes) {
    std::int64_t product = 1;
    for (std::int64_t e : sizes)
        if (__builtin_mul_overflow(product, e > 1 ? e : 1, &product))
            return false;
    return true;
}

/// "[2, 3]": how PyTorch writes a size list in its messages.
template <class Range>
std::string sizes_text(const Range& sizes) {
    std::string out = "[";
    bool first = true;
    for (auto e : sizes) {
        if (!first)
            out += ", ";
        first = false;
        out += std::to_string(e);
    }
    return out + "]";
}

/// PyTorch's RuntimeError for sizes that fail sizes_fit. (The error paths take a pointer and a
/// rank, not an array: one function for every shape type, as they are cold.)
[[noreturn]] inline void throw_size_overflow(const std::int64_t* sizes, std::size_t rank) {
    throw RuntimeError("Storage size calculation overflowed with sizes=" +
                       sizes_text(std::span<const std::int64_t>(sizes, rank)) +
                       " (the product of the sizes, zeros counted as 1, exceeds 2^63 - 1)");
}
template <std::size_t R>
[[noreturn]] void throw_size_overflow(const std::array<std::int64_t, R>& sizes) {
    throw_size_overflow(sizes.data(), R);
}

/// The RuntimeError for sizes a shape rejects: a negative size (PyTorch's message), a size
/// other than its dim's static extent (-1: dynamic), or a product past int64.
[[noreturn]] inline void throw_invalid_sizes(const std::int64_t* sizes,
                                             const std::int64_t* static_extents, std::size_t rank) {
    for (std::size_t i = 0; i < rank; ++i) {
        if (sizes[i] < 0)
            throw RuntimeError("Trying to create tensor with negative dimension " +
                               std::to_string(sizes[i]) + ": " +
                               sizes_text(std::span<const std::int64_t>(sizes, rank)));
        if (static_extents[i] >= 0 && sizes[i] != static_extents[i])
            throw RuntimeError("size " + std::to_string(sizes[i]) + " at dimension " +
                               std::to_string(i) + " does not match its static extent " +
                               std::to_string(static_extents[i]));
    }
    throw_size_overflow(sizes, rank);
}

} // namespace detail

template <class... Extents>
class shape {
    static_assert((detail::extent_traits<Extents>::valid && ...),
                  "staticpy: TypeError: a shape extent is int_<N> (N >= 0) or std::int64_t");

public:
    using sizes_type = std::array<std::int64_t, sizeof...(Extents)>;

    /// The number of dimensions, len(size).
    static constexpr std::size_t rank = sizeof...(Extents);
    /// Each extent's compile-time value, -1 where it is dynamic.
    static constexpr sizes_type static_extents{detail::extent_traits<Extents>::value...};
    /// Whether every extent is known at compile time.
    static constexpr bool is_static = ((detail::extent_traits<Extents>::value >= 0) && ...);
    /// Whether the static extents' product (zeros counted as 1, as validate() counts them)
    /// stays within int64: numel and every contiguous stride then do.
    static constexpr bool static_extents_fit = detail::sizes_fit(static_extents);
    static_assert(static_extents_fit,
                  "staticpy: RuntimeError: Storage size calculation overflowed: the product of "
                  "the static extents exceeds 2^63 - 1");
    /// The element count when the shape is static, -1 otherwise.
    static constexpr std::int64_t static_numel = [] {
        std::int64_t n = 1;
        for (std::int64_t e : static_extents) {
            if (e < 0)
                return std::int64_t{-1};
            n = static_extents_fit ? n * e : 0;
        }
        return n;
    }();

    /// The extent of dimension I known at compile time, or -1 when it is dynamic.
    template <std::size_t I>
    static constexpr std::int64_t static_extent() {
        static_assert(I < rank, "staticpy: IndexError: Dimension out of range");
        return static_extents[I];
    }

    /// Static extents take their value, dynamic ones are 0.
    constexpr shape()
        : sizes_{(detail::extent_traits<Extents>::value < 0
                      ? 0
                      : detail::extent_traits<Extents>::value)...} {}

    /// shape(2_c, n): one argument per dimension, a compile-time int for a static extent (its
    /// value must match), any integer for a dynamic one, or a run-time integer for a static extent
    /// (checked: RuntimeError when it differs). Negative sizes are a RuntimeError, as in PyTorch.
    template <class... Args>
    requires(
        sizeof...(Args) == sizeof...(Extents) && sizeof...(Args) > 0 &&
        (detail::is_extent_argument_v<Args> &&
         ...)) constexpr shape(const Args&... args) // NOLINT: implicit, so that {2, 3} converts
        : sizes_{detail::extent_value(args)...} {
        check_static_arguments<Args...>(std::index_sequence_for<Args...>{});
        validate();
    }

    /// From run-time sizes (checked against the static extents).
    constexpr explicit shape(const sizes_type& sizes) : sizes_(sizes) { validate(); }

    /// From another shape of the same rank: implicit when every static extent here is static
    /// and equal there; otherwise explicit, checked at run time. Two static extents that differ
    /// are a compile error.
    template <class... Fs>
    requires(sizeof...(Fs) == sizeof...(Extents) &&
             !std::is_same_v<shape<Fs...>,
                             shape>) constexpr explicit(!((detail::extent_traits<Extents>::value <
                                                               0 ||
                                                           detail::extent_traits<Extents>::value ==
                                                               detail::extent_traits<Fs>::value) &&
                                                          ...)) shape(const shape<Fs...>& other)
        : sizes_(other.sizes()) {
        static_assert(
            ((detail::extent_traits<Extents>::value < 0 || detail::extent_traits<Fs>::value < 0 ||
              detail::extent_traits<Extents>::value == detail::extent_traits<Fs>::value) &&
             ...),
            "staticpy: RuntimeError: shapes with different static extents");
        validate();
    }

    /// The extent of dimension i (0 <= i < rank), as torch.Size[i].
    constexpr std::int64_t operator[](std::size_t i) const { return sizes_[i]; }
    /// All extents.
    constexpr const sizes_type& sizes() const { return sizes_; }
    constexpr auto begin() const { return sizes_.begin(); }
    constexpr auto end() const { return sizes_.end(); }
    static constexpr std::size_t size() { return rank; }

    /// The I-th extent as its Extent type: int_<N> when static, std::int64_t otherwise.
    template <std::size_t I>
    constexpr auto get() const {
        static_assert(I < rank, "staticpy: IndexError: Dimension out of range");
        using E = shape_extent_t<shape, I>;
        if constexpr (std::is_same_v<E, std::int64_t>)
            return sizes_[I];
        else
            return E{};
    }

    /// Calls f with every extent as get<I>() gives it, as std::apply does with a tuple:
    ///   s.apply([&](auto... e) { return t.view(e...); })   // the static extents stay static
    template <class F>
    constexpr decltype(auto) apply(F&& f) const {
        return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
            return f(get<I>()...);
        }
        (std::make_index_sequence<rank>{});
    }

    /// torch.Size.numel(): the product of the extents (1 for rank 0).
    constexpr std::int64_t numel() const {
        if constexpr (is_static) {
            return static_numel;
        } else {
            std::int64_t n = 1;
            for (std::int64_t e : sizes_)
                n *= e;
            return n;
        }
    }

    /// Equal extents (static or not) compare equal, as torch.Size does.
    template <class... Fs>
    friend constexpr bool operator==(const shape& a, const shape<Fs...>& b) {
        if constexpr (sizeof...(Fs) != rank) {
            return false;
        } else {
            for (std::size_t i = 0; i < rank; ++i)
                if (a.sizes_[i] != b[i])
                    return false;
            return true;
        }
    }

    /// "Size([2, 3])", as repr(torch.Size([2, 3])) prints without the "torch." prefix.
    void repr_into(std::string& out) const {
        out += "Size([";
        for (std::size_t i = 0; i < rank; ++i) {
            if (i != 0)
                out += ", ";
            out += std::to_string(sizes_[i]);
        }
        out += "])";
    }
    /// Streams repr(s); a template so that only <iosfwd> is needed here.
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                         const shape& s) {
        std::string text;
        s.repr_into(text);
        return os << text;
    }

private:
    template <class... Args, std::size_t... I>
    static constexpr void check_static_arguments(std::index_sequence<I...>) {
        static_assert(((!is_int_constant_v<std::remove_cvref_t<Args>> || static_extents[I] < 0 ||
                        static_extents[I] == detail::extent_value(std::remove_cvref_t<Args>{})) &&
                       ...),
                      "staticpy: RuntimeError: a static extent does not match its value");
    }

    constexpr void validate() const {
        bool valid = detail::sizes_fit(sizes_);
        for (std::size_t i = 0; i < rank; ++i)
            valid = valid && sizes_[i] >= 0 &&
                    (static_extents[i] < 0 || sizes_[i] == static_extents[i]);
        if (!valid)
            detail::throw_invalid_sizes(sizes_.data(), static_extents.data(), rank);
    }

    sizes_type sizes_;
};

template <>
class shape<> {
public:
    using sizes_type = std::array<std::int64_t, 0>;
    static constexpr std::size_t rank = 0;
    static constexpr sizes_type static_extents{};
    static constexpr bool is_static = true;
    static constexpr std::int64_t static_numel = 1;
    constexpr shape() = default;
    constexpr explicit shape(const sizes_type&) {}
    constexpr std::int64_t operator[](std::size_t) const { return 0; }
    constexpr const sizes_type& sizes() const { return sizes_; }
    constexpr auto begin() const { return sizes_.begin(); }
    constexpr auto end() const { return sizes_.end(); }
    static constexpr std::size_t size() { return 0; }
    static constexpr std::int64_t numel() { return 1; }
    /// f() (no extents), as apply of a shape of rank 1 or more: reshape(shape<>) is reshape().
    template <class F>
    constexpr decltype(auto) apply(F&& f) const {
        return f();
    }
    template <class... Fs>
    friend constexpr bool operator==(const shape&, const shape<Fs...>&) {
        return sizeof...(Fs) == 0;
    }
    void repr_into(std::string& out) const { out += "Size([])"; }
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                         const shape&) {
        return os << "Size([])";
    }

private:
    sizes_type sizes_{};
};

/// shape(2_c, n): compile-time ints become static extents, run-time integers dynamic ones.
template <class... Args>
shape(const Args&...) -> shape<detail::extent_of_t<Args>...>;

} // namespace staticpy
