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
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
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

TEST_CASE("fake driver: arange, linspace, eye and the random functions made on the device") {
    const auto r = arange<float>(1, 4, kCUDA);
    CHECK(r.is_cuda());
    CHECK(same(r.cpu(), arange<float>(1, 4)));
    CHECK(same(arange(5, Device("cuda:0")).cpu(), arange(5)));
    CHECK(same(arange(0.0, 1.0, 0.25, kCUDA).cpu(), arange(0.0, 1.0, 0.25)));
    CHECK(same(linspace<double>(-1, 1, 5, kCUDA).cpu(), linspace<double>(-1, 1, 5)));
    CHECK(same(eye(3_c, kCUDA).cpu(), eye(3_c)));
    CHECK(same(eye<int>(2, 4, kCUDA).cpu(), eye<int>(2, 4)));
    Generator g(42), h(42);
    CHECK(same(rand(3_c, 2_c, g, kCUDA).cpu(), rand(3_c, 2_c, h)));
    CHECK(same(randn<double>(5, g, kCUDA).cpu(), randn<double>(5, h)));
    CHECK(same(randint(0, 10, 6_c, g, kCUDA).cpu(), randint(0, 10, 6_c, h)));
    CHECK(rand(2_c, kCUDA).is_cuda());
    CHECK(test_errors::error_of<RuntimeError>([] { (void)arange(3, Device("cuda:2")); }) ==
          "staticpy: CUDA error: invalid device ordinal 2 (1 device)");
}

TEST_CASE("fake driver: strided views packed, written and filled by the device's copy kernel") {
    auto& registry = cuda::detail::kernel_registry::process();
    const auto x = arange<float>(24).reshape(2_c, 3_c, 4_c);
    const auto d = x.cuda();
    CHECK(same(d.permute(2_c, 0_c, 1_c).contiguous().cpu(), x.permute(2_c, 0_c, 1_c)));
    const std::size_t compiles = registry.compiles();
    CHECK(same(d.slice(2_c, 1, 4, 2).contiguous().cpu(), x.slice(2_c, 1, 4, 2)));
    CHECK(same(d[1].t().clone().cpu(), x[1].t()));
    CHECK(same(d.select(1_c, 2).cpu(), x.select(1_c, 2)));
    CHECK(registry.compiles() == compiles); // one kernel per element size, compiled once
    CHECK(same(d.slice(0_c, 0, 1).expand(3_c, 3_c, 4_c).contiguous().cpu(),
               x.slice(0_c, 0, 1).expand(3_c, 3_c, 4_c)));
    // every element size: bool and uint8 (1 byte), int (4), double and int64 (8)
    const auto flags = x > 10.0f;
    const auto turned = [](const auto& t) { return t.permute(2_c, 0_c, 1_c); };
    CHECK(same(turned(flags.cuda()).contiguous().cpu(), turned(flags)));
    const auto bytes = x.to<std::uint8_t>();
    CHECK(same(turned(bytes.cuda()).contiguous().cpu(), turned(bytes)));
    const auto ints = x.to<int>();
    CHECK(same(turned(ints.cuda()).contiguous().cpu(), turned(ints)));
    const auto doubles = x.to<double>();
    CHECK(same(turned(doubles.cuda()).contiguous().cpu(), turned(doubles)));
    const auto longs = x.to<std::int64_t>();
    CHECK(same(turned(longs.cuda()).contiguous().cpu(), turned(longs)));
    // fill_ and copy_ into strided views; a view written from an overlapping one of itself
    auto m = zeros<double>(3_c, 4_c).cuda();
    m.select(1_c, 1).fill_(2.5);
    auto expected = zeros<double>(3_c, 4_c);
    expected.select(1_c, 1).fill_(2.5);
    CHECK(same(m.cpu(), expected));
    auto sq = arange<float>(9).reshape(3_c, 3_c);
    auto dsq = sq.cuda();
    dsq.copy_(dsq.t());
    sq.copy_(sq.t());
    CHECK(same(dsq.cpu(), sq));
    auto cols = zeros<float>(3_c, 4_c).cuda();
    cols.slice(1_c, 0, 4, 2).copy_(d[0].slice(1_c, 1, 3)); // a device view into a device view
    auto want = zeros<float>(3_c, 4_c);
    want.slice(1_c, 0, 4, 2).copy_(x[0].slice(1_c, 1, 3));
    CHECK(same(cols.cpu(), want));
    cols.t().copy_(ones<float>(4_c, 3_c)); // a host tensor into a device view
    CHECK(same(cols.cpu(), ones<float>(3_c, 4_c)));
    // more dims than the kernel's 8 that do not merge: through the host, with the same result
    const auto big = arange<float>(19683).reshape(3_c, 3_c, 3_c, 3_c, 3_c, 3_c, 3_c, 3_c, 3_c);
    const auto every_other = [](const auto& t) {
        return t.slice(0_c, 0, 3, 2)
            .slice(1_c, 0, 3, 2)
            .slice(2_c, 0, 3, 2)
            .slice(3_c, 0, 3, 2)
            .slice(4_c, 0, 3, 2)
            .slice(5_c, 0, 3, 2)
            .slice(6_c, 0, 3, 2)
            .slice(7_c, 0, 3, 2)
            .slice(8_c, 0, 3, 2);
    };
    CHECK(same(every_other(big.cuda()).contiguous().cpu(), every_other(big)));
    const std::array<std::int64_t, 9> sizes{2, 2, 2, 2, 2, 2, 2, 2, 2};
    std::array<std::int64_t, 9> strides{};
    for (int k = 0; k < 9; ++k)
        strides[static_cast<std::size_t>(k)] = 2 * static_cast<std::int64_t>(std::pow(3, 8 - k));
    CHECK(cuda::detail::merged_copy_dims(sizes.data(), strides.data(), strides.data(), 9).rank ==
          -1);
    // dims that follow one another in both views merge, size-1 dims go: rows of 4 padded to 8
    // in the source stay a dim of their own, the 2 x 3 rows above them become one
    const std::array<std::int64_t, 4> s4{2, 1, 3, 4}, packed{12, 12, 4, 1}, rows{24, 24, 8, 1};
    const auto merged = cuda::detail::merged_copy_dims(s4.data(), packed.data(), rows.data(), 4);
    CHECK(merged.rank == 2);
    CHECK(merged.sizes[0] == 6);
    CHECK(merged.sizes[1] == 4);
    CHECK(merged.dst[0] == 4);
    CHECK(merged.src[0] == 8);
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

TEST_CASE("fake driver: pinned memory, pin_memory() and non_blocking copies") {
    auto& pool = cuda::detail::process_pinned_memory();
    pool.empty_cache();
    const auto x = arange<float>(12).reshape(3_c, 4_c);
    CHECK_FALSE(x.is_pinned());
    const auto p = x.t().pin_memory(); // a strided view: pinned contiguous
    CHECK(p.is_pinned());
    CHECK(p.is_cpu());
    CHECK(p.is_contiguous());
    CHECK(same(p, x.t()));
    CHECK(reinterpret_cast<std::uintptr_t>(p.data()) % 4096 == 0);
    CHECK(p.pin_memory().data_ptr() == p.data_ptr()); // already pinned: itself, as PyTorch's
    CHECK(p[1].is_pinned());                          // a view of pinned memory is pinned
    CHECK_FALSE(p.clone().is_pinned());
    CHECK(pool.allocated_bytes() == 4096); // a page at least
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)x.cuda().pin_memory(); }) ==
          "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned");
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)arange<std::int64_t>(2).cuda().pin_memory();
          }) == "cannot pin 'torch.cuda.LongTensor' only dense CPU tensors can be pinned");

    // non_blocking: pinned to the device and back into pinned memory, queued on the stream.
    const auto d = p.to(kCUDA, true);
    CHECK(d.is_cuda());
    const auto back = d.to(kCPU, true);
    CHECK(back.is_pinned());
    cuda::synchronize();
    CHECK(same(back, x.t()));
    CHECK(same(p.cuda(0, true).cpu(), x.t()));
    // Not pinned, or strided: an ordinary synchronous copy, as PyTorch's.
    CHECK(same(x.to(kCUDA, true).cpu(), x));
    CHECK(same(p.t().to(kCUDA, true).cpu(), x));
    CHECK_FALSE(d.t().to(kCPU, true).is_pinned());
    CHECK(same(zeros<float>(0).pin_memory().to(kCUDA, true).cpu(), zeros<float>(0)));
    // bool and integer tensors pin too; a pinned tensor's own elements can be written.
    auto flags = (x > 5.0f).pin_memory();
    CHECK(same(flags.to(kCUDA, true).cpu(), x > 5.0f));
    flags.fill_(true);
    CHECK(same(flags, ones<bool>(3_c, 4_c)));
}

TEST_CASE("fake driver: a freed pinned block is cached and handed out again after its copies") {
    auto& pool = cuda::detail::process_pinned_memory();
    pool.empty_cache();
    const std::size_t in_use = pool.allocated_bytes();
    const float* first = nullptr;
    {
        const auto p = arange<float>(3000).pin_memory(); // 12000 bytes: the 16 KiB class
        first = p.data();
        (void)p.to(kCUDA, true); // the block now waits for this copy when freed
        CHECK(pool.allocated_bytes() == in_use + 16384);
    }
    CHECK(pool.allocated_bytes() == in_use);
    CHECK(pool.cached_bytes() == 16384);
    {
        const auto q = zeros<float>(4000).pin_memory(); // the same class: the same block
        CHECK(q.data() == first);
        CHECK(pool.cached_bytes() == 0);
        const auto r = zeros<float>(4000).pin_memory(); // the class's only block is in use
        CHECK(r.data() != first);
    }
    CHECK(pool.cached_bytes() == 2 * 16384);
    pool.empty_cache();
    CHECK(pool.cached_bytes() == 0);
    using pool_type = cuda::detail::pinned_memory_pool;
    CHECK(pool_type::size_class(0) == 4096);
    CHECK(pool_type::size_class(4097) == 8192);
    CHECK(pool_type::size_class(12000) == 16384);
}

TEST_CASE("fake driver: DataLoader(pin_memory=true) pins every tensor of its batches") {
    using sample = std::tuple<Tensor<float, static_shape<2>>, std::int64_t>;
    std::vector<sample> samples;
    for (int i = 0; i < 6; ++i)
        samples.emplace_back(full<float>(shape(2_c), float(i)), i);
    struct samples_dataset {
        std::vector<sample>* items;
        sample operator[](std::int64_t i) const { return (*items)[static_cast<std::size_t>(i)]; }
        std::int64_t size() const { return static_cast<std::int64_t>(items->size()); }
    };
    for (const int workers : {0, 2}) {
        INFO("num_workers=" << workers);
        data::DataLoader loader(samples_dataset{&samples},
                                {.batch_size = 4, .num_workers = workers, .pin_memory = true});
        std::int64_t seen = 0;
        for (const auto& [xb, yb] : loader) {
            CHECK(xb.is_pinned());
            CHECK(yb.is_pinned());
            const auto on_device = xb.to(kCUDA, true);
            cuda::synchronize();
            CHECK(same(on_device.cpu(), yb.to<float>().unsqueeze(1).expand(yb.size(0), 2)));
            seen += yb.size(0);
        }
        CHECK(seen == 6);
    }
    // Containers of tensors: a dict's values, a vector's elements; numbers and strings stay.
    auto batch = std::make_tuple(
        dict("x"_s = ones<float>(2_c), "name"_s = std::string("a")),
        std::vector{zeros<int>(3_c), ones<int>(3_c)},
        std::map<std::string, Tensor<double, static_shape<1>>>{{"w", ones<double>(1_c)}}, 7);
    data::detail::pin_in_place(batch);
    CHECK(std::get<0>(batch)["x"_s].is_pinned());
    CHECK(std::get<0>(batch)["name"_s] == "a");
    CHECK(std::get<1>(batch)[0].is_pinned());
    CHECK(std::get<1>(batch)[1].is_pinned());
    CHECK(same(std::get<1>(batch)[1], ones<int>(3_c)));
    CHECK(std::get<2>(batch).at("w").is_pinned());
    CHECK(std::get<3>(batch) == 7);
}

TEST_CASE("fake driver: host code refuses device memory, mixed devices are PyTorch's error") {
    auto d = ones<float>(2_c, 2_c).cuda();
    const auto h = ones<float>(2_c, 2_c);
    const std::string on_device = "staticpy: this op runs on the CPU, but a tensor is on cuda:0 "
                                  "(no CUDA kernel for it yet: copy it with .cpu() first)";
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)d.data(); }) == on_device);
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)d(0, 1); }) == on_device);
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

namespace {
/// An op of the test's own with no GPU form (staticpy's own ops all run there): its eager
/// function reads the elements on the host.
struct host_only_op {
    static constexpr const char* name = "host_only";
    std::tuple<> args;

    template <class T, class S>
    Tensor<T, S> operator()(const Tensor<T, S>& x) const {
        Tensor<T, S> out(x.shape());
        const auto in = x.contiguous();
        for (std::int64_t i = 0; i < x.numel(); ++i)
            out.data()[i] = in.data()[i];
        return out;
    }
    template <std::size_t I, class G, class Y, class X>
    auto vjp(const G& g, const Y&, const X&) const {
        return g;
    }
};
} // namespace

TEST_CASE("emulated device: what does not run there says so, mixed devices are refused") {
    const auto a = ones<float>(2_c, 3_c);
    const auto w = ones<float>(3_c, 2_c);
    auto on_host = jit([](auto p) { return staticpy::detail::apply_op(host_only_op{}, p) + 1.0f; });
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)on_host(a.cuda()); }) ==
          "staticpy: host_only has no CUDA kernel yet: a graph with one runs on the CPU only "
          "(copy its tensors with .cpu())");
    require_close(on_host(a), a + 1.0f, 0.0);
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
