#pragma once
// torch.distributed's collectives and point-to-point calls on tensors, over the default process
// group (process_group.hpp): all_reduce, broadcast, all_gather, reduce_scatter, gather, scatter,
// barrier, send/recv and isend/irecv.
//
//   auto t = full<float>(4, float(distributed::get_rank() + 1));
//   distributed::all_reduce(t);                       // in place: every rank holds the sum
//   distributed::broadcast(t, 0);                     // rank 0's elements everywhere
//
// Element types: bool, uint8, int32, int64, float, double; any shape, contiguous or not (a
// strided tensor goes through a contiguous copy that is written back: in place, as PyTorch's);
// a GPU tensor is staged through host memory (copied to the CPU, the collective, copied back).
// A tensor is a handle, so a collective takes it by value and writes its elements.
//
// Before the data moves, the ranks agree on the call: one small nonblocking all-reduce of each
// rank's (collective, dtype, numel, root or op) and of whether its arguments were valid; where
// they differ every rank throws RuntimeError naming the call and both values ("all_reduce: the
// tensors' sizes differ across ranks: numel 4 on some ranks, 6 on others"), instead of MPI
// reading past a buffer. The data then moves by MPI's blocking collective (MPI_Allreduce, ...)
// in a synchronous call -- the agreement has shown that every rank reached it -- and by the
// nonblocking one (MPI_Iallreduce, ...) completed in Work::wait() with async_op=true. With
// async_op=true the call returns after the agreement, i.e. once every rank has reached it: MPI
// matches collectives in the order they are issued, so each is issued at its call, in program order
// on every rank.

#include <climits>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/distributed/process_group.hpp"
#include "staticpy/distributed/work.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/storage.hpp"
#include "staticpy/tensor/tensor.hpp"
#include <mpi.h>

namespace staticpy::distributed {

/// torch.distributed.ReduceOp. AVG sums, then divides by the world size (an integer sum
/// truncated toward zero, as NCCL's average); on bool tensors SUM and MAX are a logical or,
/// PRODUCT and MIN a logical and, and AVG is PyTorch's TypeError.
enum class ReduceOp { SUM, AVG, PRODUCT, MIN, MAX };

[[nodiscard]] constexpr std::string_view reduce_op_name(ReduceOp op) noexcept {
    switch (op) {
    case ReduceOp::SUM:
        return "SUM";
    case ReduceOp::AVG:
        return "AVG";
    case ReduceOp::PRODUCT:
        return "PRODUCT";
    case ReduceOp::MIN:
        return "MIN";
    case ReduceOp::MAX:
        return "MAX";
    }
    return "?";
}

namespace detail {

template <class T>
MPI_Datatype mpi_datatype() noexcept {
    if constexpr (std::is_same_v<T, bool>)
        return MPI_C_BOOL; // C++'s bool and C's _Bool: one byte, 0 or 1, on every ABI MPI supports
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return MPI_UINT8_T;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return MPI_INT32_T;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return MPI_INT64_T;
    else if constexpr (std::is_same_v<T, float>)
        return MPI_FLOAT;
    else
        return MPI_DOUBLE;
}

/// The MPI reduction for op on T. MPI defines only the logical ops on its bool type.
template <class T>
MPI_Op mpi_op(ReduceOp op) noexcept {
    if constexpr (std::is_same_v<T, bool>)
        return op == ReduceOp::PRODUCT || op == ReduceOp::MIN ? MPI_LAND : MPI_LOR;
    switch (op) {
    case ReduceOp::PRODUCT:
        return MPI_PROD;
    case ReduceOp::MIN:
        return MPI_MIN;
    case ReduceOp::MAX:
        return MPI_MAX;
    default:
        return MPI_SUM; // SUM, and AVG's sum
    }
}

/// The collectives, as the agreement tells them apart.
enum class collective : std::int64_t {
    barrier,
    all_reduce,
    broadcast,
    all_gather,
    reduce_scatter,
    gather,
    scatter
};

constexpr std::string_view collective_name(std::int64_t kind) noexcept {
    constexpr std::string_view names[] = {"barrier",        "all_reduce", "broadcast", "all_gather",
                                          "reduce_scatter", "gather",     "scatter"};
    return kind >= 0 && kind < 7 ? names[kind] : "?";
}

/// What every rank's call must agree on: the collective, the element type (-1: none), the
/// number of elements per rank, and its root rank or ReduceOp (0: none).
struct call_signature {
    collective kind;
    std::int64_t dtype = -1;
    std::int64_t numel = 0;
    std::int64_t parameter = 0;
};

/// The agreement's text for a field whose lowest and highest values across ranks differ.
inline std::string disagreement(std::string_view name, std::size_t field, collective kind,
                                std::int64_t low, std::int64_t high) {
    const auto some_others = [](const std::string& a, const std::string& b) {
        return a + " on some ranks, " + b + " on others";
    };
    std::string text(name);
    switch (field) {
    case 0:
        return text + ": the ranks called different collectives: " +
               some_others(std::string(collective_name(low)), std::string(collective_name(high)));
    case 1:
        return text + ": the tensors' dtypes differ across ranks: " +
               some_others(std::string(dtype_name(static_cast<dtype>(low))),
                           std::string(dtype_name(static_cast<dtype>(high))));
    case 2:
        return text + ": the tensors' sizes differ across ranks: " +
               some_others("numel " + std::to_string(low), std::to_string(high)) +
               " (every rank gives a tensor of the same size)";
    default:
        if (kind == collective::all_reduce || kind == collective::reduce_scatter)
            return text + ": the ops differ across ranks: " +
                   some_others(std::string(reduce_op_name(static_cast<ReduceOp>(low))),
                               std::string(reduce_op_name(static_cast<ReduceOp>(high))));
        return text + ": the " + (kind == collective::gather ? "dst" : "src") +
               " ranks differ across ranks: " +
               some_others(std::to_string(low), std::to_string(high));
    }
}

/// Starts the agreement on `mine`: an MPI_Iallreduce (MIN) of each field and its negation (the
/// lowest and highest value across ranks) and of the lowest rank whose arguments were invalid
/// (local_error). Its completion throws on every rank when they differ: the invalid rank its own
/// error, the others one naming it.
inline in_flight start_agreement(process_group_state& group, std::string_view name,
                                 const call_signature& mine, std::exception_ptr local_error) {
    constexpr std::size_t fields = 4;
    auto values = std::make_shared<std::array<std::int64_t, 2 * fields + 1>>();
    const std::int64_t field_values[fields] = {static_cast<std::int64_t>(mine.kind), mine.dtype,
                                               mine.numel, mine.parameter};
    for (std::size_t i = 0; i < fields; ++i) {
        (*values)[2 * i] = field_values[i];
        (*values)[2 * i + 1] = -field_values[i];
    }
    (*values)[2 * fields] = local_error ? group.rank : INT64_MAX;
    in_flight agreement{std::string(name), MPI_REQUEST_NULL, {}, false};
    check_mpi(MPI_Iallreduce(MPI_IN_PLACE, values->data(), static_cast<int>(values->size()),
                             MPI_INT64_T, MPI_MIN, group.comm, &agreement.request),
              name);
    agreement.finish = [values, local_error, kind = mine.kind,
                        name = std::string(name)](const MPI_Status&) {
        const std::int64_t invalid_rank = (*values)[2 * fields];
        if (local_error)
            std::rethrow_exception(local_error);
        if (invalid_rank != INT64_MAX)
            throw RuntimeError(name + ": rank " + std::to_string(invalid_rank) +
                               " gave invalid arguments (its error says which)");
        for (std::size_t i = 0; i < fields; ++i)
            if ((*values)[2 * i] != -(*values)[2 * i + 1])
                throw RuntimeError(
                    disagreement(name, i, kind, (*values)[2 * i], -(*values)[2 * i + 1]));
    };
    return agreement;
}

/// The agreement, waited for.
inline void agree(process_group_state& group, std::string_view name, const call_signature& mine,
                  std::exception_ptr local_error) {
    Work(start_agreement(group, name, mine, std::move(local_error))).wait();
}

template <class T>
call_signature signature_of(collective kind, std::int64_t numel, std::int64_t parameter = 0) {
    return {kind, static_cast<std::int64_t>(dtype_of_v<T>), numel, parameter};
}

/// MPI counts are ints.
inline std::exception_ptr count_error(std::string_view name, std::int64_t numel) {
    if (numel <= INT_MAX)
        return nullptr;
    return std::make_exception_ptr(RuntimeError(
        std::string(name) + ": " + std::to_string(numel) +
        " elements per rank are more than an MPI count holds (" + std::to_string(INT_MAX) + ")"));
}

inline std::exception_ptr rank_error(std::string_view what, int rank, int world_size) {
    if (rank >= 0 && rank < world_size)
        return nullptr;
    return std::make_exception_ptr(ValueError("Invalid " + std::string(what) + " rank " +
                                              std::to_string(rank) + ": the ranks are 0 to " +
                                              std::to_string(world_size - 1)));
}

/// A tensor's elements as one contiguous host buffer for MPI: the tensor itself when it is a
/// contiguous CPU tensor, otherwise a contiguous host copy (of a strided view, or of a GPU
/// tensor: host staging), which write_back() copies into the tensor.
template <class T, class S>
struct host_staged {
    Tensor<T, S> tensor;
    Tensor<T, S> host;

    [[nodiscard]] T* data() { return host.data(); }
    void write_back() {
        if (!host.storage().is_same(tensor.storage()))
            tensor.copy_(host);
    }
};

template <class T, class S>
host_staged<T, S> stage_on_host(const Tensor<T, S>& tensor) {
    if (tensor.is_cpu() && tensor.is_contiguous())
        return {tensor, tensor};
    return {tensor, tensor.is_cuda() ? tensor.cpu() : tensor.clone()};
}

/// The tensor of `shape` at `offset` in a flat host buffer (a rank's block of a gathered or
/// scattered buffer).
template <class T, class S>
Tensor<T, S> block_of(const Storage<T>& flat, std::int64_t offset, const S& shape) {
    return Tensor<T, S>(flat, offset, shape, staticpy::detail::contiguous_strides(shape.sizes()));
}

/// The tensors of a list, each copied into its block of one flat host buffer, in order.
template <class T, class S>
Storage<T> pack(const std::vector<Tensor<T, S>>& tensors, std::int64_t block) {
    auto flat = Storage<T>::allocate(block * static_cast<std::int64_t>(tensors.size()));
    for (std::size_t k = 0; k < tensors.size(); ++k)
        block_of(flat, block * static_cast<std::int64_t>(k), tensors[k].shape()).copy_(tensors[k]);
    return flat;
}

/// The flat buffer's blocks copied into the tensors of a list.
template <class T, class S>
void unpack(const Storage<T>& flat, std::vector<Tensor<T, S>>& tensors, std::int64_t block) {
    for (std::size_t k = 0; k < tensors.size(); ++k)
        tensors[k].copy_(block_of(flat, block * static_cast<std::int64_t>(k), tensors[k].shape()));
}

/// A list argument of one tensor per rank: its length and each tensor's size, checked.
template <class T, class S>
std::exception_ptr per_rank_list_error(std::string_view name, std::string_view list,
                                       const std::vector<Tensor<T, S>>& tensors, std::int64_t numel,
                                       int world_size) {
    if (tensors.size() != static_cast<std::size_t>(world_size))
        return std::make_exception_ptr(
            ValueError(std::string(name) + ": " + std::string(list) + " holds " +
                       std::to_string(tensors.size()) + " tensors for a world of " +
                       std::to_string(world_size) + " ranks (one per rank)"));
    for (std::size_t k = 0; k < tensors.size(); ++k)
        if (tensors[k].numel() != numel)
            return std::make_exception_ptr(ValueError(
                std::string(name) + ": " + std::string(list) + "[" + std::to_string(k) + "] has " +
                std::to_string(tensors[k].numel()) + " elements, the tensor " +
                std::to_string(numel) + " (every tensor of the list has its size)"));
    return nullptr;
}

/// A root rank's names: its argument ("dst") and its role in PyTorch's texts ("destination").
struct root_names {
    std::string_view argument;
    std::string_view role;
};

/// gather's and scatter's local checks: the count, the root rank, the list given on the root and
/// only there (PyTorch's ValueErrors), one tensor per rank of the tensor's size.
template <class T, class S>
std::exception_ptr rooted_list_error(std::string_view name, std::string_view list_name,
                                     root_names names, int root,
                                     const std::vector<Tensor<T, S>>& list, std::int64_t numel,
                                     const process_group_state& group) {
    if (auto error = count_error(name, numel))
        return error;
    if (auto error = rank_error(names.argument, root, group.world_size))
        return error;
    const bool on_root = group.rank == root;
    const std::string argument = "Argument ``" + std::string(list_name) + "`` must ";
    if (on_root && list.empty())
        return std::make_exception_ptr(
            ValueError(argument + "be specified on " + std::string(names.role) + " rank."));
    if (!on_root && !list.empty())
        return std::make_exception_ptr(ValueError(argument + "NOT be specified on non-" +
                                                  std::string(names.role) + " ranks."));
    return on_root ? per_rank_list_error(name, list_name, list, numel, group.world_size) : nullptr;
}

/// After the agreement, the data's MPI call: start(&request) issues the nonblocking form, whose
/// Work completes it (async_op); start(nullptr) makes the blocking form, then finish runs.
///
/// A synchronous call takes the blocking form because the agreement has already waited, within
/// the timeout, for the one thing that can hang: every rank has reached this call, so the data's
/// collective cannot wait for a rank that never makes it (a rank that dies instead ends the job
/// under mpirun). The blocking form is also MPI's fast one: Open MPI runs the nonblocking
/// collectives through libnbc, whose schedules advance only inside MPI calls, and measured 1.4-2.7x
/// slower than its blocking MPI_Allreduce at 1-16 MB even when waited for by MPI_Wait
/// (benchmarks/README.md, "Distributed all_reduce").
template <class Start, class Finish>
Work issue(process_group_state& group, std::string_view name, const call_signature& mine,
           std::exception_ptr local_error, bool async_op, Start&& start, Finish&& finish) {
    agree(group, name, mine, std::move(local_error));
    in_flight operation{std::string(name), MPI_REQUEST_NULL, std::forward<Finish>(finish), false};
    if (!async_op) {
        check_mpi(start(nullptr), name);
        operation.finish(MPI_Status{});
        return Work();
    }
    check_mpi(start(&operation.request), name);
    return Work(std::move(operation));
}

/// x[i] /= world_size: AVG's division, after the sum.
template <class T>
void divide(T* x, std::int64_t n, int world_size) {
    if constexpr (!std::is_same_v<T, bool>)
        for (std::int64_t i = 0; i < n; ++i)
            x[i] = static_cast<T>(x[i] / static_cast<T>(world_size));
}

template <class T>
std::exception_ptr reduce_op_error(ReduceOp op) {
    if (std::is_same_v<T, bool> && op == ReduceOp::AVG)
        return std::make_exception_ptr(TypeError("Cannot use ReduceOp.AVG with boolean inputs"));
    return nullptr;
}

/// MPI's blocking form of a collective where `request` is null (a synchronous call: see
/// issue()), else its nonblocking form, which sets *request; the same arguments either way.
template <class... Blocking, class... Nonblocking, class... A>
int blocking_or_nonblocking(MPI_Request* request, int (*blocking)(Blocking...),
                            int (*nonblocking)(Nonblocking...), const A&... args) {
    return request == nullptr ? blocking(args...) : nonblocking(args..., request);
}

/// all_reduce's work on one tensor, then `then()` (a container's unpacking).
template <class T, class S, class Then>
Work all_reduce_then(Tensor<T, S> tensor, ReduceOp op, bool async_op, Then then) {
    constexpr std::string_view name = "all_reduce";
    auto& group = usable_group(name);
    const std::int64_t n = tensor.numel();
    auto error = count_error(name, n);
    if (!error)
        error = reduce_op_error<T>(op);
    auto staged = stage_on_host(tensor);
    return issue(
        group, name, signature_of<T>(collective::all_reduce, n, static_cast<std::int64_t>(op)),
        error, async_op,
        [&](MPI_Request* request) {
            return detail::blocking_or_nonblocking(request, MPI_Allreduce, MPI_Iallreduce,
                                                   MPI_IN_PLACE, staged.data(), static_cast<int>(n),
                                                   mpi_datatype<T>(), mpi_op<T>(op), group.comm);
        },
        [staged, op, n, world_size = group.world_size, then](const MPI_Status&) mutable {
            if (op == ReduceOp::AVG)
                divide(staged.data(), n, world_size);
            staged.write_back();
            then();
        });
}

} // namespace detail

/// torch.distributed.all_reduce(tensor, op=SUM, async_op=False): every rank's tensor becomes the
/// reduction of all ranks' tensors, in place.
///   distributed::all_reduce(grad);                              // the sum
///   distributed::all_reduce(loss, distributed::ReduceOp::AVG);  // the mean over ranks
template <class T, class S>
Work all_reduce(Tensor<T, S> tensor, ReduceOp op = ReduceOp::SUM, bool async_op = false) {
    // The same elements seen with a dynamic shape: one instantiation per (dtype, rank), not per
    // parameter shape.
    if constexpr (!is_dynamic_shape_v<S>)
        return all_reduce(Tensor<T, dynamic_shape<S::rank>>(std::move(tensor)), op, async_op);
    else
        return detail::all_reduce_then(std::move(tensor), op, async_op, [] {});
}

/// torch.distributed.broadcast(tensor, src, async_op=False): rank src's elements into every
/// rank's tensor.
///   distributed::broadcast(weights, 0);
template <class T, class S>
Work broadcast(Tensor<T, S> tensor, int src, bool async_op = false) {
    if constexpr (!is_dynamic_shape_v<S>) { // one per (dtype, rank)
        return broadcast(Tensor<T, dynamic_shape<S::rank>>(std::move(tensor)), src, async_op);
    } else {
        constexpr std::string_view name = "broadcast";
        auto& group = detail::usable_group(name);
        const std::int64_t n = tensor.numel();
        auto error = detail::count_error(name, n);
        if (!error)
            error = detail::rank_error("src", src, group.world_size);
        auto staged = detail::stage_on_host(tensor);
        return detail::issue(
            group, name, detail::signature_of<T>(detail::collective::broadcast, n, src), error,
            async_op,
            [&](MPI_Request* request) {
                return detail::blocking_or_nonblocking(
                    request, MPI_Bcast, MPI_Ibcast, staged.data(), static_cast<int>(n),
                    detail::mpi_datatype<T>(), src, group.comm);
            },
            [staged](const MPI_Status&) mutable { staged.write_back(); });
    }
}

/// torch.distributed.all_gather(tensor_list, tensor, async_op=False): tensor_list[k] becomes rank
/// k's tensor on every rank; tensor_list holds world size tensors of the tensor's size.
///   std::vector outs(distributed::get_world_size(), zeros<float>(3));   // distinct tensors
///   distributed::all_gather(outs, x);
template <class T, class S>
Work all_gather(std::vector<Tensor<T, S>> tensor_list, Tensor<T, S> tensor, bool async_op = false) {
    constexpr std::string_view name = "all_gather";
    auto& group = detail::usable_group(name);
    const std::int64_t n = tensor.numel();
    auto error = detail::count_error(name, n);
    if (!error)
        error = detail::per_rank_list_error(name, "tensor_list", tensor_list, n, group.world_size);
    auto staged = detail::stage_on_host(tensor);
    auto flat = Storage<T>::allocate(n * group.world_size);
    return detail::issue(
        group, name, detail::signature_of<T>(detail::collective::all_gather, n), error, async_op,
        [&](MPI_Request* request) {
            return detail::blocking_or_nonblocking(
                request, MPI_Allgather, MPI_Iallgather, staged.data(), static_cast<int>(n),
                detail::mpi_datatype<T>(), flat.data(), static_cast<int>(n),
                detail::mpi_datatype<T>(), group.comm);
        },
        [staged, flat, tensor_list, n](const MPI_Status&) mutable {
            detail::unpack(flat, tensor_list, n);
        });
}

/// all_gather into a new list: every rank's tensor, in rank order (new tensors of the tensor's
/// shape, on its device). staticpy's form; PyTorch's takes the list to fill.
///   auto everyone = distributed::all_gather(x);   // everyone[k] is rank k's x
template <class T, class S>
std::vector<Tensor<T, S>> all_gather(const Tensor<T, S>& tensor) {
    std::vector<Tensor<T, S>> tensor_list;
    for (int k = 0; k < get_world_size(); ++k)
        tensor_list.emplace_back(tensor.shape(), tensor.device());
    all_gather(tensor_list, tensor);
    return tensor_list;
}

/// torch.distributed.reduce_scatter(output, input_list, op=SUM, async_op=False): rank k's
/// output becomes the reduction over ranks of their input_list[k]; input_list holds world size
/// tensors of the output's size.
///   distributed::reduce_scatter(mine, pieces);   // mine = sum over ranks of pieces[rank]
template <class T, class S>
Work reduce_scatter(Tensor<T, S> output, const std::vector<Tensor<T, S>>& input_list,
                    ReduceOp op = ReduceOp::SUM, bool async_op = false) {
    constexpr std::string_view name = "reduce_scatter";
    auto& group = detail::usable_group(name);
    const std::int64_t n = output.numel();
    auto error = detail::count_error(name, n);
    if (!error)
        error = detail::per_rank_list_error(name, "input_list", input_list, n, group.world_size);
    if (!error)
        error = detail::reduce_op_error<T>(op);
    auto staged = detail::stage_on_host(output);
    const auto flat = error ? Storage<T>::allocate(0) : detail::pack(input_list, n);
    return detail::issue(
        group, name,
        detail::signature_of<T>(detail::collective::reduce_scatter, n,
                                static_cast<std::int64_t>(op)),
        error, async_op,
        [&](MPI_Request* request) {
            return detail::blocking_or_nonblocking(
                request, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, flat.data(),
                staged.data(), static_cast<int>(n), detail::mpi_datatype<T>(),
                detail::mpi_op<T>(op), group.comm);
        },
        [staged, flat, op, n, world_size = group.world_size](const MPI_Status&) mutable {
            if (op == ReduceOp::AVG)
                detail::divide(staged.data(), n, world_size);
            staged.write_back();
        });
}

/// torch.distributed.gather(tensor, gather_list, dst=0, async_op=False): on rank dst,
/// gather_list[k] becomes rank k's tensor; the other ranks give no list (PyTorch's ValueError
/// either way otherwise).
///   if (rank == 0) distributed::gather(x, outs, 0); else distributed::gather(x, {}, 0);
template <class T, class S>
Work gather(Tensor<T, S> tensor, std::vector<Tensor<T, S>> gather_list = {}, int dst = 0,
            bool async_op = false) {
    constexpr std::string_view name = "gather";
    auto& group = detail::usable_group(name);
    const std::int64_t n = tensor.numel();
    const bool root = group.rank == dst;
    auto error = detail::rooted_list_error(name, "gather_list", {"dst", "destination"}, dst,
                                           gather_list, n, group);
    auto staged = detail::stage_on_host(tensor);
    auto flat = Storage<T>::allocate(root ? n * group.world_size : 0);
    return detail::issue(
        group, name, detail::signature_of<T>(detail::collective::gather, n, dst), error, async_op,
        [&](MPI_Request* request) {
            return detail::blocking_or_nonblocking(request, MPI_Gather, MPI_Igather, staged.data(),
                                                   static_cast<int>(n), detail::mpi_datatype<T>(),
                                                   flat.data(), static_cast<int>(n),
                                                   detail::mpi_datatype<T>(), dst, group.comm);
        },
        [staged, flat, gather_list, n](const MPI_Status&) mutable {
            detail::unpack(flat, gather_list, n);
        });
}

/// torch.distributed.scatter(tensor, scatter_list, src=0, async_op=False): rank k's tensor
/// becomes rank src's scatter_list[k]; the other ranks give no list.
///   if (rank == 0) distributed::scatter(mine, pieces, 0); else distributed::scatter(mine, {}, 0);
template <class T, class S>
Work scatter(Tensor<T, S> tensor, const std::vector<Tensor<T, S>>& scatter_list = {}, int src = 0,
             bool async_op = false) {
    constexpr std::string_view name = "scatter";
    auto& group = detail::usable_group(name);
    const std::int64_t n = tensor.numel();
    const bool root = group.rank == src;
    auto error = detail::rooted_list_error(name, "scatter_list", {"src", "source"}, src,
                                           scatter_list, n, group);
    auto staged = detail::stage_on_host(tensor);
    const auto flat = root && !error ? detail::pack(scatter_list, n) : Storage<T>::allocate(0);
    return detail::issue(
        group, name, detail::signature_of<T>(detail::collective::scatter, n, src), error, async_op,
        [&](MPI_Request* request) {
            return detail::blocking_or_nonblocking(request, MPI_Scatter, MPI_Iscatter, flat.data(),
                                                   static_cast<int>(n), detail::mpi_datatype<T>(),
                                                   staged.data(), static_cast<int>(n),
                                                   detail::mpi_datatype<T>(), src, group.comm);
        },
        [staged, flat](const MPI_Status&) mutable { staged.write_back(); });
}

/// torch.distributed.barrier(async_op=False): returns once every rank has called it.
inline Work barrier(bool async_op = false) {
    constexpr std::string_view name = "barrier";
    auto& group = detail::usable_group(name);
    Work work(detail::start_agreement(group, name, {detail::collective::barrier}, nullptr));
    if (!async_op)
        work.wait();
    return work;
}

namespace detail {
/// isend and irecv's common checks: the peer's rank (not this one, as PyTorch), the count.
inline std::exception_ptr peer_error(std::string_view name, std::string_view what, int peer,
                                     std::int64_t numel, const process_group_state& group) {
    if (auto error = rank_error(what, peer, group.world_size))
        return error;
    if (peer == group.rank)
        return std::make_exception_ptr(
            ValueError("Invalid " + std::string(what) +
                       " rank: should not be the same as the rank of the current process."));
    return count_error(name, numel);
}
} // namespace detail

/// torch.distributed.isend(tensor, dst, tag=0): sends the tensor's elements to rank dst; the
/// Work completes when the tensor may be changed again.
///   auto work = distributed::isend(x, 1);  ...  work.wait();
template <class T, class S>
Work isend(const Tensor<T, S>& tensor, int dst, int tag = 0) {
    constexpr std::string_view name = "send";
    auto& group = detail::usable_group(name);
    const std::int64_t n = tensor.numel();
    if (auto error = detail::peer_error(name, "dst", dst, n, group))
        std::rethrow_exception(error);
    auto staged = detail::stage_on_host(tensor);
    detail::in_flight operation{std::string(name), MPI_REQUEST_NULL, [staged](const MPI_Status&) {},
                                false};
    detail::check_mpi(MPI_Isend(staged.host.data(), static_cast<int>(n), detail::mpi_datatype<T>(),
                                dst, tag, group.comm, &operation.request),
                      name);
    return Work(std::move(operation));
}

/// torch.distributed.irecv(tensor, src=None, tag=0): receives into the tensor from rank src (any
/// rank when none is given); source_rank() is the sender once complete. A message of another
/// size is a RuntimeError (MPI's truncation error when it is larger).
///   auto work = distributed::irecv(x, 0);  ...  work.wait();
template <class T, class S>
Work irecv(Tensor<T, S> tensor, std::optional<int> src = std::nullopt, int tag = 0) {
    constexpr std::string_view name = "recv";
    auto& group = detail::usable_group(name);
    const std::int64_t n = tensor.numel();
    if (src)
        if (auto error = detail::peer_error(name, "src", *src, n, group))
            std::rethrow_exception(error);
    if (auto error = detail::count_error(name, n))
        std::rethrow_exception(error);
    auto staged = detail::stage_on_host(tensor);
    detail::in_flight operation{
        std::string(name), MPI_REQUEST_NULL,
        [staged, n](const MPI_Status& status) mutable {
            int count = 0;
            detail::check_mpi(MPI_Get_count(&status, detail::mpi_datatype<T>(), &count),
                              "recv: MPI_Get_count");
            if (count != n)
                throw RuntimeError("recv: expected " + std::to_string(n) + " elements from rank " +
                                   std::to_string(status.MPI_SOURCE) + ", received " +
                                   std::to_string(count) +
                                   " (send and recv take tensors of the same size)");
            staged.write_back();
        },
        true};
    detail::check_mpi(MPI_Irecv(staged.data(), static_cast<int>(n), detail::mpi_datatype<T>(),
                                src ? *src : MPI_ANY_SOURCE, tag, group.comm, &operation.request),
                      name);
    return Work(std::move(operation));
}

/// torch.distributed.send(tensor, dst, tag=0): isend, waited for.
template <class T, class S>
void send(const Tensor<T, S>& tensor, int dst, int tag = 0) {
    isend(tensor, dst, tag).wait();
}

/// torch.distributed.recv(tensor, src=None, tag=0): irecv, waited for; returns the sender's rank.
///   const int from = distributed::recv(x);   // from any rank
template <class T, class S>
int recv(Tensor<T, S> tensor, std::optional<int> src = std::nullopt, int tag = 0) {
    auto work = irecv(std::move(tensor), src, tag);
    work.wait();
    return work.source_rank();
}

} // namespace staticpy::distributed
