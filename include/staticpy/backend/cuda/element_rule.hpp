#pragma once
// In-place elementwise rules on a GPU: the optimisers' steps and gradient clipping (nn's
// for_each_element: rule(p, g, m, ...) on every element, the written tensors taken by reference)
// run as one CUDA kernel, generated from the very rule the CPU runs.
//
// A rule is generic: the CPU calls it with elements and with SIMD batches, and it is written with
// operators and kernels::math (math::sqrt, math::select, ...), whose batch forms come from
// kernels::batch_math<B>. Here it is called once more, with rule_value<T>: a "batch" whose
// operations write CUDA statements instead of computing (batch_math<rule_value<T>>). What the
// rule did to each written element is then the kernel's body. Every number the rule brings in
// (a learning rate, a bias correction, splat<X>(1)) becomes a kernel parameter in the order it
// appears, so the source depends only on the rule's operations: a step with another learning rate
// runs the same compiled kernel, while a rule that takes another branch (nesterov or not) is
// another source, compiled once too.
//
//   for_each_element<1>([=](auto& p, auto g) { p = p - lr * g; }, param, grad);  // any device

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"

namespace staticpy::cuda::detail {

/// What tracing a rule records: the kernel's statements and the numbers it brought in. One per
/// thread, while a rule is traced.
struct rule_trace {
    std::string body;
    std::vector<double> numbers;
    int temporaries = 0;

    static rule_trace*& current() noexcept {
        thread_local rule_trace* trace = nullptr;
        return trace;
    }
};

/// A boolean of a traced rule (a comparison, isnan): CUDA source of type bool.
struct rule_mask {
    std::string source;
    friend rule_mask operator|(const rule_mask& a, const rule_mask& b) {
        return {"(" + a.source + " || " + b.source + ")"};
    }
};

/// One element of a traced rule: the name of the CUDA variable holding it.
template <class T>
struct rule_value {
    using value_type = T; // (kernels::element_t: splat<rule_value<T>>(c) gives a number)
    std::string name;

    rule_value() = default;
    explicit rule_value(std::string n) : name(std::move(n)) {}
    /// A number the rule brings in: the next kernel parameter.
    rule_value(T number) { // NOLINT(google-explicit-constructor): as a batch takes a scalar
        rule_trace& t = *rule_trace::current();
        name = "number_" + std::to_string(t.numbers.size());
        t.numbers.push_back(static_cast<double>(number));
    }

    /// A new variable holding `expression` (each operation one statement, so that a value used
    /// twice is computed once).
    static rule_value of(const std::string& expression) {
        rule_trace& t = *rule_trace::current();
        rule_value v("value_" + std::to_string(t.temporaries++));
        t.body += "        const " + std::string(cuda_type<T>()) + " " + v.name + " = " +
                  expression + ";\n";
        return v;
    }

    template <class U>
    static constexpr const char* cuda_type() {
        return std::is_same_v<U, float> ? "float" : "double";
    }

#define STATICPY_RULE_BINARY(op)                                                                   \
    friend rule_value operator op(const rule_value& a, const rule_value& b) {                      \
        return of(a.name + " " #op " " + b.name);                                                  \
    }                                                                                              \
    friend rule_value operator op(const rule_value& a, T b) {                                      \
        return a op rule_value(b);                                                                 \
    }                                                                                              \
    friend rule_value operator op(T a, const rule_value& b) {                                      \
        return rule_value(a) op b;                                                                 \
    }
    STATICPY_RULE_BINARY(+)
    STATICPY_RULE_BINARY(-)
    STATICPY_RULE_BINARY(*)
    STATICPY_RULE_BINARY(/)
#undef STATICPY_RULE_BINARY
    friend rule_value operator-(const rule_value& a) {
        return of("-" + a.name);
    }
#define STATICPY_RULE_COMPARE(op)                                                                  \
    friend rule_mask operator op(const rule_value& a, const rule_value& b) {                       \
        return {"(" + a.name + " " #op " " + b.name + ")"};                                        \
    }
    STATICPY_RULE_COMPARE(<)
    STATICPY_RULE_COMPARE(>)
    STATICPY_RULE_COMPARE(<=)
    STATICPY_RULE_COMPARE(>=)
    STATICPY_RULE_COMPARE(==)
    STATICPY_RULE_COMPARE(!=)
#undef STATICPY_RULE_COMPARE
    rule_value& operator+=(const rule_value& b) {
        return *this = *this + b;
    }
    rule_value& operator-=(const rule_value& b) {
        return *this = *this - b;
    }
    rule_value& operator*=(const rule_value& b) {
        return *this = *this * b;
    }
    rule_value& operator/=(const rule_value& b) {
        return *this = *this / b;
    }
};

} // namespace staticpy::cuda::detail

namespace staticpy::kernels {

/// kernels::math on a traced rule's values: CUDA's functions of the same meaning (max and min as
/// the CPU's comparisons, NaN included; isnan as x != x).
template <class T>
struct batch_math<cuda::detail::rule_value<T>> {
    using V = cuda::detail::rule_value<T>;
#define STATICPY_RULE_UNARY(function, cuda_name)                                                   \
    static V function(const V& x) {                                                                \
        return V::of(std::string(cuda_name) + "(" + x.name + ")");                                 \
    }
    STATICPY_RULE_UNARY(exp, "exp")
    STATICPY_RULE_UNARY(expm1, "expm1")
    STATICPY_RULE_UNARY(log, "log")
    STATICPY_RULE_UNARY(log1p, "log1p")
    STATICPY_RULE_UNARY(sqrt, "sqrt")
    STATICPY_RULE_UNARY(sin, "sin")
    STATICPY_RULE_UNARY(cos, "cos")
    STATICPY_RULE_UNARY(tanh, "tanh")
    STATICPY_RULE_UNARY(erf, "erf")
    STATICPY_RULE_UNARY(fabs, "fabs")
    STATICPY_RULE_UNARY(floor, "floor")
    STATICPY_RULE_UNARY(ceil, "ceil")
    STATICPY_RULE_UNARY(nearbyint, "nearbyint")
#undef STATICPY_RULE_UNARY
    static V pow(const V& a, const V& b) {
        return V::of("pow(" + a.name + ", " + b.name + ")");
    }
    static V max(const V& a, const V& b) {
        return V::of(a.name + " > " + b.name + " ? " + a.name + " : " + b.name);
    }
    static V min(const V& a, const V& b) {
        return V::of(a.name + " < " + b.name + " ? " + a.name + " : " + b.name);
    }
    static cuda::detail::rule_mask isnan(const V& x) {
        return {"(" + x.name + " != " + x.name + ")"};
    }
    static V select(const cuda::detail::rule_mask& m, const V& a, const V& b) {
        return V::of(m.source + " ? " + a.name + " : " + b.name);
    }
};

} // namespace staticpy::kernels

namespace staticpy::cuda::detail {

/// The kernel of rule over K tensors of T (Written[j]: tensor j is written), and the numbers its
/// parameters take, from one trace of the rule.
template <class T, std::size_t K>
struct traced_rule {
    std::string source;
    std::vector<double> numbers;
};

/// An element of a traced rule as the rule gets it: writable where the rule writes it.
template <bool Written, class V>
decltype(auto) rule_operand(V& v) {
    if constexpr (Written)
        return (v);
    else
        return std::as_const(v);
}

template <class T, bool... Written, class Rule>
traced_rule<T, sizeof...(Written)> trace_rule(const Rule& rule) {
    constexpr std::size_t K = sizeof...(Written);
    constexpr std::array<bool, K> written{Written...};
    rule_trace trace;
    rule_trace* const outer = std::exchange(rule_trace::current(), &trace);
    struct restore {
        rule_trace* outer;
        ~restore() { rule_trace::current() = outer; }
    } restore_at_exit{outer};
    std::array<rule_value<T>, K> elements;
    for (std::size_t j = 0; j < K; ++j)
        elements[j] = rule_value<T>("element_" + std::to_string(j));
    [&]<std::size_t... J>(std::index_sequence<J...>) {
        // A read tensor's element is passed const, as the CPU loop passes it.
        rule(rule_operand<written[J]>(elements[J])...);
    }
    (std::make_index_sequence<K>{});

    const char* type = rule_value<T>::template cuda_type<T>();
    std::string s = "extern \"C\" __global__ void element_rule(long long n";
    for (std::size_t j = 0; j < K; ++j)
        s += std::string(", ") + (written[j] ? "" : "const ") + type + "* __restrict__ tensor_" +
             std::to_string(j);
    for (std::size_t i = 0; i < trace.numbers.size(); ++i)
        s += std::string(", ") + type + " number_" + std::to_string(i);
    s += ") {\n    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
         "         i += (long long)blockDim.x * gridDim.x) {\n";
    for (std::size_t j = 0; j < K; ++j)
        s += std::string("        const ") + type + " element_" + std::to_string(j) + " = tensor_" +
             std::to_string(j) + "[i];\n";
    s += trace.body;
    for (std::size_t j = 0; j < K; ++j)
        if (written[j])
            s += "        tensor_" + std::to_string(j) + "[i] = " + elements[j].name + ";\n";
    s += "    }\n}\n";
    return {std::move(s), std::move(trace.numbers)};
}

/// The kernel_key index of a rule's source: each distinct source its own (interned for the
/// process), so that two traces of one rule type that differ compile apart.
inline std::size_t rule_source_index(const std::string& source) {
    static std::mutex mutex;
    static std::map<std::string, std::size_t>* const known = new std::map<std::string, std::size_t>;
    std::lock_guard lock(mutex);
    return known->try_emplace(source, known->size()).first->second;
}

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// The launch of for_each_element_on_cuda on contiguous tensors of one device.
template <class Rule, class First, class... Rest>
void launch_element_rule(const Device& device, const Rule& rule, First& first, Rest&... rest) {
    using T = typename std::remove_const_t<First>::value_type;
    const std::int64_t n = first.numel();
    if (n == 0)
        return;
    const auto traced =
        cuda::detail::trace_rule<T, !std::is_const_v<First>, !std::is_const_v<Rest>...>(rule);
    cuda::detail::compiled_kernels& ks = cuda::detail::kernel_registry::process().get(
        cuda::detail::kernel_key{std::type_index(typeid(element_rule_tag)),
                                 cuda::detail::rule_source_index(traced.source),
                                 cuda::cuda_layout{.contiguous = true}, device.index()},
        [&] { return traced.source; });
    cuda::detail::kernel_arguments a;
    a.add<long long>(n);
    a.add(static_cast<const void*>(first.data_ptr()));
    (a.add(static_cast<const void*>(rest.data_ptr())), ...);
    for (const double number : traced.numbers)
        a.add(static_cast<T>(number));
    const cuda::detail::device_shape shape = cuda::detail::shape_of_device(device.index());
    cuda::detail::launch_default(ks.function("element_rule"), cuda::detail::grid_for(n, shape), 1,
                                 shape.block, a);
}

/// A tensor the rule reads, as the kernel reads it: contiguous (a strided one, the gradient of a
/// parameter used transposed, copied through the host first: no strided rule kernel yet).
template <class X>
X contiguous_on_device(const X& x) {
    return x.contiguous();
}

/// nn's for_each_element on tensors on a GPU (ops_elementwise.hpp's element_rule_tag): the rule
/// traced into a kernel (once per distinct source), launched over the elements. The written
/// tensors (an optimiser's parameter and state) must be contiguous.
template <class Rule, class First, class... Rest>
void for_each_element_on_cuda(element_rule_tag, const Rule& rule, First& first, Rest&... rest) {
    using T = typename std::remove_const_t<First>::value_type;
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: an elementwise rule on the GPU takes float or double tensors");
    const Device device = check_same_device(first, rest...);
    const auto written_strided = [](const auto& t) {
        return !std::is_const_v<std::remove_reference_t<decltype(t)>> && !t.is_contiguous();
    };
    if (written_strided(first) || (written_strided(rest) || ...))
        throw RuntimeError("staticpy: an in-place elementwise step on the GPU (an optimiser's) "
                           "needs contiguous tensors to write");
    // Each read tensor contiguous, each written one itself.
    const auto held = [](auto& t) -> decltype(auto) {
        using X = std::remove_reference_t<decltype(t)>;
        if constexpr (std::is_const_v<X>)
            return contiguous_on_device(t);
        else
            return std::ref(t);
    };
    auto operands = std::tuple{held(first), held(rest)...};
    std::apply(
        [&](auto&... o) {
            const auto unwrap = [](auto& h) -> decltype(auto) {
                if constexpr (requires { h.get(); })
                    return h.get();
                else
                    return std::as_const(h);
            };
            launch_element_rule(device, rule, unwrap(o)...);
        },
        operands);
}

} // namespace staticpy::detail
