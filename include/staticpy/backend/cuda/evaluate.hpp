#pragma once
// The CUDA evaluator of a graph program (graph/program.hpp): the CPU evaluator's walk
// (backend/cpu/evaluate.hpp) with each fused kernel generated as CUDA (codegen.hpp), compiled once
// and launched on the device of the program's tensors.
//
//   device_evaluator<Prog, Args, roots> ev{nodes, args};  ev.materialize_all();  ev.value<R>()
//
// Each kernel is specialised for how its operands lie in memory (cuda_layout), chosen here from
// their sizes and strides at run time:
//   store       contiguous when every operand walks the output's elements in order (no
//               broadcast, no transpose), packed (vector_width elements an access) when besides
//               every pointer is aligned to the pack; strided otherwise, rank baked in;
//   reduction   the kept dims first, the reduced ones after (the operands' strides permuted to
//               match); contiguous when the reduced dims are the trailing ones of contiguous
//               operands; a block per output with shuffles where there are few outputs of many
//               elements (split over gridDim.y blocks, then folded, where fewer outputs than
//               multiprocessors would leave most of the device idle), a thread per output
//               otherwise; the accumulators filled with the identity first and finished after
//               (mean's division, a double sum's conversion), by kernels of the same source.
// Compiled kernels are kept for the process, keyed by the program's type, the kernel's index and
// its layout (the in-memory cache in front of the disk cache of compile.hpp), per device.
//
// softmax and log_softmax nodes run the row kernels (a block per row); matmul nodes run cuBLAS
// (cublas.hpp) through the eager matmul, the bias or activation after one in the next fused
// kernel; views (transpose, reshape, ...) are views of the device's tensors; cross_entropy and
// nll_loss (and their derivatives) run their row kernels (class_loss.hpp). Not on the device yet:
// the other opaque ops (convolution, layer_norm, ...): a program with one throws a RuntimeError
// naming it, before any work; the CPU runs it.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

#include "staticpy/backend/cpu/evaluate.hpp"
#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/compile.hpp"
#include "staticpy/backend/cuda/cublas.hpp"
#include "staticpy/backend/cuda/device_memory.hpp"
#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/kernel_registry.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/backend/cuda/stream.hpp"
#include "staticpy/graph/dump.hpp"
#include "staticpy/jit.hpp"
#include "staticpy/kernels/elementwise.hpp"
#include "staticpy/kernels/reduce.hpp"
#include "staticpy/tensor/ops.hpp"

namespace staticpy::cuda::detail {

/// The error for a node the device cannot run yet.
[[noreturn]] inline void throw_not_on_device(const char* what) {
    throw RuntimeError(std::string("staticpy: ") + what +
                       " has no CUDA kernel yet: a graph with one runs on the CPU only (copy its "
                       "tensors with .cpu())");
}

/// Evaluates program Prog, whose outputs are the slots Roots, with the node objects `nodes` and
/// the jit arguments `args` (a tuple of Tensors on one CUDA device, input<I> being element I).
template <class Prog, class Args, auto Roots>
class device_evaluator {
public:
    static constexpr std::size_t N = Prog::size;
    static constexpr auto plan = graph::kernel_plan<Prog, Roots.size()>::kernels(Roots);
    using results_t = typename backend::cpu::detail::results_of<
        Prog, std::make_index_sequence<backend::cpu::detail::kept_slots<Prog>::count>>::type;

    device_evaluator(const graph::node_pointers_t<Prog>& nodes, const Args& args, Device device)
        : nodes_(nodes), args_(args), device_(device), shape_(shape_of_device(device.index())) {
        check_supported();
        make_current(device.index());
    }

    /// Materializes every materialized slot (and stored fused value), in order.
    void materialize_all() {
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            indexed::in_order{(materialize<S>(), 0)...};
        }
        (std::make_index_sequence<N>{});
    }

    /// The value of slot S: its tensor when stored, else computed now into a new one.
    template <std::size_t S>
    auto value() {
        if constexpr (Prog::stored[S]) {
            return tensor<S>();
        } else {
            using node = typename Prog::template node_at<S>;
            Tensor<typename node::value_type, typename node::shape_type> out(shape_of<S>(),
                                                                             device_);
            store<S>(out);
            return out;
        }
    }

private:
    const graph::node_pointers_t<Prog>& nodes_;
    const Args& args_;
    Device device_;
    device_shape shape_;
    results_t results_{};

    template <std::size_t S>
    using node_t = typename Prog::template node_at<S>;

    static void check_supported() {
        [&]<std::size_t... S>(std::index_sequence<S...>) {
            indexed::in_order{(
                [&] {
                    if constexpr (node_t<S>::kind == graph::node_kind::opaque &&
                                  softmax_kind<S> == 0 && !runs_eagerly<S> && !of_shapes<S>) {
                        using op = typename node_t<S>::op_type;
                        if constexpr (requires { op::name; })
                            throw_not_on_device(op::name);
                        else
                            throw_not_on_device("this op");
                    }
                }(),
                0)...};
        }
        (std::make_index_sequence<N>{});
    }

    /// Whether slot S is an opaque op whose eager implementation runs on a GPU's tensors: a view
    /// (transpose, reshape, x[...], ...), which only describes the elements differently (or, for
    /// reshape and contiguous of a view, copies them), sum_to (autodiff's broadcast gradient: an
    /// eager sum, which runs on the device), var, argmax and argmin (their eager functions run
    /// row_reduce.hpp's kernels there), or an op that says so (eager_on_cuda: the class losses,
    /// whose row kernels are class_loss.hpp's).
    template <std::size_t S>
    static constexpr bool runs_eagerly = [] {
        if constexpr (node_t<S>::kind == graph::node_kind::opaque &&
                      requires { node_t<S>::op_type::eager_on_cuda; }) {
            return node_t<S>::op_type::eager_on_cuda;
        } else if constexpr (node_t<S>::kind == graph::node_kind::opaque &&
                             requires { node_t<S>::op_type::name; }) {
            const std::string_view name = node_t<S>::op_type::name;
            for (const std::string_view view :
                 {"transpose", "permute",   "t",         "reshape",    "view",       "flatten",
                  "expand",    "squeeze",   "unsqueeze", "contiguous", "select",     "slice",
                  "narrow",    "subscript", "expand_to", "unreduce",   "reshape_as", "sum_to",
                  "var",       "argmax",    "argmin"})
                if (name == view)
                    return true;
        }
        return false;
    }();

    /// Whether slot S is an opaque op of its operands' shapes alone (count_ratio: mean's
    /// derivative): computed on the host, its result (a number or a few) copied to the device.
    template <std::size_t S>
    static constexpr bool of_shapes = [] {
        if constexpr (node_t<S>::kind == graph::node_kind::opaque) {
            for (const bool reads : node_t<S>::reads)
                if (reads)
                    return false;
            return true;
        }
        return false;
    }();

    /// 1 for softmax, 2 for log_softmax, 0 for any other node.
    template <std::size_t S>
    static constexpr int softmax_kind = [] {
        if constexpr (node_t<S>::kind == graph::node_kind::opaque)
            return backend::cpu::detail::softmax_kind<typename node_t<S>::op_type>::value;
        else
            return 0;
    }();

    template <std::size_t S>
    auto& result() {
        return indexed::get<backend::cpu::detail::kept_slots<Prog>::index[S]>(results_);
    }

    template <std::size_t S>
    decltype(auto) node() const {
        return graph::node_of<Prog, S>(nodes_);
    }

    /// The tensor of stored slot S: the argument itself for an input.
    template <std::size_t S>
    const auto& tensor() {
        if constexpr (node_t<S>::kind == graph::node_kind::input)
            return indexed::get<node_t<S>::index>(args_);
        else
            return result<S>();
    }

    /// The run-time shape of slot S (materialized slots: their tensor's, computed before any
    /// reader; a stored fused value's from its operands, as it is being computed).
    template <std::size_t S>
    auto shape_of() {
        using shape_t = typename node_t<S>::shape_type;
        if constexpr (node_t<S>::materialized)
            return shape_t(tensor<S>().shape());
        else
            return backend::cpu::detail::fused_shape<Prog, S>(
                [&](auto o) { return shape_of<o()>(); });
    }

    template <std::size_t S>
    void materialize() {
        if constexpr (node_t<S>::kind == graph::node_kind::captured) {
            const auto& t = node<S>().tensor;
            if (t.device() != device_)
                staticpy::detail::throw_device_mismatch(device_, t.device());
            result<S>() = t;
        } else if constexpr (node_t<S>::kind == graph::node_kind::reduce) {
            result<S>() = reduce<S, Prog::template instr_at<S>::operands[0]>();
        } else if constexpr (softmax_kind<S> != 0) {
            result<S>() = softmax<S>();
        } else if constexpr (node_t<S>::kind == graph::node_kind::matmul) {
            // cuBLAS (cublas.hpp), through the eager matmul; a bias or activation after it is
            // in the kernel of the region that reads it.
            constexpr auto ops = Prog::template instr_at<S>::operands;
            result<S>() = staticpy::matmul(value<ops[0]>(), value<ops[1]>());
        } else if constexpr (runs_eagerly<S> || of_shapes<S>) {
            const auto out =
                backend::cpu::detail::run_opaque<Prog, S>(node<S>(), [&](auto reads, auto slot) {
                    if constexpr (reads())
                        return value<slot()>();
                    else
                        return shape_of<slot()>();
                });
            result<S>() = out.to(device_);
        } else if constexpr (Prog::kept_fused(S)) {
            Tensor<typename node_t<S>::value_type, typename node_t<S>::shape_type> out(
                shape_of<S>(), device_);
            store<S>(out);
            result<S>() = out;
        }
    }

    /// Index of the plan's kernel that evaluates region `root` into `reduction` (N: a store).
    static constexpr std::size_t kernel_index(std::size_t root, std::size_t reduction) {
        for (std::size_t k = 0; k < plan.second; ++k)
            if (plan.first[k].root == root && plan.first[k].reduction == reduction)
                return k;
        return plan.second;
    }

    /// The compiled module of kernel K of the plan (root Root) for `layout`.
    template <std::size_t K, std::size_t Root, std::size_t Reduction>
    compiled_kernels& kernels_for(const cuda_layout& layout) {
        return kernel_registry::process().get(
            kernel_key{std::type_index(typeid(Prog)), K, layout, device_.index()}, [&] {
                return cuda_kernel_source(graph::tag("kernel_", K),
                                          graph::region_kernel_parts<Prog, Root>(Reduction, nodes_),
                                          layout);
            });
    }

    template <std::size_t Root>
    using region_t = graph::region<Prog, Root>;

    /// Calls f(integral_constant<S>) for each member of region Root that is a kernel parameter
    /// (a leaf read from memory, or a run-time scalar), in slot order: the kernel's parameters.
    template <std::size_t Root, class F>
    static void for_each_parameter(F&& f) {
        [&]<std::size_t... J>(std::index_sequence<J...>) {
            indexed::in_order{(
                [&] {
                    constexpr std::size_t S = region_t<Root>::members[J];
                    if constexpr (region_t<Root>::is_leaf(S) ||
                                  node_t<S>::kind == graph::node_kind::scalar)
                        f(std::integral_constant<std::size_t, S>{});
                }(),
                0)...};
        }
        (std::make_index_sequence<region_t<Root>::member_count>{});
    }

    /// Each leaf tensor's pointer and strides over the iteration space `sizes` (0 where it
    /// broadcasts), in parameter order.
    template <std::size_t Root, std::size_t R>
    auto leaf_strides(const std::array<std::int64_t, R>& sizes) {
        std::vector<std::pair<const void*, std::array<std::int64_t, R>>> leaves;
        for_each_parameter<Root>([&](auto slot) {
            if constexpr (region_t<Root>::is_leaf(slot())) {
                const auto& t = tensor<slot()>();
                if (t.device() != device_)
                    staticpy::detail::throw_device_mismatch(device_, t.device());
                leaves.emplace_back(t.data_ptr(),
                                    kernels::broadcast_strides(t.sizes(), t.strides(), sizes));
            }
        });
        return leaves;
    }

    /// The kernel's parameters after its sizes: each leaf's pointer (and strides, where strided)
    /// and each scalar's value, in slot order.
    template <std::size_t Root, class Leaves, class Order>
    void add_parameters(kernel_arguments& a, const Leaves& leaves, bool strided,
                        const Order& order) {
        std::size_t l = 0;
        for_each_parameter<Root>([&](auto slot) {
            if constexpr (region_t<Root>::is_leaf(slot())) {
                a.add(leaves[l].first);
                if (strided) {
                    std::vector<long long> s;
                    for (std::size_t d : order)
                        s.push_back(leaves[l].second[d]);
                    a.add_dims(s);
                }
                ++l;
            } else {
                a.add(node<slot()>().value);
            }
        });
    }

    /// Computes fused slot Root into `out` (its shape, contiguous, on this device).
    template <std::size_t Root, class Out>
    void store(Out& out) {
        constexpr std::size_t K = kernel_index(Root, N);
        static_assert(K < plan.second, "staticpy: internal error: a store without a kernel");
        const long long numel = out.numel();
        if (numel == 0)
            return;
        constexpr std::size_t rank = Out::rank;
        std::array<std::int64_t, rank> sizes{};
        std::copy(out.sizes().begin(), out.sizes().end(), sizes.begin());
        const auto leaves = leaf_strides<Root>(sizes);
        const auto dense = staticpy::detail::contiguous_strides(sizes);
        bool contiguous = true; // size-1 dims' strides do not matter
        for (const auto& leaf : leaves)
            for (std::size_t d = 0; d < rank; ++d)
                contiguous = contiguous && (sizes[d] == 1 || leaf.second[d] == dense[d]);
        cuda_layout layout;
        layout.contiguous = contiguous;
        layout.rank = std::max<int>(1, static_cast<int>(rank));
        if (contiguous) {
            // Packs of 16 bytes of the output (4 floats, 2 doubles), where every operand's
            // pointer is aligned to its pack.
            using T = typename Out::value_type;
            const int width = static_cast<int>(std::clamp<std::size_t>(16 / sizeof(T), 1, 4));
            bool aligned = width > 1 && numel >= width;
            std::size_t l = 0;
            for_each_parameter<Root>([&](auto slot) {
                if constexpr (region_t<Root>::is_leaf(slot())) {
                    using L = typename node_t<slot()>::value_type;
                    aligned = aligned && reinterpret_cast<std::uintptr_t>(leaves[l].first) %
                                                 (sizeof(L) * width) ==
                                             0;
                    ++l;
                }
            });
            aligned = aligned &&
                      reinterpret_cast<std::uintptr_t>(out.data_ptr()) % (sizeof(T) * width) == 0;
            layout = cuda_layout{.contiguous = true, .vector_width = aligned ? width : 1};
        }
        compiled_kernels& ks = kernels_for<K, Root, N>(layout);
        kernel_arguments a;
        a.add<long long>(numel);
        std::array<std::size_t, rank == 0 ? 1 : rank> order{};
        for (std::size_t d = 0; d < rank; ++d)
            order[d] = d;
        if (!contiguous)
            a.add_dims(sizes);
        add_parameters<Root>(a, leaves, !contiguous, std::span(order.data(), rank));
        a.add(static_cast<void*>(out.data_ptr()));
        if (!contiguous)
            a.add_dims(out.strides());
        const long long work = layout.vector_width > 1 ? numel / layout.vector_width : numel;
        launch_default(ks.function(graph::tag("kernel_", K)), grid_for(work, shape_), 1,
                       shape_.block, a);
    }

    /// Reduce slot Q over its operand, region Operand.
    template <std::size_t Q, std::size_t Operand>
    auto reduce() {
        using node = node_t<Q>;
        using Reduction = typename node::reduction;
        using out_shape_t = typename node::shape_type;
        using V = typename node::value_type;
        using A = typename Reduction::template accumulator<typename node_t<Operand>::value_type>;
        constexpr std::size_t K = kernel_index(Operand, Q);

        const auto in_shape = shape_of<Operand>();
        constexpr std::size_t R = decltype(in_shape)::rank;
        std::array<std::int64_t, R> in_sizes{};
        std::copy(in_shape.sizes().begin(), in_shape.sizes().end(), in_sizes.begin());
        const auto mask = node::plan::mask(this->template node<Q>().dim);
        Reduction::check_input(in_sizes, mask,
                               std::is_same_v<typename node::dim_type, graph::all_dims>);
        Tensor<V, out_shape_t> out(out_shape_t(staticpy::detail::reduced_sizes<out_shape_t::rank>(
                                       in_sizes, mask, node::keepdim)),
                                   device_);
        const long long outputs = out.numel();
        if (outputs == 0)
            return out;

        // The iteration space: the kept dims (at least one: a full reduction keeps a dim of 1),
        // then the reduced ones.
        std::vector<std::size_t> order;
        std::vector<long long> sizes;
        long long count = 1;
        for (std::size_t d = 0; d < R; ++d)
            if (!mask[d]) {
                order.push_back(d);
                sizes.push_back(in_sizes[d]);
            }
        const int kept = static_cast<int>(order.size());
        bool trailing = true; // the reduced dims come after every kept one
        for (std::size_t d = 0; d < R; ++d)
            if (mask[d]) {
                order.push_back(d);
                sizes.push_back(in_sizes[d]);
                count *= in_sizes[d];
            } else if (d > 0 && mask[d - 1]) {
                trailing = false;
            }
        const auto leaves = leaf_strides<Operand>(in_sizes);
        const auto dense = staticpy::detail::contiguous_strides(in_sizes);
        bool contiguous = trailing;
        for (const auto& leaf : leaves)
            for (std::size_t d = 0; d < R; ++d)
                contiguous = contiguous && (in_sizes[d] == 1 || leaf.second[d] == dense[d]);
        const bool block_form = count >= 256 && outputs <= 8LL * shape_.max_grid;
        cuda_layout layout{.contiguous = contiguous,
                           .rank = std::max(1, kept),
                           .reduced_rank = static_cast<int>(R) - kept,
                           .block_reduce = block_form};
        if (contiguous)
            layout = cuda_layout{.contiguous = true, .block_reduce = block_form};
        compiled_kernels& ks = kernels_for<K, Operand, Q>(layout);
        const std::string name = graph::tag("kernel_", K);

        // The accumulators: the result itself where finishing changes nothing.
        constexpr bool finish_in_place =
            std::is_same_v<A, V> && Reduction::kind != reduce_kind::mean;
        Tensor<A, dynamic_shape<1>> accs;
        if constexpr (finish_in_place)
            accs = Tensor<A, dynamic_shape<1>>(out.storage(), 0, dynamic_shape<1>(outputs), {1});
        else
            accs = Tensor<A, dynamic_shape<1>>(dynamic_shape<1>(outputs), device_);
        const A identity = Reduction::template identity<A>();
        auto fill = [&](Tensor<A, dynamic_shape<1>>& t) {
            kernel_arguments f;
            f.add<long long>(t.numel());
            f.add(static_cast<void*>(t.data_ptr()));
            f.add(identity);
            launch_default(ks.function(name + "_fill"), grid_for(t.numel(), shape_), 1,
                           shape_.block, f);
        };
        fill(accs);

        // A full reduction of many elements over few outputs is split across blocks in y.
        unsigned split = 1;
        if (block_form && outputs < shape_.multiprocessors) {
            const long long per_block = 8LL * shape_.block;
            split = static_cast<unsigned>(std::clamp<long long>(
                count / per_block, 1, std::min<long long>(65535, shape_.max_grid / outputs)));
        }
        Tensor<A, dynamic_shape<1>> partials;
        if (split > 1) {
            partials = Tensor<A, dynamic_shape<1>>(dynamic_shape<1>(outputs * split), device_);
            fill(partials);
        }

        kernel_arguments a;
        a.add<long long>(outputs);
        a.add<long long>(count);
        if (!contiguous) {
            std::vector<long long> space = sizes;
            if (kept == 0)
                space.insert(space.begin(), 1);
            a.add_dims(space);
        }
        std::vector<std::size_t> leaf_order = order;
        if (!contiguous && kept == 0)
            leaf_order.insert(leaf_order.begin(), R); // the kept dim of 1: stride 0
        std::vector<std::pair<const void*, std::array<std::int64_t, R + 1>>> padded;
        for (const auto& leaf : leaves) {
            std::array<std::int64_t, R + 1> s{};
            std::copy(leaf.second.begin(), leaf.second.end(), s.begin());
            padded.emplace_back(leaf.first, s);
        }
        add_parameters<Operand>(a, padded, !contiguous, leaf_order);
        a.add(static_cast<void*>(accs.data_ptr()));
        if (!contiguous) {
            std::vector<long long> out_strides(static_cast<std::size_t>(std::max(1, kept)), 0);
            long long stride = 1;
            for (int d = kept; d-- > 0;) {
                out_strides[static_cast<std::size_t>(d)] = stride;
                stride *= sizes[static_cast<std::size_t>(d)];
            }
            a.add_dims(out_strides);
        }
        if (block_form) {
            a.add(static_cast<void*>(split > 1 ? partials.data_ptr() : nullptr));
            launch_default(ks.function(name),
                           static_cast<unsigned>(std::min<long long>(outputs, shape_.max_grid)),
                           split, shape_.block, a);
        } else {
            launch_default(ks.function(name), grid_for(outputs, shape_), 1, shape_.block, a);
        }
        // The partials kernel (`split` partials an output) and the finish (`count` values an
        // accumulator) take the same arguments: a thread per output, reading `in`.
        auto per_output = [&](const std::string& kernel, long long per, const void* in,
                              void* into) {
            kernel_arguments k;
            k.add<long long>(outputs);
            k.add<long long>(per);
            k.add(in);
            k.add(into);
            launch_default(ks.function(kernel), grid_for(outputs, shape_), 1, shape_.block, k);
        };
        if (split > 1)
            per_output(name + "_partials", split, partials.data_ptr(), accs.data_ptr());
        if constexpr (!finish_in_place)
            per_output(name + "_finish", count, accs.data_ptr(), out.data_ptr());
        return out;
    }

    /// softmax or log_softmax slot S over one dim of its operand: the row kernels of codegen.hpp
    /// (a block per row of the dim, `inner` apart), on a contiguous copy of the operand.
    template <std::size_t S>
    auto softmax() {
        using T = typename node_t<S>::value_type;
        constexpr std::size_t operand = Prog::template instr_at<S>::operands[0];
        using in_shape_t = typename node_t<operand>::shape_type;
        const auto x = tensor<operand>().contiguous();
        using out_shape_t = typename node_t<S>::shape_type;
        Tensor<T, out_shape_t> out(out_shape_t(x.shape()), device_);
        if (x.numel() == 0)
            return out;
        const auto& dim = std::get<0>(node<S>().op.args);
        using dim_t = std::remove_cvref_t<decltype(dim)>;
        const auto mask = staticpy::detail::reduction_plan<in_shape_t, dim_t, true>::mask(dim);
        long long cols = 1, inner = 1;
        for (std::size_t d = 0, past = 0; d < in_shape_t::rank; ++d) {
            if (mask[d]) {
                cols = x.sizes()[d];
                past = 1;
            } else if (past) {
                inner *= x.sizes()[d];
            }
        }
        const long long rows = x.numel() / cols;
        struct softmax_kernels {};
        compiled_kernels& ks = kernel_registry::process().get(
            kernel_key{std::type_index(typeid(softmax_kernels)), 0, cuda_layout{}, device_.index()},
            [] { return std::string(block_reduce_source) + softmax_source; });
        kernel_arguments a;
        a.add<long long>(rows);
        a.add<long long>(cols);
        a.add<long long>(inner);
        a.add(static_cast<const void*>(x.data_ptr()));
        a.add(static_cast<void*>(out.data_ptr()));
        a.add<int>(softmax_kind<S> == 2 ? 1 : 0);
        launch_default(
            ks.function(std::is_same_v<T, float> ? "softmax_rows_float" : "softmax_rows_double"),
            static_cast<unsigned>(std::min<long long>(rows, shape_.max_grid)), 1, shape_.block, a);
        return out;
    }
};

} // namespace staticpy::cuda::detail

namespace staticpy::graph {

/// A jit call whose tensors are on a CUDA device (jit.hpp): its program evaluated there. Found by
/// argument-dependent lookup from jit's call, in preference to the fallback that says the CUDA
/// backend is missing.
template <class Prog, class Inputs, auto Roots>
typename program_tag<Prog, Inputs, Roots>::outputs_type
evaluate_on_cuda(const program_tag<Prog, Inputs, Roots>&, const node_pointers_t<Prog>& nodes,
                 const Inputs& inputs, const Device& device) {
    cuda::detail::device_evaluator<Prog, Inputs, Roots> ev(nodes, inputs, device);
    ev.materialize_all();
    return [&]<std::size_t... K>(std::index_sequence<K...>) {
        return typename program_tag<Prog, Inputs, Roots>::outputs_type{
            {ev.template value<Roots[K]>()}...};
    }
    (std::make_index_sequence<Roots.size()>{});
}

} // namespace staticpy::graph

namespace staticpy::detail {

/// Op F as the function a one-node program traces. Its result type on tensors is spelt out: jit
/// asks for it, and elementwise<F>'s own is still being deduced when this runs.
/// (The result type on tensors, void on traced values: clang 14 substitutes into the return type
/// before it checks the constraint.)
template <bool OnTensors, class F, class... A>
struct eager_result {
    using type = void;
};
template <class F, class... A>
struct eager_result<true, F, A...> {
    using type = elementwise_result_t<F, A...>;
};

template <class F>
struct one_node_elementwise {
    template <class... A>
    requires(!(is_symbolic_arg_v<A> || ...))
        typename eager_result<!(is_symbolic_arg_v<A> || ...), F, A...>::type
        operator()(const A&... a) const {
        return elementwise<F>(a...);
    }
    template <class... A>
    requires(is_symbolic_arg_v<A> || ...) auto operator()(const A&... a) const {
        return elementwise<F>(a...);
    }
};

/// An eager elementwise op on CUDA tensors (ops_elementwise.hpp): a one-node program, through the
/// graph's CUDA evaluator.
template <class F, class... Args>
elementwise_result_t<F, Args...> elementwise_on_cuda(eager_elementwise_tag<F>,
                                                     const Args&... args) {
    return jit(one_node_elementwise<F>{})(args...);
}

/// The function of the one-node program of an eager reduction: Reduction with keepdim over a
/// run-time mask, traced (the eager overload gives jit the result type).
template <class Reduction, std::size_t R>
struct one_node_reduce {
    dim_mask<R> mask;
    template <class A>
    requires is_symbolic_arg_v<A>
    auto operator()(const A& a) const {
        return graph::make_reduce<Reduction::kind, std::true_type>(a, mask);
    }
    template <class T, class S>
    Tensor<typename Reduction::template result<T>, dynamic_shape<R>>
    operator()(const Tensor<T, S>& a) const {
        return reduce_into<typename Reduction::template result<T>, dynamic_shape<R>>(
            a, mask.dims, true, described_body<Reduction>{});
    }
};

/// An eager reduction on a CUDA tensor (ops_reduce.hpp's reduce_into): a one-node program,
/// through the graph's CUDA evaluator.
template <class Reduction, class T, class S, std::size_t R>
Tensor<typename Reduction::template result<T>, dynamic_shape<R>>
reduce_on_cuda(eager_reduce_tag<Reduction>, const Tensor<T, S>& x, const dim_mask<R>& mask) {
    return jit(one_node_reduce<Reduction, R>{mask})(Tensor<T, dynamic_shape<R>>(x));
}

} // namespace staticpy::detail
