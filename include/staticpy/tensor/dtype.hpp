#pragma once
// Element types of a Tensor, with PyTorch's names. The element type of a staticpy Tensor is a
// compile-time template parameter; `dtype` is its run-time name, for printing and for code that
// dispatches on it.
//   static_assert(staticpy::dtype_of_v<float> == staticpy::float32);
//   staticpy::dtype_name(staticpy::int64) == "int64"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace staticpy {

/// torch.dtype. `bool_` because bool is a keyword.
enum class dtype : std::uint8_t { bool_, uint8, int32, int64, float32, float64 };

/// torch.float32 ... as staticpy::float32. torch.bool is staticpy::boolean: the name `bool_`
/// already means std::bool_constant in staticpy (core/constant.hpp).
inline constexpr dtype boolean = dtype::bool_;
inline constexpr dtype uint8 = dtype::uint8;
inline constexpr dtype int32 = dtype::int32;
inline constexpr dtype int64 = dtype::int64;
inline constexpr dtype float32 = dtype::float32;
inline constexpr dtype float64 = dtype::float64;

namespace detail {
template <class T>
struct dtype_of {};
template <>
struct dtype_of<bool> : std::integral_constant<dtype, dtype::bool_> {};
template <>
struct dtype_of<std::uint8_t> : std::integral_constant<dtype, dtype::uint8> {};
template <>
struct dtype_of<std::int32_t> : std::integral_constant<dtype, dtype::int32> {};
template <>
struct dtype_of<std::int64_t> : std::integral_constant<dtype, dtype::int64> {};
template <>
struct dtype_of<float> : std::integral_constant<dtype, dtype::float32> {};
template <>
struct dtype_of<double> : std::integral_constant<dtype, dtype::float64> {};

template <dtype D>
struct scalar_of_dtype;
template <>
struct scalar_of_dtype<dtype::bool_> {
    using type = bool;
};
template <>
struct scalar_of_dtype<dtype::uint8> {
    using type = std::uint8_t;
};
template <>
struct scalar_of_dtype<dtype::int32> {
    using type = std::int32_t;
};
template <>
struct scalar_of_dtype<dtype::int64> {
    using type = std::int64_t;
};
template <>
struct scalar_of_dtype<dtype::float32> {
    using type = float;
};
template <>
struct scalar_of_dtype<dtype::float64> {
    using type = double;
};
} // namespace detail

/// Whether T is one of the six element types a Tensor holds.
template <class T>
inline constexpr bool is_tensor_element_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::int64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;

/// The dtype of an element type.   dtype_of_v<double> == float64
template <class T>
inline constexpr dtype dtype_of_v = detail::dtype_of<std::remove_cv_t<T>>::value;

/// The element type of a dtype.   scalar_type_t<int32> is std::int32_t
template <dtype D>
using scalar_type_t = typename detail::scalar_of_dtype<D>::type;

/// PyTorch's name without the "torch." prefix.   dtype_name(float32) == "float32"
constexpr std::string_view dtype_name(dtype d) {
    switch (d) {
    case dtype::bool_:
        return "bool";
    case dtype::uint8:
        return "uint8";
    case dtype::int32:
        return "int32";
    case dtype::int64:
        return "int64";
    case dtype::float32:
        return "float32";
    case dtype::float64:
        return "float64";
    }
    return "unknown";
}

/// c10's ScalarType name, as PyTorch's "not implemented for 'Long'" errors write it.
constexpr std::string_view scalar_type_name(dtype d) {
    switch (d) {
    case dtype::bool_:
        return "Bool";
    case dtype::uint8:
        return "Byte";
    case dtype::int32:
        return "Int";
    case dtype::int64:
        return "Long";
    case dtype::float32:
        return "Float";
    case dtype::float64:
        return "Double";
    }
    return "unknown";
}

// ---- the default dtype ----------------------------------------------------------------------
// torch.set_default_dtype(torch.float64) makes float factories (zeros, arange(12.0),
// tensor({1.0, 2.0})), Python floats meeting integer tensors, true division of integers and the
// math of integers give float64. In staticpy a tensor's element type is part of its type, so
// this setting is one for the whole program, fixed when it is compiled: STATICPY_DEFAULT_DTYPE,
// float32 (PyTorch's default) unless the program defines it, as float64 (or torch's aliases
// float and double), before its first staticpy include or on the command line
// (-DSTATICPY_DEFAULT_DTYPE=float64; CMake's option of that name puts it on staticpy::staticpy
// for every translation unit). Every translation unit must see the same value: the types of
// inline functions depend on it. A #define after the first include is a "redefined" warning.
#ifndef STATICPY_DEFAULT_DTYPE
#define STATICPY_DEFAULT_DTYPE float32
#endif
// Each spelling's number: 0 (an identifier that is no macro, in #if) where it names no dtype,
// so that a wrong value is a staticpy: error below, not an undeclared name.
#define STATICPY_DETAIL_DTYPE_ID_boolean 1
#define STATICPY_DETAIL_DTYPE_ID_bool 1
#define STATICPY_DETAIL_DTYPE_ID_uint8 2
#define STATICPY_DETAIL_DTYPE_ID_int32 3
#define STATICPY_DETAIL_DTYPE_ID_int 3
#define STATICPY_DETAIL_DTYPE_ID_int64 4
#define STATICPY_DETAIL_DTYPE_ID_long 4
#define STATICPY_DETAIL_DTYPE_ID_float32 5
#define STATICPY_DETAIL_DTYPE_ID_float 5
#define STATICPY_DETAIL_DTYPE_ID_float64 6
#define STATICPY_DETAIL_DTYPE_ID_double 6
#define STATICPY_DETAIL_DTYPE_ID_PASTE(d) STATICPY_DETAIL_DTYPE_ID_##d
#define STATICPY_DETAIL_DTYPE_ID(d) STATICPY_DETAIL_DTYPE_ID_PASTE(d)

namespace detail {
#if STATICPY_DETAIL_DTYPE_ID(STATICPY_DEFAULT_DTYPE) == 0
inline constexpr int default_dtype_id = 0;
#else
inline constexpr int default_dtype_id = STATICPY_DETAIL_DTYPE_ID(STATICPY_DEFAULT_DTYPE);
#endif
static_assert(default_dtype_id != 0,
              "staticpy: TypeError: STATICPY_DEFAULT_DTYPE names no dtype: define it as float32 "
              "or float64 (or float, double)");
// PyTorch's error for torch.set_default_dtype(torch.int64).
static_assert(default_dtype_id == 0 || default_dtype_id >= 5,
              "staticpy: TypeError: only floating-point types are supported as the default type");
} // namespace detail

/// torch.get_default_dtype(): float32, or float64 where the program is compiled with
/// STATICPY_DEFAULT_DTYPE float64 (staticpy's torch.set_default_dtype, see above).
///   static_assert(staticpy::get_default_dtype() == staticpy::float32);
constexpr dtype get_default_dtype() {
    return detail::default_dtype_id == 6 ? dtype::float64 : dtype::float32;
}

/// The element type of the default dtype: what float factories make and Python floats and
/// integer division become (float, or double with STATICPY_DEFAULT_DTYPE float64).
using default_float_t = scalar_type_t<get_default_dtype()>;

/// torch.dtype.is_floating_point.
constexpr bool is_floating_point(dtype d) {
    return d == dtype::float32 || d == dtype::float64;
}

/// torch.dtype.itemsize: bytes per element.
constexpr std::size_t element_size(dtype d) {
    switch (d) {
    case dtype::bool_:
    case dtype::uint8:
        return 1;
    case dtype::int32:
    case dtype::float32:
        return 4;
    case dtype::int64:
    case dtype::float64:
        return 8;
    }
    return 0;
}

namespace detail {

/// PyTorch's conversion of one element: float to int truncates toward zero, anything to bool is
/// != 0. A float that is NaN or outside the target's range gives the target's lowest value for
/// signed types (what x86 gives PyTorch) and wraps through int64 for uint8, instead of C++'s UB.
template <class U, class T>
constexpr U convert(T v) {
    if constexpr (std::is_same_v<U, bool>) {
        return v != T(0);
    } else if constexpr (std::is_floating_point_v<T> && std::is_integral_v<U>) {
        if constexpr (std::is_same_v<U, std::uint8_t>) {
            return static_cast<U>(static_cast<std::uint64_t>(convert<std::int64_t>(v)) & 0xFFU);
        } else {
            const long double x = v;
            if (!(x > static_cast<long double>(std::numeric_limits<U>::min()) - 1.0L &&
                  x < static_cast<long double>(std::numeric_limits<U>::max()) + 1.0L))
                return std::numeric_limits<U>::min();
            return static_cast<U>(v);
        }
    } else if constexpr (std::is_integral_v<T> && std::is_integral_v<U> &&
                         !std::is_same_v<T, bool>) {
        return static_cast<U>(v); // modular, as PyTorch's integer casts
    } else {
        return static_cast<U>(v);
    }
}

} // namespace detail

} // namespace staticpy
