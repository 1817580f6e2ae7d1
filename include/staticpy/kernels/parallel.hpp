#pragma once
// How kernels share the cores: a kernel over n elements asks threads_for(n), splits its outermost
// dim into chunk_count() pieces and runs them with parallel_chunks() (OpenMP when the build has
// it, otherwise one piece after the other on the calling thread).
//
//   const int chunks = chunk_count(outer, threads_for(numel), 4096);
//   parallel_chunks(outer, chunks, [&](std::int64_t begin, std::int64_t end, int chunk) { ... });

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>

#include "staticpy/core/threads.hpp"
#include "staticpy/kernels/config.hpp"

#if STATICPY_HAS_OPENMP
#include <omp.h>
#endif

namespace staticpy::kernels {

// The thread budget (core/threads.hpp, shared with the data layer's batch gathers).
using staticpy::detail::available_threads;
using staticpy::detail::parallel_chunks;
using staticpy::detail::parallel_threshold;
using staticpy::detail::threads_for;

/// The cost per element of kernel K (K::cost when it says, else 1).
template <class K>
constexpr std::int64_t cost_of() {
    if constexpr (requires { K::cost; })
        return K::cost;
    else
        return 1;
}

/// How many chunks parallel_chunks splits [0, extent) into for `threads` threads: chunks are at
/// least `grain` long, so that small work stays on one thread.
inline int chunk_count(std::int64_t extent, int threads, std::int64_t grain) {
    if (threads <= 1 || extent <= grain)
        return 1;
    return static_cast<int>(std::min<std::int64_t>(threads, (extent + grain - 1) / grain));
}

/// Runs task(t) for t in [0, tasks) on up to `threads` threads, each thread taking the next
/// task when it finishes one (first come, first served: a thread the OS deschedules leaves its
/// share to the others). The first exception a task throws is rethrown here once all threads
/// have stopped; the remaining tasks are then skipped. Which thread runs a task is not fixed, so
/// tasks write disjoint results (or results by task index, combined afterwards in order).
template <class Task>
void parallel_tasks(int tasks, int threads, Task&& task) {
    threads = std::min(threads, tasks);
    if (threads <= 1) {
        for (int t = 0; t < tasks; ++t)
            task(t);
        return;
    }
#if STATICPY_HAS_OPENMP
    std::atomic<int> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
#pragma omp parallel num_threads(threads)
    {
        try {
            for (int t = next++; t < tasks && !failed.load(std::memory_order_relaxed); t = next++)
                task(t);
        } catch (...) {
#pragma omp critical(staticpy_parallel_tasks_error)
            if (!error)
                error = std::current_exception();
            failed.store(true, std::memory_order_relaxed);
        }
    }
    if (error)
        std::rethrow_exception(error);
#endif
}

} // namespace staticpy::kernels
