// The CUDA backend's host side on the stand-in driver (fake_libcuda.cpp, loaded through
// STATICPY_CUDA_DRIVER_LIBRARY, set before any test runs): the paths a machine with a GPU takes
// (the driver found and initialised, a device, its name and capability, the primary context,
// device memory through the caching allocator, copies) and the errors on them (an invalid device
// ordinal, out of memory, a driver error named in the driver's own words), tensors on the device
// (to("cuda") and back, views, copies, printing, the errors of host code and of mixed devices),
// and graphs and eager ops run there: with the stand-in NVRTC (fake_nvrtc.cpp), each generated
// kernel is compiled for the host and launched by the stand-in driver over its grid, and matmuls
// run on the stand-in cuBLAS (fake_cublas.cpp); the results are compared with the CPU backend's.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "emulated_device.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using emulated_device::fake_driver_selected;
using emulated_device::host_values;
using emulated_device::require_close;
using emulated_device::same;

TEST_CASE("fake driver: found, initialised, one device with its name and capability") {
    REQUIRE(fake_driver_selected);
    REQUIRE(cuda::is_available());
    CHECK(cuda::device_count() == 1);
    CHECK(cuda::unavailable_reason().empty());
    CHECK(cuda::detail::process_driver().version == 13000);
    CHECK(cuda::get_device_name() == "staticpy fake GPU");
    CHECK(cuda::get_device_capability(0) == std::pair{9, 0});
    CHECK(test_errors::error_of<RuntimeError>([] { (void)cuda::get_device_name(1); }) ==
          "staticpy: CUDA error: invalid device ordinal 1 (1 device)");
    CHECK(test_errors::error_of<RuntimeError>([] { (void)cuda::get_device_capability(-1); }) ==
          "staticpy: CUDA error: invalid device ordinal -1 (1 device)");
}

TEST_CASE("fake driver: device memory through the caching allocator, copies both ways") {
    auto& alloc = cuda::detail::process_allocator();
    const auto& api = cuda::detail::driver();
    const std::vector<float> host{1.5f, -2.0f, 3.25f};
    const auto p = alloc.allocate(host.size() * sizeof(float));
    CHECK(cuda::memory_allocated() == 512);
    cuda::detail::check(api.cuMemcpyHtoD_v2(p, host.data(), 12), "cuMemcpyHtoD");
    const auto q = alloc.allocate(12);
    cuda::detail::check(api.cuMemcpyDtoD_v2(q, p, 12), "cuMemcpyDtoD");
    std::vector<float> back(3);
    cuda::detail::check(api.cuMemcpyDtoH_v2(back.data(), q, 12), "cuMemcpyDtoH");
    CHECK(back == host);
    alloc.release(p);
    alloc.release(q);
    CHECK(cuda::memory_allocated() == 0);
    CHECK(cuda::max_memory_allocated() == 1024);
    CHECK(cuda::memory_reserved() == 1024);
    const auto r = alloc.allocate(100); // one of the two cached blocks of its class
    CHECK((r == p || r == q));
    CHECK(cuda::memory_reserved() == 1024);
    cuda::empty_cache(); // the other one goes back to the driver
    CHECK(cuda::memory_reserved() == 512);
    alloc.release(r);
    cuda::empty_cache();
    CHECK(cuda::memory_reserved() == 0);
}

TEST_CASE("fake driver: more than the device holds is CUDA out of memory") {
    // The stand-in device has 64 MiB.
    CHECK_THAT(test_errors::error_of<MemoryError>([] {
                   (void)cuda::detail::process_allocator().allocate(std::size_t{100} << 20);
               }),
               Catch::StartsWith("staticpy: CUDA out of memory. Tried to allocate 100.00 MiB"));
}

TEST_CASE("fake driver: a failing call is named in the driver's own words") {
    cuda::detail::CUmodule m = nullptr;
    CHECK(test_errors::error_of<RuntimeError>([&] {
              cuda::detail::check(cuda::detail::driver().cuModuleLoadData(&m, "not an image"),
                                  "cuModuleLoadData");
          }) == "staticpy: CUDA error: cuModuleLoadData failed: FAKE_CUDA_ERROR (an error of the "
                "fake driver)");
}

TEST_CASE("fake driver: streams, events and synchronize") {
    cuda::Stream s;
    cuda::Event start, end;
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)start.elapsed_time(end); }) ==
          "staticpy: CUDA error: elapsed_time needs both events recorded");
    start.record(s);
    end.record(s);
    end.synchronize();
    s.synchronize();
    CHECK(start.elapsed_time(end) >= 0.0f);
    cuda::synchronize();
    const cuda::Stream legacy = cuda::Stream::default_stream();
    CHECK(legacy.handle() == nullptr);
    start.record(legacy);
    legacy.synchronize();
    cuda::Stream moved = std::move(s);
    moved.synchronize();
    CHECK(test_errors::error_of<RuntimeError>([] { cuda::Stream bad(2); }) ==
          "staticpy: CUDA error: invalid device ordinal 2 (1 device)");
}

TEST_CASE("fake driver: a module the driver refuses is an error naming the call") {
    CHECK_THAT(test_errors::error_of<RuntimeError>([] { cuda::detail::module m("not PTX"); }),
               Catch::StartsWith("staticpy: CUDA error: cuModuleLoadData failed: "));
}

TEST_CASE("fake driver: tensors to the device and back, with their views") {
    cuda::empty_cache();
    const std::size_t before = cuda::memory_allocated();
    {
        const auto x = arange<float>(6).reshape(2_c, 3_c);
        const auto d = x.to("cuda");
        CHECK(d.device() == Device("cuda:0"));
        CHECK(d.is_cuda());
        CHECK_FALSE(d.is_cpu());
        CHECK(d.data_ptr() != x.data_ptr());
        CHECK(cuda::memory_allocated() == before + 512);
        CHECK(d.to("cuda:0").data_ptr() == d.data_ptr()); // already there: no copy
        CHECK(d.cuda().data_ptr() == d.data_ptr());
        CHECK(repr(d) == "tensor([[0., 1., 2.],\n        [3., 4., 5.]], device='cuda:0')");
        CHECK(repr(arange<int>(3).cuda()) ==
              "tensor([0, 1, 2], device='cuda:0', dtype=torch.int32)");
        CHECK(repr(zeros<float>(0).cuda()) == "tensor([], device='cuda:0')");
        CHECK(d.cpu().is_cpu());
        CHECK(same(d.cpu(), x));
        // Views stay on the device; a strided one comes back through the host.
        const auto dt = d.t();
        CHECK(dt.is_cuda());
        CHECK(same(dt.cpu(), x.t()));
        CHECK(same(d[1].cpu(), x[1]));
        CHECK(same(d.slice(1_c, 0, 3, 2).cpu(), x.slice(1_c, 0, 3, 2)));
        const auto packed = dt.contiguous();
        CHECK(packed.is_cuda());
        CHECK(packed.is_contiguous());
        CHECK(same(packed.cpu(), x.t().contiguous()));
        CHECK(same(d.clone().cpu(), x));
        CHECK(d[1].select(0, 2).item() == 5.0f);
        CHECK(same(x.t().cuda().cpu(), x.t())); // a strided host view goes up contiguous
        CHECK(x.t().cuda().is_contiguous());
        // A tensor created on the device.
        const Tensor<double, dynamic_shape<1>> e(dynamic_shape<1>(5), Device(kCUDA));
        CHECK(e.is_cuda());
        CHECK(e.numel() == 5);
    }
    CHECK(cuda::memory_allocated() == before); // every block back in the cache
}

TEST_CASE("fake driver: copy_ across devices, into strided views and other dtypes") {
    auto d = zeros<float>(3_c, 4_c).cuda();
    d.copy_(ones<float>(3_c, 4_c));
    CHECK(same(d.cpu(), ones<float>(3_c, 4_c)));
    auto col = d.select(1_c, 2); // a strided view on the device
    col.copy_(tensor<double>({7.5, 8.5, 9.5}));
    auto expected = ones<float>(3_c, 4_c);
    expected.select(1_c, 2).copy_(tensor<float>({7.5f, 8.5f, 9.5f}));
    CHECK(same(d.cpu(), expected));
    auto host = zeros<int>(4_c, 3_c);
    host.copy_(d.t()); // device to host, transposed, converted
    CHECK(same(host, expected.t().to<int>()));
    auto other = zeros<float>(3_c, 4_c).cuda();
    other.copy_(d); // device to device
    CHECK(same(other.cpu(), expected));
}

TEST_CASE("fake driver: host code refuses device memory, mixed devices are PyTorch's error") {
    auto d = ones<float>(2_c, 2_c).cuda();
    const auto h = ones<float>(2_c, 2_c);
    const std::string on_device = "staticpy: this op runs on the CPU, but a tensor is on cuda:0 "
                                  "(no CUDA kernel for it yet: copy it with .cpu() first)";
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)d.data(); }) == on_device);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)d(0, 1); }) == on_device);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)var(d); }) == on_device);
    const std::string mixed = "Expected all tensors to be on the same device, but found at "
                              "least two devices, cuda:0 and cpu!";
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)(h + d); }) == mixed);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)(d + h); }) == mixed);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)where(h > 0, d, h); }) == mixed);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)matmul(h, d); }) == mixed);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)h.to("cuda:1"); }) ==
          "staticpy: CUDA error: invalid device ordinal 1 (1 device)");
    CHECK(test_errors::error_of<RuntimeError>([&] {
              (void)Tensor<float, dynamic_shape<1>>(dynamic_shape<1>(3), Device("cuda:3"));
          }) == "staticpy: CUDA error: invalid device ordinal 3 (1 device)");
}

TEST_CASE("emulated device: a jit graph's fused kernels, contiguous, packed, broadcast, strided") {
    Generator g(3);
    const auto x = randn(3, 5, g), z = randn(3, 5, g);
    const auto y = randn(5, g);
    const auto dx = x.cuda(), dz = z.cuda();
    const auto dy = y.cuda();
    auto f = jit([](auto a, auto b) { return sigmoid(a * b + 1.5f) - exp(b); });
    const auto broadcast = f(dx, dy); // strided: b broadcasts over rows
    CHECK(broadcast.is_cuda());
    require_close(broadcast, f(x, y));
    require_close(f(dx, dz), f(x, z));                         // contiguous, 15 floats: 3 packs + 3
    require_close(f(dx.t(), dz.t()), f(x.t(), z.t()));         // transposed operands
    require_close(f(dx.slice(1_c, 1, 5), dz.slice(1_c, 0, 4)), // unaligned: no packs
                  f(x.slice(1_c, 1, 5), z.slice(1_c, 0, 4)));
    // Several outputs, a run-time float, an int tensor converted.
    auto h = jit([](auto a, auto n, auto s) {
        return std::tuple{a * s, a + n, (a > 0) == (n > 1)};
    });
    const auto n = arange<int>(15).reshape(3_c, 5_c);
    const auto [p, q, r] = h(dx, n.cuda(), 0.5f);
    const auto [hp, hq, hr] = h(x, n, 0.5f);
    require_close(p, hp);
    require_close(q, hq);
    CHECK(host_values(r) == host_values(hr));
    CHECK(r.is_cuda());
}

TEST_CASE("emulated device: reductions in both forms, split over blocks, finished on the device") {
    Generator g(5);
    const auto x = randn(3, 50, g);
    const auto wide = randn(4, 1000, g);
    const auto big = randn(3000, g);
    auto sum_sq = jit([](auto a) { return sum(a * a + 0.25f, 1); });
    require_close(sum_sq(x.cuda()), sum_sq(x));       // a thread per output, contiguous
    require_close(sum_sq(wide.cuda()), sum_sq(wide)); // a block per output
    auto total = jit([](auto a) { return a.sum(); });
    require_close(total(big.cuda()), total(big)); // split over blocks, then the partials folded
    auto mean0 = jit([](auto a) { return mean(a, 0, True); });
    require_close(mean0(x.cuda()), mean0(x)); // the first dim: strided, keepdim, mean's division
    require_close(mean0(wide.t().cuda()), mean0(wide.t()));
    auto mx = jit([](auto a) { return amax(exp(a), 1); });
    auto with_nan = x.clone();
    with_nan(1, 7) = std::numeric_limits<float>::quiet_NaN();
    require_close(mx(with_nan.cuda()), mx(with_nan));
    CHECK(std::isnan(host_values(mx(with_nan.cuda()))[1]));
    auto isum = jit([](auto a) { return sum(a, 0); });
    const auto ints = arange<int>(12).reshape(3_c, 4_c);
    const auto s = isum(ints.cuda());
    STATIC_REQUIRE(std::is_same_v<decltype(s)::value_type, std::int64_t>);
    CHECK(host_values(s) == host_values(isum(ints)));
    auto empty_mean = jit([](auto a) { return a.mean(); });
    CHECK(std::isnan(host_values(empty_mean(zeros<float>(0).cuda()))[0]));
}

TEST_CASE("emulated device: softmax and log_softmax rows in a graph, over any dim") {
    Generator g(11);
    auto x = randn(4, 70, g);
    x(2, 5) = std::numeric_limits<float>::quiet_NaN(); // row 2 is all NaN
    const auto dx = x.cuda();
    auto last = jit([](auto a) { return softmax(a * 2.0f, -1); }); // a fused operand, kept
    require_close(last(dx), last(x));
    CHECK(std::isnan(host_values(last(dx))[2 * 70 + 9]));
    auto first = jit([](auto a) { return log_softmax(a, 0) + 1.0f; }); // an input's, then fused
    require_close(first(dx), first(x));
    const auto xd = randn(3, 4, 5, g).to<double>();
    auto middle = jit([](auto a) { return std::tuple{softmax(a, 1), log_softmax(a, 0)}; });
    const auto [p, q] = middle(xd.cuda());
    const auto [hp, hq] = middle(xd);
    require_close(p, hp, 1e-12);
    require_close(q, hq, 1e-12);
}

TEST_CASE("emulated device: eager ops on device tensors run as one-node programs, compiled once") {
    Generator g(9);
    const auto x = randn(4, 6, g);
    const auto b = randn(6, g);
    const auto dx = x.cuda();
    const auto db = b.cuda();
    const auto y = relu(dx * 2.0f + db);
    CHECK(y.is_cuda());
    require_close(y, relu(x * 2.0f + b));
    const std::size_t compiles = cuda::detail::kernel_registry::process().compiles();
    const auto again = relu(dx * 2.0f + db); // the same kernels, from the in-memory cache
    CHECK(cuda::detail::kernel_registry::process().compiles() == compiles);
    require_close(again, y);
    require_close(where(dx > 0, dx, db), where(x > 0, x, b));
}

TEST_CASE("emulated device: what does not run there yet says so, mixed devices are refused") {
    const auto a = ones<float>(2_c, 3_c);
    const auto w = ones<float>(3_c, 2_c);
    auto variance = jit([](auto p) { return var(p, 1) + 1.0f; });
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)variance(a.cuda()); }) ==
          "staticpy: var has no CUDA kernel yet: a graph with one runs on the CPU only (copy "
          "its tensors with .cpu())");
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)matmul(a.cuda(), w); }) ==
          "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
          "and cpu!");
    auto add = jit([](auto p, auto q) { return p + q; });
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)add(a.cuda(), a); }) ==
          "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
          "and cpu!");
    const auto captured = ones<float>(2_c, 3_c);
    auto with_capture = jit([&](auto p) { return p + captured; });
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)with_capture(a.cuda()); }) ==
          "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
          "and cpu!");
}
