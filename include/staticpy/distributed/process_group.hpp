#pragma once
// The default process group, as torch.distributed's on its MPI backend: every process of the MPI
// job (mpirun -np N) is a rank; a program started without mpirun is a job of one rank (Open MPI's
// singleton init).
//
//   distributed::init_process_group("mpi");
//   std::printf("rank %d of %d\n", distributed::get_rank(), distributed::get_world_size());
//   distributed::destroy_process_group();
//
// Every collective waits for the other ranks polling a nonblocking MPI call, up to the group's
// timeout (init_process_group's argument, else STATICPY_DISTRIBUTED_TIMEOUT_SECONDS, else
// PyTorch's 30 minutes), then throws a RuntimeError naming the collective, the rank and the world
// size. A collective that timed out stays pending: MPI cannot cancel it, and the peers that did
// not join may still reach it and write into its buffers, so the group is unusable from then on
// (every call throws), and destroy_process_group() -- or the program's exit -- ends the whole job
// with MPI_Abort: MPI_Finalize, collective over every rank, would wait for the ranks that did not
// join, which is the hang the timeout is there to end (NCCL's async error handling in PyTorch
// tears the process down for the same reason).

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/data/sampler.hpp"
#include <mpi.h>

namespace staticpy::distributed {

/// torch.distributed.default_pg_timeout: how long a collective waits for the other ranks.
inline constexpr std::chrono::milliseconds default_pg_timeout = std::chrono::minutes(30);

namespace detail {

struct process_group_state {
    bool initialized = false;
    bool owns_mpi = false;  // init_process_group initialised MPI, so destroy finalizes it
    bool exit_hook = false; // the atexit handler is registered (once per process)
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0;
    int world_size = 1;
    std::chrono::milliseconds timeout = default_pg_timeout;
    std::string failure; // what timed out; non-empty: the group is unusable
    // Buffers of operations that timed out: MPI may still write into them, so they live until
    // the process ends.
    std::vector<std::shared_ptr<void>> abandoned;
};

inline process_group_state& group_state() noexcept {
    static process_group_state state;
    return state;
}

inline constexpr const char* not_initialized_message =
    "Default process group has not been initialized, please make sure to call "
    "init_process_group.";

/// The group, for a call named `caller`: PyTorch's RuntimeError before init_process_group, and
/// one naming the earlier timeout once the group is unusable.
inline process_group_state& usable_group(std::string_view caller) {
    auto& group = group_state();
    if (!group.initialized)
        throw RuntimeError(not_initialized_message);
    if (!group.failure.empty())
        throw RuntimeError(std::string(caller) + ": the process group is unusable since " +
                           group.failure +
                           " (a pending collective cannot be cancelled; destroy_process_group() "
                           "ends the job)");
    return group;
}

inline std::string mpi_error_text(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        return "MPI error " + std::to_string(code);
    return std::string(text, static_cast<std::size_t>(length));
}

/// An MPI return code as a RuntimeError naming the call: the group's communicator returns
/// errors (MPI_ERRORS_RETURN) instead of aborting the job, MPI's default.
inline void check_mpi(int code, std::string_view what) {
    if (code != MPI_SUCCESS)
        throw RuntimeError(std::string(what) + ": " + mpi_error_text(code));
}

/// "5 s", "0.25 s".
inline std::string seconds_text(std::chrono::milliseconds duration) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", static_cast<double>(duration.count()) / 1000.0);
    return text;
}

/// Calls done() (an MPI_Test) until it returns true, and throws RuntimeError when the group's
/// timeout passes first, marking the group unusable. It polls back to back for the first 50 us
/// (the agreement of ranks that arrive together takes a few: a yield there can hand the core to
/// another process for a whole time slice), then yields between polls up to 2 s, then sleeps
/// 50 us doubling to 1 ms (a rank that late is computing, or gone): ranks that share a core, as
/// with mpirun --oversubscribe, leave it to each other instead of spinning. Not sleeping
/// sooner: without a progress thread a collective's data moves only while the ranks are inside
/// MPI, and a peer still finishing the previous collective may need this rank's progress; with
/// sleeps from 20 ms on, 256 MB all_reduce calls (a second each on the benchmarks' machine, the
/// ranks tens of ms apart) ran 37-40 % slower than MPI_Allreduce, with yields up to 2 s -4 to
/// +3 % (benchmarks/README.md, "Distributed all_reduce").
template <class Done>
void wait_until(process_group_state& group, std::string_view what, Done&& done) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    auto pause = std::chrono::microseconds(25);
    while (!done()) {
        const auto waited = clock::now() - start;
        if (waited >= group.timeout) {
            group.failure = std::string(what) + " timed out after " + seconds_text(group.timeout) +
                            " on rank " + std::to_string(group.rank) + " of " +
                            std::to_string(group.world_size);
            throw RuntimeError(group.failure + " (a rank did not make the matching call)");
        }
        if (waited < std::chrono::microseconds(50))
            continue;
        if (waited < std::chrono::seconds(2)) {
            std::this_thread::yield();
        } else {
            pause = std::min(pause * 2, std::chrono::microseconds(1000));
            std::this_thread::sleep_for(pause);
        }
    }
}

[[noreturn]] inline void abort_job(const std::string& why) {
    std::fprintf(stderr,
                 "staticpy: distributed: %s: ending the job with MPI_Abort (the pending "
                 "collective cannot be cancelled, and MPI_Finalize would wait for the ranks that "
                 "did not join it)\n",
                 why.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    std::abort(); // MPI_Abort does not return
}

/// STATICPY_DISTRIBUTED_TIMEOUT_SECONDS, else PyTorch's default.
inline std::chrono::milliseconds timeout_from_environment() {
    const char* text = std::getenv("STATICPY_DISTRIBUTED_TIMEOUT_SECONDS");
    if (text == nullptr || *text == '\0')
        return default_pg_timeout;
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (*end != '\0' || !(seconds > 0) || seconds > 1e9)
        throw ValueError("STATICPY_DISTRIBUTED_TIMEOUT_SECONDS must be a positive number of "
                         "seconds, got '" +
                         std::string(text) + "'");
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0 + 0.5));
}

inline void exit_handler() noexcept;

} // namespace detail

/// torch.distributed.is_mpi_available(): true in a program that includes this header (it is
/// compiled against MPI).
[[nodiscard]] constexpr bool is_mpi_available() noexcept {
    return true;
}

/// torch.distributed.is_initialized(): whether init_process_group has run (and no
/// destroy_process_group since).
[[nodiscard]] inline bool is_initialized() noexcept {
    return detail::group_state().initialized;
}

/// torch.distributed.get_rank(): this process's rank in the default group, 0 to world size - 1.
[[nodiscard]] inline int get_rank() {
    if (!is_initialized())
        throw RuntimeError(detail::not_initialized_message);
    return detail::group_state().rank;
}

/// torch.distributed.get_world_size(): the number of ranks (mpirun's -np; 1 without mpirun).
[[nodiscard]] inline int get_world_size() {
    if (!is_initialized())
        throw RuntimeError(detail::not_initialized_message);
    return detail::group_state().world_size;
}

/// torch.distributed.init_process_group(backend, timeout=...) for the backend "mpi": MPI gives
/// the rank and the world size. `timeout` bounds every wait for the other ranks (default:
/// STATICPY_DISTRIBUTED_TIMEOUT_SECONDS, else default_pg_timeout, 30 minutes).
///   distributed::init_process_group("mpi");
///   distributed::init_process_group("mpi", std::chrono::seconds(60));
inline void init_process_group(std::string_view backend = "mpi",
                               std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::string name(backend);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name != "mpi")
        throw ValueError("Invalid backend: '" + std::string(backend) +
                         "' (staticpy's process group runs on MPI: init_process_group(\"mpi\"))");
    auto& group = detail::group_state();
    if (group.initialized)
        throw RuntimeError("trying to initialize the default process group twice!");
    const auto wait_limit = timeout ? *timeout : detail::timeout_from_environment();
    if (wait_limit.count() <= 0)
        throw ValueError("init_process_group: the timeout must be positive, got " +
                         std::to_string(wait_limit.count()) + " ms");
    int flag = 0;
    MPI_Finalized(&flag);
    if (flag != 0)
        throw RuntimeError("init_process_group: MPI was finalized (by destroy_process_group) and "
                           "cannot be initialized again in this process");
    MPI_Initialized(&flag);
    if (flag == 0) {
        // Serialized: the DataLoader's workers never call MPI, but a user's threads may, one
        // at a time.
        int provided = 0;
        detail::check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
                          "init_process_group: MPI_Init_thread");
        group.owns_mpi = true;
    }
    // A communicator of our own, so that the user's MPI calls on MPI_COMM_WORLD never match ours.
    detail::check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &group.comm),
                      "init_process_group: MPI_Comm_dup");
    detail::check_mpi(MPI_Comm_set_errhandler(group.comm, MPI_ERRORS_RETURN),
                      "init_process_group: MPI_Comm_set_errhandler");
    detail::check_mpi(MPI_Comm_rank(group.comm, &group.rank), "init_process_group: MPI_Comm_rank");
    detail::check_mpi(MPI_Comm_size(group.comm, &group.world_size),
                      "init_process_group: MPI_Comm_size");
    group.timeout = wait_limit;
    group.failure.clear();
    group.initialized = true;
    // DistributedSampler(ds) asks the group for its replicas and rank through this hook: the
    // data layer cannot include MPI.
    data::detail::default_process_group = [] {
        return std::pair<std::int64_t, std::int64_t>(get_world_size(), get_rank());
    };
    if (!group.exit_hook) {
        // A program that ends without destroy_process_group still finalizes MPI (under mpirun,
        // a rank that exits without MPI_Finalize fails the job).
        std::atexit(&detail::exit_handler);
        group.exit_hook = true;
    }
}

/// torch.distributed.destroy_process_group(): frees the group and finalizes MPI (when
/// init_process_group initialised it); MPI cannot be initialised again in this process. After
/// a timeout it ends the whole job with MPI_Abort (see the top of this header).
inline void destroy_process_group() {
    auto& group = detail::group_state();
    if (!group.initialized)
        throw RuntimeError(detail::not_initialized_message);
    if (!group.failure.empty())
        detail::abort_job(group.failure);
    group.initialized = false;
    detail::check_mpi(MPI_Comm_free(&group.comm), "destroy_process_group: MPI_Comm_free");
    if (group.owns_mpi) {
        group.owns_mpi = false;
        detail::check_mpi(MPI_Finalize(), "destroy_process_group: MPI_Finalize");
    }
}

namespace detail {
inline void exit_handler() noexcept {
    if (!is_initialized())
        return;
    try {
        destroy_process_group();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "staticpy: distributed: at exit: %s\n", error.what());
    }
}
} // namespace detail

} // namespace staticpy::distributed
