#pragma once
// Eager autodiff: a tape recorded at run time, as PyTorch's autograd. grad on the tape (a grad
// given Vars, and one whose graph is too large to number: jit's eager form) calls the function
// with Vars in place of the differentiated tensors; every op on a
// Var computes at once, as on a Tensor, and records a tape node that can pass a cotangent back
// through the op's derivative rule, the same rule graph mode uses (functors.hpp, reductions.hpp,
// ops_matmul.hpp, op_objects.hpp). So a gradient can be debugged op by op, and both modes give the
// same numbers.
//
//   auto x = autograd::leaf(t);                 // a Var that collects its gradient
//   auto y = (x * x).sum();                     // computed now, recorded
//   autograd::backward(y);                      // x's gradient: autograd::gradient(x) == 2t
//
// The tape is the nodes themselves: each holds its operands' nodes (shared), a sequence number
// (creation order, a topological order), and a closure over its operands. backward() visits the
// nodes reachable from the output in reverse creation order. While it runs, recording is off, so
// the rules compute without recording (first-order gradients), unless it is asked to record the
// gradient's own computation (create_graph, as PyTorch's): then the rules run on recorded Vars,
// each cotangent keeps its own node, and a gradient can be differentiated again. A grad whose
// arguments are already Vars (grad(grad(f)) on the tape) runs its backward pass that way.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/tensor/op_objects_index.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

template <class T, class S>
class Var;

template <class X>
inline constexpr bool is_var_v = false;
template <class T, class S>
inline constexpr bool is_var_v<Var<T, S>> = true;

namespace detail {
/// Var's methods call the free functions declared below it (as tensor_methods for Tensor).
template <class Self>
struct var_methods;
} // namespace detail

namespace autograd {

/// The symbolic family of Vars (see detail::symbolic_family).
struct tape_family {};

/// Whether ops on Vars record tape nodes on this thread (off while backward() runs).
inline bool& recording() {
    thread_local bool on = true;
    return on;
}

/// Turns recording off for a scope (torch.no_grad).
class no_grad {
public:
    no_grad() : was_(recording()) { recording() = false; }
    ~no_grad() { recording() = was_; }
    no_grad(const no_grad&) = delete;
    no_grad& operator=(const no_grad&) = delete;

private:
    bool was_;
};

/// A tape node: the value of one op (or a leaf), the nodes of its operands, and how to pass its
/// cotangent to them.
struct node : std::enable_shared_from_this<node> {
    std::uint64_t sequence = next_sequence();
    std::vector<std::shared_ptr<node>> operands;
    virtual ~node() = default;
    /// Passes the cotangent this node has collected to its operands' nodes.
    virtual void pass_back() = 0;
    virtual bool has_cotangent() const = 0;
    /// Forgets the cotangent (after a grad has read what it asked for).
    virtual void clear_cotangent() = 0;

    static std::uint64_t next_sequence() {
        static std::atomic<std::uint64_t> counter{0};
        return ++counter;
    }
};

/// A node of a value of element type T and rank R: it collects its cotangent (all shape types of
/// rank R share one node type, so a value keeps its node across shape-type conversions).
template <class T, std::size_t R>
struct value_node : node {
    Tensor<T, dynamic_shape<R>> value;
    std::optional<Tensor<T, dynamic_shape<R>>> cotangent;
    /// The cotangent's own node when the backward pass records (create_graph); null otherwise.
    std::shared_ptr<value_node> cotangent_node;

    explicit value_node(Tensor<T, dynamic_shape<R>> v) : value(std::move(v)) {}
    bool has_cotangent() const override { return cotangent.has_value(); }
    void clear_cotangent() override {
        cotangent.reset();
        cotangent_node.reset();
    }
};

/// A leaf: a value differentiated against. Its cotangent is the gradient.
template <class T, std::size_t R>
struct leaf_node : value_node<T, R> {
    using value_node<T, R>::value_node;
    void pass_back() override {}
};

/// An op's node: PassBack(node&) passes its cotangent to its operands.
template <class T, std::size_t R, class PassBack>
struct op_node : value_node<T, R> {
    PassBack pass;
    op_node(Tensor<T, dynamic_shape<R>> v, PassBack p)
        : value_node<T, R>(std::move(v)), pass(std::move(p)) {}
    void pass_back() override { pass(*this); }
};

} // namespace autograd

/// A tensor recorded on the autodiff tape: what a PYNATIVE_MODE grad passes its function for a
/// differentiated tensor. It has the Tensor's ops and methods; each computes at once and, while
/// recording, adds a tape node.
template <class T, class S>
class Var {
public:
    using value_type = T;
    using shape_type = S;
    static constexpr std::size_t rank = S::rank;
    using node_type = autograd::value_node<T, rank>;

    Tensor<T, S> value;
    std::shared_ptr<node_type> node; // null: a constant (not recorded)

    Var() = default;
    Var(Tensor<T, S> v, std::shared_ptr<node_type> n) : value(std::move(v)), node(std::move(n)) {}
    /// The same value under another shape type of the same rank (checked as Tensor's).
    template <class S2>
    requires(S2::rank == rank && !std::is_same_v<S2, S>) explicit Var(const Var<T, S2>& o)
        : value(Tensor<T, S>(o.value)), node(o.node) {}

    static constexpr staticpy::dtype dtype() { return dtype_of_v<T>; }
    static constexpr std::int64_t dim() { return static_cast<std::int64_t>(rank); }
    const auto& sizes() const { return value.sizes(); }
    const S& shape() const { return value.shape(); }
    std::int64_t numel() const { return value.numel(); }
    T item() const { return value.item(); }

#define STATICPY_VAR_FORWARD(name)                                                                 \
    template <class... Args>                                                                       \
    auto name(const Args&... args) const {                                                         \
        return detail::var_methods<Var>::name(*this, args...);                                     \
    }
    STATICPY_TENSOR_OP_METHODS(STATICPY_VAR_FORWARD)
#undef STATICPY_VAR_FORWARD
    /// x.where(condition, y): torch.where(condition, x, y).
    template <class C, class O>
    auto where(const C& condition, const O& other) const {
        return detail::where_method<Var>::apply(condition, *this, other);
    }

#define STATICPY_VAR_VIEW(name)                                                                    \
    template <class... Args>                                                                       \
    auto name(const Args&... args) const {                                                         \
        return detail::apply_op(detail::name##_op<Args...>{{args...}}, *this);                     \
    }
    STATICPY_VAR_VIEW(transpose)
    STATICPY_VAR_VIEW(permute)
    STATICPY_VAR_VIEW(t)
    STATICPY_VAR_VIEW(reshape)
    STATICPY_VAR_VIEW(view)
    STATICPY_VAR_VIEW(flatten)
    STATICPY_VAR_VIEW(expand)
    STATICPY_VAR_VIEW(squeeze)
    STATICPY_VAR_VIEW(unsqueeze)
    STATICPY_VAR_VIEW(contiguous)
    STATICPY_VAR_VIEW(select)
    STATICPY_VAR_VIEW(slice)
    STATICPY_VAR_VIEW(narrow)
#undef STATICPY_VAR_VIEW
    /// x[i], x[slice(a, b, c)] (tensor/op_objects_index.hpp).
    template <class A>
    auto operator[](const A& a) const {
        return detail::apply_op(detail::subscript_op_of(a), *this);
    }

    template <class U>
    auto to() const {
        return staticpy::cast<U>(*this);
    }
};

namespace detail {

template <class T, class S>
struct symbolic_family<Var<T, S>> {
    using type = autograd::tape_family;
};

/// An operand's value for the eager op: a Var's tensor, anything else itself.
template <class X>
const auto& eager_value(const X& x) {
    if constexpr (is_var_v<X>)
        return x.value;
    else
        return x;
}
/// An operand as the derivative rules take it: a Var stays, a tensor or a number becomes a
/// constant Var, a compile-time number stays.
template <class X>
auto as_rule_operand(const X& x) {
    if constexpr (is_tensor_v<X>) {
        return Var<typename X::value_type, typename X::shape_type>{x, nullptr};
    } else if constexpr (std::is_arithmetic_v<X>) {
        // A number a rule may pass to a function of its own (pow's log(a)): a zero-dim constant,
        // which promotes as the number did (a zero-dim tensor does not widen a tensor's dtype).
        Tensor<X, shape<>> t{shape<>{}};
        *t.data() = x;
        return Var<X, shape<>>{std::move(t), nullptr};
    } else {
        return x;
    }
}

template <class X>
bool is_recorded(const X& x) {
    if constexpr (is_var_v<X>)
        return x.node != nullptr;
    else
        return false;
}

/// v as a Var of a dynamic shape of its rank (a tensor or a number: a constant Var). The
/// cotangents take this one shape type per dtype and rank, so that a recording backward pass adds
/// few instantiations to every op's rule.
template <class X>
auto as_dynamic_var(const X& x) {
    const auto v = as_rule_operand(x);
    using V = std::remove_cvref_t<decltype(v)>;
    using D = Var<typename V::value_type, dynamic_shape<V::rank>>;
    if constexpr (std::is_same_v<V, D>)
        return v;
    else
        return D(v);
}

/// Adds cotangent g to node n's; while the backward pass records, as a recorded sum.
template <class T, std::size_t R>
void accumulate(autograd::value_node<T, R>& n, const Var<T, dynamic_shape<R>>& g) {
    if (!n.cotangent) {
        n.cotangent = g.value;
        n.cotangent_node = g.node;
        return;
    }
    const auto sum = as_dynamic_var(Var<T, dynamic_shape<R>>{*n.cotangent, n.cotangent_node} + g);
    n.cotangent = sum.value;
    n.cotangent_node = sum.node;
}

/// Cotangent c, summed back to the shape of x (whose shape c's is a broadcast of) and cast to
/// x's dtype, added to x's node.
/// (c and x: Vars of dynamic shapes, as_dynamic_var's.)
template <class C, class X>
void send_dynamic_cotangent(const C& c, const X& x) {
    const auto summed = as_dynamic_var(fn::sum_to(c, x));
    using T = typename X::value_type;
    if constexpr (std::is_same_v<typename C::value_type, T>)
        accumulate(*x.node, summed);
    else
        accumulate(*x.node, as_dynamic_var(cast<T>(summed)));
}

/// Passes cotangent contribution c (of any shape broadcast from x's) to operand x's node.
template <class C, class X>
void send_cotangent(const C& c, const X& x) {
    if constexpr (is_var_v<X> && !std::is_same_v<C, fn::no_grad>) {
        if (x.node)
            send_dynamic_cotangent(as_dynamic_var(c), as_dynamic_var(x));
    }
}

/// An operand as the tape's nodes keep it: a Var or a tensor as a Var of its rank's dynamic
/// shape (as_dynamic_var), a compile-time number as it is.
template <class X>
auto as_tape_operand(const X& x) {
    if constexpr (is_var_v<X> || is_tensor_v<X> || std::is_arithmetic_v<X>)
        return as_dynamic_var(x);
    else
        return x;
}

/// The node of an op whose value y was computed from operands xs (as_tape_operand's): it passes
/// a cotangent g back through rule(integral_constant<I>, g, y, xs...) to each recorded operand I.
/// The node, its rule's instantiations and the backward pass's ops depend on the dtype and rank
/// of the values, not on their static extents: the tape is compiled once per (op, dtypes, ranks)
/// rather than once per shape of every op a program records.
template <class T, std::size_t R, class Rule, class... Xs>
std::shared_ptr<autograd::value_node<T, R>> record_node(Tensor<T, dynamic_shape<R>> y,
                                                        const Rule& rule, const Xs&... xs) {
    using V = Var<T, dynamic_shape<R>>;
    auto pass = [rule, operands = std::tuple{xs...}](autograd::value_node<T, R>& self) {
        // Recorded Vars (the cotangent's node, this node): a recording backward pass builds the
        // gradient's graph from them; otherwise nothing records and the nodes go unused.
        const V g{*self.cotangent, self.cotangent_node};
        const V out{self.value,
                    std::static_pointer_cast<autograd::value_node<T, R>>(self.shared_from_this())};
        std::apply(
            [&](const auto&... x) {
                [&]<std::size_t... I>(std::index_sequence<I...>) {
                    (
                        [&] {
                            const auto& xi = std::get<I>(std::tie(x...));
                            using XI = std::remove_cvref_t<decltype(xi)>;
                            if constexpr (is_var_v<XI>) {
                                if constexpr (std::is_floating_point_v<typename XI::value_type>) {
                                    if (xi.node)
                                        send_cotangent(
                                            rule(std::integral_constant<std::size_t, I>{}, g, out,
                                                 x...),
                                            xi);
                                }
                            }
                        }(),
                        ...);
                }
                (std::index_sequence_for<Xs...>{});
            },
            operands);
    };
    auto n =
        std::make_shared<autograd::op_node<T, R, decltype(pass)>>(std::move(y), std::move(pass));
    (
        [&] {
            if constexpr (is_var_v<Xs>)
                if (xs.node)
                    n->operands.push_back(xs.node);
        }(),
        ...);
    return n;
}

/// Records the op that computed y from operands xs: its node passes a cotangent back through
/// rule(integral_constant<I>, g, y, xs...) to each recorded operand I, each of them a Var of a
/// dynamic shape (record_node). Rule is a named class, not a lambda of the op's template, so that
/// one rule serves every shape.
/// (Its result type is spelt out: ops whose rules use the op itself, as t()'s does, must know it
/// before this body is instantiated.)
template <class Y, class Rule, class... Xs>
Var<typename Y::value_type, typename Y::shape_type> record(Y y, const Rule& rule, const Xs&... xs) {
    using T = typename Y::value_type;
    using S = typename Y::shape_type;
    constexpr std::size_t R = S::rank;
    if (!autograd::recording() || !(is_recorded(xs) || ...))
        return Var<T, S>{std::move(y), nullptr};
    auto n = record_node<T, R>(Tensor<T, dynamic_shape<R>>(y), rule, as_tape_operand(xs)...);
    return Var<T, S>{std::move(y), std::move(n)};
}

/// The tape's rule of elementwise op F: F's vjp.
template <class F>
struct elementwise_rule {
    template <class I, class G, class Out, class... X>
    auto operator()(I, const G& g, const Out& out, const X&... x) const {
        return F::template vjp<I::value>(g, out, x...);
    }
};

/// The tape's rule of op object Op: op_vjp.
template <class Op>
struct op_rule {
    Op op;
    template <class I, class G, class Out, class... X>
    auto operator()(I, const G& g, const Out& out, const X&... x) const {
        return op_vjp<I::value>(op, g, out, x...);
    }
};

/// Elementwise ops on Vars (the tensor layer's hook): computed, and recorded with F's vjp.
template <class F>
struct symbolic_elementwise<autograd::tape_family, F> {
    template <class... Args>
    static auto apply(const Args&... args) {
        auto y = elementwise<F>(eager_value(args)...);
        using Y = decltype(y);
        if constexpr (!std::is_floating_point_v<typename Y::value_type>) // a comparison's bool
            return Var<typename Y::value_type, typename Y::shape_type>{std::move(y), nullptr};
        else
            return record(std::move(y), elementwise_rule<F>{}, as_rule_operand(args)...);
    }
};

/// stop_gradient on a Var: its value, with no history (no copy, nothing recorded).
template <>
struct symbolic_elementwise<autograd::tape_family, fn::stop_gradient> {
    template <class T, class S>
    static Var<T, S> apply(const Var<T, S>& x) {
        return Var<T, S>{x.value, nullptr};
    }
};

/// Op objects on Vars (op_objects.hpp): run, and recorded with the op's vjp.
template <>
struct symbolic_op<autograd::tape_family> {
    template <class Op, class... Args>
    static auto apply(const Op& op, const Args&... args) {
        auto y = op(eager_value(args)...);
        using Y = decltype(y);
        if constexpr (!std::is_floating_point_v<typename Y::value_type>) // argmax's, one_hot's
            return Var<typename Y::value_type, typename Y::shape_type>{std::move(y), nullptr};
        else
            return record(std::move(y), op_rule<Op>{op}, as_rule_operand(args)...);
    }
};

} // namespace detail

// ---- the ops that are not elementwise or op objects -------------------------------------------

namespace detail {
/// The tape's rule of reduction R over dim.
template <class R, bool Keep, class Dim>
struct reduction_rule {
    Dim dim;
    template <class I, class G, class Out, class X>
    auto operator()(I, const G& g, const Out& out, const X& x) const {
        return R::template vjp<Keep>(g, out, x, dim);
    }
};

template <class R, bool Keep, class T, class S, class Dim>
auto record_reduction(const Var<T, S>& x, const Dim& dim) {
    auto y = [&] {
        if constexpr (std::is_same_v<Dim, all_dims>) {
            if constexpr (R::kind == reduce_kind::sum)
                return sum(x.value);
            else if constexpr (R::kind == reduce_kind::prod)
                return prod(x.value);
            else if constexpr (R::kind == reduce_kind::mean)
                return mean(x.value);
            else if constexpr (R::kind == reduce_kind::amax)
                return max(x.value);
            else
                return min(x.value);
        } else {
            return fn::reduce<R, Keep>(x.value, dim);
        }
    }();
    return record(std::move(y), reduction_rule<R, Keep, Dim>{dim}, x);
}
} // namespace detail

#define STATICPY_VAR_REDUCTION(Name, Description)                                                  \
    template <class T, class S>                                                                    \
    auto Name(const Var<T, S>& x) {                                                                \
        return detail::record_reduction<Description, false>(x, detail::all_dims{});                \
    }                                                                                              \
    template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>              \
    auto Name(const Var<T, S>& x, const Dim& dim, Keep = {}) {                                     \
        return detail::record_reduction<Description, detail::keepdim_value<Keep>()>(x, dim);       \
    }
STATICPY_VAR_REDUCTION(sum, reduction::sum)
STATICPY_VAR_REDUCTION(prod, reduction::prod)
STATICPY_VAR_REDUCTION(mean, reduction::mean)
#undef STATICPY_VAR_REDUCTION
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto amax(const Var<T, S>& x, const Dim& dim, Keep = {}) {
    return detail::record_reduction<reduction::amax, detail::keepdim_value<Keep>()>(x, dim);
}
template <class T, class S, detail::reduce_dim Dim, class Keep = std::false_type>
auto amin(const Var<T, S>& x, const Dim& dim, Keep = {}) {
    return detail::record_reduction<reduction::amin, detail::keepdim_value<Keep>()>(x, dim);
}
template <class T, class S>
auto max(const Var<T, S>& x) {
    return detail::record_reduction<reduction::amax, false>(x, detail::all_dims{});
}
template <class T, class S>
auto min(const Var<T, S>& x) {
    return detail::record_reduction<reduction::amin, false>(x, detail::all_dims{});
}

/// softmax, log_softmax, var on Vars: their op objects.
#define STATICPY_VAR_FUNCTION(Name)                                                                \
    template <class T, class S, class... A>                                                        \
    auto Name(const Var<T, S>& x, const A&... args) {                                              \
        return detail::apply_op(detail::Name##_op<A...>{{args...}}, x);                            \
    }
STATICPY_VAR_FUNCTION(softmax)
STATICPY_VAR_FUNCTION(log_softmax)
STATICPY_VAR_FUNCTION(var)
#undef STATICPY_VAR_FUNCTION

/// x.detach() on a Var: its tensor, outside the tape (torch.Tensor.detach's result has no
/// history), so that what is computed from it (indices, a mask) is plain eager work inside a
/// differentiated function. (stop_gradient(x) stays a Var with no history.)
template <class T, class S>
Tensor<T, S> detach(const Var<T, S>& x) {
    return x.value;
}

/// argmax and argmin of a Var: of its tensor, an int64 Tensor (an integer result has no gradient).
template <class T, class S, class... A>
auto argmax(const Var<T, S>& x, const A&... args) {
    return argmax(x.value, args...);
}
template <class T, class S, class... A>
auto argmin(const Var<T, S>& x, const A&... args) {
    return argmin(x.value, args...);
}

namespace detail {
/// The tape's rule of matmul.
struct matmul_rule {
    template <class I, class G, class Out, class X, class W>
    auto operator()(I, const G& g, const Out&, const X& x, const W& w) const {
        return matmul_vjp<I::value>(g, x, w);
    }
};
} // namespace detail

/// torch.matmul with a Var on either side (a Tensor on the other is a constant).
template <class A, class B>
requires(is_var_v<A> || is_var_v<B>) auto matmul(const A& a, const B& b) {
    auto y = matmul(detail::eager_value(a), detail::eager_value(b));
    return detail::record(std::move(y), detail::matmul_rule{}, detail::as_rule_operand(a),
                          detail::as_rule_operand(b));
}
/// linear(x, w[, b]) = x · wᵀ (+ b) with Vars.
template <class X, class W>
requires(is_var_v<X> || is_var_v<W>) auto linear(const X& x, const W& w) {
    return matmul(x, detail::as_rule_operand(w).t());
}
template <class X, class W, class B>
requires(is_var_v<X> || is_var_v<W> || is_var_v<B>) auto linear(const X& x, const W& w,
                                                                const B& b) {
    return linear(x, w) + b;
}

namespace detail {
template <class Self>
struct var_methods {
#define STATICPY_VAR_FREE_FUNCTION(name)                                                           \
    template <class... Args>                                                                       \
    static auto name(const Self& self, const Args&... args) {                                      \
        return staticpy::name(self, args...);                                                      \
    }
    STATICPY_TENSOR_OP_METHODS(STATICPY_VAR_FREE_FUNCTION)
#undef STATICPY_VAR_FREE_FUNCTION
};
} // namespace detail

namespace autograd {

/// A Var that collects its gradient: what backward() differentiates against.
///   auto x = autograd::leaf(t);
template <class T, class S>
Var<T, S> leaf(const Tensor<T, S>& t) {
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: RuntimeError: only Tensors of floating point dtype can require "
                  "gradients");
    return Var<T, S>{t,
                     std::make_shared<leaf_node<T, S::rank>>(Tensor<T, dynamic_shape<S::rank>>(t))};
}

namespace detail {
/// The backward pass: the cotangent `seed` of `out` (a Var: recorded when the pass records)
/// passed back through every node out depends on, latest first. With create_graph the rules run
/// while recording, so each cotangent is a recorded Var (a gradient that can be differentiated
/// again); otherwise recording is off. Returns the nodes it visited.
template <class T, std::size_t R>
std::vector<node*> backward_pass(const std::shared_ptr<value_node<T, R>>& out,
                                 const Var<T, dynamic_shape<R>>& seed, bool create_graph) {
    std::vector<node*> order;
    if (!out)
        return order; // out depends on nothing differentiated
    std::unordered_set<node*> seen;
    std::vector<node*> stack{out.get()};
    while (!stack.empty()) {
        node* n = stack.back();
        stack.pop_back();
        if (!seen.insert(n).second)
            continue;
        order.push_back(n);
        for (const auto& o : n->operands)
            stack.push_back(o.get());
    }
    std::sort(order.begin(), order.end(),
              [](const node* a, const node* b) { return a->sequence > b->sequence; });
    staticpy::detail::accumulate(*out, seed);
    std::optional<no_grad> not_recording;
    if (!create_graph)
        not_recording.emplace();
    for (node* n : order)
        if (n->has_cotangent())
            n->pass_back();
    return order;
}

/// Forgets the cotangents of the nodes a backward pass visited.
inline void clear_cotangents(const std::vector<node*>& visited) {
    for (node* n : visited)
        n->clear_cotangent();
}
} // namespace detail

/// Passes the cotangent `seed` of `out` back through the tape to every node it depends on.
///   autograd::backward(loss, ones_like(loss.value));
template <class T, class S>
void backward(const Var<T, S>& out, const Tensor<T, S>& seed) {
    using D = Var<T, dynamic_shape<S::rank>>;
    detail::backward_pass(out.node, D{Tensor<T, dynamic_shape<S::rank>>(seed), nullptr}, false);
}

/// The gradient a leaf collected (zeros when the output did not depend on it).
template <class T, class S>
Tensor<T, S> gradient(const Var<T, S>& x) {
    if (x.node && x.node->cotangent)
        return Tensor<T, S>(*x.node->cotangent);
    return zeros_like(x.value);
}

/// The gradient a leaf collected in a recording backward pass (create_graph), as a Var whose
/// node records how it was computed (zeros, unrecorded, when the output did not depend on x).
template <class T, class S>
Var<T, S> recorded_gradient(const Var<T, S>& x) {
    if (x.node && x.node->cotangent)
        return Var<T, S>{Tensor<T, S>(*x.node->cotangent), x.node->cotangent_node};
    return Var<T, S>{zeros_like(x.value), nullptr};
}

} // namespace autograd

} // namespace staticpy
