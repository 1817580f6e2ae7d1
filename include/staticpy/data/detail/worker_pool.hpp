#pragma once
// One epoch's worker threads, as PyTorch's _MultiProcessingDataLoaderIter and _utils/worker.py's
// _worker_loop: index lists go round-robin to the workers' queues, prefetch_factor * num_workers
// ahead; their batches come back through one result queue and are handed out in sampler order
// (in_order) or as they arrive; a worker's error is rethrown on the consuming thread, and a
// timeout bounds each wait.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/threads.hpp"
#include "staticpy/data/detail/fetch.hpp"
#include "staticpy/data/detail/loader_config.hpp"
#include "staticpy/data/worker_info.hpp"

namespace staticpy::data::detail {

/// "DataLoader timed out after 5.0 seconds": PyTorch formats its timeout, which a C++ caller gives
/// as a double, so it is written as Python's repr of that float.
inline std::string seconds_text(double s) {
    std::string out;
    staticpy::detail::float_repr_into(out, s);
    return out;
}

/// Rethrows an exception caught in worker `id` on the consuming thread: staticpy errors as the
/// same type, anything else as RuntimeError, with PyTorch's "Caught ... in DataLoader worker
/// process N." header, the original nested (std::rethrow_if_nested reaches it).
[[noreturn]] inline void reraise(const std::exception_ptr& error, int id) {
    const std::string where = " in DataLoader worker process " + std::to_string(id) +
                              ".\nOriginal Traceback (most recent call last):\n";
    try {
        std::rethrow_exception(error);
    } catch (const Error& e) {
        const std::string name = e.python_name();
        const std::string text = "Caught " + name + where + name + ": " + e.what();
        if (dynamic_cast<const IndexError*>(&e) != nullptr)
            std::throw_with_nested(IndexError(text));
        if (dynamic_cast<const KeyError*>(&e) != nullptr)
            std::throw_with_nested(KeyError(text));
        if (dynamic_cast<const ValueError*>(&e) != nullptr)
            std::throw_with_nested(ValueError(text));
        if (dynamic_cast<const TypeError*>(&e) != nullptr)
            std::throw_with_nested(TypeError(text));
        if (dynamic_cast<const RuntimeError*>(&e) != nullptr)
            std::throw_with_nested(RuntimeError(text));
        std::throw_with_nested(Error(text));
    } catch (const std::exception& e) {
        std::throw_with_nested(
            RuntimeError("Caught std::exception" + where + "std::exception: " + e.what()));
    } catch (...) {
        std::throw_with_nested(
            RuntimeError("Caught an exception" + where + "(not a std::exception)"));
    }
}

/// The workers of one epoch of a DataLoader<D, Collate>. Its members other than those under
/// mutex_ belong to the consuming thread.
///   worker_pool<D, C> pool(cfg, make_index_reader<true>(cfg->opts), base_seed);
///   while (auto batch = pool.next()) use(*batch);
///   if (auto error = pool.take_sampler_error()) std::rethrow_exception(error);
template <class D, class Collate>
class worker_pool {
    using types = loader_types<D, Collate>;
    using batch_type = typename types::batch_type;
    using config = loader_config<D, Collate>;

    struct task {
        std::int64_t idx;
        std::vector<std::int64_t> indices;
    };
    struct result {
        std::int64_t idx = 0;
        int worker = 0;
        std::optional<batch_type> data;
        std::exception_ptr error;
        bool stop_iteration = false; // PyTorch's _IterableDatasetStopIteration
    };
    // PyTorch's _task_info entry: a task sent and not yet delivered, with its result when that
    // came before its turn.
    struct outstanding_task {
        int worker;
        std::optional<result> early;
    };
    // What a worker thread holds while it runs.
    struct worker_state {
        std::optional<fetcher<D, Collate>> fetch;
        std::exception_ptr init_error; // worker_init_fn's, or the fetcher's (a dataset's begin())
        bool exhausted = false;        // an iterable dataset's worker that has given all it has
    };

public:
    /// Starts cfg's num_workers threads, whose seeds are base_seed + id, and requests the first
    /// prefetch_factor * num_workers index lists of next_index from them.
    worker_pool(std::shared_ptr<config> cfg, index_reader next_index, std::uint64_t base_seed)
        : cfg_(std::move(cfg)), next_index_(std::move(next_index)), base_seed_(base_seed) {
        workers_ = cfg_->opts.num_workers;
        queues_.resize(static_cast<std::size_t>(workers_));
        worker_active_.assign(static_cast<std::size_t>(workers_), true);
        threads_.reserve(static_cast<std::size_t>(workers_));
        // The workers' cores are theirs while they run: the model's kernels use the rest.
        cores_.emplace(workers_);
        try {
            for (int w = 0; w < workers_; ++w)
                threads_.emplace_back([this, w] { worker_loop(w); });
            // No more requests than batches: a prefetch_factor larger than the epoch is free.
            const std::int64_t prefetch = *cfg_->opts.prefetch_factor * workers_;
            for (std::int64_t k = 0; k < prefetch && !sampler_done_; ++k)
                try_put_index();
        } catch (...) { // a thread that failed to start: no destructor joins the others
            shutdown();
            throw;
        }
    }
    worker_pool(const worker_pool&) = delete;
    worker_pool& operator=(const worker_pool&) = delete;
    ~worker_pool() { shutdown(); }

    /// PyTorch's _next_data: the next batch, in sampler order with in_order (else as the workers
    /// finish them), nullopt once every batch requested has been delivered. A worker's error is
    /// rethrown here (see reraise) in its batch's place; a timeout is a RuntimeError. Either
    /// leaves the pool usable.
    std::optional<batch_type> next() {
        while (true) {
            skip_tasks_of_ended_workers();
            if (rcvd_idx_ >= send_idx_)
                return std::nullopt;
            if (std::optional<result> early = take_early_result())
                return deliver(std::move(*early));
            result r = wait_for_result();
            if (r.stop_iteration) {
                worker_active_[static_cast<std::size_t>(r.worker)] = false;
                if (!r.error) {
                    outstanding_.erase(r.idx);
                    try_put_index();
                    continue;
                }
                // A worker that could not start: its error takes its first task's place in
                // the order, and it has ended, so the epoch can.
            }
            if (r.idx == rcvd_idx_ || !cfg_->opts.in_order) {
                outstanding_.erase(r.idx);
                if (r.idx == rcvd_idx_)
                    ++rcvd_idx_;
                return deliver(std::move(r));
            }
            outstanding_.at(r.idx).early = std::move(r);
        }
    }

    /// The sampler's error, once next() has delivered every batch requested before it (PyTorch
    /// raises it at once, losing the batch in hand); null when it raised none.
    std::exception_ptr take_sampler_error() { return std::exchange(sampler_error_, nullptr); }

    /// Stops and joins the workers; what they were fetching is finished first.
    void shutdown() {
        {
            std::lock_guard lock(mutex_);
            if (stop_)
                return;
            stop_ = true;
        }
        work_cv_.notify_all();
        for (auto& t : threads_)
            if (t.joinable())
                t.join();
        cores_.reset();
    }

private:
    // ---- the consuming thread ----

    // PyTorch's _try_put_index: the next index list to the next active worker in turn.
    void try_put_index() {
        std::optional<std::vector<std::int64_t>> indices = read_next_indices();
        if (!indices)
            return;
        const std::optional<int> w = next_active_worker();
        if (!w)
            return;
        {
            std::lock_guard lock(mutex_);
            queues_[static_cast<std::size_t>(*w)].push_back(task{send_idx_, std::move(*indices)});
        }
        work_cv_.notify_all();
        outstanding_.emplace(send_idx_, outstanding_task{*w, std::nullopt});
        ++send_idx_;
    }

    std::optional<std::vector<std::int64_t>> read_next_indices() {
        if (sampler_done_)
            return std::nullopt;
        std::optional<std::vector<std::int64_t>> indices;
        try {
            indices = next_index_();
        } catch (...) {
            // Kept for take_sampler_error; a sampler that raised is exhausted, as a Python
            // generator is.
            sampler_error_ = std::current_exception();
            sampler_done_ = true;
            return std::nullopt;
        }
        if (!indices)
            sampler_done_ = true;
        return indices;
    }

    std::optional<int> next_active_worker() {
        for (int k = 0; k < workers_; ++k) {
            const int candidate = next_worker_;
            next_worker_ = (next_worker_ + 1) % workers_;
            if (worker_active_[static_cast<std::size_t>(candidate)])
                return candidate;
        }
        return std::nullopt;
    }

    // Moves rcvd_idx_ past the tasks that will never be delivered: those already handed out (out
    // of order) or ended (an iterable worker's StopIteration), and those of a worker that has
    // ended without their result.
    void skip_tasks_of_ended_workers() {
        while (rcvd_idx_ < send_idx_) {
            const auto it = outstanding_.find(rcvd_idx_);
            if (it != outstanding_.end()) {
                if (it->second.early || worker_active_[static_cast<std::size_t>(it->second.worker)])
                    return;
                outstanding_.erase(it);
            }
            ++rcvd_idx_;
        }
    }

    // The result for rcvd_idx_ when it arrived before its turn.
    std::optional<result> take_early_result() {
        const auto it = outstanding_.find(rcvd_idx_);
        if (it == outstanding_.end() || !it->second.early)
            return std::nullopt;
        // The optional itself is moved out, not *early: g++ 12 at -O3 takes a move from the
        // contained value for a read of uninitialized memory (-Wuninitialized).
        std::optional<result> r = std::move(it->second.early);
        outstanding_.erase(it);
        ++rcvd_idx_;
        return r;
    }

    std::optional<batch_type> deliver(result r) {
        try_put_index();
        if (r.error)
            reraise(r.error, r.worker);
        return std::move(r.data);
    }

    result wait_for_result() {
        std::unique_lock lock(mutex_);
        const auto ready = [this] { return !results_.empty(); };
        const auto& wait = cfg_->opts.timeout_wait;
        if (wait) {
            if (!result_cv_.wait_for(lock, *wait, ready))
                throw RuntimeError("DataLoader timed out after " +
                                   seconds_text(cfg_->opts.timeout) + " seconds");
        } else {
            result_cv_.wait(lock, ready);
        }
        result r = std::move(results_.front());
        results_.pop_front();
        return r;
    }

    // ---- a worker's thread ----

    // PyTorch's _worker_loop.
    void worker_loop(int id) {
        std::optional<Generator> own_generator;
        bool first_start = true;
        Generator& generator = generator_of(id, own_generator, first_start);
        const std::uint64_t seed = base_seed_ + static_cast<std::uint64_t>(id);
        const worker_scope scope(
            WorkerInfo{id, workers_, seed, static_cast<const void*>(&cfg_->dataset.get()),
                       &typeid(std::remove_cv_t<typename types::dataset_type>)},
            generator);
        // Declared after the scope, so that the fetcher (an iterable dataset's iterator) ends
        // while get_worker_info() still answers.
        worker_state state;
        start_worker(id, first_start, state);
        while (std::optional<task> t = wait_for_task(id)) {
            if (!state.exhausted) // an exhausted worker drains its queue until stopped
                post(run_task(id, std::move(*t), state));
        }
    }

    // The worker's Generator: its own, seeded base_seed + id, or with persistent_workers the one
    // it made in its first epoch (first_start: this is that epoch).
    Generator& generator_of(int id, std::optional<Generator>& own, bool& first_start) {
        const std::uint64_t seed = base_seed_ + static_cast<std::uint64_t>(id);
        if (!cfg_->opts.persistent_workers)
            return own.emplace(seed);
        auto& kept = cfg_->persistent[static_cast<std::size_t>(id)];
        first_start = !kept.generator.has_value();
        if (first_start)
            kept.generator.emplace(seed);
        return *kept.generator;
    }

    // worker_init_fn (once per worker, with persistent_workers) and the fetcher; what fails is
    // kept as the worker's init_error (a persistent worker keeps its first epoch's).
    void start_worker(int id, bool first_start, worker_state& state) {
        const auto& o = cfg_->opts;
        if (o.persistent_workers)
            state.init_error = cfg_->persistent[static_cast<std::size_t>(id)].init_error;
        try {
            if (first_start && o.worker_init_fn)
                o.worker_init_fn(id);
            if (!state.init_error)
                state.fetch.emplace(cfg_->dataset.get(), o.collate_fn, o.drop_last, o.pin_memory);
        } catch (...) {
            state.init_error = std::current_exception();
        }
        if (o.persistent_workers && first_start)
            cfg_->persistent[static_cast<std::size_t>(id)].init_error = state.init_error;
    }

    // The worker's next task; nullopt once the pool stops.
    std::optional<task> wait_for_task(int id) {
        std::unique_lock lock(mutex_);
        auto& q = queues_[static_cast<std::size_t>(id)];
        work_cv_.wait(lock, [&] { return stop_ || !q.empty(); });
        if (stop_)
            return std::nullopt;
        task t = std::move(q.front());
        q.pop_front();
        return t;
    }

    result run_task(int id, task t, worker_state& state) {
        result r;
        r.idx = t.idx;
        r.worker = id;
        if (state.init_error) {
            r.error = state.init_error;
            if constexpr (!types::map_style) {
                // An iterable dataset's worker that cannot start has nothing to give: it says
                // why once, then ends, as if exhausted (else the epoch, which waits for every
                // worker to end, never would).
                r.stop_iteration = true;
                state.exhausted = true;
            }
            // A map dataset's worker reports it for each of its tasks: every batch sent to it
            // fails, and the sampler bounds the epoch.
            return r;
        }
        try {
            r.data = state.fetch->fetch(t.indices);
            if (!r.data) {
                r.stop_iteration = true;
                state.exhausted = true;
            }
        } catch (...) {
            r.error = std::current_exception();
        }
        return r;
    }

    void post(result r) {
        {
            std::lock_guard lock(mutex_);
            results_.push_back(std::move(r));
        }
        result_cv_.notify_one();
    }

    std::shared_ptr<config> cfg_;
    index_reader next_index_;
    std::uint64_t base_seed_ = 0;
    int workers_ = 0;

    // Consuming thread only. send_idx_ and rcvd_idx_ are PyTorch's: the next task to send, and
    // the next to deliver in order.
    bool sampler_done_ = false;
    std::exception_ptr sampler_error_;
    int next_worker_ = 0;
    std::int64_t send_idx_ = 0;
    std::int64_t rcvd_idx_ = 0;
    std::map<std::int64_t, outstanding_task> outstanding_;
    std::vector<bool> worker_active_;

    // Shared with the workers, under mutex_.
    std::mutex mutex_;
    std::condition_variable work_cv_;
    std::condition_variable result_cv_;
    std::vector<std::deque<task>> queues_;
    std::deque<result> results_;
    bool stop_ = false;

    // The threads, and the cores they hold while they run (consuming thread only).
    std::vector<std::thread> threads_;
    std::optional<reserve_threads> cores_;
};

} // namespace staticpy::data::detail
