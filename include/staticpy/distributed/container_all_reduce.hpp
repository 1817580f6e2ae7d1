#pragma once
// all_reduce over a staticpy container of tensors: a list, a dict or a std::tuple of them,
// nested, None where a tensor is absent -- a model's gradients in one call, in the structure the
// optimisers take.
//
//   auto grads = dict("fc.weight"_s = gw, "fc.bias"_s = gb);
//   distributed::all_reduce(grads, distributed::ReduceOp::AVG);   // each gradient averaged
//
// The tensors of one element type are packed into one flat host buffer, all-reduced by ONE
// collective (one latency instead of one per tensor, as PyTorch's gradient buckets), and
// unpacked into the tensors; a container holding float and int64 tensors makes two.

#include <cstdint>
#include <functional>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/for_each.hpp>

#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/distributed/collectives.hpp"
#include "staticpy/distributed/work.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/storage.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::distributed {

/// A staticpy list, dict or std::tuple: what the container form of all_reduce takes.
template <class C>
concept tensor_container = is_list_v<std::remove_cvref_t<C>> || is_dict_v<std::remove_cvref_t<C>> ||
    traits::is_std_tuple_v<std::remove_cvref_t<C>>;

namespace detail {

/// Calls f(leaf) for every value of a nested list, dict (its values) or std::tuple, in order.
template <class C, class F>
void for_each_leaf(const C& c, F& f) {
    using U = std::remove_cvref_t<C>;
    if constexpr (is_list_v<U>)
        boost::hana::for_each(c.elements, [&](const auto& e) { for_each_leaf(e, f); });
    else if constexpr (is_dict_v<U>)
        boost::hana::for_each(c.entries, [&](const auto& p) { for_each_leaf(p.value, f); });
    else if constexpr (traits::is_std_tuple_v<U>)
        std::apply([&](const auto&... e) { (for_each_leaf(e, f), ...); }, c);
    else
        f(c);
}

/// Whether container type C holds a tensor of element type T (decided at compile time, so that
/// every rank makes the same collectives).
template <class T, class C>
struct holds_tensor_of : std::false_type {};
template <class T, class S>
struct holds_tensor_of<T, Tensor<T, S>> : std::true_type {};
template <class T, class... X>
struct holds_tensor_of<T, list<X...>> : std::disjunction<holds_tensor_of<T, X>...> {};
template <class T, class... X>
struct holds_tensor_of<T, std::tuple<X...>> : std::disjunction<holds_tensor_of<T, X>...> {};
template <class T, class... K, class... V>
struct holds_tensor_of<T, dict_t<pair<K, V>...>> : std::disjunction<holds_tensor_of<T, V>...> {};

/// The T tensors of `tensors` all-reduced as flat buffers (buckets) of at most bucket_bytes each
/// (a tensor larger than that is a bucket of its own), in order, one collective per bucket,
/// joined into `work`: synchronous, each completes (MPI's blocking call, see issue()) before the
/// next bucket is packed; with async_op, all are in flight together.
template <class T, class C>
void all_reduce_packed(Work& work, const C& tensors, ReduceOp op, bool async_op,
                       std::int64_t bucket_bytes) {
    if constexpr (holds_tensor_of<T, std::remove_cvref_t<C>>::value) {
        // Each leaf's copy into (or out of) the bucket's flat buffer at its offset.
        using copy_fn = std::function<void(const Storage<T>&, bool)>;
        std::vector<copy_fn> copies;
        std::int64_t total = 0;
        auto flush = [&] {
            if (copies.empty())
                return;
            const auto flat = Storage<T>::allocate(total);
            for (auto& copy : copies)
                copy(flat, true);
            Tensor<T, dynamic_shape<1>> packed(flat, 0, dynamic_shape<1>(total), {1});
            work.join(all_reduce_then(packed, op, async_op, [flat, filled = std::move(copies)]() {
                for (const auto& copy : filled)
                    copy(flat, false);
            }));
            copies = {};
            total = 0;
        };
        constexpr auto element_bytes = static_cast<std::int64_t>(sizeof(T));
        auto collect = [&](const auto& leaf) {
            using L = std::remove_cvref_t<decltype(leaf)>;
            if constexpr (is_tensor_v<L>) {
                if constexpr (std::is_same_v<typename L::value_type, T>) {
                    if (!leaf.defined())
                        return;
                    if (!copies.empty() && (total + leaf.numel()) * element_bytes > bucket_bytes)
                        flush();
                    copies.push_back([tensor = L(leaf), offset = total](const Storage<T>& flat,
                                                                        bool in) mutable {
                        auto block = block_of(flat, offset, tensor.shape());
                        if (in)
                            block.copy_(tensor);
                        else
                            tensor.copy_(block);
                    });
                    total += leaf.numel();
                }
            }
        };
        for_each_leaf(tensors, collect);
        flush();
    }
}

template <class Leaf>
constexpr bool valid_leaf() {
    return is_tensor_v<Leaf> || std::is_same_v<Leaf, none_t>;
}
template <class C>
struct leaves_valid : std::bool_constant<valid_leaf<C>()> {};
template <class... X>
struct leaves_valid<list<X...>> : std::conjunction<leaves_valid<X>...> {};
template <class... X>
struct leaves_valid<std::tuple<X...>> : std::conjunction<leaves_valid<X>...> {};
template <class... K, class... V>
struct leaves_valid<dict_t<pair<K, V>...>> : std::conjunction<leaves_valid<V>...> {};

} // namespace detail

/// all_reduce of every tensor of a staticpy list, dict or std::tuple (nested; None leaves and
/// undefined tensors skipped), one collective per element type, or per bucket of at most
/// bucket_bytes of one element type (DistributedDataParallel's gradient buckets); in place, as
/// all_reduce.
///   distributed::all_reduce(grads, distributed::ReduceOp::AVG);
template <tensor_container C>
Work all_reduce(const C& tensors, ReduceOp op = ReduceOp::SUM, bool async_op = false,
                std::int64_t bucket_bytes = std::numeric_limits<std::int64_t>::max()) {
    static_assert(detail::leaves_valid<std::remove_cvref_t<C>>::value,
                  "staticpy: TypeError: all_reduce takes a Tensor, or a staticpy list, dict or "
                  "std::tuple of Tensors (None where there is none)");
    Work work;
    detail::all_reduce_packed<bool>(work, tensors, op, async_op, bucket_bytes);
    detail::all_reduce_packed<std::uint8_t>(work, tensors, op, async_op, bucket_bytes);
    detail::all_reduce_packed<std::int32_t>(work, tensors, op, async_op, bucket_bytes);
    detail::all_reduce_packed<std::int64_t>(work, tensors, op, async_op, bucket_bytes);
    detail::all_reduce_packed<float>(work, tensors, op, async_op, bucket_bytes);
    detail::all_reduce_packed<double>(work, tensors, op, async_op, bucket_bytes);
    if (!async_op)
        work.wait();
    return work;
}

/// broadcast of every tensor of a staticpy list, dict or std::tuple (nested; None leaves and
/// undefined tensors skipped) from rank src, in place: a model's state_dict made rank 0's.
///   distributed::broadcast(model.state_dict(), 0);
template <tensor_container C>
Work broadcast(const C& tensors, int src, bool async_op = false) {
    static_assert(detail::leaves_valid<std::remove_cvref_t<C>>::value,
                  "staticpy: TypeError: broadcast takes a Tensor, or a staticpy list, dict or "
                  "std::tuple of Tensors (None where there is none)");
    Work work;
    auto each = [&](const auto& leaf) {
        if constexpr (is_tensor_v<std::remove_cvref_t<decltype(leaf)>>)
            if (leaf.defined())
                work.join(broadcast(leaf, src, async_op));
    };
    detail::for_each_leaf(tensors, each);
    if (!async_op)
        work.wait();
    return work;
}

} // namespace staticpy::distributed
