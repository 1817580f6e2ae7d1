// staticpy::distributed's data-parallel training (distributed/data_parallel.hpp): N ranks with
// B / N samples each step as one process with B does, every rank's parameters the same; rank 0's
// state broadcast at the start and its buffers before each forward pass; the gradients averaged
// in buckets; metrics reduced. CTest runs this file as the collectives' (CMakeLists.txt): each
// case alone as one rank, and the whole file under mpirun -np 2 and -np 3.

#include <chrono>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "../test_errors.hpp"
#include "staticpy/distributed.hpp"
#include "staticpy/nn.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace dist = staticpy::distributed;
namespace F = staticpy::nn::functional;
using dist::ReduceOp;

namespace {

void ensure_group() {
    if (!dist::is_initialized())
        dist::init_process_group("mpi", std::chrono::seconds(20));
}

template <class T, class S>
std::vector<double> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

/// Whether t holds the same elements on every rank (its elementwise max over the ranks equals
/// its min).
template <class T, class S>
bool same_on_every_rank(const Tensor<T, S>& t) {
    auto high = t.clone(), low = t.clone();
    dist::all_reduce(high, ReduceOp::MAX);
    dist::all_reduce(low, ReduceOp::MIN);
    return values(high) == values(low);
}

auto classifier(std::uint64_t seed) {
    Generator init(seed);
    return nn::Sequential(nn::Linear<4, 8>(init), nn::ReLU{}, nn::Linear<8, 3>(init));
}

/// The loss of model m with these parameters on a batch.
template <class M>
auto loss_of(const M& m) {
    return [&m](const auto& params, const auto& in, const auto& labels) {
        return F::cross_entropy(nn::functional_call(m, params, in), labels);
    };
}

} // namespace

TEST_CASE("N ranks with B / N samples each step as one process with batch B") {
    ensure_group();
    const std::int64_t w = dist::get_world_size(), r = dist::get_rank();
    constexpr std::int64_t batch = 12; // a multiple of 1, 2, 3 and 4 ranks
    Generator data(5);
    const auto x = randn(batch, 4_c, data);
    const auto y = randint(0, 3, batch, data);

    // Each rank starts from weights of its own: DistributedDataParallel makes them rank 0's.
    auto model = classifier(100 + static_cast<std::uint64_t>(r));
    auto reference = classifier(100); // rank 0's, trained by one process on the whole batch
    dist::DistributedDataParallel ddp(model);
    CHECK(values(model[0_c].weight) == values(reference[0_c].weight));

    nn::optim::SGD opt(model.parameters(), {.lr = 0.1, .momentum = 0.9});
    nn::optim::SGD reference_opt(reference.parameters(), {.lr = 0.1, .momentum = 0.9});
    dist::TrainOneStep step(ddp, loss_of(model), opt);
    nn::TrainOneStep reference_step(loss_of(reference), reference_opt);
    const std::int64_t share = batch / w;
    for (int k = 0; k < 4; ++k) {
        const float local =
            step(x.narrow(0, r * share, share), y.narrow(0, r * share, share)).item();
        const float whole = reference_step(x, y).item();
        // The ranks' mean loss is the whole batch's (equal shares).
        CHECK(dist::all_reduce_value(static_cast<double>(local), ReduceOp::AVG) ==
              Approx(whole).epsilon(1e-5));
    }
    const auto trained = values(model[2_c].weight), wanted = values(reference[2_c].weight);
    REQUIRE(trained.size() == wanted.size());
    for (std::size_t i = 0; i < trained.size(); ++i)
        CHECK(trained[i] == Approx(wanted[i]).epsilon(1e-5).margin(1e-6));
    CHECK(same_on_every_rank(model[0_c].weight));
    CHECK(same_on_every_rank(model[0_c].bias));
    CHECK(same_on_every_rank(model[2_c].weight));
    CHECK(same_on_every_rank(model[2_c].bias));
}

TEST_CASE("rank 0's buffers are broadcast at the start and before each forward pass") {
    ensure_group();
    const auto r = static_cast<float>(dist::get_rank());
    Generator init(7);
    auto model = nn::Sequential(nn::Linear<3, 2>(init), nn::BatchNorm1d<2>{});
    model[1_c].running_mean.fill_(r); // each rank's buffers differ
    model[1_c].running_var.fill_(1 + r);
    dist::DistributedDataParallel ddp(model);
    CHECK(values(model[1_c].running_mean) == std::vector<double>{0, 0});
    CHECK(values(model[1_c].running_var) == std::vector<double>{1, 1});

    // A forward pass in training updates each rank's statistics from its own batch; the next
    // forward pass starts from rank 0's.
    Generator data(11 + static_cast<std::uint64_t>(dist::get_rank()));
    (void)ddp(randn(4, 3_c, data));
    const auto after_rank_0 = [&] {
        auto m = model[1_c].running_mean.clone();
        dist::broadcast(m, 0);
        return values(m);
    }();
    ddp.sync_buffers();
    CHECK(values(model[1_c].running_mean) == after_rank_0);
    CHECK(same_on_every_rank(model[1_c].running_var));
    CHECK(same_on_every_rank(model[1_c].num_batches_tracked));

    dist::DistributedDataParallel fixed(model, {.broadcast_buffers = false});
    model[1_c].running_mean.fill_(r);
    fixed.sync_buffers(); // nothing moves
    CHECK(values(model[1_c].running_mean) == std::vector<double>{r, r});
}

TEST_CASE("gradients averaged in buckets of bucket_cap_mb, each element type its own") {
    ensure_group();
    const std::int64_t w = dist::get_world_size(), r = dist::get_rank();
    auto grads =
        dict("a"_s = full<float>(1000, float(r + 1)), "b"_s = full<float>(10, float(r)),
             "c"_s = full<float>(3000, 2.0f * float(r)), "steps"_s = full<std::int64_t>(5, 4 * r));
    Generator init(3);
    auto model = nn::Linear<2, 2>(init);
    // 4 KiB buckets: "a" alone (4000 bytes), then "b" (40), then "c" (12000, a bucket of its
    // own though larger); the int64 tensor in one of its own type.
    dist::DistributedDataParallel ddp(model, {.bucket_cap_mb = 4.0 / 1024});
    CHECK(ddp.bucket_bytes() == 4096);
    ddp.reduce_gradients(grads);
    const double mean_rank = static_cast<double>(w - 1) / 2;
    CHECK(values(grads["a"_s]) == std::vector<double>(1000, mean_rank + 1));
    CHECK(values(grads["b"_s]) == std::vector<double>(10, mean_rank));
    CHECK(values(grads["c"_s]) == std::vector<double>(3000, 2 * mean_rank));
    // int64's average truncates toward zero.
    CHECK(values(grads["steps"_s]) == std::vector<double>(5, (4 * w * (w - 1) / 2) / w));

    CHECK(test_errors::error_of<ValueError>([&] {
              dist::DistributedDataParallel bad(model, {.bucket_cap_mb = 0});
          }) == "bucket_cap_mb must be a positive number of MiB, got 0.0");
}

TEST_CASE("metrics reduced across the ranks for reporting") {
    ensure_group();
    const std::int64_t w = dist::get_world_size(), r = dist::get_rank();
    CHECK(dist::all_reduce_value(r + 1) == w * (w + 1) / 2);
    CHECK(dist::all_reduce_value(static_cast<double>(r), ReduceOp::AVG) ==
          Approx(static_cast<double>(w - 1) / 2));
    CHECK(dist::all_reduce_value(static_cast<float>(r), ReduceOp::MAX) == float(w - 1));
}
