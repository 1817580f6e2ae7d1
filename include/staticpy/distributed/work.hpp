#pragma once
// distributed::Work, torch.distributed's work handle: what a collective called with
// async_op=true (and isend/irecv) returns. wait() completes it, within the group's timeout.
//
//   auto work = distributed::all_reduce(grad, distributed::ReduceOp::SUM, true);
//   ...                       // the call returned once every rank had reached it
//   work.wait();              // grad holds the sum
//
// The synchronous forms return a Work that is already complete (PyTorch returns None), so that
// both forms have one return type. Open MPI has no progress thread: a collective's data moves
// while a rank is inside MPI, i.e. in wait() and is_completed() (small messages go out at the
// call). A Work dropped before completion is waited for by its destructor, as a std::future of
// std::async is; the error, if any, is the group's (the next call throws it).

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "staticpy/distributed/process_group.hpp"
#include <mpi.h>

namespace staticpy::distributed {

namespace detail {
/// One nonblocking MPI operation and what completes it (writing a staging buffer back into the
/// caller's tensor, unpacking, dividing for AVG, checking a received count); `finish` also owns
/// the buffers MPI reads and writes until then.
struct in_flight {
    std::string name; // the call, for errors: "all_reduce", "recv", ...
    MPI_Request request = MPI_REQUEST_NULL;
    std::function<void(const MPI_Status&)> finish;
    bool reports_source = false; // a recv: the Work's source_rank() is the sender
};
} // namespace detail

class Work {
public:
    /// A completed Work.
    Work() = default;
    explicit Work(detail::in_flight operation) { pending_.push_back(std::move(operation)); }
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;
    Work(Work&& other) noexcept
        : pending_(std::move(other.pending_)), source_rank_(other.source_rank_) {
        other.pending_.clear();
    }
    Work& operator=(Work&& other) noexcept {
        if (this != &other) {
            settle();
            pending_ = std::move(other.pending_);
            other.pending_.clear();
            source_rank_ = other.source_rank_;
        }
        return *this;
    }
    ~Work() { settle(); }

    /// Work.is_completed(): tests the operations once, without waiting; true when all are done
    /// (their results written). Throws what an operation's completion throws.
    [[nodiscard]] bool is_completed() {
        for (auto it = pending_.begin(); it != pending_.end();) {
            int done = 0;
            MPI_Status status{};
            const int code = MPI_Test(&it->request, &done, &status);
            if (code != MPI_SUCCESS || done != 0) {
                detail::in_flight finished = std::move(*it);
                it = pending_.erase(it);
                detail::check_mpi(code, finished.name);
                if (finished.reports_source)
                    source_rank_ = status.MPI_SOURCE;
                if (finished.finish)
                    finished.finish(status);
            } else {
                ++it;
            }
        }
        return pending_.empty();
    }

    /// Work.wait(): completes every operation, or throws RuntimeError when the group's timeout
    /// passes first (naming the call, this rank and the world size); returns true.
    bool wait() {
        if (pending_.empty())
            return true;
        auto& group = detail::usable_group(pending_.front().name);
        detail::wait_until(group, pending_.front().name, [&] { return is_completed(); });
        return true;
    }

    /// The sender of a completed irecv (Work._source_rank() in PyTorch); -1 otherwise.
    [[nodiscard]] int source_rank() const noexcept { return source_rank_; }

    /// Takes other's operations into this Work: wait() then waits for both.
    void join(Work&& other) {
        for (auto& operation : other.pending_)
            pending_.push_back(std::move(operation));
        other.pending_.clear();
    }

private:
    /// What the destructor does with operations still in flight: waits for them; where the
    /// group is gone or unusable, keeps their buffers alive instead, for MPI may still write.
    void settle() noexcept {
        if (pending_.empty())
            return;
        auto& group = detail::group_state();
        try {
            if (group.initialized && group.failure.empty()) {
                wait();
                return;
            }
        } catch (const std::exception& error) {
            std::fprintf(stderr, "staticpy: distributed: a dropped Work: %s\n", error.what());
        }
        for (auto& operation : pending_)
            group.abandoned.push_back(std::make_shared<detail::in_flight>(std::move(operation)));
        pending_.clear();
    }

    std::vector<detail::in_flight> pending_;
    int source_rank_ = -1;
};

} // namespace staticpy::distributed
