#pragma once
// Data-parallel training on the process group: torch.nn.parallel.DistributedDataParallel's part
// of a training step, for staticpy's functional steps (a jit(value_and_grad) graph, then the
// optimiser's step on the gradients it returns).
//
//   distributed::init_process_group("mpi");
//   auto model = nn::Sequential(nn::Linear<784, 128>(init), nn::ReLU{}, nn::Linear<128, 10>(init));
//   distributed::DistributedDataParallel ddp(model);   // every rank starts from rank 0's state
//   nn::optim::SGD opt(model.parameters(), {.lr = 0.1});
//   distributed::TrainOneStep step(ddp, loss_fn, opt);  // forward, backward, average, update
//   for (auto& [x, y] : loader)                         // each rank its DistributedSampler share
//       step(x, y);
//
// What DistributedDataParallel does there, as PyTorch's:
// - at construction, rank 0's parameters and buffers are broadcast, so every rank starts alike;
// - before each step's forward pass, rank 0's buffers (BatchNorm's running statistics) are
//   broadcast (broadcast_buffers, on by default);
// - after the backward pass, the gradients are averaged across the ranks, packed into buckets of
//   at most bucket_cap_mb (25 MB, PyTorch's default) of one element type, one all_reduce per
//   bucket, in turn (each by MPI's blocking call once the ranks agree on it: Open MPI's
//   nonblocking all-reduce is the slower one). The backward pass here is one compiled graph that
//   returns every gradient at once, so there is no backward left to overlap with the buckets
//   (PyTorch's hooks start a bucket's all_reduce while the backward goes on): nothing overlaps.
// With every rank's batch the same size, the averaged gradient of the ranks' mean losses is the
// gradient of the mean loss over the whole batch: N ranks with batch B / N each step as one
// process with batch B does (tests/distributed/data_parallel_test.cpp checks it).

#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

#include "staticpy/core/repr.hpp"
#include "staticpy/distributed/collectives.hpp"
#include "staticpy/distributed/container_all_reduce.hpp"
#include "staticpy/distributed/process_group.hpp"
#include "staticpy/nn/train_step.hpp"
#include "staticpy/tensor/creation.hpp"

namespace staticpy::distributed {

/// DistributedDataParallel's keyword arguments that apply to staticpy's steps: bucket_cap_mb
/// (a bucket's size in MiB, PyTorch's 25) and broadcast_buffers.
struct DataParallelOptions {
    double bucket_cap_mb = 25;
    bool broadcast_buffers = true;
};

/// torch.nn.parallel.DistributedDataParallel(module): the module's state made rank 0's at
/// construction, its forward pass the module's (after rank 0's buffers are broadcast), and
/// reduce_gradients(grads) for the gradients a step computed. The module must outlive it.
template <class Module>
class DistributedDataParallel {
public:
    explicit DistributedDataParallel(Module& module, DataParallelOptions options = {})
        : module_(&module), options_(options) {
        if (!(options.bucket_cap_mb > 0) || !std::isfinite(options.bucket_cap_mb))
            throw ValueError("bucket_cap_mb must be a positive number of MiB, got " +
                             repr(options.bucket_cap_mb));
        broadcast(module.state_dict(), 0);
    }

    /// The wrapped module (PyTorch's ddp.module).
    [[nodiscard]] Module& module() const noexcept { return *module_; }
    [[nodiscard]] const DataParallelOptions& options() const noexcept { return options_; }

    /// The module's forward pass, after rank 0's buffers are broadcast (broadcast_buffers).
    template <class... A>
    auto operator()(const A&... inputs) const {
        sync_buffers();
        return (*module_)(inputs...);
    }

    /// Rank 0's buffers on every rank, where broadcast_buffers (nothing for a module without
    /// buffers).
    void sync_buffers() const {
        if (options_.broadcast_buffers)
            broadcast(module_->buffers(), 0);
    }

    /// Each gradient of `grads` (a staticpy dict, list or tuple of tensors, as value_and_grad
    /// returns them) replaced by its mean over the ranks, in buckets of bucket_cap_mb.
    template <tensor_container Grads>
    void reduce_gradients(const Grads& grads) const {
        all_reduce(grads, ReduceOp::AVG, false, bucket_bytes());
    }

    /// A bucket's size in bytes.
    [[nodiscard]] std::int64_t bucket_bytes() const {
        return std::max<std::int64_t>(
            1, static_cast<std::int64_t>(options_.bucket_cap_mb * 1024.0 * 1024.0));
    }

private:
    Module* module_;
    DataParallelOptions options_;
};

/// MindSpore's nn.DistributedGradReducer for nn::TrainOneStep, through a DistributedDataParallel:
/// before each forward pass rank 0's buffers broadcast (broadcast_buffers), after the backward
/// pass the gradients averaged across the ranks in buckets. The wrapper must outlive it.
template <class Module>
class DistributedGradReducer {
public:
    explicit DistributedGradReducer(const DistributedDataParallel<Module>& ddp) : ddp_(&ddp) {}
    void before_forward() const { ddp_->sync_buffers(); }
    template <class Grads>
    void operator()(const Grads& grads) const {
        ddp_->reduce_gradients(grads);
    }

private:
    const DistributedDataParallel<Module>* ddp_;
};

/// nn::TrainOneStep on the process group, with the ranks' DistributedGradReducer: per call, rank
/// 0's buffers broadcast, the forward and backward pass of loss_fn(params, batch...) as one
/// compiled graph, the gradients averaged across the ranks, then the optimiser's step; the result
/// is this rank's loss (all_reduce_value averages it for reporting). The optimiser must hold the
/// wrapped module's parameters.
template <class Module, class LossFn, class Opt>
class TrainOneStep : public nn::TrainOneStep<LossFn, Opt, DistributedGradReducer<Module>> {
public:
    TrainOneStep(const DistributedDataParallel<Module>& ddp, LossFn loss_fn, Opt& optimizer)
        : nn::TrainOneStep<LossFn, Opt, DistributedGradReducer<Module>>(
              std::move(loss_fn), optimizer, DistributedGradReducer<Module>(ddp)) {}
};

template <class Module, class LossFn, class Opt>
TrainOneStep(const DistributedDataParallel<Module>&, LossFn, Opt&)
    -> TrainOneStep<Module, LossFn, Opt>;

/// A number reduced across the ranks (SUM by default; AVG for a mean): a metric for reporting,
/// e.g. the ranks' summed correct predictions, or their mean loss.
///   const double loss = distributed::all_reduce_value(local_loss, distributed::ReduceOp::AVG);
template <class T>
requires std::is_arithmetic_v<T> T all_reduce_value(T value, ReduceOp op = ReduceOp::SUM) {
    auto t = full<T>(shape<>{}, value);
    all_reduce(t, op);
    return t.item();
}

} // namespace staticpy::distributed
