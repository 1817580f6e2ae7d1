#pragma once
// The elementwise ops, each described once. One struct per op holds:
//   name          its name in the IR dump ("add", "sigmoid", ...);
//   kind          how it maps operand types to a result type (see promote.hpp);
//   check<T>()    the types it rejects, as a compile error with PyTorch's message;
//   apply(x...)   its math, written once for one value and for a SIMD batch of values (through
//                 kernels::math, which maps to <cmath> for one value and to the SIMD library for
//                 a batch): eager mode, the graph's fused kernels and their scalar and
//                 vectorised loops all call it;
//   vectorized    whether apply() may be given batches (false for cast, whose operand and result
//                 types differ; a comparison of batches gives a batch's mask, which where's
//                 condition takes: fused kernels run masks, eager ops with a bool tensor do not);
//   cpp(x...)     the C++ source text of the same expression, given its operands' source text
//                 (source emission now; the CUDA backend's kernels next);
//   vjp<I>(g, y, x...)  its derivative: the vector-Jacobian product for operand I, given the
//                 cotangent g of the result y = F(x...), in the result's (broadcast) shape, or
//                 no_grad{} for an operand that has none (where's condition, a parameter). It
//                 is written in the ops themselves (operators, call<F>), so it runs on whatever
//                 values it is given: eager tensors, the tape's recorded values (eager
//                 autodiff, autograd.hpp), or traced values, where it builds the backward graph
//                 (graph/autodiff.hpp); summing back over broadcast dims is autodiff's job.
//                 An op without vjp has no derivative (comparisons: their result is bool).
// Adding an op is adding one struct here and its named function in ops_elementwise.hpp.
//
//   fn::mul::apply(2.0f, 3.0f) == 6.0f
//   fn::mul::cpp("a", "b") == "(a * b)"
//
// apply() takes operands already converted to the computation type (promote.hpp decides it), so
// `fn::div::apply` only ever sees floating types, and comparisons see both sides in one type.
// Integer +, -, *, neg, abs and pow wrap around on overflow as PyTorch's do (computed in the
// unsigned type, so there is no undefined behaviour); the emitted C++ text uses the plain
// operators. Batches only ever hold float or double.
//
// cpp(): operands must be "atoms" — names, literals, calls or parenthesised expressions — which
// is what every cpp() returns, so results compose. An operand may appear more than once in the text
// (relu, maximum, where-free NaN checks); the graph layer binds each node to a local first.
// Emitted math uses std:: functions from <cmath>; constants that are not exact in float are cast to
// the operand's type (static_cast<decltype(+(x))>(...)) so float kernels stay in float.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "staticpy/core/constant.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/tensor/dtype.hpp"

namespace staticpy::fn {

/// What a derivative rule (vjp) gives for an operand without a gradient.
struct no_grad {};

// The derivative rules below name ops defined after the op they belong to, and write numbers as
// compile-time constants (2_c).
struct add;
struct pow;
struct sign;
struct exp;
struct log;
struct sin;
struct cos;
struct erf;
struct sigmoid;
struct zeros_like;
struct where;
using namespace staticpy::literals;

/// F applied elementwise to tensor-like values (tensors, traced or recorded values, numbers): what
/// derivative rules are written in. Defined with the eager ops (ops_elementwise.hpp).
///   fn::call<fn::exp>(x)   // exp(x)
template <class F, class... X>
auto call(const X&... x);

// The shape ops derivative rules are written in (op_objects.hpp): g summed back over broadcast
// dims to like's shape; x broadcast to like's shape; a reduction's gradient spread back over the
// reduced dims; g reshaped as like; numel(x) / numel(y) as a zero-dim T; reduction R over dim.
template <class G, class L>
auto sum_to(const G& g, const L& like);
template <class X, class L>
auto expand_to(const X& x, const L& like);
template <bool Keep, class G, class L, class Dim>
auto unreduce(const G& g, const L& like, const Dim& dim);
template <class G, class L>
auto reshape_as(const G& g, const L& like);
template <class T, class X, class Y>
auto count_ratio(const X& x, const Y& y);
template <class R, bool Keep, class X, class Dim>
auto reduce(const X& x, const Dim& dim);

/// How an op's result type follows from its operands' promoted type (see promote.hpp).
enum class op_kind {
    same,        // the promoted type: add, sub, mul, pow, maximum, neg, abs, relu, clamp, ...
    true_divide, // the promoted type, integers and bool going to the default float (float32)
    floating,    // unary math: integers and bool go to the default float (float32)
    compare,     // computed in the promoted type, result bool
    select,      // where(cond, a, b): cond is bool, result the promoted type of a and b
    cast,        // a fixed result type
    parametric,  // the first operand's type; the others are parameters converted to it
                 // (leaky_relu's negative_slope, softplus's beta and threshold)
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

/// A double as the shortest C++ literal that reads back as the same double ("0.5",
/// "0.7071067811865476"): an op's constant is written once, as a number, and its source form
/// prints it.
inline std::string literal(double c) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, c);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";
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

/// What every op has unless it says otherwise: no restriction on the computation type, an
/// apply() that serves batches, and no derivative yet.
struct op_base {
    template <class T>
    static constexpr bool check() {
        return true;
    }
    static constexpr bool vectorized = true;
    /// Its work per element relative to an add: how kernels weigh splitting it across threads.
    static constexpr int cost = 1;
    /// Whether its result is a tensor even where every operand is a number (grad's mark of a
    /// differentiated float: a 0-dim tensor), not a number as Python's arithmetic on numbers gives.
    static constexpr bool tensor_result = false;
};

namespace detail {
using kernels::math::splat;
namespace math = kernels::math;

/// The compile-time number (2.5_c's type) of a double known at compile time: derivative rules'
/// constants, which are constant nodes in a graph (folded, no payload).
#define STATICPY_REAL_CONSTANT(v) (::staticpy::float_<std::bit_cast<std::uint64_t>(double(v))>{})
} // namespace detail

/// The rule of an op whose derivative is zero wherever it exists (floor, sign, ...).
#define STATICPY_ZERO_DERIVATIVE                                                                   \
    template <std::size_t I, class G, class Y, class X>                                            \
    static auto vjp(const G& g, const Y&, const X&) {                                              \
        return call<zeros_like>(g);                                                                \
    }

/// The cost (see op_base::cost) of an op built on a math function (exp, log, tanh, erf, sqrt,
/// sin, cos, pow): about ten arithmetic ops' time per element (kernels/vmath.hpp).
inline constexpr int transcendental_cost = 10;

/// The check of the ops PyTorch implements for floating types only.
#define STATICPY_FLOATING_ONLY(op_name, kernel_name)                                               \
    template <class T>                                                                             \
    static constexpr bool check() {                                                                \
        static_assert(std::is_floating_point_v<T>,                                                 \
                      "staticpy: RuntimeError: " op_name " is only implemented for "               \
                      "floating-point tensors (PyTorch: \"" kernel_name                            \
                      "\" not implemented for an integer dtype)");                                 \
        return true;                                                                               \
    }

// ---------------------------------------------------------------------------------------------
// Binary arithmetic

struct add : op_base {
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
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        return g;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "+", b);
    }
};

struct sub : op_base {
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
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        if constexpr (I == 0)
            return g;
        else
            return -g;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "-", b);
    }
};

struct mul : op_base {
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
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        if constexpr (I == 0)
            return g * b;
        else
            return g * a;
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "*", b);
    }
};

/// True division, Python's `/`: integer operands are computed in float32 (promote.hpp).
struct div : op_base {
    static constexpr const char* name = "div";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::true_divide;
    template <class T>
    static constexpr T apply(T a, T b) {
        static_assert(
            !std::is_integral_v<T>,
            "staticpy: internal: fn::div is applied in a floating type (see promote.hpp)");
        return a / b;
    }
    /// As PyTorch: the divisor's is -g * ((a / b) / b), i.e. -g * (y / b).
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        if constexpr (I == 0)
            return g / b;
        else
            return -g * (y / b);
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::infix(a, "/", b);
    }
};

/// a ** b. Integers: exact, wrapping; a negative exponent gives 0 unless |a| == 1 (PyTorch's rule
/// for integer tensors).
struct pow : op_base {
    static constexpr const char* name = "pow";
    static constexpr int cost = transcendental_cost;
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
            return detail::math::pow(a, b);
        }
    }
    /// As PyTorch: the base's is 0 where the exponent is 0 (not 0 * inf), the exponent's 0 where
    /// the base is 0 and the exponent >= 0 (not 0 * log 0).
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        if constexpr (I == 0)
            return call<where>(b == 0_c, 0_c, g * (b * call<pow>(a, b - 1_c)));
        else
            return g * call<where>((a == 0_c) * (b >= 0_c), 0_c, y * call<log>(a));
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        return detail::call("std::pow", a, b);
    }
};

/// torch.maximum: NaN in either operand gives NaN.
struct maximum : op_base {
    static constexpr const char* name = "maximum";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (std::is_integral_v<T>)
            return a > b ? a : b;
        else // a NaN on either side wins; a + b is that NaN
            return detail::math::select(
                detail::math::either(detail::math::isnan(a), detail::math::isnan(b)), a + b,
                detail::math::max(a, b));
    }
    /// PyTorch's tie rule: where a == b each operand gets half.
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        if constexpr (I == 0)
            return call<where>(a == b, g / 2_c, call<where>(a < b, 0_c, g));
        else
            return call<where>(a == b, g / 2_c, call<where>(a > b, 0_c, g));
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        const std::string x(a), y(b);
        return "(" + x + " != " + x + " ? " + x + " : " + y + " != " + y + " ? " + y + " : " + x +
               " > " + y + " ? " + x + " : " + y + ")";
    }
};

/// torch.minimum: NaN in either operand gives NaN.
struct minimum : op_base {
    static constexpr const char* name = "minimum";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a, T b) {
        if constexpr (std::is_integral_v<T>)
            return a < b ? a : b;
        else
            return detail::math::select(
                detail::math::either(detail::math::isnan(a), detail::math::isnan(b)), a + b,
                detail::math::min(a, b));
    }
    template <std::size_t I, class G, class Y, class A, class B>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const A& a,
                    [[maybe_unused]] const B& b) {
        if constexpr (I == 0)
            return call<where>(a == b, g / 2_c, call<where>(a > b, 0_c, g));
        else
            return call<where>(a == b, g / 2_c, call<where>(a < b, 0_c, g));
    }
    static std::string cpp(std::string_view a, std::string_view b) {
        const std::string x(a), y(b);
        return "(" + x + " != " + x + " ? " + x + " : " + y + " != " + y + " ? " + y + " : " + x +
               " < " + y + " ? " + x + " : " + y + ")";
    }
};

/// torch.clamp(x, min, max): minimum(maximum(x, min), max), so a NaN anywhere gives NaN and
/// min > max gives max everywhere, as PyTorch's. One-sided clamps are maximum and minimum.
struct clamp : op_base {
    static constexpr const char* name = "clamp";
    static constexpr int arity = 3;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T x, T lo, T hi) {
        return minimum::apply(maximum::apply(x, lo), hi);
    }
    /// PyTorch's clamp_backward: x's gradient flows where lo <= x <= hi; lo's where x < lo (and
    /// lo < hi); hi's where x > hi, or everywhere when hi < lo (max wins there).
    template <std::size_t I, class G, class Y, class X, class Lo, class Hi>
    static auto vjp(const G& g, const Y&, const X& x, const Lo& lo, const Hi& hi) {
        if constexpr (I == 0)
            return call<where>((x >= lo) * (x <= hi), g, 0_c);
        else if constexpr (I == 1)
            return call<where>((x < lo) * (lo < hi), g, 0_c);
        else
            return call<where>(call<add>(x > hi, hi < lo), g, 0_c);
    }
    static std::string cpp(std::string_view x, std::string_view lo, std::string_view hi) {
        return minimum::cpp(maximum::cpp(x, lo), hi);
    }
};

// ---------------------------------------------------------------------------------------------
// Comparisons: computed in the promoted type, result bool. NaN compares unequal to everything.

#define STATICPY_COMPARISON_OP(Name, Op)                                                           \
    struct Name : op_base {                                                                        \
        static constexpr const char* name = #Name;                                                 \
        static constexpr int arity = 2;                                                            \
        static constexpr op_kind kind = op_kind::compare;                                          \
        template <class T>                                                                         \
        static constexpr auto apply(const T& a, const T& b) {                                      \
            return a Op b; /* bool; a mask for batches */                                          \
        }                                                                                          \
        static std::string cpp(std::string_view a, std::string_view b) {                           \
            return detail::infix(a, #Op, b);                                                       \
        }                                                                                          \
    }
STATICPY_COMPARISON_OP(eq, ==);
STATICPY_COMPARISON_OP(ne, !=);
STATICPY_COMPARISON_OP(lt, <);
STATICPY_COMPARISON_OP(le, <=);
STATICPY_COMPARISON_OP(gt, >);
STATICPY_COMPARISON_OP(ge, >=);
#undef STATICPY_COMPARISON_OP

// ---------------------------------------------------------------------------------------------
// Unary ops that keep the type

struct neg : op_base {
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
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return -g;
    }
    static std::string cpp(std::string_view a) { return detail::prefix('-', a); }
};

struct abs : op_base {
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
            return detail::math::fabs(a);
    }
    /// g * sign(x): 0 at 0, as PyTorch.
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return g * call<sign>(x);
    }
    static std::string cpp(std::string_view a) { return detail::call("std::abs", a); }
};

/// relu(x) = max(x, 0); relu(NaN) is NaN, as PyTorch's.
struct relu : op_base {
    static constexpr const char* name = "relu";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a) {
        if constexpr (detail::is_bool_v<T>)
            return a;
        else if constexpr (std::is_integral_v<T>)
            return a > T(0) ? a : T(0);
        else // a NaN is not < 0: it stays
            return detail::math::select(a < detail::splat<T>(0), detail::splat<T>(0), a);
    }
    /// PyTorch's threshold_backward: 0 where the result is <= 0 (so at 0), g elsewhere.
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return call<where>(y <= 0_c, 0_c, g);
    }
    static std::string cpp(std::string_view a) {
        const std::string x(a);
        return "(" + x + " > 0 || " + x + " != " + x + " ? " + x + " : " + "decltype(+" + x +
               ")(0))";
    }
};

/// torch.square: x * x.
struct square : op_base {
    static constexpr const char* name = "square";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a) {
        return mul::apply(a, a);
    }
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return g * (2_c * x);
    }
    static std::string cpp(std::string_view a) { return mul::cpp(a, a); }
};

/// torch.sign: -1, 0 or 1 in the input's type; sign(±0) and sign(NaN) are 0, as PyTorch's.
struct sign : op_base {
    static constexpr const char* name = "sign";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a) {
        if constexpr (detail::is_bool_v<T> || std::is_unsigned_v<T>) {
            return a > T(0) ? T(1) : T(0);
        } else if constexpr (std::is_integral_v<T>) {
            return a > 0 ? T(1) : a < 0 ? T(-1) : T(0);
        } else {
            const T zero = detail::splat<T>(0);
            return detail::math::select(a > zero, detail::splat<T>(1),
                                        detail::math::select(a < zero, detail::splat<T>(-1), zero));
        }
    }
    STATICPY_ZERO_DERIVATIVE
    static std::string cpp(std::string_view a) {
        const std::string x(a);
        return "(" + x + " > 0 ? decltype(+" + x + ")(1) : " + x + " < 0 ? decltype(+" + x +
               ")(-1) : decltype(+" + x + ")(0))";
    }
};

/// torch.floor, ceil and round (half to even); integers are already whole: unchanged.
#define STATICPY_ROUNDING_OP(Name, Math, Std)                                                      \
    struct Name : op_base {                                                                        \
        static constexpr const char* name = #Name;                                                 \
        static constexpr int arity = 1;                                                            \
        static constexpr op_kind kind = op_kind::same;                                             \
        template <class T>                                                                         \
        static T apply(T a) {                                                                      \
            if constexpr (std::is_integral_v<T>)                                                   \
                return a;                                                                          \
            else                                                                                   \
                return detail::math::Math(a);                                                      \
        }                                                                                          \
        STATICPY_ZERO_DERIVATIVE                                                                   \
        static std::string cpp(std::string_view a) { return detail::call(Std, a); }                \
    }
STATICPY_ROUNDING_OP(floor, floor, "std::floor");
STATICPY_ROUNDING_OP(ceil, ceil, "std::ceil");
STATICPY_ROUNDING_OP(round, nearbyint, "std::nearbyint");
#undef STATICPY_ROUNDING_OP

// ---------------------------------------------------------------------------------------------
// Unary math: integers and bool are computed in the default float (float32).

#define STATICPY_MATH_OP(Name, Std, ...)                                                           \
    struct Name : op_base {                                                                        \
        static constexpr const char* name = #Name;                                                 \
        static constexpr int arity = 1;                                                            \
        static constexpr op_kind kind = op_kind::floating;                                         \
        static constexpr int cost = transcendental_cost;                                           \
        template <class T>                                                                         \
        static T apply(T a) {                                                                      \
            static_assert(!std::is_integral_v<T>,                                                  \
                          "staticpy: internal: unary math is applied in a floating type");         \
            return detail::math::Name(a);                                                          \
        }                                                                                          \
        template <std::size_t I, class G, class Y, class X>                                        \
        static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {    \
            return __VA_ARGS__;                                                                    \
        }                                                                                          \
        static std::string cpp(std::string_view a) { return detail::call(Std, a); }                \
    }
// The last argument is the derivative rule (vjp), in g, y = Name(x) and x, as PyTorch's.
STATICPY_MATH_OP(exp, "std::exp", g* y);
STATICPY_MATH_OP(expm1, "std::expm1", g*(y + 1_c));
STATICPY_MATH_OP(log, "std::log", g / x);
STATICPY_MATH_OP(log1p, "std::log1p", g / (x + 1_c));
STATICPY_MATH_OP(sqrt, "std::sqrt", g / (2_c * y));
STATICPY_MATH_OP(sin, "std::sin", g* call<cos>(x));
STATICPY_MATH_OP(cos, "std::cos", -g* call<sin>(x));
STATICPY_MATH_OP(tanh, "std::tanh", g*(1_c - y * y));
STATICPY_MATH_OP(erf, "std::erf", 1.1283791670955126_c * g * call<exp>(-(x * x)));
#undef STATICPY_MATH_OP

/// 1 / sqrt(x).
struct rsqrt : op_base {
    static constexpr const char* name = "rsqrt";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    template <class T>
    static T apply(T a) {
        return detail::splat<T>(1) / detail::math::sqrt(a);
    }
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return -0.5_c * g * (y * y * y);
    }
    static std::string cpp(std::string_view a) {
        return "(1 / " + detail::call("std::sqrt", a) + ")";
    }
};

/// torch.reciprocal: 1 / x (1 / 0 is inf); integers give float32.
struct reciprocal : op_base {
    static constexpr const char* name = "reciprocal";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    template <class T>
    static T apply(T a) {
        return detail::splat<T>(1) / a;
    }
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return -g * (y * y);
    }
    static std::string cpp(std::string_view a) { return "(1 / " + std::string(a) + ")"; }
};

/// 1 / (1 + exp(-x)): saturates to 0 and 1 without NaN for large |x|.
struct sigmoid : op_base {
    static constexpr const char* name = "sigmoid";
    static constexpr int cost = transcendental_cost;
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    template <class T>
    static T apply(T a) {
        return detail::splat<T>(1) / (detail::splat<T>(1) + detail::math::exp(-a));
    }
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        return g * ((1_c - y) * y);
    }
    static std::string cpp(std::string_view a) {
        return "(1 / (1 + " + detail::call("std::exp", detail::prefix('-', a)) + "))";
    }
};

/// GELU, PyTorch's exact (approximate='none') form: x * 0.5 * (1 + erf(x / sqrt(2))).
struct gelu : op_base {
    static constexpr const char* name = "gelu";
    static constexpr int cost = transcendental_cost;
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    STATICPY_FLOATING_ONLY("gelu", "GeluKernelImpl")
    static constexpr double sqrt1_2 = 0.70710678118654752440;
    template <class T>
    static T apply(T a) {
        return a * detail::splat<T>(0.5) *
               (detail::splat<T>(1) + detail::math::erf(a * detail::splat<T>(sqrt1_2)));
    }
    /// PyTorch's gelu_backward: g * (Phi(x) + x * phi(x)).
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        constexpr double inv_sqrt_2pi = 0.39894228040143267794;
        return g * (0.5_c * (1_c + call<erf>(x * STATICPY_REAL_CONSTANT(sqrt1_2))) +
                    x * STATICPY_REAL_CONSTANT(inv_sqrt_2pi) * call<exp>(-0.5_c * x * x));
    }
    static std::string cpp(std::string_view a) {
        const std::string x(a);
        return "(" + x + " * 0.5f * (1 + std::erf(" + x + " * " +
               detail::typed_constant(a, detail::literal(sqrt1_2)) + ")))";
    }
};

/// SiLU (swish), torch.nn.functional.silu: x * sigmoid(x) = x / (1 + exp(-x)).
struct silu : op_base {
    static constexpr const char* name = "silu";
    static constexpr int cost = transcendental_cost;
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::floating;
    STATICPY_FLOATING_ONLY("silu", "silu_cpu")
    template <class T>
    static T apply(T a) {
        return a / (detail::splat<T>(1) + detail::math::exp(-a));
    }
    /// PyTorch's silu_backward: g * s * (1 + x * (1 - s)), s = sigmoid(x).
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        const auto s = call<sigmoid>(x);
        return g * (s * (1_c + x * (1_c - s)));
    }
    static std::string cpp(std::string_view a) {
        return "(" + std::string(a) + " / (1 + " +
               detail::call("std::exp", detail::prefix('-', a)) + "))";
    }
};

/// torch.nn.functional.leaky_relu(x, negative_slope): x where x > 0, else x * negative_slope
/// (NaN stays NaN).
struct leaky_relu : op_base {
    static constexpr const char* name = "leaky_relu";
    static constexpr int arity = 2;
    static constexpr op_kind kind = op_kind::parametric;
    STATICPY_FLOATING_ONLY("leaky_relu", "leaky_relu_cpu")
    template <class T>
    static T apply(T a, T negative_slope) {
        return detail::math::select(a > detail::splat<T>(0), a, a * negative_slope);
    }
    template <std::size_t I, class G, class Y, class X, class Slope>
    static auto vjp(const G& g, const Y&, const X& x, const Slope& negative_slope) {
        if constexpr (I == 0)
            return call<where>(x > 0_c, g, g * negative_slope);
        else
            return no_grad{};
    }
    static std::string cpp(std::string_view a, std::string_view negative_slope) {
        const std::string x(a);
        return "(" + x + " > 0 ? " + x + " : " + x + " * " + std::string(negative_slope) + ")";
    }
};

/// torch.nn.functional.softplus(x, beta, threshold): log(1 + exp(beta * x)) / beta, and x itself
/// where beta * x > threshold (there the two agree to float precision, and exp would overflow).
struct softplus : op_base {
    static constexpr const char* name = "softplus";
    static constexpr int cost = transcendental_cost;
    static constexpr int arity = 3;
    static constexpr op_kind kind = op_kind::parametric;
    STATICPY_FLOATING_ONLY("softplus", "softplus_cpu")
    template <class T>
    static T apply(T a, T beta, T threshold) {
        const T scaled = a * beta;
        return detail::math::select(scaled > threshold, a,
                                    detail::math::log1p(detail::math::exp(scaled)) / beta);
    }
    /// PyTorch's softplus_backward: g * z / (z + 1), z = exp(beta x); g itself past threshold.
    template <std::size_t I, class G, class Y, class X, class Beta, class Threshold>
    static auto vjp(const G& g, const Y&, const X& x, const Beta& beta,
                    const Threshold& threshold) {
        if constexpr (I == 0) {
            const auto z = call<exp>(x * beta);
            return call<where>(x * beta > threshold, g, g * z / (z + 1_c));
        } else {
            return no_grad{};
        }
    }
    static std::string cpp(std::string_view a, std::string_view beta, std::string_view threshold) {
        const std::string scaled = detail::infix(a, "*", beta);
        return "(" + scaled + " > " + std::string(threshold) + " ? " + std::string(a) + " : " +
               detail::call("std::log1p", detail::call("std::exp", scaled)) + " / " +
               std::string(beta) + ")";
    }
};
#undef STATICPY_FLOATING_ONLY

/// Zero of the operand's type, whatever the operand: what the graph's simplifier puts for x - x
/// (which assumes x finite, as the rewrite x - x -> 0 always does).
struct zeros_like : op_base {
    static constexpr const char* name = "zeros_like";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T) {
        return detail::splat<T>(0);
    }
    STATICPY_ZERO_DERIVATIVE
    static std::string cpp(std::string_view a) { return detail::typed_constant(a, "0"); }
};

/// stop_gradient(x), x.detach(): x's value, through which no gradient flows (the value is a
/// constant to what differentiates it).
struct stop_gradient : op_base {
    static constexpr const char* name = "stop_gradient";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::same;
    template <class T>
    static constexpr T apply(T a) {
        return a;
    }
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G&, const Y&, const X&) {
        return no_grad{};
    }
    static std::string cpp(std::string_view a) { return std::string(a); }
};

// ---------------------------------------------------------------------------------------------
// where and cast

/// where(cond, a, b): a where cond is true, else b.
struct where : op_base {
    static constexpr const char* name = "where";
    static constexpr int arity = 3;
    static constexpr op_kind kind = op_kind::select;
    /// c is a bool, or a batch's mask (a comparison of batches) with a and b batches.
    template <class C, class T>
    static constexpr T apply(const C& c, const T& a, const T& b) {
        return detail::math::select(c, a, b);
    }
    template <std::size_t I, class G, class Y, class C, class A, class B>
    static auto vjp(const G& g, const Y&, const C& c, const A&, const B&) {
        if constexpr (I == 0)
            return no_grad{};
        else if constexpr (I == 1)
            return call<where>(c, g, 0_c);
        else
            return call<where>(c, 0_c, g);
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
struct cast : op_base {
    static constexpr const char* name = "cast";
    static constexpr int arity = 1;
    static constexpr op_kind kind = op_kind::cast;
    static constexpr bool vectorized = false;
    using result_type = To;
    template <class T>
    static constexpr To apply(T a) {
        return staticpy::detail::convert<To>(a); // the rules Tensor::to uses too
    }
    /// The gradient converted back to the operand's type (none for an integer or bool operand).
    template <std::size_t I, class G, class Y, class X>
    static auto vjp(const G& g, [[maybe_unused]] const Y& y, [[maybe_unused]] const X& x) {
        if constexpr (std::is_floating_point_v<typename X::value_type>)
            return call<cast<typename X::value_type>>(g);
        else
            return no_grad{};
    }
    static std::string cpp(std::string_view a) {
        if constexpr (detail::is_bool_v<To>) {
            // Appended, not "(" + std::string(a): g++ 12 at -O3 takes that for an overlapping
            // memcpy (-Wrestrict, GCC bug 105329).
            std::string out = "(";
            out += a;
            return out + " != 0)";
        } else {
            return detail::call(
                std::string("static_cast<") + detail::cpp_type_name<To>::value + ">", a);
        }
    }
};

#undef STATICPY_ZERO_DERIVATIVE

/// The C++ spelling of an element type in emitted source ("float", "std::int64_t", ...).
template <class T>
inline constexpr const char* cpp_type_name = detail::cpp_type_name<T>::value;

} // namespace staticpy::fn
