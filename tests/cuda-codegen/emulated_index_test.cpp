// The index-driven ops on the emulated device (emulated_device.hpp): index_select, gather,
// scatter_add, index_add, one_hot, cat and stack, and embedding, eager and in jit graphs with their
// derivatives, each against the CPU backend's (backend/cuda/indexing.hpp's kernels); the
// derivatives of select and slice.
#include <cstdint>
#include <string>
#include <tuple>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "emulated_device.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using emulated_device::fake_driver_selected;
using emulated_device::require_close;

namespace {
const std::string two_devices = "Expected all tensors to be on the same device, but found at "
                                "least two devices, cuda:0 and cpu!";
} // namespace

TEST_CASE("emulated device: index_select and gather read there what they read on the CPU") {
    REQUIRE(fake_driver_selected);
    Generator g(41);
    const auto x = randn(4, 5, 6, g);
    const auto dx = x.cuda();
    const auto rows = tensor<std::int64_t>({3, 0, 3, 1, 2});
    const auto rows32 = tensor<std::int32_t>({5, 0, 2});
    CHECK(index_select(dx, 0_c, rows.cuda()).is_cuda());
    require_close(index_select(dx, 0_c, rows.cuda()), index_select(x, 0_c, rows), 0.0);
    require_close(index_select(dx, 1, rows.cuda()), index_select(x, 1, rows), 0.0);
    require_close(index_select(dx, 2_c, rows32.cuda()), index_select(x, 2_c, rows32), 0.0);
    // A strided input and a strided index.
    const auto picked = rows.slice(0, 0, 5, 2);
    require_close(index_select(dx.transpose(0, 2), 1_c, picked.cuda()),
                  index_select(x.transpose(0, 2), 1_c, picked), 0.0);
    CHECK(test_errors::error_of<IndexError>([&] {
              (void)index_select(dx, 0_c, tensor<std::int64_t>({1, 4}).cuda());
          }) == "index out of range in self");
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)index_select(dx, 0_c, rows); }) ==
          two_devices);

    const auto at = randint(0, 6, 4, 5, 3, g);
    require_close(gather(dx, 2_c, at.cuda()), gather(x, 2_c, at), 0.0);
    const auto down = randint(0, 4, 2, 5, 6, g);
    require_close(gather(dx, 0, down.cuda()), gather(x, 0, down), 0.0);
    auto bad = at.clone();
    bad.select(0, 2).select(0, 1).fill_(9);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)gather(dx, 2_c, bad.cuda()); }) ==
          "index 9 is out of bounds for dimension 2 with size 6");
}

TEST_CASE("emulated device: scatter_add and index_add add there what they add on the CPU") {
    REQUIRE(fake_driver_selected);
    Generator g(43);
    // Repeated indices: several threads add into one element.
    const auto at = randint(0, 3, 6, 4, g);
    const auto src = randn(6, 4, g);
    const auto base = randn(3, 4, g);
    CHECK(scatter_add(base.cuda(), 0_c, at.cuda(), src.cuda()).is_cuda());
    require_close(scatter_add(base.cuda(), 0_c, at.cuda(), src.cuda()),
                  scatter_add(base, 0_c, at, src), 1e-5);
    const auto ints = randint(-50, 50, 6, 4, g);
    const auto int_base = randint(-50, 50, 3, 4, g);
    require_close(scatter_add(int_base.cuda(), 0_c, at.cuda(), ints.cuda()),
                  scatter_add(int_base, 0_c, at, ints), 0.0);
    // uint8 wraps, bool ors: added in order by one thread.
    const auto bytes = (ints + 100).to<std::uint8_t>();
    const auto byte_base = (int_base + 200).to<std::uint8_t>();
    require_close(scatter_add(byte_base.cuda(), 0_c, at.cuda(), bytes.cuda()),
                  scatter_add(byte_base, 0_c, at, bytes), 0.0);
    const auto flags = ints > 0;
    require_close(scatter_add(zeros<bool>(3, 4).cuda(), 0_c, at.cuda(), flags.cuda()),
                  scatter_add(zeros<bool>(3, 4), 0_c, at, flags), 0.0);
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)scatter_add(base.cuda(), 0_c, (at + 1).cuda(), src.cuda());
          }) == "index 3 is out of bounds for dimension 0 with size 3");

    const auto where_to = tensor<std::int64_t>({2, 0, 2, 2, 1, 0});
    require_close(index_add(base.cuda(), 0_c, where_to.cuda(), src.cuda(), 2.5),
                  index_add(base, 0_c, where_to, src, 2.5), 1e-5);
    require_close(
        index_add(int_base.cuda().t(), 1, where_to.to<std::int32_t>().cuda(), ints.cuda().t(), 3),
        index_add(int_base.t(), 1, where_to.to<std::int32_t>(), ints.t(), 3), 0.0);
    // A source of size 1 along another dim broadcasts, as PyTorch's.
    require_close(index_add(base.cuda(), 0_c, where_to.cuda(), src.narrow(1, 0, 1).cuda()),
                  index_add(base, 0_c, where_to, src.narrow(1, 0, 1)), 1e-5);
    CHECK(test_errors::error_of<IndexError>([&] {
              (void)index_add(base.cuda(), 0_c, (where_to - 1).cuda(), src.cuda());
          }) == "index out of range in self");
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)index_add(base.cuda(), 0_c, where_to, src.cuda());
          }) == "Expected all tensors to be on the same device, but found at least two devices, "
                "cuda:0 and cpu!");
}

TEST_CASE("emulated device: one_hot, cat and stack there, as on the CPU") {
    REQUIRE(fake_driver_selected);
    const auto labels = tensor<std::int64_t>({{2, 0, 4}, {1, 1, 3}});
    const auto hot = one_hot(labels.cuda(), 6_c);
    CHECK(hot.is_cuda());
    require_close(hot, one_hot(labels, 6_c), 0.0);
    require_close(one_hot(labels.cuda().t()), one_hot(labels.t()), 0.0);
    CHECK(one_hot(zeros<std::int64_t>(0).cuda(), 3).is_cuda());
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)one_hot(labels.cuda(), 4); }) ==
          "Class values must be smaller than num_classes.");
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)one_hot((labels - 1).cuda()); }) ==
          "Class values must be non-negative.");

    Generator g(47);
    const auto a = randn(2, 3, g), b = randn(2, 5, g);
    const auto joined = cat(std::tuple{a.cuda(), b.cuda(), a.cuda().t().t()}, 1_c);
    CHECK(joined.is_cuda());
    require_close(joined, cat(std::tuple{a, b, a}, 1_c), 0.0);
    require_close(stack(std::tuple{a.cuda(), a.cuda() * 2.0f}, 1),
                  stack(std::tuple{a, a * 2.0f}, 1), 0.0);
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)cat(std::tuple{a.cuda(), b}, 1_c);
          }) == two_devices);
}

TEST_CASE("emulated device: embedding and the index ops' derivatives in a jit graph there") {
    REQUIRE(fake_driver_selected);
    namespace F = nn::functional;
    Generator g(53);
    const auto weight = randn(7, 4, g);
    // Repeated rows, and the padding row, whose gradient stays zero.
    const auto words = tensor<std::int64_t>({{1, 3, 1, 0}, {6, 3, 3, 2}});
    const auto u = randn(2, 4, 4, g);
    auto step = jit(value_and_grad([](const auto& w, const auto& i, const auto& v) {
        return (F::embedding(i, w, 3) * v).sum();
    }));
    const auto [loss, grad] = step(weight, words, u);
    const auto [device_loss, device_grad] = step(weight.cuda(), words.cuda(), u.cuda());
    CHECK(device_grad.is_cuda());
    require_close(device_loss, loss, 1e-5);
    require_close(device_grad, grad, 1e-5);
    require_close(F::embedding(words.cuda(), weight.cuda()), F::embedding(words, weight), 0.0);

    // index_select, gather and cat, and their derivatives (index_add and scatter_add from zeros,
    // the cat's parts), in one graph.
    const auto x = randn(5, 6, g);
    const auto rows = tensor<std::int64_t>({4, 1, 4});
    const auto cols = randint(0, 6, 3, 2, g);
    auto picked = jit(value_and_grad([](const auto& in, const auto& r, const auto& c) {
        const auto selected = index_select(in, 0_c, r);
        const auto both = cat(std::tuple{gather(selected, 1_c, c), selected}, 1_c);
        return (both * both).sum();
    }));
    const auto [pick_loss, pick_grad] = picked(x, rows, cols);
    const auto [device_pick_loss, device_pick_grad] = picked(x.cuda(), rows.cuda(), cols.cuda());
    require_close(device_pick_loss, pick_loss, 1e-5);
    require_close(device_pick_grad, pick_grad, 1e-5);
}

TEST_CASE("emulated device: select's and slice's derivatives run there") {
    REQUIRE(fake_driver_selected);
    Generator g(59);
    const auto x = randn(4, 5, g);
    auto views = jit(value_and_grad([](const auto& in) {
        return (in[1] * 2.0f).sum() + (in.narrow(1, 1, 3) * in.narrow(1, 1, 3)).sum();
    }));
    const auto [loss, grad] = views(x);
    const auto [device_loss, device_grad] = views(x.cuda());
    CHECK(device_grad.is_cuda());
    require_close(device_loss, loss, 1e-5);
    require_close(device_grad, grad, 1e-5);
}
