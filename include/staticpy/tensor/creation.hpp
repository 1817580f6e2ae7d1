#pragma once
// Creating tensors, with PyTorch's names. Extents are compile-time ints (static) or run-time
// integers (dynamic), or a staticpy::shape; the element type of the float factories defaults to
// the default dtype (default_float_t: float, PyTorch's float32, unless the program sets
// STATICPY_DEFAULT_DTYPE, dtype.hpp), and tensor({...}), full and arange infer it from their
// values as torch's do.
//   auto a = staticpy::zeros(2_c, 3_c);                    // Tensor<float, shape<int_<2>,
//   int_<3>>> auto b = staticpy::full<double>(n, 3_c, 1.5);          // dynamic n x static 3,
//   all 1.5 auto c = staticpy::tensor<float>({{1, 2}, {3, 4}});    // 2-D dynamic shape auto r =
//   staticpy::rand(2_c, 2_c, gen);                // uniform [0, 1) from a Generator

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/generator.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace detail {

template <class... A>
using shape_of_args_t = shape<extent_of_t<A>...>;

/// Calls f with the first N of args.
template <std::size_t N, class F, class Tuple>
decltype(auto) apply_first(F&& f, Tuple&& tup) {
    return [&]<std::size_t... I>(std::index_sequence<I...>)->decltype(auto) {
        return f(std::get<I>(tup)...);
    }
    (std::make_index_sequence<N>{});
}

template <class... A>
using last_t = std::remove_cvref_t<std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>>;

/// f(shape(extents...), device) for the arguments (extents..., Skip others, device) of a
/// creation function that takes a device last.
template <std::size_t Skip = 0, class F, class... A>
auto shape_and_device(F&& f, const A&... args) {
    const auto tup = std::make_tuple(args...);
    const Device device(std::get<sizeof...(A) - 1>(tup));
    return apply_first<sizeof...(A) - 1 - Skip>([&](auto... e) { return f(shape(e...), device); },
                                                tup);
}

template <class T, class S, class F>
Tensor<T, S> generate(const S& s, F&& f) {
    Tensor<T, S> out(s);
    T* p = out.data();
    const std::int64_t n = out.numel();
    for (std::int64_t i = 0; i < n; ++i)
        p[i] = f(i);
    return out;
}

template <class T, class G>
T uniform_sample(G& g) {
    if constexpr (std::is_same_v<T, float>)
        return g.uniform_float();
    else
        return static_cast<T>(g.uniform());
}

} // namespace detail

// ---- empty / zeros / ones / full -------------------------------------------------------------
// Each takes a device last, as PyTorch's device= (a Device, or kCPU / kCUDA):
//   zeros<float>(2, 3, kCUDA)   full<int>(shape(4_c), 7, Device("cuda:1"))
// A filled tensor on a GPU is filled there (fill_).

/// A Device, or a DeviceType (kCUDA) meaning that type's current device.
template <class D>
concept device_argument = std::is_same_v<D, Device> || std::is_same_v<D, DeviceType>;

namespace detail {
/// Whether a creation function's arguments end with one of type Last (cv and references aside).
template <class Last, class... A>
inline constexpr bool ends_with_v = [] {
    if constexpr (sizeof...(A) == 0)
        return false;
    else
        return std::is_same_v<last_t<A...>, Last>;
}();

/// Whether they end with a device (a Device, or a DeviceType).
template <class... A>
inline constexpr bool ends_with_device_v =
    ends_with_v<Device, A...> || ends_with_v<DeviceType, A...>;

/// make(the arguments but the last) on the host, moved to the device the arguments end with:
/// arange, linspace, eye and the random functions with a device (no device kernels for them
/// yet: one copy, as a filled tensor's).
template <class F, class... A>
auto made_then_moved(F&& make, A&&... args) {
    const auto tup = std::forward_as_tuple(args...);
    const Device device(std::get<sizeof...(A) - 1>(tup));
    return apply_first<sizeof...(A) - 1>(make, tup).to(device);
}
} // namespace detail

/// torch.empty: uninitialised elements (bools are false on the CPU).   empty<float>(2_c, n)
template <class T = default_float_t, class... Es>
Tensor<T, shape<Es...>> empty(const shape<Es...>& s, const Device& device = Device{}) {
    return Tensor<T, shape<Es...>>(s, device);
}
template <class T = default_float_t, class... A>
requires extent_arguments<A...>
auto empty(A... extents) {
    return empty<T>(detail::shape_of_args_t<A...>(extents...));
}

namespace detail {
/// The dtype torch.tensor and torch.full infer from a Python value: bool, int64 for an integer,
/// the default dtype for a float (whatever the C++ type: 1.0 and 1.0f alike, as both are Python
/// floats).
template <class V>
using inferred_element_t = std::conditional_t<
    std::is_same_v<V, bool>, bool,
    std::conditional_t<std::is_floating_point_v<V>, default_float_t, std::int64_t>>;
/// full's element type: T where given (void: not given), else inferred from the value's type.
template <class T, class V>
using fill_element_t = typename std::conditional_t<std::is_void_v<T>, std::type_identity<V>,
                                                   std::type_identity<T>>::type;
} // namespace detail

/// torch.full: every element `value`; its type is T where given, else as torch.full infers it
/// (bool, int64 for an integer, the default dtype for a float).
///   full<float>(shape(2_c, 3_c), 7)   full(2, 3, 1.5)   full(shape(4_c), true)
template <class T = void, class V, class... Es>
requires(!std::is_void_v<T> || std::is_arithmetic_v<V>)
    Tensor<detail::fill_element_t<T, detail::inferred_element_t<V>>, shape<Es...>> full(
        const shape<Es...>& s, V value, const Device& device = Device{}) {
    using U = detail::fill_element_t<T, detail::inferred_element_t<V>>;
    auto t = empty<U>(s, device);
    if (device.is_cpu())
        std::fill_n(t.data(), t.numel(), static_cast<U>(value));
    else
        t.fill_(static_cast<U>(value)); // on the device: one element copied up, then broadcast
    return t;
}
/// full<T>(extents..., value): the last argument is the value.
template <class T = void, class... A>
requires(sizeof...(A) >= 2 && std::is_arithmetic_v<detail::last_t<A...>>) auto full(A... args) {
    auto tup = std::make_tuple(args...);
    const auto value = std::get<sizeof...(A) - 1>(tup);
    return detail::apply_first<sizeof...(A) - 1>(
        [&](auto... e) { return full<T>(shape(e...), value); }, tup);
}

/// torch.zeros.   zeros<double>(3_c)
template <class T = default_float_t, class... Es>
Tensor<T, shape<Es...>> zeros(const shape<Es...>& s, const Device& device = Device{}) {
    return full<T>(s, T(0), device);
}
template <class T = default_float_t, class... A>
requires extent_arguments<A...>
auto zeros(A... extents) {
    return zeros<T>(detail::shape_of_args_t<A...>(extents...));
}

/// torch.ones.
template <class T = default_float_t, class... Es>
Tensor<T, shape<Es...>> ones(const shape<Es...>& s, const Device& device = Device{}) {
    return full<T>(s, T(1), device);
}
template <class T = default_float_t, class... A>
requires extent_arguments<A...>
auto ones(A... extents) {
    return ones<T>(detail::shape_of_args_t<A...>(extents...));
}

/// empty / zeros / ones (extents..., device) and full(extents..., value, device).
template <class T = default_float_t, class... A>
requires(sizeof...(A) >= 1 && device_argument<detail::last_t<A...>>) auto empty(A... args) {
    return detail::shape_and_device([](const auto& s, const Device& d) { return empty<T>(s, d); },
                                    args...);
}
template <class T = default_float_t, class... A>
requires(sizeof...(A) >= 1 && device_argument<detail::last_t<A...>>) auto zeros(A... args) {
    return detail::shape_and_device([](const auto& s, const Device& d) { return zeros<T>(s, d); },
                                    args...);
}
template <class T = default_float_t, class... A>
requires(sizeof...(A) >= 1 && device_argument<detail::last_t<A...>>) auto ones(A... args) {
    return detail::shape_and_device([](const auto& s, const Device& d) { return ones<T>(s, d); },
                                    args...);
}
template <class T = void, class... A>
requires(sizeof...(A) >= 2 && device_argument<detail::last_t<A...>>) auto full(A... args) {
    const auto value = std::get<sizeof...(A) - 2>(std::make_tuple(args...));
    return detail::shape_and_device<1>(
        [&](const auto& s, const Device& d) { return full<T>(s, value, d); }, args...);
}

/// zeros_like / ones_like / empty_like / full_like: same shape type, element type and device.
template <class T, class S>
Tensor<T, S> empty_like(const Tensor<T, S>& t) {
    return empty<T>(t.shape(), t.device());
}
template <class T, class S>
Tensor<T, S> zeros_like(const Tensor<T, S>& t) {
    return zeros<T>(t.shape(), t.device());
}
template <class T, class S>
Tensor<T, S> ones_like(const Tensor<T, S>& t) {
    return ones<T>(t.shape(), t.device());
}
template <class T, class S>
Tensor<T, S> full_like(const Tensor<T, S>& t, T value) {
    return full<T>(t.shape(), value, t.device());
}

// ---- ranges ----------------------------------------------------------------------------------

/// torch.arange(start, end, step): ceil((end - start) / step) values start + i * step, 1-D
/// dynamic. T defaults as PyTorch's: int64 when every argument is an integer, the default dtype
/// otherwise (arange(12.0) is float32, or float64 with STATICPY_DEFAULT_DTYPE float64).
template <class T = void, class A, class B, class C>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B> && std::is_arithmetic_v<C>
auto arange(A start, B end, C step) {
    using U = std::conditional_t<
        std::is_void_v<T>,
        std::conditional_t<std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>,
                           std::int64_t, default_float_t>,
        T>;
    const double s = static_cast<double>(start), e = static_cast<double>(end),
                 st = static_cast<double>(step);
    if (st == 0)
        throw RuntimeError("step must be nonzero");
    if (!std::isfinite(s) || !std::isfinite(e))
        throw RuntimeError("unsupported range: " + std::to_string(s) + " -> " + std::to_string(e));
    if ((st > 0 && e < s) || (st < 0 && e > s))
        throw RuntimeError("upper bound and larger bound inconsistent with step sign");
    std::int64_t n = 0;
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>) {
        const auto a = static_cast<std::int64_t>(start), b = static_cast<std::int64_t>(end),
                   c = static_cast<std::int64_t>(step);
        n = c > 0 ? (b - a + c - 1) / c : (a - b - c - 1) / -c;
    } else {
        n = static_cast<std::int64_t>(std::ceil((e - s) / st));
    }
    return detail::generate<U>(dynamic_shape<1>(n), [&](std::int64_t i) {
        if constexpr (std::is_integral_v<A> && std::is_integral_v<C>)
            return static_cast<U>(static_cast<std::int64_t>(start) +
                                  i * static_cast<std::int64_t>(step));
        else
            return static_cast<U>(s + static_cast<double>(i) * st);
    });
}
template <class T = void, class A, class B>
requires std::is_arithmetic_v<A> && std::is_arithmetic_v<B>
auto arange(A start, B end) {
    return arange<T>(start, end, 1);
}
template <class T = void, class B>
requires std::is_arithmetic_v<B>
auto arange(B end) {
    return arange<T>(0, end, 1);
}

/// arange(..., device): made on the host, then moved there.   arange<float>(10, kCUDA)
template <class T = void, class... A>
requires(sizeof...(A) >= 2 && sizeof...(A) <= 4 &&
         detail::ends_with_device_v<A...>) auto arange(const A&... args) {
    return detail::made_then_moved([](const auto&... a) { return arange<T>(a...); }, args...);
}

/// torch.linspace(start, end, steps): `steps` evenly spaced values from start to end, computed
/// as PyTorch does (the first half from start, the second half back from end).
template <class T = default_float_t>
Tensor<T, dynamic_shape<1>> linspace(double start, double end, std::int64_t steps) {
    if (steps < 0)
        throw RuntimeError("number of steps must be non-negative");
    const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
    const std::int64_t half = steps / 2;
    return detail::generate<T>(dynamic_shape<1>(steps), [&](std::int64_t i) {
        if (steps == 1)
            return static_cast<T>(start);
        return static_cast<T>(i < half ? start + step * static_cast<double>(i)
                                       : end - step * static_cast<double>(steps - i - 1));
    });
}

/// linspace(start, end, steps, device).
template <class T = default_float_t, class D>
requires device_argument<D> Tensor<T, dynamic_shape<1>> linspace(double start, double end,
                                                                 std::int64_t steps, D device) {
    return linspace<T>(start, end, steps).to(Device(device));
}

/// torch.eye(n) / eye(n, m): ones on the diagonal.   eye(3_c)
template <class T = default_float_t, class N, class M>
requires extent_arguments<N, M>
auto eye(N n, M m) {
    auto t = zeros<T>(n, m);
    const std::int64_t k = std::min(t.size(0), t.size(1));
    for (std::int64_t i = 0; i < k; ++i)
        t.data()[i * t.stride(0) + i] = T(1);
    return t;
}
template <class T = default_float_t, class N>
requires extent_arguments<N>
auto eye(N n) {
    return eye<T>(n, n);
}
/// eye(n, device) / eye(n, m, device).
template <class T = default_float_t, class... A>
requires((sizeof...(A) == 2 || sizeof...(A) == 3) &&
         detail::ends_with_device_v<A...>) auto eye(const A&... args) {
    return detail::made_then_moved([](const auto&... a) { return eye<T>(a...); }, args...);
}

// ---- from data -------------------------------------------------------------------------------

/// torch.from_blob: a non-owning, contiguous view of the caller's memory (kept alive by them).
///   float buf[6]; auto t = from_blob(buf, 2_c, 3_c);
template <class T, class... Es>
Tensor<T, shape<Es...>> from_blob(T* data, const shape<Es...>& s) {
    return Tensor<T, shape<Es...>>(Storage<T>::wrap(data, s.numel()), 0, s,
                                   detail::contiguous_strides(s.sizes()));
}
template <class T, class... A>
requires extent_arguments<A...>
auto from_blob(T* data, A... extents) {
    return from_blob(data, detail::shape_of_args_t<A...>(extents...));
}

/// A tensor holding a copy of `values` with the given shape (RuntimeError "shape '[2, 4]' is
/// invalid for input of size 6" when the counts differ).   tensor<float>(v, 2_c, 3_c)
template <class T, class... Es>
Tensor<T, shape<Es...>> tensor(const std::vector<T>& values, const shape<Es...>& s) {
    if (s.numel() != static_cast<std::int64_t>(values.size()))
        throw RuntimeError("shape '" + detail::sizes_text(s.sizes()) +
                           "' is invalid for input of size " + std::to_string(values.size()));
    auto t = empty<T>(s);
    std::copy(values.begin(), values.end(), t.data());
    return t;
}
template <class T, class... A>
requires(sizeof...(A) > 0 && extent_arguments<A...>) auto tensor(const std::vector<T>& values,
                                                                 A... extents) {
    return tensor(values, detail::shape_of_args_t<A...>(extents...));
}
/// A 1-D tensor holding a copy of `values`.
template <class T>
Tensor<T, dynamic_shape<1>> from_vector(const std::vector<T>& values) {
    return tensor(values, dynamic_shape<1>(static_cast<std::int64_t>(values.size())));
}

namespace detail {
/// torch.tensor's work for nested braces of values V, converted to U.
template <class U, class V>
Tensor<U, dynamic_shape<1>> tensor_1d(std::initializer_list<V> values) {
    std::vector<U> flat;
    flat.reserve(values.size());
    for (const V& v : values)
        flat.push_back(static_cast<U>(v));
    return from_vector(flat);
}
template <class U, class V>
Tensor<U, dynamic_shape<2>> tensor_2d(std::initializer_list<std::initializer_list<V>> rows) {
    const auto n0 = static_cast<std::int64_t>(rows.size());
    const std::int64_t n1 = n0 > 0 ? static_cast<std::int64_t>(rows.begin()->size()) : 0;
    std::vector<U> flat;
    flat.reserve(static_cast<std::size_t>(n0 * n1));
    for (const auto& r : rows) {
        if (static_cast<std::int64_t>(r.size()) != n1)
            throw ValueError("expected sequence of length " + std::to_string(n1) +
                             " at dim 1 (got " + std::to_string(r.size()) + ")");
        for (const V& v : r)
            flat.push_back(static_cast<U>(v));
    }
    return tensor(flat, dynamic_shape<2>(n0, n1));
}
template <class U, class V>
Tensor<U, dynamic_shape<3>>
tensor_3d(std::initializer_list<std::initializer_list<std::initializer_list<V>>> planes) {
    const auto n0 = static_cast<std::int64_t>(planes.size());
    const std::int64_t n1 = n0 > 0 ? static_cast<std::int64_t>(planes.begin()->size()) : 0;
    const std::int64_t n2 = n1 > 0 ? static_cast<std::int64_t>(planes.begin()->begin()->size()) : 0;
    std::vector<U> flat;
    flat.reserve(static_cast<std::size_t>(n0 * n1 * n2));
    for (const auto& p : planes) {
        if (static_cast<std::int64_t>(p.size()) != n1)
            throw ValueError("expected sequence of length " + std::to_string(n1) +
                             " at dim 1 (got " + std::to_string(p.size()) + ")");
        for (const auto& r : p) {
            if (static_cast<std::int64_t>(r.size()) != n2)
                throw ValueError("expected sequence of length " + std::to_string(n2) +
                                 " at dim 2 (got " + std::to_string(r.size()) + ")");
            for (const V& v : r)
                flat.push_back(static_cast<U>(v));
        }
    }
    return tensor(flat, dynamic_shape<3>(n0, n1, n2));
}
/// tensor<T>'s element type: T where given (E is T or nothing), else inferred from the values.
template <class V, class... E>
struct tensor_element {
    static_assert(sizeof...(E) == 1, "staticpy: TypeError: tensor<T>({...}) takes one dtype");
    using type = void;
};
template <class V>
struct tensor_element<V> {
    using type = inferred_element_t<V>;
};
template <class V, class T>
struct tensor_element<V, T> {
    using type = T;
};
template <class V, class... E>
using tensor_element_t = typename tensor_element<V, E...>::type;

/// A value of a brace list given to tensor<T>({...}) whose values differ in type ({1, 2.5}):
/// converted to T by this constructor, a user-defined conversion, so that the overloads of
/// values of one type (deduced, and ordered 1-D < 2-D < 3-D) win wherever they fit.
template <class T>
struct list_value {
    list_value(T v) : value(v) {}
    T value;
    operator T() const { return value; }
};
} // namespace detail

/// torch.tensor from nested braces (1-, 2- and 3-D): tensor<float>({{1, 2}, {3, 4}}).
/// Without T, the dtype is inferred as torch.tensor infers it: floats give the default dtype
/// (tensor({1.0, 2.0}) is float32), integers int64, bools bool. (E is T or nothing: an empty
/// pack before the deduced V tells a given T from none.)
/// A ragged list is a ValueError "expected sequence of length 2 at dim 1 (got 3)".
template <class... E, class V>
Tensor<detail::tensor_element_t<V, E...>, dynamic_shape<1>>
tensor(std::initializer_list<V> values) {
    return detail::tensor_1d<detail::tensor_element_t<V, E...>>(values);
}
template <class... E, class V>
Tensor<detail::tensor_element_t<V, E...>, dynamic_shape<2>>
tensor(std::initializer_list<std::initializer_list<V>> rows) {
    return detail::tensor_2d<detail::tensor_element_t<V, E...>>(rows);
}
template <class... E, class V>
Tensor<detail::tensor_element_t<V, E...>, dynamic_shape<3>>
tensor(std::initializer_list<std::initializer_list<std::initializer_list<V>>> planes) {
    return detail::tensor_3d<detail::tensor_element_t<V, E...>>(planes);
}
/// tensor<T>({...}) of values of several types, tensor<float>({1, 2.5}): each converted to T.
template <class T>
Tensor<T, dynamic_shape<1>> tensor(std::initializer_list<detail::list_value<T>> values) {
    return detail::tensor_1d<T>(values);
}
template <class T>
Tensor<T, dynamic_shape<2>>
tensor(std::initializer_list<std::initializer_list<detail::list_value<T>>> rows) {
    return detail::tensor_2d<T>(rows);
}
template <class T>
Tensor<T, dynamic_shape<3>>
tensor(std::initializer_list<std::initializer_list<std::initializer_list<detail::list_value<T>>>>
           planes) {
    return detail::tensor_3d<T>(planes);
}

// ---- random ----------------------------------------------------------------------------------
// Each takes an optional Generator after its sizes (the default generator otherwise), then an
// optional device: rand(2_c, 3_c, gen, kCUDA) draws on the host and copies there, so a seeded
// generator gives the same numbers on every device.

namespace detail {
template <class... A>
inline constexpr bool ends_with_generator_v = ends_with_v<Generator, A...>;

/// f(generator, extents...) with the generator the arguments end with, or the default one,
/// whose mutex is held meanwhile (as PyTorch holds its default generator's): two threads drawing
/// from it get disjoint parts of one sequence instead of a data race.
template <class F, class... A>
auto with_generator(F&& f, A&&... args) {
    auto tup = std::forward_as_tuple(args...);
    if constexpr (ends_with_generator_v<A...>)
        return apply_first<sizeof...(A) - 1>(
            [&](auto&... e) {
                Generator& g = std::get<sizeof...(A) - 1>(tup);
                const auto lock = lock_if_default(g);
                return f(g, e...);
            },
            tup);
    else
        return apply_first<sizeof...(A)>(
            [&](auto&... e) {
                const std::lock_guard lock(default_generator_mutex());
                return f(default_generator(), e...);
            },
            tup);
}
} // namespace detail

/// torch.rand: uniform in [0, 1).   rand(2_c, 3_c, gen)   rand<double>(n)
template <class T = default_float_t, class... A>
auto rand(A&&... args) {
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: rand needs a floating-point dtype");
    if constexpr (detail::ends_with_device_v<A...>)
        return detail::made_then_moved([](auto&... a) { return rand<T>(a...); }, args...);
    else
        return detail::with_generator(
            [](Generator& g, auto... e) {
                return detail::generate<T>(
                    shape(e...), [&](std::int64_t) { return detail::uniform_sample<T>(g); });
            },
            args...);
}

/// torch.randn: standard normal.   randn(4_c, gen)
template <class T = default_float_t, class... A>
auto randn(A&&... args) {
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: randn needs a floating-point dtype");
    if constexpr (detail::ends_with_device_v<A...>)
        return detail::made_then_moved([](auto&... a) { return randn<T>(a...); }, args...);
    else
        return detail::with_generator(
            [](Generator& g, auto... e) {
                return detail::generate<T>(
                    shape(e...), [&](std::int64_t) { return static_cast<T>(g.normal()); });
            },
            args...);
}

/// torch.randint(low, high, size): integers in [low, high), int64 by default as in PyTorch.
///   randint(0, 10, 3_c, gen)
template <class T = std::int64_t, class... A>
auto randint(std::int64_t low, std::int64_t high, A&&... args) {
    if (!(low < high))
        throw RuntimeError("random_ expects 'from' to be less than 'to', but got from=" +
                           std::to_string(low) + " >= to=" + std::to_string(high));
    if constexpr (detail::ends_with_device_v<A...>)
        return detail::made_then_moved([&](auto&... a) { return randint<T>(low, high, a...); },
                                       args...);
    else
        return detail::with_generator(
            [&](Generator& g, auto... e) {
                return detail::generate<T>(shape(e...), [&](std::int64_t) {
                    return static_cast<T>(g.randint(low, high));
                });
            },
            args...);
}

/// rand_like / randn_like.
template <class T, class S>
Tensor<T, S> rand_like(const Tensor<T, S>& t, Generator& g = default_generator()) {
    const auto lock = detail::lock_if_default(g);
    return detail::generate<T>(t.shape(),
                               [&](std::int64_t) { return detail::uniform_sample<T>(g); });
}
template <class T, class S>
Tensor<T, S> randn_like(const Tensor<T, S>& t, Generator& g = default_generator()) {
    const auto lock = detail::lock_if_default(g);
    return detail::generate<T>(t.shape(), [&](std::int64_t) { return static_cast<T>(g.normal()); });
}

} // namespace staticpy
