#pragma once
// staticpy::nn::optim: PyTorch's optimisers SGD, Adam, AdamW, RMSprop and Adagrad (torch.optim),
// with PyTorch 1.13's update rules (its single-tensor path), over parameters held in a staticpy
// container of tensors: one Tensor, a std::tuple, a staticpy list or a staticpy dict of them.
//
//   auto params = dict("fc.weight"_s = w, "fc.bias"_s = b);
//   nn::optim::Adam opt(params, {.lr = 1e-3, .betas = {0.9, 0.999}});
//   opt.step(dict("fc.weight"_s = grad_w, "fc.bias"_s = grad_b));  // same keys, same shapes
//
// A Tensor is a handle: the optimiser keeps copies of the parameters' handles and updates their
// elements in place. Gradients are values, given to step() in the parameters' structure (a
// gradient that is None, or an undefined Tensor, skips its parameter, as PyTorch skips a
// parameter whose .grad is None); there is no zero_grad(), since no gradient accumulates in the
// parameters. The per-parameter state (Adam's exp_avg, ...) has the parameters' structure too:
// for a dict of parameters, opt.state is a dict with the same keys whose values are the
// parameters' states (AdamParamState: step, exp_avg, exp_avg_sq, max_exp_avg_sq).
//
// One param group holds the hyperparameters (opt.param_groups[0].lr, as PyTorch's
// optimizer.param_groups[0]['lr']); an lr scheduler (lr_scheduler.hpp) writes its lr there.
// state_dict() is a flat map from names to tensors (numbers are 0-dim tensors), ready for a
// checkpoint writer:
//   param_groups.0.lr, param_groups.0.betas.0, ...   the hyperparameters
//   param_groups.0.initial_lr                        set by an lr scheduler, when there is one
//   param_groups.0.params.<name>                     each parameter's index in the group
//   state.<name>.step, state.<name>.exp_avg, ...     each parameter's state, once it has one
// where <name> is the parameter's dict key ("fc1.weight") or position ("0"), joined with dots for
// nested containers ("encoder.0").
//
// Each step runs one fused loop per parameter: it reads the parameter's, the gradient's and the
// state's elements once and writes the parameter's and the state's once, with no temporary
// tensor (contiguous tensors: SIMD batches, split across threads for large parameters; strided
// ones: a strided walk, with the same results bit for bit).

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/hana/at.hpp>
#include <boost/hana/tuple.hpp>

#include "staticpy/containers/detail/leaves.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/kernels/config.hpp"
#include "staticpy/kernels/loop.hpp"
#include "staticpy/kernels/math.hpp"
#include "staticpy/kernels/parallel.hpp"
#include "staticpy/kernels/simd.hpp"
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/storage.hpp"
#include "staticpy/tensor/tensor.hpp"

// =================================================================================================
// Parameter containers: walking them (shared by the nn headers)
// =================================================================================================

namespace staticpy::nn::detail {

namespace hana = boost::hana;

/// What a node of a parameter (or gradient, or state) container is.
enum class node_kind { tensor, tuple, list, dict, other };

template <class C>
constexpr node_kind node_kind_of() {
    using U = std::remove_cvref_t<C>;
    if constexpr (is_tensor_v<U>)
        return node_kind::tensor;
    else if constexpr (traits::is_std_tuple_v<U>)
        return node_kind::tuple;
    else if constexpr (is_list_v<U>)
        return node_kind::list;
    else if constexpr (is_dict_v<U>)
        return node_kind::dict;
    else
        return node_kind::other;
}

template <class C>
inline constexpr bool is_container_node_v = (node_kind_of<C>() != node_kind::tensor) &&
                                            (node_kind_of<C>() != node_kind::other);

/// How many children a container node has.
template <class C>
constexpr std::size_t child_count() {
    using U = std::remove_cvref_t<C>;
    if constexpr (node_kind_of<U>() == node_kind::tuple)
        return std::tuple_size_v<U>;
    else
        return U::N; // list and dict
}

/// The I-th child of a container node (a reference into it).
template <std::size_t I, class C>
constexpr auto& child(C& c) {
    constexpr node_kind kind = node_kind_of<C>();
    if constexpr (kind == node_kind::tuple)
        return std::get<I>(c);
    else if constexpr (kind == node_kind::list)
        return hana::at_c<I>(c.elements);
    else
        return hana::at_c<I>(c.entries).value;
}

/// The key type of a dict node's I-th entry.
template <class C, std::size_t I>
using key_at_t = std::remove_cvref_t<
    decltype(hana::at_c<I>(std::declval<std::remove_cvref_t<C>&>().entries).key)>;

/// In `other`, the child that corresponds to C's I-th child: the same key for a dict, the same
/// position otherwise.
template <class C, std::size_t I, class O>
constexpr auto& matching_child(O& other) {
    if constexpr (node_kind_of<C>() == node_kind::dict) {
        constexpr std::size_t q = std::remove_cvref_t<O>::template position_of<key_at_t<C, I>>();
        return hana::at_c<q>(other.entries).value;
    } else {
        return child<I>(other);
    }
}

/// Where a tensor sits in a container: a chain of (key or position) parts, one per level,
/// kept on the stack while walking, so that a step builds no string. str() joins the parts
/// with dots: "fc1.weight", "0", "encoder.1.bias"; a single tensor (no container) is "0", as
/// PyTorch numbers a lone parameter.
struct leaf_path {
    const leaf_path* parent = nullptr; // the enclosing container's path; null for the top
    std::string_view key{};            // a str key, or
    std::int64_t position = -1;        // a position or an int key; -1 for the top

    [[nodiscard]] bool is_top() const noexcept { return parent == nullptr && position < 0; }

    [[nodiscard]] std::string str() const {
        if (is_top())
            return "0";
        std::string out = parent->is_top() ? std::string() : parent->str() + ".";
        if (!key.empty())
            out += key;
        else
            out += std::to_string(position);
        return out;
    }
};

/// The path of container C's I-th child, below `at`.
template <class C, std::size_t I>
leaf_path child_path(const leaf_path& at) {
    if constexpr (node_kind_of<C>() == node_kind::dict) {
        using K = key_at_t<C, I>;
        if constexpr (is_str_constant_v<K>)
            return {&at, K::value, -1};
        else
            return {&at, {}, static_cast<std::int64_t>(K::value)};
    } else {
        return {&at, {}, static_cast<std::int64_t>(I)};
    }
}

template <class F, class C, class... O>
void zip_leaves_at(F& f, const leaf_path& at, C& c, O&... o);

/// zip_leaves_at on container C's I-th child and the children of `o...` that match it.
template <std::size_t I, class F, class C, class... O>
void zip_child(F& f, const leaf_path& at, C& c, O&... o) {
    zip_leaves_at(f, child_path<C, I>(at), child<I>(c), matching_child<C, I>(o)...);
}

/// Calls f(path, leaf, others...) for each tensor of `c` in order, where the others are the
/// nodes at the same place in the containers `o...` (found by key in a dict). The one walk over
/// parameters, gradients and states that every optimiser (and clip_grad) shares.
template <class F, class C, class... O>
void zip_leaves_at(F& f, const leaf_path& at, C& c, O&... o) {
    if constexpr (node_kind_of<C>() == node_kind::tensor || node_kind_of<C>() == node_kind::other) {
        f(at, c, o...);
    } else {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (zip_child<I>(f, at, c, o...), ...);
        }
        (std::make_index_sequence<child_count<C>()>{});
    }
}

/// zip_leaves_at from the top of c: f(path, leaf, others...) for each tensor of c.
///   zip_leaves([&](const leaf_path& at, auto& p, const auto& g) { ... }, params, grads);
template <class F, class C, class... O>
void zip_leaves(F&& f, C& c, O&... o) {
    const leaf_path top{};
    zip_leaves_at(f, top, c, o...);
}

/// A container of c's structure whose leaves are f(leaf): a tensor's state, a copy of a handle.
template <class C, class F>
auto map_leaves(const C& c, const F& f) {
    return staticpy::detail::map_leaves<staticpy::detail::is_structure_leaf, 0>(
        c, [&](auto, const auto& leaf) { return f(leaf); });
}

/// The type of container C's I-th child.
template <class C, std::size_t I>
using child_t = std::remove_cvref_t<decltype(child<I>(std::declval<C&>()))>;

template <class C>
constexpr auto leaf_types_of() {
    if constexpr (!is_container_node_v<C>) {
        return std::type_identity<std::tuple<C>>{};
    } else {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return std::type_identity<decltype(std::tuple_cat(
                std::declval<typename decltype(leaf_types_of<child_t<C, I>>())::type>()...))>{};
        }
        (std::make_index_sequence<child_count<C>()>{});
    }
}

/// The types of a container type's leaves (its tensors, and None where a gradient is absent),
/// in order, as a std::tuple.
template <class C>
using leaf_types_t = typename decltype(leaf_types_of<std::remove_cvref_t<C>>())::type;

/// The number of tensors in a container type.
template <class C>
constexpr std::size_t leaf_count() {
    return std::tuple_size_v<leaf_types_t<C>>;
}

/// Checks a parameter container's type (the compile errors an optimiser's constructor gives).
template <class C>
constexpr bool check_parameter_node() {
    constexpr node_kind kind = node_kind_of<C>();
    if constexpr (kind == node_kind::other) {
        static_assert(kind != node_kind::other,
                      "staticpy: TypeError: optimizer can only optimize Tensors, but one of the "
                      "params is not a Tensor (parameters are a Tensor, or a std::tuple, list or "
                      "dict of them)");
        return false;
    } else if constexpr (kind == node_kind::tensor) {
        static_assert(std::is_floating_point_v<typename C::value_type>,
                      "staticpy: RuntimeError: Only Tensors of floating point and complex dtype "
                      "can require gradients (a parameter is a float or double Tensor)");
        return std::is_floating_point_v<typename C::value_type>;
    } else {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            if constexpr (kind == node_kind::dict) {
                constexpr bool named =
                    ((is_str_constant_v<key_at_t<C, I>> || is_int_constant_v<key_at_t<C, I>>)&&...);
                static_assert(named, "staticpy: TypeError: a parameter dict's keys are str or int "
                                     "(\"fc1.weight\"_s, 0_c): they name the parameters in "
                                     "state_dict()");
            }
            return (true && ... && check_parameter_node<child_t<C, I>>());
        }
        (std::make_index_sequence<child_count<C>()>{});
    }
}

template <class C>
constexpr bool check_parameters() {
    static_assert(leaf_count<C>() > 0,
                  "staticpy: ValueError: optimizer got an empty parameter list");
    return check_parameter_node<C>();
}

/// Checks that gradients G have the structure of parameters P: the same containers, keys and
/// lengths, and at each parameter a Tensor of its element type and rank (or None).
template <class P, class G>
constexpr bool check_gradient_structure() {
    constexpr node_kind kind = node_kind_of<P>();
    if constexpr (kind == node_kind::tensor) {
        if constexpr (std::is_same_v<G, none_t>) {
            return true;
        } else if constexpr (!is_tensor_v<G>) {
            static_assert(is_tensor_v<G>,
                          "staticpy: TypeError: the gradients must have the parameters' structure: "
                          "a Tensor (or None) where a parameter is a Tensor");
            return false;
        } else {
            static_assert(std::is_same_v<typename P::value_type, typename G::value_type>,
                          "staticpy: RuntimeError: assigned grad has data of a different type "
                          "(a gradient has its parameter's element type)");
            static_assert(P::rank == G::rank,
                          "staticpy: RuntimeError: assigned grad has data of a different size (a "
                          "gradient has its parameter's rank)");
            if constexpr (P::rank == G::rank && P::shape_type::is_static &&
                          G::shape_type::is_static)
                static_assert(P::shape_type::static_extents == G::shape_type::static_extents,
                              "staticpy: RuntimeError: assigned grad has data of a different size "
                              "(a gradient has its parameter's shape)");
            return true;
        }
    } else if constexpr (node_kind_of<G>() != kind || child_count<P>() != child_count<G>()) {
        static_assert(node_kind_of<G>() == kind && child_count<P>() == child_count<G>(),
                      "staticpy: TypeError: the gradients must have the parameters' structure: "
                      "the same containers (tuple, list, dict) with the same lengths and keys");
        return false;
    } else {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            if constexpr (kind == node_kind::dict) {
                constexpr bool same_keys =
                    ((G::template position_of<key_at_t<P, I>>() < G::N) && ...);
                static_assert(same_keys,
                              "staticpy: TypeError: the gradients must have the parameters' "
                              "structure: a dict of gradients has the parameters' keys");
                if constexpr (!same_keys)
                    return false;
                else
                    return (
                        true && ... &&
                        check_gradient_structure<child_t<P, I>,
                                                 std::remove_cvref_t<decltype(matching_child<P, I>(
                                                     std::declval<G&>()))>>());
            } else {
                return (true && ... && check_gradient_structure<child_t<P, I>, child_t<G, I>>());
            }
        }
        (std::make_index_sequence<child_count<P>()>{});
    }
}

/// Whether a gradient leaf is absent (None, or an undefined Tensor): its parameter is skipped.
template <class G>
bool gradient_absent(const G& g) {
    if constexpr (std::is_same_v<G, none_t>)
        return true;
    else
        return !g.defined();
}

/// RuntimeError unless a gradient has its parameter's sizes (PyTorch's text, then which one).
template <class P, class G>
void check_gradient_sizes(const leaf_path& at, const P& param, const G& grad) {
    if constexpr (P::rank == G::rank) { // (another rank is a compile error already)
        if (param.sizes() != grad.sizes())
            throw RuntimeError("assigned grad has data of a different size (parameter '" +
                               at.str() + "' has size " +
                               staticpy::detail::sizes_text(param.sizes()) + ", its gradient " +
                               staticpy::detail::sizes_text(grad.sizes()) + ")");
    }
}

/// The type an optimiser keeps its parameters as: P, with a std::tuple of references (std::tie)
/// made a tuple of handles.
struct copy_handle {
    template <class T>
    T operator()(const T& t) const {
        return t;
    }
};
template <class P>
using parameter_handles_t = decltype(map_leaves(std::declval<const P&>(), copy_handle{}));

/// Passed as Cost to for_each_element: the rule is a reduction into captured variables, which
/// must see one element after the other: one thread, no SIMD batches.
inline constexpr std::int64_t sequential = 0;

/// An operand of an elementwise rule: itself when the rule may write it, const otherwise.
template <bool Written, class X>
constexpr decltype(auto) operand(X& x) {
    if constexpr (Written)
        return (x);
    else
        return std::as_const(x);
}

/// for_each_element's loop over the contiguous elements [begin, end): SIMD batches (when the
/// build has xsimd and the rule is not sequential), then one element at a time.
template <std::int64_t Cost, bool... Written, class Rule, class T, std::size_t K>
void run_contiguous(const Rule& rule, const std::array<T*, K>& ptr, std::int64_t begin,
                    std::int64_t end) {
    constexpr std::array<bool, K> written{Written...};
    std::int64_t i = begin;
    [&]<std::size_t... J>(std::index_sequence<J...>) {
#if STATICPY_HAS_XSIMD
        if constexpr (Cost != sequential) {
            using B = xsimd::batch<T>;
            constexpr auto width = static_cast<std::int64_t>(B::size);
            for (; i + width <= end; i += width) {
                std::array<B, K> x{B::load_unaligned(ptr[J] + i)...};
                rule(operand<written[J]>(x[J])...);
                ((written[J] ? x[J].store_unaligned(ptr[J] + i) : void()), ...);
            }
        }
#endif
        for (; i < end; ++i)
            rule(operand<written[J]>(ptr[J][i])...);
    }
    (std::make_index_sequence<K>{});
}

/// The one elementwise loop of the nn headers: rule(e...) on every element, where e... are the
/// elements of `tensors` at the same index (all of one element type and of the first one's
/// sizes): a tensor passed as non-const is written (the rule takes its element by reference), a
/// const one is read. The rule is generic: it gets T elements, or SIMD batches of them on the
/// contiguous path, so it is written with kernels::math (math::sqrt, ...) as the ops of
/// tensor/functors.hpp are. Contiguous tensors take a flat loop, split across threads once
/// elements x Cost pass kernels' threshold (Cost: the work per element, in adds); others a
/// strided walk, one element at a time. On a GPU, the rule traced into one CUDA kernel
/// (backend/cuda/element_rule.hpp).
///   for_each_element<1>([=](auto& p, auto g) { p = p - lr * g; }, param, std::as_const(grad));
template <std::int64_t Cost, class Rule, class First, class... Rest>
void for_each_element(Rule rule, First& first, Rest&... rest) {
    using T = typename std::remove_const_t<First>::value_type;
    static_assert((std::is_same_v<typename std::remove_const_t<Rest>::value_type, T> && ...));
    constexpr std::size_t R = std::remove_const_t<First>::rank;
    constexpr std::size_t K = 1 + sizeof...(Rest);
    if (first.is_cuda() || (rest.is_cuda() || ...)) { // one kernel, traced from the rule
        for_each_element_on_cuda(staticpy::detail::element_rule_tag{}, rule, first, rest...);
        return;
    }
    const std::int64_t n = first.numel();
    if (n == 0)
        return;
    if (first.is_contiguous() && (rest.is_contiguous() && ...)) {
        const std::array<T*, K> ptr{first.storage().data() + first.storage_offset(),
                                    rest.storage().data() + rest.storage_offset()...};
        const int threads = Cost == sequential ? 1 : kernels::threads_for(n, Cost);
        kernels::parallel_chunks(
            n, kernels::chunk_count(n, threads, 4096),
            [&](std::int64_t begin, std::int64_t end, int) {
                run_contiguous<Cost, !std::is_const_v<First>, !std::is_const_v<Rest>...>(
                    rule, ptr, begin, end);
            });
        return;
    }
    constexpr std::array<bool, K> written{!std::is_const_v<First>, !std::is_const_v<Rest>...};
    const std::array<T*, K> base{first.storage().data(), rest.storage().data()...};
    kernels::for_each_offsets<R, K>(
        first.sizes(), {first.storage_offset(), rest.storage_offset()...},
        {first.strides(), rest.strides()...}, [&](const std::array<std::int64_t, K>& offset) {
            [&]<std::size_t... J>(std::index_sequence<J...>) {
                rule(operand<written[J]>(base[J][offset[J]])...);
            }
            (std::make_index_sequence<K>{});
        });
}

} // namespace staticpy::nn::detail

namespace staticpy::nn::optim {

// =================================================================================================
// state_dict: a flat map from names to tensors
// =================================================================================================

/// One value of a state_dict: a tensor of any element type and rank, sharing the elements it was
/// made from (as PyTorch's state_dict() shares the optimiser's tensors). A number is a 0-dim
/// tensor: a double is float64, an integer int64, a bool bool. What a checkpoint writer needs is
/// dtype(), sizes() and data() (contiguous, nbytes() bytes).
///   state_value lr = 0.1;                               // 0-dim float64
///   state_value m = zeros<float>(3_c);  m.sizes();      // {3}, shares m's elements
class state_value {
public:
    /// An undefined value (defined() is false), as a default-constructed Tensor.
    state_value() = default;

    /// A number as a 0-dim tensor: a float or double keeps its type.   state_value(0.1)
    template <std::floating_point F>
    state_value(F x) { // NOLINT: implicit, so that numbers read as values of a state_dict
        static_assert(
            std::is_same_v<F, float> || std::is_same_v<F, double>,
            "staticpy: TypeError: a state_dict number is a float, double, integer or bool");
        store_number(x);
    }
    /// An integer as a 0-dim int64 tensor, a bool as a 0-dim bool one.   state_value(3)
    template <std::integral I>
    state_value(I n) { // NOLINT: implicit, as above
        if constexpr (std::is_same_v<I, bool>)
            store_number(n);
        else
            store_number(static_cast<std::int64_t>(n));
    }
    /// A tensor: shares t's elements when t is contiguous, holds a contiguous copy otherwise.
    ///   state_value v(exp_avg);   v.tensor<float, 2>()   // the same elements, as a Tensor
    template <class T, class S>
    explicit state_value(const Tensor<T, S>& t) {
        if constexpr (!is_dynamic_shape_v<S>) { // one per (dtype, rank)
            *this = state_value(Tensor<T, dynamic_shape<S::rank>>(t));
        } else {
            const Tensor<T, S> c = t.contiguous();
            storage_ = c.storage();
            offset_ = c.storage_offset();
            sizes_.assign(c.sizes().begin(), c.sizes().end());
        }
    }

    /// The elements of a contiguous, row-major storage with sizes known at run time (what a
    /// checkpoint reader builds): one constructor for every rank, where a Tensor's rank is a
    /// compile-time number.
    template <class E>
    state_value(const Storage<E>& storage, std::vector<std::int64_t> sizes)
        : storage_(storage), sizes_(std::move(sizes)) {}

    /// Whether the value holds a tensor (a default-constructed one does not).
    [[nodiscard]] bool defined() const noexcept { return storage_.index() != 0; }
    /// The element type (float32 for a default-constructed value).
    [[nodiscard]] staticpy::dtype dtype() const {
        return std::visit(
            [](const auto& s) {
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(s)>, std::monostate>)
                    return staticpy::float32;
                else
                    return dtype_of_v<typename storage_element<decltype(s)>::type>;
            },
            storage_);
    }
    /// The sizes ({} for a number).
    [[nodiscard]] const std::vector<std::int64_t>& sizes() const noexcept { return sizes_; }
    [[nodiscard]] std::int64_t dim() const noexcept {
        return static_cast<std::int64_t>(sizes_.size());
    }
    [[nodiscard]] std::int64_t numel() const noexcept {
        if (!defined())
            return 0;
        std::int64_t n = 1;
        for (std::int64_t e : sizes_)
            n *= e;
        return n;
    }
    /// The first element, contiguous row-major (null for an undefined value).
    [[nodiscard]] const void* data() const {
        return std::visit(
            [&](const auto& s) -> const void* {
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(s)>, std::monostate>)
                    return nullptr;
                else
                    return s.data() + offset_;
            },
            storage_);
    }
    [[nodiscard]] std::int64_t nbytes() const {
        return numel() * static_cast<std::int64_t>(dtype_size(dtype()));
    }

    /// The one element as a U, as Tensor.item() (RuntimeError unless numel() == 1).
    ///   double lr = sd.at("param_groups.0.lr").item<double>();
    template <class U>
    [[nodiscard]] U item() const {
        if (numel() != 1)
            throw RuntimeError("a Tensor with " + std::to_string(numel()) +
                               " elements cannot be converted to Scalar");
        U out{};
        visit_elements([&](const auto* p) { out = convert<U>(p[0]); });
        return out;
    }

    /// The elements as a Tensor<T> of rank R, sharing them (TypeError when the dtype is not T's,
    /// ValueError when the rank is not R).   auto m = v.tensor<float, 2>();
    template <class T, std::size_t R>
    [[nodiscard]] Tensor<T, dynamic_shape<R>> tensor() const {
        if (!defined() || dtype() != dtype_of_v<T>)
            throw TypeError("expected a " + std::string(dtype_name(dtype_of_v<T>)) +
                            " tensor, but the state_dict value is " +
                            (defined() ? std::string(dtype_name(dtype())) : "undefined"));
        if (sizes_.size() != R)
            throw ValueError("expected a tensor of " + std::to_string(R) +
                             " dimensions, but the state_dict value has " +
                             std::to_string(sizes_.size()));
        std::array<std::int64_t, R> sizes{};
        std::copy(sizes_.begin(), sizes_.end(), sizes.begin());
        return Tensor<T, dynamic_shape<R>>(std::get<Storage<T>>(storage_), offset_,
                                           dynamic_shape<R>(sizes),
                                           staticpy::detail::contiguous_strides(sizes));
    }

    /// Copies the elements into dst, converted to its element type (RuntimeError unless the
    /// sizes are dst's).   v.copy_to(exp_avg);
    template <class T, class S>
    void copy_to(Tensor<T, S>& dst) const {
        if (!defined() ||
            !std::equal(sizes_.begin(), sizes_.end(), dst.sizes().begin(), dst.sizes().end()))
            throw RuntimeError("copy_to: the state_dict value has size " +
                               staticpy::detail::sizes_text(sizes_) + ", the tensor " +
                               staticpy::detail::sizes_text(dst.sizes()));
        visit_elements([&](const auto* src) {
            std::int64_t i = 0;
            T* out = dst.storage().data();
            staticpy::detail::for_each_offset(
                dst.sizes(), dst.storage_offset(), dst.strides(),
                [&](std::int64_t o) { out[o] = convert<T>(src[i++]); });
        });
    }

private:
    using storage_type =
        std::variant<std::monostate, Storage<bool>, Storage<std::uint8_t>, Storage<std::int32_t>,
                     Storage<std::int64_t>, Storage<float>, Storage<double>>;

    template <class S>
    struct storage_element;
    template <class E>
    struct storage_element<const Storage<E>&> {
        using type = E;
    };

    template <class N>
    void store_number(N x) {
        auto s = Storage<N>::allocate(1);
        s.data()[0] = x;
        storage_ = s;
        offset_ = 0;
        sizes_.clear();
    }

    static std::size_t dtype_size(staticpy::dtype d) {
        switch (d) {
        case staticpy::boolean:
        case staticpy::uint8:
            return 1;
        case staticpy::int32:
        case staticpy::float32:
            return 4;
        default:
            return 8;
        }
    }

    /// f(pointer to the first element), the pointer of the stored element type.
    template <class F>
    void visit_elements(F&& f) const {
        std::visit(
            [&](const auto& s) {
                if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(s)>, std::monostate>)
                    f(static_cast<const std::remove_pointer_t<decltype(s.data())>*>(s.data()) +
                      offset_);
            },
            storage_);
    }

    /// x as a U; a float out of an integer type's range is PyTorch's RuntimeError, not C++'s
    /// undefined behaviour.
    template <class U, class E>
    static U convert(E x) {
        if constexpr (std::is_floating_point_v<E> && std::is_integral_v<U> &&
                      !std::is_same_v<U, bool>) {
            constexpr long double lo = static_cast<long double>(std::numeric_limits<U>::min());
            constexpr long double hi = static_cast<long double>(std::numeric_limits<U>::max()) + 1;
            if (!(x >= lo && static_cast<long double>(x) < hi))
                throw RuntimeError("value cannot be converted to type " +
                                   std::string(dtype_name(dtype_of_v<U>)) + " without overflow");
        }
        if constexpr (std::is_same_v<U, bool>)
            return x != E{};
        else
            return static_cast<U>(x);
    }

    storage_type storage_{};
    std::int64_t offset_ = 0;
    std::vector<std::int64_t> sizes_{};
};

/// An optimiser's or an lr scheduler's state_dict(): names to values, sorted by name.
///   state_dict_t sd = opt.state_dict();   sd.at("state.0.step").item<std::int64_t>();
using state_dict_t = std::map<std::string, state_value, std::less<>>;

// =================================================================================================
// Param groups and the Optimizer concept
// =================================================================================================

/// PyTorch's `required` (torch.optim.optimizer.required): the default of a hyperparameter that
/// has none, SGD's lr. Left out, it is a ValueError("parameter group didn't specify a value of
/// required optimization parameter lr"). A NaN with its own payload, so that a NaN the user
/// passes is not mistaken for it.
///   SGDOptions o;   o.lr == required   // (as bits: is_required(o.lr))
inline constexpr double required = std::bit_cast<double>(std::uint64_t{0x7ff8'0000'7265'7164});

/// Whether a hyperparameter still holds `required`.   is_required(SGDOptions{}.lr)
constexpr bool is_required(double x) {
    return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(required);
}

/// A param group: the optimiser's options (lr, momentum, betas, ...), which an lr scheduler and
/// the user may change between steps, and initial_lr, which the first lr scheduler sets (PyTorch's
/// group['initial_lr']). An optimiser has one: opt.param_groups[0].
///   opt.param_groups[0].lr = 0.01;
///   print(opt.param_groups[0].momentum);
template <class Options>
struct param_group : Options {
    std::optional<double> initial_lr{};
};

/// torch.optim.Optimizer, as a concept: SGD, Adam, AdamW, RMSprop and Adagrad satisfy it, and so
/// may a user's optimiser (what lr schedulers need: param_groups[0].lr and .initial_lr).
///   template <nn::optim::Optimizer O> void halve_lr(O& opt) { opt.param_groups[0].lr /= 2; }
template <class O>
concept Optimizer = requires(O& o) {
    { o.param_groups[0].lr } -> std::convertible_to<double>;
    { o.param_groups[0].initial_lr } -> std::convertible_to<std::optional<double>>;
};

namespace detail {

using nn::detail::leaf_path;

/// PyTorch's "Invalid <what>: <value>" ValueError, the value as Python prints a float.
[[noreturn]] inline void invalid(std::string_view what, double value) {
    throw ValueError("Invalid " + std::string(what) + ": " + repr(value));
}

/// t under another shape type of its rank (a view; an undefined tensor stays undefined): an
/// optimiser's state seen with dynamic shapes and back (optimizer_base::step).
template <class S2, class T, class S>
Tensor<T, S2> retyped(const Tensor<T, S>& t) {
    return t.defined() ? Tensor<T, S2>(t) : Tensor<T, S2>{};
}

/// PyTorch's `grad = -grad if maximize`, then `grad = grad.add(param, alpha=weight_decay)` when
/// weight_decay != 0: the direction every rule but AdamW's starts from.
template <class T>
struct gradient_term {
    T sign;         // -1 to maximize, 1 to minimize (multiplying by it is exact)
    T weight_decay; // T(weight_decay)
    bool decay;     // weight_decay != 0

    template <class Group>
    static gradient_term of(const Group& group) {
        return {group.maximize ? T(-1) : T(1), static_cast<T>(group.weight_decay),
                group.weight_decay != 0};
    }
    /// For one element or a SIMD batch of them.
    template <class X>
    X operator()(const X& param, const X& grad) const {
        const X g = sign * grad;
        return decay ? X(g + weight_decay * param) : g;
    }
};

/// torch.maximum: NaN when either operand is NaN (math::max gives the second operand when the
/// first is NaN), for one element or a SIMD batch.
template <class X>
X maximum(const X& a, const X& b) {
    return kernels::math::select(kernels::math::isnan(a), a, kernels::math::max(a, b));
}

/// What the optimisers share: the parameters, the param group, the state in the parameters'
/// structure, step(grads), state_dict() and load_state_dict(). Derived supplies
///   static const Options& check(const Options&)               its ValueErrors, PyTorch's texts
///   static void for_each_hyperparameter(Group&, f)            f(name, double& or bool&)
///   static void update(const Group&, param, grad, ParamState&) one parameter's step
///   static constexpr std::int64_t cost                        work per element (threads)
/// and ParamState<T, S> supplies empty() and for_each_entry(self, f), f(name, std::int64_t& or
/// Tensor&, required).
template <class Derived, class Params, class Options, template <class, class> class ParamState>
class optimizer_base {
    static_assert(nn::detail::check_parameters<Params>());

    struct make_state {
        template <class P>
        auto operator()(const P&) const {
            return ParamState<typename P::value_type, typename P::shape_type>{};
        }
    };

public:
    using params_type = Params;
    using options_type = Options;
    using group_type = param_group<Options>;
    using state_type =
        decltype(nn::detail::map_leaves(std::declval<const Params&>(), make_state{}));

    /// The hyperparameters, one group (PyTorch's optimizer.param_groups).
    std::array<group_type, 1> param_groups;
    /// Each parameter's state, in the parameters' structure (PyTorch's optimizer.state).
    state_type state;

    /// The parameters (handles sharing their elements with the caller's).
    ///   auto& w = opt.params()["fc.weight"_s];
    [[nodiscard]] const Params& params() const noexcept { return params_; }

    /// One optimisation step, given the gradients in the parameters' structure; None or an
    /// undefined gradient skips its parameter.
    ///   opt.step(dict("fc.weight"_s = grad_w, "fc.bias"_s = grad_b));
    ///   opt.step(std::tuple(grad_w, None));   // fc.bias is left as it is
    template <class Grads>
    void step(const Grads& grads) {
        static_assert(nn::detail::check_gradient_structure<Params, Grads>());
        const group_type& group = param_groups[0];
        nn::detail::zip_leaves(
            [&](const leaf_path& at, auto& param, const auto& grad, auto& param_state) {
                if (nn::detail::gradient_absent(grad))
                    return;
                if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(grad)>, none_t>) {
                    nn::detail::check_gradient_sizes(at, param, grad);
                    update_on_dynamic_shapes(group, param, grad, param_state);
                }
            },
            params_, grads, state);
    }

    /// Everything needed to resume exactly: the hyperparameters, each parameter's index, and
    /// each parameter's state once it has one. The tensors are the optimiser's own (as
    /// PyTorch's): clone a value to keep it across later steps.
    ///   auto sd = opt.state_dict();
    ///   double lr = sd.at("param_groups.0.lr").item<double>();
    [[nodiscard]] state_dict_t state_dict() const {
        state_dict_t out;
        const group_type& group = param_groups[0];
        Derived::for_each_hyperparameter(group, [&](std::string_view name, const auto& value) {
            out.insert_or_assign(group_key(name), state_value(value));
        });
        if (group.initial_lr)
            out.insert_or_assign(group_key("initial_lr"), state_value(*group.initial_lr));
        std::int64_t index = 0;
        nn::detail::zip_leaves(
            [&](const leaf_path& at, const auto&, const auto& param_state) {
                const std::string name = at.str();
                out.insert_or_assign(group_key("params." + name), state_value(index++));
                if (param_state.empty())
                    return;
                for_each_entry(param_state, [&](std::string_view entry, const auto& value, bool) {
                    if constexpr (is_tensor_v<std::remove_cvref_t<decltype(value)>>) {
                        if (!value.defined())
                            return;
                        out.insert_or_assign(state_key(name, entry), state_value(value));
                    } else {
                        out.insert_or_assign(state_key(name, entry), state_value(value));
                    }
                });
            },
            params_, state);
        return out;
    }

    /// Restores what state_dict() returned, copying its tensors (cast to each parameter's element
    /// type, as PyTorch casts floating state): the hyperparameters, initial_lr, and each
    /// parameter's state. The parameters must be the same: ValueError with PyTorch's text when
    /// the counts differ, and when a name, entry or size does not match.
    ///   fresh.load_state_dict(opt.state_dict());
    void load_state_dict(const state_dict_t& sd) {
        std::set<std::string_view> used;
        check_group_count(sd);
        const std::size_t saved_params = count_prefix(sd, "param_groups.0.params.");
        if (saved_params != nn::detail::leaf_count<Params>())
            throw ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group");

        group_type loaded = param_groups[0];
        Derived::for_each_hyperparameter(loaded, [&](std::string_view name, auto& value) {
            const auto& v = find_required(sd, group_key(name), used);
            value = v.template item<std::remove_cvref_t<decltype(value)>>();
        });
        loaded.initial_lr.reset();
        if (const auto it = sd.find(group_key("initial_lr")); it != sd.end()) {
            loaded.initial_lr = it->second.template item<double>();
            used.insert(it->first);
        }

        state_type loaded_state = nn::detail::map_leaves(params_, make_state{});
        nn::detail::zip_leaves(
            [&](const leaf_path& at, const auto& param, auto& param_state) {
                const std::string name = at.str();
                (void)find_required(sd, group_key("params." + name), used);
                bool any = false;
                for_each_entry(param_state, [&](std::string_view entry, const auto&, bool) {
                    any = any || sd.contains(state_key(name, entry));
                });
                if (!any)
                    return; // no state yet, as a parameter PyTorch has not stepped
                for_each_entry(param_state, [&](std::string_view entry, auto& value,
                                                bool is_required) {
                    const std::string key = state_key(name, entry);
                    const auto it = sd.find(key);
                    if (it == sd.end()) {
                        if (is_required)
                            throw ValueError("loaded state dict has state for parameter '" + name +
                                             "' but no '" + key + "'");
                        return;
                    }
                    used.insert(it->first);
                    if constexpr (is_tensor_v<std::remove_cvref_t<decltype(value)>>)
                        value = loaded_tensor(it->second, param, key, name);
                    else
                        value = it->second.template item<std::remove_cvref_t<decltype(value)>>();
                });
            },
            params_, loaded_state);

        for (const auto& [key, value] : sd)
            if (!used.contains(key))
                throw ValueError("loaded state dict has an unexpected entry '" + key + "'");
        param_groups[0] = loaded;
        state = std::move(loaded_state);
    }

protected:
    /// RuntimeError (PyTorch's in-place text) for a parameter whose elements share memory (an
    /// expanded view): a step would write each of them more than once.
    optimizer_base(const Params& params, const Options& options)
        : param_groups{group_type{options, std::nullopt}},
          state(nn::detail::map_leaves(params, make_state{})),
          params_(params) {
        nn::detail::zip_leaves(
            [](const leaf_path& at, const auto& param) {
                for (std::size_t d = 0; d < param.sizes().size(); ++d)
                    if (param.sizes()[d] > 1 && param.strides()[d] == 0)
                        throw RuntimeError(
                            "unsupported operation: more than one element of the written-to "
                            "tensor refers to a single memory location. Please clone() the tensor "
                            "before performing the operation. (parameter '" +
                            at.str() + "')");
            },
            params_);
    }

private:
    /// Derived::update on the parameter, its gradient and its state seen with their ranks'
    /// dynamic shapes (the same elements and buffers): a step's loops are compiled once per
    /// (dtype, rank), not once per parameter shape. Buffers the step creates are kept with the
    /// parameter's shape type.
    template <class T, class S, class GS>
    static void update_on_dynamic_shapes(const group_type& group, Tensor<T, S>& param,
                                         const Tensor<T, GS>& grad, ParamState<T, S>& state) {
        using D = dynamic_shape<S::rank>;
        using GD = dynamic_shape<GS::rank>;
        if constexpr (is_dynamic_shape_v<S> && is_dynamic_shape_v<GS>) {
            Derived::update(group, param, grad, state);
        } else {
            Tensor<T, D> p(param);
            ParamState<T, D> erased(state);
            Derived::update(group, p, Tensor<T, GD>(grad), erased);
            state = ParamState<T, S>(erased);
        }
    }

    /// ParamState's for_each_entry on one parameter's state.
    template <class State, class F>
    static void for_each_entry(State& param_state, F&& f) {
        std::remove_cvref_t<State>::for_each_entry(param_state, f);
    }

    static std::string group_key(std::string_view name) {
        return "param_groups.0." + std::string(name);
    }
    static std::string state_key(std::string_view param, std::string_view entry) {
        return "state." + std::string(param) + "." + std::string(entry);
    }

    static std::size_t count_prefix(const state_dict_t& sd, std::string_view prefix) {
        std::size_t n = 0;
        for (auto it = sd.lower_bound(prefix); it != sd.end() && it->first.starts_with(prefix);
             ++it)
            ++n;
        return n;
    }

    /// PyTorch's "different number of parameter groups": a group other than 0, or none.
    static void check_group_count(const state_dict_t& sd) {
        bool has_group = false;
        for (const auto& [key, value] : sd) {
            if (!key.starts_with("param_groups."))
                continue;
            if (!key.starts_with("param_groups.0."))
                throw ValueError("loaded state dict has a different number of parameter groups");
            has_group = true;
        }
        if (!has_group)
            throw ValueError("loaded state dict has a different number of parameter groups");
    }

    static const state_value& find_required(const state_dict_t& sd, const std::string& key,
                                            std::set<std::string_view>& used) {
        const auto it = sd.find(key);
        if (it == sd.end())
            throw ValueError("loaded state dict has no '" + key + "'");
        used.insert(it->first);
        return it->second;
    }

    template <class T, class S>
    static Tensor<T, S> loaded_tensor(const state_value& v, const Tensor<T, S>& param,
                                      const std::string& key, const std::string& name) {
        if (!std::equal(v.sizes().begin(), v.sizes().end(), param.sizes().begin(),
                        param.sizes().end()))
            throw ValueError("loaded state dict's '" + key + "' has size " +
                             staticpy::detail::sizes_text(v.sizes()) + ", but parameter '" + name +
                             "' has size " + staticpy::detail::sizes_text(param.sizes()));
        Tensor<T, S> out(param.shape());
        v.copy_to(out);
        return out.to(param.device()); // where the parameter is
    }

    Params params_;
};

} // namespace detail

// =================================================================================================
// SGD
// =================================================================================================

/// SGD's keyword arguments (torch.optim.SGD), in PyTorch's order. lr has no default.
///   nn::optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
struct SGDOptions {
    double lr = required;
    double momentum = 0;
    double dampening = 0;
    double weight_decay = 0;
    bool nesterov = false;
    bool maximize = false;
};

/// SGD's state of one parameter: the momentum buffer, from its first step with momentum.
///   opt.state["fc.weight"_s].momentum_buffer
template <class T, class S>
struct SGDParamState {
    Tensor<T, S> momentum_buffer{};

    SGDParamState() = default;
    /// The same state under another shape type of the rank (views of the same buffers).
    template <class S2>
    explicit SGDParamState(const SGDParamState<T, S2>& o)
        : momentum_buffer(detail::retyped<S>(o.momentum_buffer)) {}

    [[nodiscard]] bool empty() const { return !momentum_buffer.defined(); }
    template <class Self, class F>
    static void for_each_entry(Self& self, F&& f) {
        f("momentum_buffer", self.momentum_buffer, false);
    }
};

/// torch.optim.SGD: stochastic gradient descent, optionally with momentum, dampening, Nesterov
/// momentum, weight decay, maximizing. PyTorch 1.13's rule, per element:
///   d = (maximize ? -g : g) + weight_decay * p
///   buf = d at the first step, buf * momentum + (1 - dampening) * d after   (momentum != 0)
///   d = nesterov ? d + momentum * buf : buf                                (momentum != 0)
///   p = p - lr * d
///   nn::optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9});
///   opt.step(grads);
template <class Params>
class SGD : public detail::optimizer_base<SGD<Params>, Params, SGDOptions, SGDParamState> {
    using base = detail::optimizer_base<SGD<Params>, Params, SGDOptions, SGDParamState>;
    friend base;

public:
    /// SGD(params, {.lr = 0.1, ...}): ValueError with PyTorch's text for an invalid option.
    SGD(const Params& params, const SGDOptions& options = {}) : base(params, check(options)) {}

private:
    static constexpr std::int64_t cost = 2;

    static const SGDOptions& check(const SGDOptions& o) {
        if (!is_required(o.lr) && o.lr < 0.0)
            detail::invalid("learning rate", o.lr);
        if (o.momentum < 0.0)
            detail::invalid("momentum value", o.momentum);
        if (o.weight_decay < 0.0)
            detail::invalid("weight_decay value", o.weight_decay);
        if (o.nesterov && (o.momentum <= 0 || o.dampening != 0))
            throw ValueError("Nesterov momentum requires a momentum and zero dampening");
        if (is_required(o.lr))
            throw ValueError(
                "parameter group didn't specify a value of required optimization parameter lr");
        return o;
    }

    template <class Group, class F>
    static void for_each_hyperparameter(Group& g, F&& f) {
        f("lr", g.lr);
        f("momentum", g.momentum);
        f("dampening", g.dampening);
        f("weight_decay", g.weight_decay);
        f("nesterov", g.nesterov);
        f("maximize", g.maximize);
    }

    /// The plain update of p by its gradient g (no momentum, no weight decay), scale = -lr (lr to
    /// maximize), for an element or a SIMD batch.
    template <class P, class Scale, class G>
    static auto plain_update(const P& p, const Scale& scale, const G& g) {
        return p + scale * g;
    }
    static bool is_plain(const typename base::group_type& group) {
        return group.momentum == 0 && group.weight_decay == 0;
    }
    static double scale_of(const typename base::group_type& group) {
        return group.maximize ? group.lr : -group.lr;
    }

    template <class T, class S, class GS>
    static void update(const typename base::group_type& group, Tensor<T, S>& param,
                       const Tensor<T, GS>& grad, SGDParamState<T, S>& state) {
        const auto direction = detail::gradient_term<T>::of(group);
        const T neg_lr = static_cast<T>(-group.lr);
        if (is_plain(group)) {
            const T scale = static_cast<T>(scale_of(group));
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g) { p = plain_update(p, scale, g); }, param, grad);
            return;
        }
        if (group.momentum == 0) {
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g) { p = p + neg_lr * direction(p, g); }, param, grad);
            return;
        }
        const T momentum = static_cast<T>(group.momentum);
        const T keep = static_cast<T>(1 - group.dampening);
        const bool nesterov = group.nesterov;
        if (!state.momentum_buffer.defined()) { // the first buffer is the direction itself
            state.momentum_buffer = empty_like(param);
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g, auto& buf) {
                    const auto d = direction(p, g);
                    buf = d;
                    p = p + neg_lr * (nesterov ? d + momentum * buf : buf);
                },
                param, grad, state.momentum_buffer);
            return;
        }
        nn::detail::for_each_element<cost>(
            [=](auto& p, auto g, auto& buf) {
                const auto d = direction(p, g);
                buf = buf * momentum + keep * d;
                p = p + neg_lr * (nesterov ? d + momentum * buf : buf);
            },
            param, grad, state.momentum_buffer);
    }
};

template <class P>
SGD(const P&, const SGDOptions&) -> SGD<nn::detail::parameter_handles_t<P>>;
template <class P>
SGD(const P&) -> SGD<nn::detail::parameter_handles_t<P>>;

// =================================================================================================
// Adam and AdamW
// =================================================================================================

/// Adam's keyword arguments (torch.optim.Adam), in PyTorch's order.
///   nn::optim::Adam opt(params, {.lr = 1e-3, .betas = {0.9, 0.999}, .amsgrad = true});
struct AdamOptions {
    double lr = 1e-3;
    std::array<double, 2> betas = {0.9, 0.999};
    double eps = 1e-8;
    double weight_decay = 0;
    bool amsgrad = false;
    bool maximize = false;
};

/// AdamW's keyword arguments (torch.optim.AdamW): Adam's, with weight_decay 1e-2 by default.
///   nn::optim::AdamW opt(params, {.lr = 1e-3, .weight_decay = 0.05});
struct AdamWOptions {
    double lr = 1e-3;
    std::array<double, 2> betas = {0.9, 0.999};
    double eps = 1e-8;
    double weight_decay = 1e-2;
    bool amsgrad = false;
    bool maximize = false;
};

/// Adam's and AdamW's state of one parameter, from its first step: the step count and the
/// moments (max_exp_avg_sq with amsgrad).
///   opt.state["fc.weight"_s].exp_avg
template <class T, class S>
struct AdamParamState {
    std::int64_t step = 0;
    Tensor<T, S> exp_avg{};
    Tensor<T, S> exp_avg_sq{};
    Tensor<T, S> max_exp_avg_sq{};

    AdamParamState() = default;
    /// The same state under another shape type of the rank (views of the same buffers).
    template <class S2>
    explicit AdamParamState(const AdamParamState<T, S2>& o)
        : step(o.step),
          exp_avg(detail::retyped<S>(o.exp_avg)),
          exp_avg_sq(detail::retyped<S>(o.exp_avg_sq)),
          max_exp_avg_sq(detail::retyped<S>(o.max_exp_avg_sq)) {}

    [[nodiscard]] bool empty() const { return !exp_avg.defined(); }
    template <class Self, class F>
    static void for_each_entry(Self& self, F&& f) {
        f("step", self.step, true);
        f("exp_avg", self.exp_avg, true);
        f("exp_avg_sq", self.exp_avg_sq, true);
        f("max_exp_avg_sq", self.max_exp_avg_sq, false);
    }
};

namespace detail {

/// Adam's hyperparameter checks, which AdamW shares (PyTorch's texts and order).
template <class Options>
const Options& check_adam(const Options& o) {
    if (!(0.0 <= o.lr))
        invalid("learning rate", o.lr);
    if (!(0.0 <= o.eps))
        invalid("epsilon value", o.eps);
    if (!(0.0 <= o.betas[0] && o.betas[0] < 1.0))
        invalid("beta parameter at index 0", o.betas[0]);
    if (!(0.0 <= o.betas[1] && o.betas[1] < 1.0))
        invalid("beta parameter at index 1", o.betas[1]);
    if (!(0.0 <= o.weight_decay))
        invalid("weight_decay value", o.weight_decay);
    return o;
}

template <class Group, class F>
void for_each_adam_hyperparameter(Group& g, F&& f) {
    f("lr", g.lr);
    f("betas.0", g.betas[0]);
    f("betas.1", g.betas[1]);
    f("eps", g.eps);
    f("weight_decay", g.weight_decay);
    f("amsgrad", g.amsgrad);
    f("maximize", g.maximize);
}

/// One Adam (Decoupled = false) or AdamW (true) step of one parameter, PyTorch 1.13's rule:
///   p = p * (1 - lr * weight_decay)                           AdamW
///   g = (maximize ? -g : g) + weight_decay * p                 Adam
///   m = m * beta1 + (1 - beta1) * g;   v = v * beta2 + (1 - beta2) * g * g
///   v_max = maximum(v_max, v)                                  amsgrad (then v_max for v below)
///   p = p - lr / (1 - beta1^step) * m / (sqrt(v) / sqrt(1 - beta2^step) + eps)
template <bool Decoupled, std::int64_t Cost, class Group, class T, class S, class GS>
void adam_update(const Group& group, Tensor<T, S>& param, const Tensor<T, GS>& grad,
                 AdamParamState<T, S>& state) {
    if (state.empty()) {
        state.exp_avg = zeros_like(param);
        state.exp_avg_sq = zeros_like(param);
    }
    // PyTorch allocates max_exp_avg_sq with the state and raises KeyError when amsgrad is turned
    // on later; starting it at zero then is the same maximum from that step on.
    if (group.amsgrad && !state.max_exp_avg_sq.defined())
        state.max_exp_avg_sq = zeros_like(param);
    state.step += 1;

    const double beta1 = group.betas[0];
    const double beta2 = group.betas[1];
    const double step = static_cast<double>(state.step);
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const T neg_step_size = static_cast<T>(-(group.lr / bias_correction1));
    const T bias_correction2_sqrt = static_cast<T>(std::sqrt(bias_correction2));
    const T b1 = static_cast<T>(beta1);
    const T b2 = static_cast<T>(beta2);
    const T one_minus_b1 = static_cast<T>(1 - beta1);
    const T one_minus_b2 = static_cast<T>(1 - beta2);
    const T eps = static_cast<T>(group.eps);
    const T decay = static_cast<T>(1 - group.lr * group.weight_decay);
    auto direction = gradient_term<T>::of(group);
    if constexpr (Decoupled)
        direction.decay = false; // AdamW decays the parameter instead

    // The moments, updated in place; returns the parameter to update (AdamW's decayed one).
    const auto moments = [=](auto p, auto g, auto& m, auto& v) {
        if constexpr (Decoupled)
            p = p * decay;
        g = direction(p, g);
        m = m * b1 + one_minus_b1 * g;
        v = v * b2 + (one_minus_b2 * g) * g;
        return p;
    };
    if (group.amsgrad) {
        nn::detail::for_each_element<Cost>(
            [=](auto& p, auto g, auto& m, auto& v, auto& v_max) {
                const auto q = moments(p, g, m, v);
                v_max = maximum(v_max, v);
                p = q + (neg_step_size * m) /
                            (kernels::math::sqrt(v_max) / bias_correction2_sqrt + eps);
            },
            param, grad, state.exp_avg, state.exp_avg_sq, state.max_exp_avg_sq);
    } else {
        nn::detail::for_each_element<Cost>(
            [=](auto& p, auto g, auto& m, auto& v) {
                const auto q = moments(p, g, m, v);
                p = q +
                    (neg_step_size * m) / (kernels::math::sqrt(v) / bias_correction2_sqrt + eps);
            },
            param, grad, state.exp_avg, state.exp_avg_sq);
    }
}

} // namespace detail

/// torch.optim.Adam (PyTorch 1.13's rule: see detail::adam_update).
///   nn::optim::Adam opt(params, {.lr = 1e-3});
///   opt.step(grads);
template <class Params>
class Adam : public detail::optimizer_base<Adam<Params>, Params, AdamOptions, AdamParamState> {
    using base = detail::optimizer_base<Adam<Params>, Params, AdamOptions, AdamParamState>;
    friend base;

public:
    /// Adam(params, {.lr = 1e-3, ...}); Adam(params) takes PyTorch's defaults.
    explicit Adam(const Params& params, const AdamOptions& options = {})
        : base(params, detail::check_adam(options)) {}

private:
    static constexpr std::int64_t cost = 10; // a square root and a division per element

    template <class Group, class F>
    static void for_each_hyperparameter(Group& g, F&& f) {
        detail::for_each_adam_hyperparameter(g, f);
    }
    template <class T, class S, class GS>
    static void update(const typename base::group_type& group, Tensor<T, S>& param,
                       const Tensor<T, GS>& grad, AdamParamState<T, S>& state) {
        detail::adam_update<false, cost>(group, param, grad, state);
    }
};

template <class P>
Adam(const P&, const AdamOptions&) -> Adam<nn::detail::parameter_handles_t<P>>;
template <class P>
Adam(const P&) -> Adam<nn::detail::parameter_handles_t<P>>;

/// torch.optim.AdamW: Adam with decoupled weight decay (the parameter is multiplied by
/// 1 - lr * weight_decay before Adam's update; see detail::adam_update).
///   nn::optim::AdamW opt(params, {.lr = 1e-3, .weight_decay = 0.01});
///   opt.step(grads);
template <class Params>
class AdamW : public detail::optimizer_base<AdamW<Params>, Params, AdamWOptions, AdamParamState> {
    using base = detail::optimizer_base<AdamW<Params>, Params, AdamWOptions, AdamParamState>;
    friend base;

public:
    /// AdamW(params, {.lr = 1e-3, ...}); AdamW(params) takes PyTorch's defaults.
    explicit AdamW(const Params& params, const AdamWOptions& options = {})
        : base(params, detail::check_adam(options)) {}

private:
    static constexpr std::int64_t cost = 10;

    template <class Group, class F>
    static void for_each_hyperparameter(Group& g, F&& f) {
        detail::for_each_adam_hyperparameter(g, f);
    }
    template <class T, class S, class GS>
    static void update(const typename base::group_type& group, Tensor<T, S>& param,
                       const Tensor<T, GS>& grad, AdamParamState<T, S>& state) {
        detail::adam_update<true, cost>(group, param, grad, state);
    }
};

template <class P>
AdamW(const P&, const AdamWOptions&) -> AdamW<nn::detail::parameter_handles_t<P>>;
template <class P>
AdamW(const P&) -> AdamW<nn::detail::parameter_handles_t<P>>;

// =================================================================================================
// RMSprop
// =================================================================================================

/// RMSprop's keyword arguments (torch.optim.RMSprop), in PyTorch's order.
///   nn::optim::RMSprop opt(params, {.lr = 1e-2, .momentum = 0.9, .centered = true});
struct RMSpropOptions {
    double lr = 1e-2;
    double alpha = 0.99;
    double eps = 1e-8;
    double weight_decay = 0;
    double momentum = 0;
    bool centered = false;
    bool maximize = false;
};

/// RMSprop's state of one parameter, from its first step: the step count, the running average
/// of squared gradients, and the momentum buffer (momentum > 0) and gradient average (centered).
///   opt.state["fc.weight"_s].square_avg
template <class T, class S>
struct RMSpropParamState {
    std::int64_t step = 0;
    Tensor<T, S> square_avg{};
    Tensor<T, S> momentum_buffer{};
    Tensor<T, S> grad_avg{};

    RMSpropParamState() = default;
    /// The same state under another shape type of the rank (views of the same buffers).
    template <class S2>
    explicit RMSpropParamState(const RMSpropParamState<T, S2>& o)
        : step(o.step),
          square_avg(detail::retyped<S>(o.square_avg)),
          momentum_buffer(detail::retyped<S>(o.momentum_buffer)),
          grad_avg(detail::retyped<S>(o.grad_avg)) {}

    [[nodiscard]] bool empty() const { return !square_avg.defined(); }
    template <class Self, class F>
    static void for_each_entry(Self& self, F&& f) {
        f("step", self.step, true);
        f("square_avg", self.square_avg, true);
        f("momentum_buffer", self.momentum_buffer, false);
        f("grad_avg", self.grad_avg, false);
    }
};

/// torch.optim.RMSprop. PyTorch 1.13's rule, per element:
///   g = (maximize ? -g : g) + weight_decay * p
///   v = v * alpha + (1 - alpha) * g * g
///   a = sqrt(v) + eps, or with centered: m = m * alpha + (1 - alpha) * g,
///                                        a = sqrt(v - m * m) + eps
///   momentum > 0: buf = buf * momentum + g / a, p = p - lr * buf;   else p = p - lr * g / a
///   nn::optim::RMSprop opt(params, {.lr = 1e-2, .centered = true});
///   opt.step(grads);
template <class Params>
class RMSprop
    : public detail::optimizer_base<RMSprop<Params>, Params, RMSpropOptions, RMSpropParamState> {
    using base = detail::optimizer_base<RMSprop<Params>, Params, RMSpropOptions, RMSpropParamState>;
    friend base;

public:
    /// RMSprop(params, {.lr = 1e-2, ...}); RMSprop(params) takes PyTorch's defaults.
    explicit RMSprop(const Params& params, const RMSpropOptions& options = {})
        : base(params, check(options)) {}

private:
    static constexpr std::int64_t cost = 10;

    static const RMSpropOptions& check(const RMSpropOptions& o) {
        if (!(0.0 <= o.lr))
            detail::invalid("learning rate", o.lr);
        if (!(0.0 <= o.eps))
            detail::invalid("epsilon value", o.eps);
        if (!(0.0 <= o.momentum))
            detail::invalid("momentum value", o.momentum);
        if (!(0.0 <= o.weight_decay))
            detail::invalid("weight_decay value", o.weight_decay);
        if (!(0.0 <= o.alpha))
            detail::invalid("alpha value", o.alpha);
        return o;
    }

    template <class Group, class F>
    static void for_each_hyperparameter(Group& g, F&& f) {
        f("lr", g.lr);
        f("momentum", g.momentum);
        f("alpha", g.alpha);
        f("eps", g.eps);
        f("centered", g.centered);
        f("weight_decay", g.weight_decay);
        f("maximize", g.maximize);
    }

    template <class T, class S, class GS>
    static void update(const typename base::group_type& group, Tensor<T, S>& param,
                       const Tensor<T, GS>& grad, RMSpropParamState<T, S>& state) {
        const bool with_momentum = group.momentum > 0;
        // PyTorch creates the buffers with the state and raises KeyError when momentum or
        // centered is turned on later (OneCycleLR turns momentum on); they start at zero then.
        if (!state.square_avg.defined())
            state.square_avg = zeros_like(param);
        if (with_momentum && !state.momentum_buffer.defined())
            state.momentum_buffer = zeros_like(param);
        if (group.centered && !state.grad_avg.defined())
            state.grad_avg = zeros_like(param);
        state.step += 1;

        const auto direction = detail::gradient_term<T>::of(group);
        const T alpha = static_cast<T>(group.alpha);
        const T one_minus_alpha = static_cast<T>(1 - group.alpha);
        const T eps = static_cast<T>(group.eps);
        const T momentum = static_cast<T>(group.momentum);
        const T neg_lr = static_cast<T>(-group.lr);
        // The denominator sqrt(v) + eps; centered: sqrt(v - m * m) + eps.
        const auto plain = [=](auto g, auto& v) {
            v = v * alpha + (one_minus_alpha * g) * g;
            return kernels::math::sqrt(v) + eps;
        };
        const auto centered = [=](auto g, auto& v, auto& m) {
            v = v * alpha + (one_minus_alpha * g) * g;
            m = m * alpha + one_minus_alpha * g;
            return kernels::math::sqrt(v + (-m) * m) + eps;
        };
        if (!group.centered && !with_momentum) {
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g, auto& v) {
                    g = direction(p, g);
                    p = p + (neg_lr * g) / plain(g, v);
                },
                param, grad, state.square_avg);
        } else if (group.centered && !with_momentum) {
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g, auto& v, auto& m) {
                    g = direction(p, g);
                    p = p + (neg_lr * g) / centered(g, v, m);
                },
                param, grad, state.square_avg, state.grad_avg);
        } else if (!group.centered) {
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g, auto& v, auto& buf) {
                    g = direction(p, g);
                    buf = buf * momentum + g / plain(g, v);
                    p = p + neg_lr * buf;
                },
                param, grad, state.square_avg, state.momentum_buffer);
        } else {
            nn::detail::for_each_element<cost>(
                [=](auto& p, auto g, auto& v, auto& m, auto& buf) {
                    g = direction(p, g);
                    buf = buf * momentum + g / centered(g, v, m);
                    p = p + neg_lr * buf;
                },
                param, grad, state.square_avg, state.grad_avg, state.momentum_buffer);
        }
    }
};

template <class P>
RMSprop(const P&, const RMSpropOptions&) -> RMSprop<nn::detail::parameter_handles_t<P>>;
template <class P>
RMSprop(const P&) -> RMSprop<nn::detail::parameter_handles_t<P>>;

// =================================================================================================
// Adagrad
// =================================================================================================

/// Adagrad's keyword arguments (torch.optim.Adagrad), in PyTorch's order.
///   nn::optim::Adagrad opt(params, {.lr = 1e-2, .lr_decay = 1e-4});
struct AdagradOptions {
    double lr = 1e-2;
    double lr_decay = 0;
    double weight_decay = 0;
    double initial_accumulator_value = 0;
    double eps = 1e-10;
    bool maximize = false;
};

/// Adagrad's state of one parameter, from the optimiser's construction (as PyTorch's): the step
/// count and the sum of squared gradients.
///   opt.state["fc.weight"_s].sum
template <class T, class S>
struct AdagradParamState {
    std::int64_t step = 0;
    Tensor<T, S> sum{};

    AdagradParamState() = default;
    /// The same state under another shape type of the rank (views of the same buffers).
    template <class S2>
    explicit AdagradParamState(const AdagradParamState<T, S2>& o)
        : step(o.step), sum(detail::retyped<S>(o.sum)) {}

    [[nodiscard]] bool empty() const { return !sum.defined(); }
    template <class Self, class F>
    static void for_each_entry(Self& self, F&& f) {
        f("step", self.step, true);
        f("sum", self.sum, true);
    }
};

/// torch.optim.Adagrad. PyTorch 1.13's rule, per element, with clr = lr / (1 + (step - 1) *
/// lr_decay):
///   g = (maximize ? -g : g) + weight_decay * p;   sum = sum + g * g;   p = p - clr * g /
///   (sqrt(sum) + eps) nn::optim::Adagrad opt(params, {.lr = 1e-2}); opt.step(grads);
template <class Params>
class Adagrad
    : public detail::optimizer_base<Adagrad<Params>, Params, AdagradOptions, AdagradParamState> {
    using base = detail::optimizer_base<Adagrad<Params>, Params, AdagradOptions, AdagradParamState>;
    friend base;

public:
    /// Adagrad(params, {.lr = 1e-2, ...}); Adagrad(params) takes PyTorch's defaults. Every
    /// parameter's state exists from here, as in PyTorch.
    explicit Adagrad(const Params& params, const AdagradOptions& options = {})
        : base(params, check(options)) {
        nn::detail::zip_leaves([&](const nn::detail::leaf_path&, const auto& param,
                                   auto& param_state) { init(options, param, param_state); },
                               this->params(), this->state);
    }

private:
    static constexpr std::int64_t cost = 10;

    static const AdagradOptions& check(const AdagradOptions& o) {
        if (!(0.0 <= o.lr))
            detail::invalid("learning rate", o.lr);
        if (!(0.0 <= o.lr_decay))
            detail::invalid("lr_decay value", o.lr_decay);
        if (!(0.0 <= o.weight_decay))
            detail::invalid("weight_decay value", o.weight_decay);
        if (!(0.0 <= o.initial_accumulator_value))
            detail::invalid("initial_accumulator_value value", o.initial_accumulator_value);
        if (!(0.0 <= o.eps))
            detail::invalid("epsilon value", o.eps);
        return o;
    }

    template <class Group, class T, class S>
    static void init(const Group& group, const Tensor<T, S>& param,
                     AdagradParamState<T, S>& state) {
        state.step = 0;
        state.sum = full_like(param, static_cast<T>(group.initial_accumulator_value));
    }

    template <class Group, class F>
    static void for_each_hyperparameter(Group& g, F&& f) {
        f("lr", g.lr);
        f("lr_decay", g.lr_decay);
        f("eps", g.eps);
        f("weight_decay", g.weight_decay);
        f("initial_accumulator_value", g.initial_accumulator_value);
        f("maximize", g.maximize);
    }

    template <class T, class S, class GS>
    static void update(const typename base::group_type& group, Tensor<T, S>& param,
                       const Tensor<T, GS>& grad, AdagradParamState<T, S>& state) {
        if (state.empty()) // a state_dict without this parameter's state was loaded
            init(group, param, state);
        state.step += 1;
        const double clr = group.lr / (1 + (static_cast<double>(state.step) - 1) * group.lr_decay);
        const auto direction = detail::gradient_term<T>::of(group);
        const T neg_clr = static_cast<T>(-clr);
        const T eps = static_cast<T>(group.eps);
        nn::detail::for_each_element<cost>(
            [=](auto& p, auto g, auto& sum) {
                g = direction(p, g);
                sum = sum + g * g;
                p = p + (neg_clr * g) / (kernels::math::sqrt(sum) + eps);
            },
            param, grad, state.sum);
    }
};

template <class P>
Adagrad(const P&, const AdagradOptions&) -> Adagrad<nn::detail::parameter_handles_t<P>>;
template <class P>
Adagrad(const P&) -> Adagrad<nn::detail::parameter_handles_t<P>>;

} // namespace staticpy::nn::optim
