// staticpy::distributed: the process group and the collectives on MPI, against values computed
// by hand for every rank (rank r gives r + 1, ...). CTest runs this file three ways
// (tests/distributed/CMakeLists.txt): each case alone without mpirun (a job of one rank), and
// every case in one job under mpirun -np 2 and -np 3, where each rank runs the same cases in
// the same order; the hidden case [.timeout] runs alone under mpirun -np 2.

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "../test_errors.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/data/sampler.hpp"
#include "staticpy/distributed.hpp"
#include "staticpy/tensor/creation.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace dist = staticpy::distributed;
using dist::ReduceOp;
using test_errors::error_of;

namespace {

/// The group, once per process, with a timeout short enough that a rank left waiting fails the
/// job in seconds, not the default 30 minutes.
void ensure_group() {
    if (!dist::is_initialized())
        dist::init_process_group("mpi", std::chrono::seconds(20));
}

int rank() {
    return dist::get_rank();
}
int world() {
    return dist::get_world_size();
}

/// A 1-D tensor with elements f(i).
template <class T, class F>
Tensor<T, dynamic_shape<1>> filled(std::int64_t n, F f) {
    auto t = empty<T>(n);
    for (std::int64_t i = 0; i < n; ++i)
        t(i) = static_cast<T>(f(i));
    return t;
}

template <class T, class S>
std::vector<T> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<T>(c.data(), c.data() + c.numel());
}

const char* const not_initialized =
    "Default process group has not been initialized, please make sure to call "
    "init_process_group.";

} // namespace

// First in the file: under mpirun every rank runs the cases in order, so this one sees the
// process before any init_process_group.
TEST_CASE("before init_process_group every call is PyTorch's RuntimeError") {
    if (dist::is_initialized())
        return; // (a run of selected cases may start elsewhere)
    CHECK(dist::is_mpi_available());
    CHECK(error_of<RuntimeError>([] { (void)dist::get_rank(); }) == not_initialized);
    CHECK(error_of<RuntimeError>([] { (void)dist::get_world_size(); }) == not_initialized);
    CHECK(error_of<RuntimeError>([] { dist::barrier(); }) == not_initialized);
    CHECK(error_of<RuntimeError>([] { dist::all_reduce(zeros<float>(2)); }) == not_initialized);
    CHECK(error_of<RuntimeError>([] { dist::destroy_process_group(); }) == not_initialized);
    CHECK(error_of<RuntimeError>([] { data::DistributedSampler s(10); }) == not_initialized);
    CHECK(error_of<ValueError>([] {
              dist::init_process_group("gloo");
          }).starts_with("Invalid backend: 'gloo'"));
    CHECK_FALSE(dist::is_initialized());
    dist::init_process_group("MPI", std::chrono::seconds(20));
    CHECK(dist::is_initialized());
    CHECK(error_of<RuntimeError>([] { dist::init_process_group("mpi"); }) ==
          "trying to initialize the default process group twice!");
}

TEST_CASE("rank and world size come from mpirun, or one rank without it") {
    ensure_group();
    const char* size = std::getenv("OMPI_COMM_WORLD_SIZE"); // set by Open MPI's mpirun
    CHECK(world() == (size != nullptr ? std::atoi(size) : 1));
    CHECK(rank() >= 0);
    CHECK(rank() < world());
    dist::barrier();
}

TEMPLATE_TEST_CASE("all_reduce: every ReduceOp against the hand-computed value", "", float, double,
                   std::int32_t, std::int64_t, std::uint8_t) {
    using T = TestType;
    ensure_group();
    const std::int64_t w = world(), r = rank(), n = 3;
    // Rank r gives (r + 1) * (i + 1): over ranks 1..w times (i + 1).
    const auto input = [&] {
        return filled<T>(n, [&](std::int64_t i) { return (r + 1) * (i + 1); });
    };
    std::int64_t factorial = 1;
    for (std::int64_t k = 2; k <= w; ++k)
        factorial *= k;
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t power = 1;
        for (std::int64_t k = 0; k < w; ++k)
            power *= i + 1;
        const std::int64_t sum = (i + 1) * w * (w + 1) / 2;
        auto t = input();
        dist::all_reduce(t);
        CHECK(t(i) == static_cast<T>(sum));
        t = input();
        dist::all_reduce(t, ReduceOp::PRODUCT);
        CHECK(t(i) == static_cast<T>(power * factorial));
        t = input();
        dist::all_reduce(t, ReduceOp::MIN);
        CHECK(t(i) == static_cast<T>(i + 1));
        t = input();
        dist::all_reduce(t, ReduceOp::MAX);
        CHECK(t(i) == static_cast<T>((i + 1) * w));
        t = input();
        dist::all_reduce(t, ReduceOp::AVG); // an integer average truncates, as NCCL's
        CHECK(t(i) == static_cast<T>(static_cast<T>(sum) / static_cast<T>(w)));
    }
}

TEST_CASE("all_reduce on bool: SUM and MAX are or, PRODUCT and MIN and, AVG a TypeError") {
    ensure_group();
    const bool first = rank() == 0, alone = world() == 1;
    const auto input = [&] {
        auto t = empty<bool>(3);
        t(0) = first;
        t(1) = true;
        t(2) = false;
        return t;
    };
    for (auto op : {ReduceOp::SUM, ReduceOp::MAX}) {
        auto t = input();
        dist::all_reduce(t, op);
        CHECK(values(t) == std::vector<bool>{true, true, false});
    }
    for (auto op : {ReduceOp::PRODUCT, ReduceOp::MIN}) {
        auto t = input();
        dist::all_reduce(t, op);
        CHECK(values(t) == std::vector<bool>{alone, true, false});
    }
    CHECK(error_of<TypeError>([&] { dist::all_reduce(input(), ReduceOp::AVG); }) ==
          "Cannot use ReduceOp.AVG with boolean inputs");
}

TEST_CASE("all_reduce of a non-contiguous view writes through it and nothing else") {
    ensure_group();
    const std::int64_t w = world(), r = rank();
    auto base = empty<float>(2, 3);
    const auto reset = [&] {
        for (std::int64_t i = 0; i < 2; ++i)
            for (std::int64_t j = 0; j < 3; ++j)
                base(i, j) = static_cast<float>((r + 1) * (3 * i + j + 1));
    };
    reset();
    auto transposed = base.t();
    REQUIRE_FALSE(transposed.is_contiguous());
    dist::all_reduce(transposed);
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t j = 0; j < 3; ++j)
            CHECK(base(i, j) == static_cast<float>((3 * i + j + 1) * w * (w + 1) / 2));
    reset();
    auto column = base.select(1, 1); // stride 3: the other columns stay
    REQUIRE_FALSE(column.is_contiguous());
    dist::all_reduce(column, ReduceOp::MAX);
    for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t j = 0; j < 3; ++j)
            CHECK(base(i, j) == static_cast<float>((j == 1 ? w : r + 1) * (3 * i + j + 1)));
}

TEST_CASE("broadcast from every src rank, into contiguous and strided tensors") {
    ensure_group();
    const std::int64_t r = rank();
    for (int src = 0; src < world(); ++src) {
        auto t = filled<std::int64_t>(4, [&](std::int64_t i) { return 10 * r + i; });
        dist::broadcast(t, src);
        CHECK(values(t) ==
              std::vector<std::int64_t>{10 * src, 10 * src + 1, 10 * src + 2, 10 * src + 3});
        auto base = filled<double>(6, [&](std::int64_t i) { return 10 * r + i; });
        auto every_other = base.slice(0, 0, 6, 2);
        dist::broadcast(every_other, src);
        CHECK(values(base) == std::vector<double>{10.0 * src, 10.0 * r + 1, 10.0 * src + 2,
                                                  10.0 * r + 3, 10.0 * src + 4, 10.0 * r + 5});
    }
    CHECK(error_of<ValueError>([&] { dist::broadcast(zeros<float>(1), world()); }) ==
          "Invalid src rank " + std::to_string(world()) + ": the ranks are 0 to " +
              std::to_string(world() - 1));
}

TEST_CASE("all_gather into a list and as a returned list, and its list checks") {
    ensure_group();
    const int w = world(), r = rank();
    auto mine = empty<float>(2, 2);
    for (std::int64_t i = 0; i < 4; ++i)
        mine(i / 2, i % 2) = static_cast<float>(10 * r + i);
    std::vector<Tensor<float, dynamic_shape<2>>> outputs;
    for (int k = 0; k < w; ++k)
        outputs.push_back(zeros<float>(2, 2));
    dist::all_gather(outputs, mine.t()); // a strided input: its elements in its order
    auto returned = dist::all_gather(mine);
    REQUIRE(returned.size() == static_cast<std::size_t>(w));
    for (int k = 0; k < w; ++k) {
        const float b = 10.0f * static_cast<float>(k);
        CHECK(values(outputs[static_cast<std::size_t>(k)]) ==
              std::vector<float>{b, b + 2, b + 1, b + 3});
        CHECK(values(returned[static_cast<std::size_t>(k)]) ==
              std::vector<float>{b, b + 1, b + 2, b + 3});
    }
    outputs.pop_back();
    CHECK(error_of<ValueError>([&] { dist::all_gather(outputs, mine); }) ==
          "all_gather: tensor_list holds " + std::to_string(w - 1) + " tensors for a world of " +
              std::to_string(w) + " ranks (one per rank)");
}

TEST_CASE("reduce_scatter: rank k gets the reduction of every rank's input k") {
    ensure_group();
    const std::int64_t w = world(), r = rank();
    std::vector<Tensor<double, dynamic_shape<1>>> inputs;
    for (std::int64_t k = 0; k < w; ++k)
        inputs.push_back(filled<double>(3, [&](std::int64_t i) { return (r + 1) * (k + 1) + i; }));
    auto out = zeros<double>(3);
    dist::reduce_scatter(out, inputs);
    // sum over ranks q of (q + 1) * (r + 1) + i
    const double ranks_sum = static_cast<double>(w * (w + 1) / 2);
    for (std::int64_t i = 0; i < 3; ++i)
        CHECK(out(i) == ranks_sum * static_cast<double>(r + 1) + static_cast<double>(w * i));
    dist::reduce_scatter(out, inputs, ReduceOp::AVG);
    for (std::int64_t i = 0; i < 3; ++i)
        CHECK(out(i) == (ranks_sum * static_cast<double>(r + 1) + static_cast<double>(w * i)) /
                            static_cast<double>(w));
    dist::reduce_scatter(out, inputs, ReduceOp::MAX);
    for (std::int64_t i = 0; i < 3; ++i)
        CHECK(out(i) == static_cast<double>(w * (r + 1) + i));
}

TEST_CASE("gather to and scatter from every root, and PyTorch's list errors") {
    ensure_group();
    const int w = world(), r = rank();
    for (int root = 0; root < w; ++root) {
        std::vector<Tensor<std::int32_t, dynamic_shape<1>>> list;
        if (r == root)
            for (int k = 0; k < w; ++k)
                list.push_back(zeros<std::int32_t>(2));
        dist::gather(filled<std::int32_t>(2, [&](std::int64_t i) { return 10 * r + i; }), list,
                     root);
        for (int k = 0; k < static_cast<int>(list.size()); ++k)
            CHECK(values(list[static_cast<std::size_t>(k)]) ==
                  std::vector<std::int32_t>{10 * k, 10 * k + 1});

        if (r == root)
            for (int k = 0; k < w; ++k)
                list[static_cast<std::size_t>(k)] =
                    filled<std::int32_t>(2, [&](std::int64_t i) { return 100 * k + root + i; });
        auto mine = zeros<std::int32_t>(2);
        dist::scatter(mine, list, root);
        CHECK(values(mine) == std::vector<std::int32_t>{100 * r + root, 100 * r + root + 1});
    }
    // The root without a list: its ValueError there, a RuntimeError naming it elsewhere; no
    // rank waits for the others.
    const auto gather_without_list = [] { dist::gather(zeros<float>(1), {}, 0); };
    if (r == 0)
        CHECK(error_of<ValueError>(gather_without_list) ==
              "Argument ``gather_list`` must be specified on destination rank.");
    else
        CHECK(error_of<RuntimeError>(gather_without_list) ==
              "gather: rank 0 gave invalid arguments (its error says which)");
    // Every rank wrong: each its own ValueError.
    std::vector<Tensor<float, dynamic_shape<1>>> wrong_list;
    if (r != 0)
        wrong_list.push_back(zeros<float>(1));
    CHECK(error_of<ValueError>([&] { dist::scatter(zeros<float>(1), wrong_list, 0); }) ==
          (r == 0 ? "Argument ``scatter_list`` must be specified on source rank."
                  : "Argument ``scatter_list`` must NOT be specified on non-source ranks."));
}

TEST_CASE("send and recv: a ring of isend/irecv, pairs of send/recv, size errors") {
    ensure_group();
    const int w = world(), r = rank();
    CHECK(error_of<ValueError>([&] { dist::send(zeros<float>(1), r); }) ==
          "Invalid dst rank: should not be the same as the rank of the current process.");
    if (w == 1)
        return;
    const int next = (r + 1) % w, previous = (r + w - 1) % w;
    auto received = zeros<float>(3);
    auto receiving = dist::irecv(received, previous, 7);
    auto sending = dist::isend(full<float>(3, static_cast<float>(r)), next, 7);
    sending.wait();
    CHECK(receiving.wait());
    CHECK(receiving.is_completed());
    CHECK(receiving.source_rank() == previous);
    CHECK(values(received) == std::vector<float>(3, static_cast<float>(previous)));

    if (r == 0) {
        auto base = arange<std::int64_t>(8);
        dist::send(base.slice(0, 1, 8, 2), 1); // 1 3 5 7, strided
        dist::send(arange<std::int64_t>(4), 1);
        dist::send(arange<std::int64_t>(4), 1);
    } else if (r == 1) {
        auto into = zeros<std::int64_t>(4);
        CHECK(dist::recv(into) == 0); // from any rank
        CHECK(values(into) == std::vector<std::int64_t>{1, 3, 5, 7});
        CHECK(error_of<RuntimeError>([] { dist::recv(zeros<std::int64_t>(5), 0); }) ==
              "recv: expected 5 elements from rank 0, received 4 (send and recv take tensors of "
              "the same size)");
        CHECK_THAT(error_of<RuntimeError>([] { dist::recv(zeros<std::int64_t>(3), 0); }),
                   Catch::StartsWith("recv: MPI_ERR_TRUNCATE"));
    }
    dist::barrier();
}

TEST_CASE("async forms: Work.wait, is_completed, a dropped Work still completes") {
    ensure_group();
    const std::int64_t w = world(), r = rank();
    auto a = full<float>(2, static_cast<float>(r + 1));
    auto b = full<std::int64_t>(2, r);
    auto reducing = dist::all_reduce(a, ReduceOp::SUM, true);
    auto broadcasting = dist::broadcast(b, 0, true);
    auto waiting = dist::barrier(true);
    CHECK(broadcasting.wait());
    CHECK(reducing.wait());
    CHECK(waiting.wait());
    CHECK(reducing.is_completed());
    CHECK(values(a) == std::vector<float>(2, static_cast<float>(w * (w + 1) / 2)));
    CHECK(values(b) == std::vector<std::int64_t>(2, 0));
    auto c = full<double>(1, 1.0);
    { auto dropped = dist::all_reduce(c, ReduceOp::SUM, true); }
    CHECK(c(0) == static_cast<double>(w));
    CHECK(dist::all_reduce(c).is_completed()); // the synchronous form's Work: complete
}

TEST_CASE("all_reduce of a dict of gradients: one collective per element type, None skipped") {
    ensure_group();
    const std::int64_t w = world(), r = rank();
    auto weight = empty<float>(2, 2);
    for (std::int64_t i = 0; i < 4; ++i)
        weight(i / 2, i % 2) = static_cast<float>((r + 1) * i);
    auto grads = dict("fc.weight"_s = weight.t(), "fc.bias"_s = full<float>(3, 1.0f),
                      "steps"_s = full<std::int64_t>(1, r + 1), "frozen"_s = None,
                      "head"_s = list(full<double>(2, static_cast<double>(r))));
    dist::all_reduce(grads);
    const auto ranks_sum = static_cast<float>(w * (w + 1) / 2);
    CHECK(values(weight) == std::vector<float>{0, ranks_sum, 2 * ranks_sum, 3 * ranks_sum});
    CHECK(values(grads["fc.bias"_s]) == std::vector<float>(3, static_cast<float>(w)));
    CHECK(values(grads["steps"_s]) == std::vector<std::int64_t>{w * (w + 1) / 2});
    CHECK(values(grads["head"_s][0_c]) ==
          std::vector<double>(2, static_cast<double>(w * (w - 1) / 2)));
    dist::all_reduce(grads, ReduceOp::AVG); // equal on every rank now: the average is the value
    CHECK(values(grads["fc.bias"_s]) == std::vector<float>(3, static_cast<float>(w)));
    CHECK(values(grads["steps"_s]) == std::vector<std::int64_t>{(w * (w + 1) / 2 * w) / w});
}

TEST_CASE("mismatched calls: every rank throws, naming the collective and both values") {
    ensure_group();
    const int w = world(), r = rank();
    if (w == 1)
        return;
    CHECK(error_of<RuntimeError>([&] { dist::all_reduce(zeros<float>(r + 1)); }) ==
          "all_reduce: the tensors' sizes differ across ranks: numel 1 on some ranks, " +
              std::to_string(w) + " on others (every rank gives a tensor of the same size)");
    CHECK(error_of<RuntimeError>([&] {
              if (r == 0)
                  dist::all_reduce(zeros<float>(2));
              else
                  dist::all_reduce(zeros<double>(2));
          }) == "all_reduce: the tensors' dtypes differ across ranks: float32 on some ranks, "
                "float64 on others");
    const auto different_calls = error_of<RuntimeError>([&] {
        if (r == 0)
            dist::broadcast(zeros<float>(2), 0);
        else
            dist::all_reduce(zeros<float>(2));
    });
    CHECK(different_calls.ends_with(": the ranks called different collectives: all_reduce on "
                                    "some ranks, broadcast on others"));
    CHECK(error_of<RuntimeError>([&] {
              dist::all_reduce(zeros<float>(2), r == 0 ? ReduceOp::SUM : ReduceOp::MAX);
          }) == "all_reduce: the ops differ across ranks: SUM on some ranks, MAX on others");
    auto t = full<float>(2, 1.0f); // the group is still usable
    dist::all_reduce(t);
    CHECK(t(0) == static_cast<float>(w));
}

TEST_CASE("DistributedSampler takes its replicas and rank from the process group") {
    ensure_group();
    const std::int64_t n = 12; // a multiple of 1, 2 and 3 ranks: no padding
    data::DistributedSampler sampler(n);
    CHECK(sampler.num_replicas == world());
    CHECK(sampler.rank == rank());
    for (std::int64_t epoch = 0; epoch < 2; ++epoch) {
        sampler.set_epoch(epoch);
        auto seen = zeros<std::int64_t>(n);
        for (auto index : sampler)
            seen(index) += 1;
        dist::all_reduce(seen);
        CHECK(values(seen) == std::vector<std::int64_t>(static_cast<std::size_t>(n), 1));
    }
}

// Runs alone, under mpirun -np 2 (tests/distributed/CMakeLists.txt): rank 1 skips an all_reduce,
// rank 0 throws after the 2 s timeout and the group is unusable; at exit rank 0 ends the job with
// MPI_Abort (what CTest sees is rank 0's line below, not the exit status).
TEST_CASE("a rank that skips a collective: the others throw after the timeout", "[.timeout]") {
    if (!dist::is_initialized())
        dist::init_process_group("mpi", std::chrono::seconds(2));
    REQUIRE(world() == 2);
    if (rank() == 1)
        return;
    const auto start = std::chrono::steady_clock::now();
    const auto text = error_of<RuntimeError>([] { dist::all_reduce(zeros<float>(4)); });
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE(text == "all_reduce timed out after 2 s on rank 0 of 2 (a rank did not make the "
                    "matching call)");
    REQUIRE(waited >= std::chrono::seconds(2));
    REQUIRE(waited < std::chrono::seconds(4));
    REQUIRE(error_of<RuntimeError>([] { dist::barrier(); }) ==
            "barrier: the process group is unusable since all_reduce timed out after 2 s on rank "
            "0 of 2 (a pending collective cannot be cancelled; destroy_process_group() ends the "
            "job)");
    std::cout << "rank 0 of 2: all_reduce timed out as expected" << std::endl;
}

// Last in the file: after it MPI is finalized for good.
TEST_CASE("destroy_process_group finalizes MPI: later calls throw") {
    ensure_group();
    dist::barrier();
    dist::destroy_process_group();
    CHECK_FALSE(dist::is_initialized());
    CHECK(error_of<RuntimeError>([] { (void)dist::get_rank(); }) == not_initialized);
    CHECK(error_of<RuntimeError>([] { dist::init_process_group("mpi"); }) ==
          "init_process_group: MPI was finalized (by destroy_process_group) and cannot be "
          "initialized again in this process");
}
