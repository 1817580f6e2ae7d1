#pragma once
// The scalar functors behind every elementwise op. Each one knows, in one place:
//   name          its name in the IR dump ("add", "sigmoid", ...),
//   kind          how it maps operand types to a result type (see promote.hpp),
//   apply(x...)   its value on scalars of one element type (eager mode and the CPU evaluator),
//   cpp(x...)     the C++ source text of the same scalar expression, given its operands' source
//                 text (source emission, fused kernels, and later the CUDA backend).
// Eager ops, graph nodes and emitted kernels all go through these structs, so the math exists once.
//
//   fn::mul::apply(2.0f, 3.0f) == 6.0f
//   fn::mul::cpp("a", "b") == "(a * b)"
//
// apply() takes operands already converted to the computation type (promote.hpp decides it), so
// `fn::div::apply` only ever sees floating types, and comparisons see both sides in one type.
// Integer +, -, *, neg, abs and pow wrap around on overflow as PyTorch's do (computed in the
// unsigned type, so there is no undefined behaviour); the emitted C++ text uses the plain
// operators.
//
// cpp(): operands must be "atoms" — names, literals, calls or parenthesised expressions — which
// is what every cpp() returns, so results compose. An operand may appear more than once in the text
// (relu, maximum, where-free NaN checks); the graph layer binds each node to a local first.
// Emitted math uses std:: functions from <cmath>; constants that are not exact in float are cast to
// the operand's type (static_cast<decltype(+(x))>(...)) so float kernels stay in float.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "staticpy/tensor/dtype.hpp"

namespace staticpy::fn {

/// How a functor's result type follows from its operands' promoted type (see promote.hpp).
enum class op_kind {
    same,        // the promoted type: add, sub, mul, pow, maximum, neg, abs, relu, ...
    true_divide, // the promoted type, integers and bool going to the default float (float32)
    floating,    // unary math: integers and bool go to the default float (float32)
    compare,     // computed in the promoted type, result bool
    select,      // where(cond, a, b): cond is bool, result the promoted type of a and b
    cast,        // a fixed result type
};

namespace detail {

template <class T>
inline constexpr bool is_bool_v = std::is_same_v<std::remove_cv_t<T>, bool>;
template <class T>
inline constexpr bool is_wrapping_int_v = std::is_integral_v<T> && !is_bool_v<T>;

/// Integer arithmetic that wraps as PyTorch's (two's complement), without signed overflow UB.
template <class T>
constexpr T wrap_add(T a, T b) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <class T>
constexpr T wrap_sub(T a, T b) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <class T>
constexpr T wrap_mul(T a, T b) {
    using U = std::make_unsigned_t<T>;
    // uint8/uint16 would promote to int and could overflow it; multiply in at least unsigned int.
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(
        static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
}

/// Text helpers for cpp().
inline std::string call(std::string_view f, std::string_view a) {
    std::string s(f);
    s += '(';
    s += a;
    s += ')';
    return s;
}
inline std::string call(std::string_view f, std::string_view a, std::string_view b) {
    std::string s(f);
    s += '(';
    s += a;
    s += ", ";
    s += b;
    s += ')';
    return s;
}
inline std::string infix(std::string_view a, std::string_view op, std::string_view b) {
    std::string s = "(";
    s += a;
    s += ' ';
    s += op;
    s += ' ';
    s += b;
    s += ')';
    return s;
}
/// "(-x)", with a space when x itself starts with a sign ("(- -1)"), never the token "--".
inline std::string prefix(char op, std::string_view a) {
    std::string s = "(";
    s += op;
    if (!a.empty() && (a.front() == '-' || a.front() == '+'))
        s += ' ';
    s += a;
    s += ')';
    return s;
}
/// The operand's own type, for casting constants: static_cast<decltype(+(x))>(c).
inline std::string typed_constant(std::string_view a, std::string_view c) {
    std::string s = "static_cast<decltype(+";
    s += a;
    s += ")>(";
    s += c;
    s += ')';
    return s;
}

template <class T>
struct cpp_type_name;
template <>
struct cpp_type_name<float> {
    static constexpr const char* value = "float";
};
template <>
struct cpp_type_name<double> {
    static constexpr const char* value = "double";
};
template <>
struct cpp_type_name<std::int32_t> {
    static constexpr const char* value = "std::int32_t";
};
template <>
struct cpp_type_name<std::int64_t> {
    static constexpr const char* value = "std::int64_t";
};
template <>
struct cpp_type_name<std::uint8_t> {
    static constexpr const char* value = "std::uint8_t";
};
template <>
struct cpp_type_name<bool> {
    static constexpr const char* value = "bool";
};

} // namespace detail

/// What every functor has unless it says otherwise: no restriction on the computation type.
/// A functor that rejects a type (bool subtraction, gelu of an int) overrides check<T>() with a
/// static_assert carrying PyTorch's message; promote.hpp calls it when it computes a result type.
struct functor_base {
    template <class T>
    static constexpr bool check() {
        return true;
    }
};

// ---------------------------------------------------------------------------------------------
// Binary arithmetic

struct add : functor_base {
    static constexpr const char* name = "add";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (detail::is_bool_v<T>)
            return a || b;
        else if constexpr (detail::is_wrapping_int_v<T>)
            return detail::wrap_add(a, b);
        else
            return a + b;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "+", b);
    }
};

struct sub : functor_base {
    static constexpr const char* name = "sub";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr bool check() {
        static_assert(
            !detail::is_bool_v<T>,
            "staticpy: RuntimeError: Subtraction, the `-` operator, with two bool tensors is "
            "not supported. Use the `^` or `logical_xor()` operator instead.");
        return true;
    }
    template <class T>
    static constexpr T apply(T a, T b) {
        static_assert(check<T>());
        if constexpr (detail::is_wrapping_int_v<T>)
            return detail::wrap_sub(a, b);
        else
            return a - b;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "-", b);
    }
};

struct mul : functor_base {
    static constexpr const char* name = "mul";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (detail::is_bool_v<T>)
            return a && b;
        else if constexpr (detail::is_wrapping_int_v<T>)
            return detail::wrap_mul(a, b);
        else
            return a * b;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "*", b);
    }
};

/// True division, Python's `/`: integer operands are computed in float32 (promote.hpp).
struct div : functor_base {
    static constexpr const char* name = "div";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::true_divide;
    template <class T>
    static constexpr T apply(T a, T b) {
        static_assert(
            std::is_floating_point_v<T>,
            "staticpy: internal: fn::div is applied in a floating type (see promote.hpp)");
        return a / b;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "/", b);
    }
};

/// a ** b. Integers: exact, wrapping; a negative exponent gives 0 unless |a| == 1 (PyTorch's rule
/// for integer tensors).
struct pow : functor_base {
    static constexpr const char* name = "pow";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (detail::is_bool_v<T>) {
            return a || !b;
        } else if constexpr (std::is_integral_v<T>) {
            if constexpr (std::is_signed_v<T>) {
                if (b < 0) {
                    if (a == 1)
                        return 1;
                    if (a == -1)
                        return (b % 2 == 0) ? T(1) : T(-1);
                    return 0;
                }
            }
            T result = 1;
            T base = a;
            while (b != 0) {
                if (b & 1)
                    result = detail::wrap_mul(result, base);
                b = static_cast<T>(b >> 1);
                if (b != 0)
                    base = detail::wrap_mul(base, base);
            }
            return result;
        } else {
            return std::pow(a, b);
        }
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::call("std::pow", a, b);
    }
};

/// torch.maximum: NaN in either operand gives NaN.
struct maximum : functor_base {
    static constexpr const char* name = "maximum";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
            if (a != a)
                return a;
            if (b != b)
                return b;
        }
        return a > b ? a : b;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        const std::string x(a), y(b);
        return "(" + x + " != " + x + " ? " + x + " : " + y + " != " + y + " ? " + y + " : " + x +
               " > " + y + " ? " + x + " : " + y + ")";
    }
};

/// torch.minimum: NaN in either operand gives NaN.
struct minimum : functor_base {
    static constexpr const char* name = "minimum";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (std::is_floating_point_v<T>) {
            if (a != a)
                return a;
            if (b != b)
                return b;
        }
        return a < b ? a : b;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        const std::string x(a), y(b);
        return "(" + x + " != " + x + " ? " + x + " : " + y + " != " + y + " ? " + y + " : " + x +
               " < " + y + " ? " + x + " : " + y + ")";
    }
};

// ---------------------------------------------------------------------------------------------
// Comparisons: computed in the promoted type, result bool. NaN compares unequal to everything.

#define STATICPY_COMPARISON_FUNCTOR(Name, Op)                                                      \
    struct Name : functor_base {                                                                   \
        static constexpr const char* name = #Name;                                                 \
        static constexpr int arity = 2;                                                            \
        static constexpr op_kind kind = op_kind::compare;                                          \
        template <class T>                                                                         \
        static constexpr bool apply(T a, T b) {                                                    \
            return a Op b;                                                                         \
        }                                                                                          \
        static std::string cpp(std::string_view a, std::string_view b) {                           \
            return detail::infix(a, #Op, b);                                                       \
        }                                                                                          \
    }
STATICPY_COMPARISON_FUNCTOR(eq, ==);
STATICPY_COMPARISON_FUNCTOR(ne, !=);
STATICPY_COMPARISON_FUNCTOR(lt, <);
STATICPY_COMPARISON_FUNCTOR(le, <=);
STATICPY_COMPARISON_FUNCTOR(gt, >);
STATICPY_COMPARISON_FUNCTOR(ge, >=);
#undef STATICPY_COMPARISON_FUNCTOR

// ---------------------------------------------------------------------------------------------
// Unary ops that keep the type

struct neg : functor_base {
    static constexpr const char* name = "neg";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr bool check() {
        static_assert(
            !detail::is_bool_v<T>,
            "staticpy: RuntimeError: Negation, the `-` operator, on a bool tensor is not "
            "supported. If you are trying to invert a mask, use the `~` or `logical_not()` "
            "operator instead.");
        return true;
    }
    template <class T>
    static constexpr T apply(T a) {
        static_assert(check<T>());
        if constexpr (detail::is_wrapping_int_v<T>)
            return detail::wrap_sub(T(0), a);
        else
            return -a;
    }
    static std::string cpp(std::string_view a) { return detail::prefix('-', a); }
};

struct abs : functor_base {
    static constexpr const char* name = "abs";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a) {
        if constexpr (detail::is_bool_v<T> || std::is_unsigned_v<T>)
            return a;
        else if constexpr (std::is_integral_v<T>)
            return a < 0 ? detail::wrap_sub(T(0), a) : a;
        else
            return std::fabs(a);
    }
    static std::string cpp(std::string_view a) { return detail::call("std::abs", a); }
};

/// relu(x) = max(x, 0); relu(NaN) is NaN, as PyTorch's.
struct relu : functor_base {
    static constexpr const char* name = "relu";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a) {
        if constexpr (detail::is_bool_v<T>)
            return a;
        else if constexpr (std::is_floating_point_v<T>)
            return (a > T(0) || a != a) ? a : T(0);
        else
            return a > T(0) ? a : T(0);
    }
    static std::string cpp(std::string_view a) {
        const std::string x(a);
        return "(" + x + " > 0 || " + x + " != " + x + " ? " + x + " : " + "decltype(+" + x +
               ")(0))";
    }
};

// ---------------------------------------------------------------------------------------------
// Unary math: integers and bool are computed in the default float (float32).

#define STATICPY_MATH_FUNCTOR(Name, Std)                                                           \
    struct Name : functor_base {                                                                   \
        static constexpr const char* name = #Name;                                                 \
        static constexpr int arity = 1;                                                            \
        static constexpr op_kind kind = op_kind::floating;                                         \
        template <class T>                                                                         \
        static T apply(T a) {                                                                      \
            static_assert(std::is_floating_point_v<T>,                                             \
                          "staticpy: internal: unary math is applied in a floating type");         \
            return Std(a);                                                                         \
        }                                                                                          \
        static std::string cpp(std::string_view a) { return detail::call(#Std, a); }               \
    }
STATICPY_MATH_FUNCTOR(exp, std::exp);
STATICPY_MATH_FUNCTOR(log, std::log);
STATICPY_MATH_FUNCTOR(sqrt, std::sqrt);
STATICPY_MATH_FUNCTOR(sin, std::sin);
STATICPY_MATH_FUNCTOR(cos, std::cos);
STATICPY_MATH_FUNCTOR(tanh, std::tanh);
#undef STATICPY_MATH_FUNCTOR

/// 1 / sqrt(x).
struct rsqrt : functor_base {
    static constexpr const char* name = "rsqrt";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    template <class T>
    static T apply(T a) {
        return T(1) / std::sqrt(a);
    }
    static std::string cpp(std::string_view a) {
        return "(1 / " + detail::call("std::sqrt", a) + ")";
    }
};

/// 1 / (1 + exp(-x)): saturates to 0 and 1 without NaN for large |x|.
struct sigmoid : functor_base {
    static constexpr const char* name = "sigmoid";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    template <class T>
    static T apply(T a) {
        return T(1) / (T(1) + std::exp(-a));
    }
    static std::string cpp(std::string_view a) {
        return "(1 / (1 + " + detail::call("std::exp", detail::prefix('-', a)) + "))";
    }
};

/// GELU, PyTorch's exact (approximate='none') form: x * 0.5 * (1 + erf(x / sqrt(2))).
struct gelu : functor_base {
    static constexpr const char* name = "gelu";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    template <class T>
    static constexpr bool check() {
        static_assert(std::is_floating_point_v<T>,
                      "staticpy: RuntimeError: gelu is only implemented for floating-point tensors "
                      "(PyTorch: \"GeluKernelImpl\" not implemented for an integer dtype)");
        return true;
    }
    static constexpr const char* sqrt1_2 = "0.70710678118654752440";
    template <class T>
    static T apply(T a) {
        static_assert(check<T>());
        return a * T(0.5) * (T(1) + std::erf(a * T(0.70710678118654752440)));
    }
    static std::string cpp(std::string_view a) {
        const std::string x(a);
        return "(" + x + " * 0.5f * (1 + std::erf(" + x + " * " +
               detail::typed_constant(a, sqrt1_2) + ")))";
    }
};

/// Zero of the operand's type, whatever the operand: what the graph's simplifier puts for x - x
/// (which assumes x finite, as the rewrite x - x -> 0 always does).
struct zeros_like : functor_base {
    static constexpr const char* name = "zeros_like";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T) {
        return T(0);
    }
    static std::string cpp(std::string_view a) { return detail::typed_constant(a, "0"); }
};

// ---------------------------------------------------------------------------------------------
// where and cast

/// where(cond, a, b): a where cond is true, else b.
struct where : functor_base {
    static constexpr const char* name = "where";
    static constexpr int arity = 3;
    static constexpr op_kind kind = op_kind::select;
    template <class T>
    static constexpr T apply(bool c, T a, T b) {
        return c ? a : b;
    }
    static std::string cpp(std::string_view c, std::string_view a, std::string_view b) {
        std::string s = "(";
        s += c;
        s += " ? ";
        s += a;
        s += " : ";
        s += b;
        s += ')';
        return s;
    }
};

/// Conversion to To, as Tensor.to(dtype): to bool is x != 0 (NaN is true); float to int
/// truncates toward zero, and a NaN or out-of-range float gives the target's lowest value (uint8:
/// through int64, modulo 256) — what PyTorch gives on x86, without C++'s undefined behaviour.
template <class To>
struct cast : functor_base {
    static constexpr const char* name = "cast";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::cast;
    using result_type = To;
    template <class T>
    static constexpr To apply(T a) {
        return staticpy::detail::convert<To>(a); // the rules Tensor::to uses too
    }
    static std::string cpp(std::string_view a) {
        if constexpr (detail::is_bool_v<To>) {
            // Appended, not "(" + std::string(a): g++ 12 at -O3 takes that for an overlapping
            // memcpy (-Wrestrict, GCC bug 105329).
            std::string out = "(";
            out += a;
            return out + " != 0)";
        }
        else
            return detail::call(
                std::string("static_cast<") + detail::cpp_type_name<To>::value + ">", a);
    }
};

/// The C++ spelling of an element type in emitted source ("float", "std::int64_t", ...).
template <class T>
inline constexpr const char* cpp_type_name = detail::cpp_type_name<T>::value;

} // namespace staticpy::fn
