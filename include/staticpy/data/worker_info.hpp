#pragma once
// Worker info, as PyTorch's torch/utils/data/_utils/worker.py: what code running in a
// DataLoader worker can ask about the worker (get_worker_info) and the Generator it should draw
// from (worker_generator). A worker sets them on its own thread for as long as it runs.

#include <cstdint>
#include <optional>
#include <typeinfo>

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"

namespace staticpy::data {

/// torch.utils.data.get_worker_info()'s result: inside a worker, its id (0 to num_workers - 1),
/// the number of workers, its seed (base_seed + id) and the dataset (shared with the loader and
/// the other workers, not a copy as in PyTorch's processes).
///   if (auto info = get_worker_info()) { shard = info->id; shards = info->num_workers; }
///   const auto& ds = info->dataset_as<MyStream>();
struct WorkerInfo {
    int id = 0;
    int num_workers = 0;
    std::uint64_t seed = 0;
    const void* dataset = nullptr;
    const std::type_info* dataset_type = nullptr;

    /// The dataset as its type; TypeError when it is of another type.
    ///   const auto& ds = info->dataset_as<Range>();
    ///   auto n = ds.size();
    template <class D>
    [[nodiscard]] const D& dataset_as() const {
        if (dataset_type == nullptr || *dataset_type != typeid(D))
            throw TypeError("WorkerInfo.dataset is not of the requested type");
        return *static_cast<const D*>(dataset);
    }
};

namespace detail {
/// What get_worker_info and worker_generator answer on this thread: empty except on a worker's
/// thread, for as long as a worker_scope there lasts.
struct worker_context {
    std::optional<WorkerInfo> info;
    Generator* generator = nullptr;
};
inline worker_context& this_worker() {
    thread_local worker_context ctx;
    return ctx;
}

/// Makes the calling thread a DataLoader worker, as get_worker_info and worker_generator see it,
/// until the scope ends. The generator must outlive the scope.
///   worker_scope scope(WorkerInfo{id, n, seed, &ds, &typeid(ds)}, generator);
class worker_scope {
public:
    worker_scope(WorkerInfo info, Generator& generator) {
        this_worker().info = info;
        this_worker().generator = &generator;
    }
    worker_scope(const worker_scope&) = delete;
    worker_scope& operator=(const worker_scope&) = delete;
    ~worker_scope() {
        this_worker().info.reset();
        this_worker().generator = nullptr;
    }
};
} // namespace detail

/// torch.utils.data.get_worker_info(): the calling worker's WorkerInfo, nullopt on any other
/// thread (the main thread, or a loader with num_workers = 0).
///   auto info = get_worker_info();
///   int shard = info ? info->id : 0;
inline std::optional<WorkerInfo> get_worker_info() {
    return detail::this_worker().info;
}

/// The Generator random transforms should draw from: in a worker, its own, seeded base_seed + id
/// (PyTorch seeds each worker process's torch generator so); elsewhere default_generator().
///   float flip = worker_generator().uniform();
///   auto noise = randn<float>(3_c, worker_generator());
inline Generator& worker_generator() {
    Generator* g = detail::this_worker().generator;
    return g != nullptr ? *g : default_generator();
}

} // namespace staticpy::data
