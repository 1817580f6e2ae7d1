// The CUDA backend's host side on the stand-in driver (fake_libcuda.cpp, loaded through
// STATICPY_CUDA_DRIVER_LIBRARY, set before any test runs): the paths a machine with a GPU takes
// (the driver found and initialised, a device, its name and capability, the primary context,
// device memory through the caching allocator, copies) and the errors on them (an invalid device
// ordinal, out of memory, a driver error named in the driver's own words), tensors on the device
// (to("cuda") and back, views, copies, printing, the errors of host code and of mixed devices),
// and graphs and eager ops run there: with the stand-in NVRTC (fake_nvrtc.cpp), each generated
// kernel is compiled for the host and launched by the stand-in driver over its grid, and matmuls
// run on the stand-in cuBLAS (fake_cublas.cpp); the results are compared with the CPU backend's.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"

using namespace staticpy;
using namespace staticpy::literals;

namespace {
// Before main: the process's driver is loaded at its first use, from this variable.
// The stand-in NVRTC compiles kernels for the host, where the stand-in driver runs them; no disk
// cache (its entries would name libraries that are gone after the run).
const bool fake_driver_selected =
    ::setenv("STATICPY_CUDA_DRIVER_LIBRARY", STATICPY_TEST_FAKE_LIBCUDA, 1) == 0 &&
    ::setenv("STATICPY_NVRTC_LIBRARY", STATICPY_TEST_FAKE_NVRTC, 1) == 0 &&
    ::setenv("STATICPY_CUBLAS_LIBRARY", STATICPY_TEST_FAKE_CUBLAS, 1) == 0 &&
    ::setenv("STATICPY_KERNEL_CACHE_DIR", "", 1) == 0;

/// Whether two host tensors have the same sizes and elements (torch.equal).
template <class T, class S1, class S2>
bool same(const Tensor<T, S1>& a, const Tensor<T, S2>& b) {
    if (!a.is_cpu() || !b.is_cpu() || a.sizes() != b.sizes())
        return false;
    const auto ca = a.contiguous(), cb = b.contiguous();
    return std::vector<T>(ca.data(), ca.data() + ca.numel()) ==
           std::vector<T>(cb.data(), cb.data() + cb.numel());
}
} // namespace

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

namespace {

template <class T, class S>
std::vector<double> host_values(const Tensor<T, S>& t) {
    const auto c = t.cpu().contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

/// got's elements within rtol of want's (NaN where want has NaN), same sizes.
template <class T1, class S1, class T2, class S2>
void require_close(const Tensor<T1, S1>& got, const Tensor<T2, S2>& want, double rtol = 1e-6) {
    REQUIRE(got.sizes() == want.sizes());
    const auto g = host_values(got), w = host_values(want);
    for (std::size_t i = 0; i < g.size(); ++i) {
        INFO("element " << i << ": " << g[i] << " against " << w[i]);
        if (std::isnan(w[i]))
            CHECK(std::isnan(g[i]));
        else
            CHECK(std::abs(g[i] - w[i]) <= rtol * std::abs(w[i]) + 1e-6);
    }
}

} // namespace

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

namespace {
/// How many times the stand-in cuBLAS's entry point `name` was called.
long cublas_calls(const char* name) {
    const auto count =
        cuda::detail::cublas().library.symbol<long(const char*)>("fake_cublas_calls");
    REQUIRE(count != nullptr);
    return count(name);
}
} // namespace

TEST_CASE("emulated device: eager matmul on cuBLAS, every operand layout, against the CPU's") {
    Generator g(11);
    const auto a = randn(5, 7, g), b = randn(7, 3, g);
    require_close(matmul(a.cuda(), b.cuda()), matmul(a, b), 1e-5);
    // Stored by columns (op T), both and either.
    const auto at = randn(7, 5, g), bt = randn(3, 7, g);
    require_close(matmul(at.cuda().t(), bt.cuda().t()), matmul(at.t(), bt.t()), 1e-5);
    require_close(matmul(a.cuda(), bt.cuda().t()), matmul(a, bt.t()), 1e-5);
    // Strided both ways (every other column) and broadcast within a matrix: copied first.
    const auto wide = randn(5, 14, g);
    const auto every_other = wide.slice(1, 0, 14, 2);
    require_close(matmul(wide.cuda().slice(1, 0, 14, 2), b.cuda()), matmul(every_other, b), 1e-5);
    const auto row = randn(1, 3, g);
    require_close(matmul(a.cuda(), row.cuda().expand(7, 3)), matmul(a, row.expand(7, 3)), 1e-5);
    // A view at an offset into its storage.
    const auto big = randn(6, 7, g);
    require_close(matmul(big.cuda().slice(0, 1, 6), b.cuda()), matmul(big.slice(0, 1, 6), b), 1e-5);
    // Vectors: a dot product (zero-dim), a matrix times a vector, a vector times a matrix.
    const auto u = randn(7, g), v = randn(7, g);
    require_close(matmul(u.cuda(), v.cuda()), matmul(u, v), 1e-5);
    require_close(matmul(a.cuda(), u.cuda()), matmul(a, u), 1e-5);
    require_close(matmul(u.cuda(), b.cuda()), matmul(u, b), 1e-5);
    // double
    const auto ad = a.to<double>(), bd = b.to<double>();
    require_close(matmul(ad.cuda(), bd.cuda()), matmul(ad, bd), 1e-12);
    CHECK(matmul(ad.cuda(), bd.cuda()).is_cuda());
}

TEST_CASE("emulated device: batched matmul, one strided-batched call where the batch allows") {
    Generator g(12);
    const auto x = randn(4, 5, 7, g);
    const auto w = randn(7, 3, g);
    const long batched = cublas_calls("cublasSgemmStridedBatched");
    const long single = cublas_calls("cublasSgemm_v2");
    require_close(matmul(x.cuda(), w.cuda()), matmul(x, w), 1e-5); // w broadcast: spacing 0
    CHECK(cublas_calls("cublasSgemmStridedBatched") == batched + 1);
    CHECK(cublas_calls("cublasSgemm_v2") == single);
    // [2, 1] x [3] batch dims broadcast to [2, 3]: x's matrices repeat, not equally spaced.
    const auto p = randn(2, 1, 5, 7, g);
    const auto q = randn(3, 7, 2, g);
    require_close(matmul(p.cuda(), q.cuda()), matmul(p, q), 1e-5);
    CHECK(cublas_calls("cublasSgemm_v2") == single + 6);
    // A batch of transposed matrices.
    const auto r = randn(4, 7, 5, g);
    require_close(matmul(r.cuda().transpose(1, 2), w.cuda()), matmul(r.transpose(1, 2), w), 1e-5);
}

TEST_CASE("emulated device: matmul's edge cases and errors on the GPU") {
    // No products to sum: zeros, without cuBLAS; no elements: nothing to do.
    const auto empty_k = matmul(zeros<float>(3, 0).cuda(), zeros<float>(0, 4).cuda());
    CHECK(empty_k.is_cuda());
    CHECK(same(empty_k.cpu(), zeros<float>(3, 4)));
    CHECK(matmul(zeros<float>(0, 2).cuda(), zeros<float>(2, 4).cuda()).sizes() ==
          std::array<std::int64_t, 2>{0, 4});
    // PyTorch's messages: integers, and sizes that do not match.
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)matmul(ones<std::int32_t>(2, 3).cuda(), ones<std::int32_t>(3, 2).cuda());
          }) == "\"addmm_cuda\" not implemented for 'Int'");
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)matmul(ones<float>(2, 3).cuda(), ones<float>(4, 5).cuda());
          }) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    // A failing cuBLAS call, in cuBLAS's words.
    const auto fail_next =
        cuda::detail::cublas().library.symbol<void(int)>("fake_cublas_fail_next");
    REQUIRE(fail_next != nullptr);
    fail_next(13);
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)matmul(ones<float>(2, 3).cuda(), ones<float>(3, 2).cuda());
          }) == "staticpy: cuBLAS error: cublasSgemm failed: CUBLAS_STATUS_EXECUTION_FAILED (the "
                "GPU program failed to execute)");
    CHECK(cuda::cublas_version() == 130100);
}

TEST_CASE("emulated device: cuBLAS not found, or lacking an entry point, is said so") {
    const auto missing = cuda::detail::load_cublas({"/nonexistent/libcublas.so.13"});
    CHECK(missing.api == nullptr);
    CHECK_THAT(missing.unavailable,
               Catch::StartsWith("cuBLAS could not be loaded (/nonexistent/libcublas.so.13: "));
    CHECK_THAT(missing.unavailable,
               Catch::EndsWith("install the CUDA toolkit's cuBLAS or set STATICPY_CUBLAS_LIBRARY "
                               "to its libcublas.so"));
    // The stand-in NVRTC is a library without cuBLAS's entry points.
    const auto wrong = cuda::detail::load_cublas({STATICPY_TEST_FAKE_NVRTC});
    CHECK(wrong.api == nullptr);
    CHECK_THAT(wrong.unavailable, Catch::Contains("lacks cublasCreate_v2, cublasSetStream_v2"));
}

TEST_CASE("emulated device: linear on the GPU, with and without a bias, against the CPU's") {
    Generator g(13);
    const auto x = randn(2, 3, 4, g);
    const auto w = randn(5, 4, g);
    const auto bias = randn(5, g);
    require_close(linear(x.cuda(), w.cuda(), bias.cuda()), linear(x, w, bias), 1e-5);
    require_close(linear(x.cuda(), w.cuda()), linear(x, w), 1e-5);
    const auto v = randn(4, g);
    require_close(linear(v.cuda(), w.cuda(), bias.cuda()), linear(v, w, bias), 1e-5);
}

TEST_CASE("emulated device: graphs with matmul and views run there, the epilogue fused after") {
    Generator g(14);
    const auto x = randn(6, 4, g), w = randn(4, 5, g);
    const auto b = randn(5, g);
    const auto dx = x.cuda(), dw = w.cuda();
    const auto db = b.cuda();
    auto dense = jit([](auto p, auto q, auto r) { return relu(matmul(p, q) + r); });
    require_close(dense(dx, dw, db), dense(x, w, b), 1e-5);
    CHECK(dense(dx, dw, db).is_cuda());
    // linear's transposed weight, a transpose and a reshape taken inside the traced function.
    const auto wt = randn(5, 4, g);
    auto through_views = jit([](auto p, auto q) {
        auto y = matmul(p, q.t()); // [6, 5]
        return (y.transpose(0, 1) * 2.0f).reshape(30);
    });
    require_close(through_views(dx, wt.cuda()), through_views(x, wt), 1e-5);
    // A batched matmul under a reduction.
    const auto p = randn(3, 6, 4, g);
    auto batched = jit([](auto a, auto q) { return sum(matmul(a, q) * 0.5f, 1); });
    require_close(batched(p.cuda(), dw), batched(p, w), 1e-5);
}

TEST_CASE("emulated device: creation functions take a device, the _like ones keep the tensor's") {
    const auto z = zeros<float>(2, 3, kCUDA);
    CHECK(z.device() == Device("cuda:0"));
    CHECK(same(z.cpu(), zeros<float>(2, 3)));
    const auto o = ones<std::int32_t>(shape(4_c), Device("cuda:0"));
    static_assert(std::is_same_v<decltype(o), const Tensor<std::int32_t, shape<int_<4>>>>);
    CHECK(same(o.cpu(), ones<std::int32_t>(4_c)));
    const auto f = full<double>(2, 2, 1.5, kCUDA);
    CHECK(same(f.cpu(), full<double>(2, 2, 1.5)));
    CHECK(full<float>(shape(3), 2.5f, Device("cuda")).is_cuda());
    const auto e = empty<float>(3, Device("cuda"));
    CHECK((e.is_cuda() && e.sizes() == std::array<std::int64_t, 1>{3}));
    CHECK(zeros<float>(2, kCPU).is_cpu());
    CHECK(zeros<float>(kCUDA).is_cuda()); // zero-dim
    CHECK(test_errors::error_of<RuntimeError>([] { (void)zeros<float>(2, Device("cuda:1")); }) ==
          "staticpy: CUDA error: invalid device ordinal 1 (1 device)");

    CHECK(zeros_like(f).is_cuda());
    CHECK(same(ones_like(z).cpu(), ones<float>(2, 3)));
    CHECK(same(full_like(z, 7.0f).cpu(), full<float>(2, 3, 7.0f)));
    CHECK(empty_like(z).is_cuda());
    CHECK(ones_like(ones<float>(2)).is_cpu());

    // fill_ on the device, of a whole tensor and of a strided view.
    auto t = zeros<float>(2, 4, kCUDA);
    t.fill_(4.0f);
    t.slice(1, 0, 4, 2).fill_(9.0f);
    CHECK(same(t.cpu(), tensor<float>({{9, 4, 9, 4}, {9, 4, 9, 4}})));
    auto none = zeros<float>(0, 3, kCUDA);
    none.fill_(1.0f);
    CHECK(none.numel() == 0);
}

TEST_CASE("emulated device: eager reductions run there, over any dims, against the CPU's") {
    Generator g(15);
    const auto x = randn(4, 5, 6, g);
    const auto dx = x.cuda();
    require_close(sum(dx), sum(x), 1e-5);
    CHECK(sum(dx).is_cuda());
    require_close(sum(dx, 1), sum(x, 1), 1e-5);
    require_close(sum(dx, 0, True), sum(x, 0, True), 1e-5); // another mask, the same program
    require_close(mean(dx, std::array<int, 2>{0, 2}), mean(x, std::array<int, 2>{0, 2}), 1e-5);
    require_close(amax(dx, 2_c), amax(x, 2_c), 0.0);
    require_close(amin(dx.transpose(0, 2), -1), amin(x.transpose(0, 2), -1), 0.0);
    require_close(prod(dx, 1), prod(x, 1), 1e-5);
    require_close(dx.sum(), x.sum(), 1e-5);
    require_close(mean(dx), mean(x), 1e-5);
    const auto n = ones<std::int32_t>(3, 4);
    const auto dn = sum(n.cuda(), 1);
    static_assert(std::is_same_v<decltype(dn)::value_type, std::int64_t>);
    require_close(dn, sum(n, 1), 0.0);
    // An empty mean is NaN; amax of an empty dim is PyTorch's error.
    require_close(mean(zeros<float>(3, 0).cuda(), 1), mean(zeros<float>(3, 0), 1), 0.0);
    CHECK(test_errors::error_of<IndexError>([] { (void)amax(zeros<float>(3, 0).cuda(), 1); }) ==
          test_errors::error_of<IndexError>([] { (void)amax(zeros<float>(3, 0), 1); }));
}

namespace {
/// Three steps of the optimiser make(params) on the CPU and on the device from the same
/// parameters and gradients: the same parameters after (each step one kernel traced from the
/// CPU's rule).
template <class Make>
void same_steps_on_the_device(Make make) {
    Generator g(16);
    auto w = randn(5, 3, g);
    auto b = randn(3, g);
    auto dw = w.cuda();
    auto db = b.cuda();
    auto host = make(dict("w"_s = w, "b"_s = b));
    auto device = make(dict("w"_s = dw, "b"_s = db));
    for (int step = 0; step < 3; ++step) {
        const auto gw = randn(5, 3, g);
        const auto gb = randn(3, g);
        host.step(dict("w"_s = gw, "b"_s = gb));
        device.step(dict("w"_s = gw.cuda(), "b"_s = gb.cuda()));
    }
    CHECK(dw.is_cuda());
    require_close(dw, w, 1e-5);
    require_close(db, b, 1e-5);
}
} // namespace

TEST_CASE("emulated device: the optimisers step parameters on the GPU as on the CPU") {
    same_steps_on_the_device([](auto p) { return nn::optim::SGD(p, {.lr = 0.1}); });
    same_steps_on_the_device([](auto p) {
        return nn::optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01});
    });
    same_steps_on_the_device([](auto p) {
        return nn::optim::SGD(p, {.lr = 0.1, .momentum = 0.9, .nesterov = true, .maximize = true});
    });
    same_steps_on_the_device([](auto p) { return nn::optim::Adam(p, {.lr = 0.01}); });
    same_steps_on_the_device(
        [](auto p) { return nn::optim::Adam(p, {.lr = 0.01, .amsgrad = true}); });
    same_steps_on_the_device([](auto p) { return nn::optim::AdamW(p, {.lr = 0.01}); });
    same_steps_on_the_device([](auto p) { return nn::optim::RMSprop(p, {.lr = 0.01}); });
    same_steps_on_the_device([](auto p) {
        return nn::optim::RMSprop(p, {.lr = 0.01, .momentum = 0.5, .centered = true});
    });
    same_steps_on_the_device([](auto p) { return nn::optim::Adagrad(p, {.lr = 0.1}); });
    // A new learning rate each step: the same kernel, its numbers as parameters.
    const std::size_t compiles = cuda::detail::kernel_registry::process().compiles();
    same_steps_on_the_device([](auto p) { return nn::optim::SGD(p, {.lr = 0.3}); });
    CHECK(cuda::detail::kernel_registry::process().compiles() == compiles);
}

TEST_CASE("emulated device: a model trains on the GPU, forward, backward and step, as on the CPU") {
    Generator g(17);
    const auto x = randn(16, 4, g);
    const auto y = randn(16, 3, g);
    auto host = dict("w1"_s = randn(4, 8, g), "b1"_s = randn(8, g), "w2"_s = randn(8, 3, g));
    auto device = dict("w1"_s = host["w1"_s].cuda(), "b1"_s = host["b1"_s].cuda(),
                       "w2"_s = host["w2"_s].cuda());
    const auto dx = x.cuda(), dy = y.cuda();
    // One graph: the forward pass (cuBLAS, a fused bias and relu), the loss (a reduction) and the
    // backward pass (transposed matmuls, sum_to of the bias's gradient, count_ratio of mean).
    auto loss_and_grads = jit(value_and_grad([](const auto& p, const auto& in, const auto& t) {
        const auto h = relu(linear(in, p["w1"_s].t(), p["b1"_s]));
        const auto out = matmul(h, p["w2"_s]);
        return mean((out - t) * (out - t));
    }));
    nn::optim::Adam host_opt(host, {.lr = 0.05});
    nn::optim::Adam device_opt(device, {.lr = 0.05});
    float first = 0, last = 0;
    for (int step = 0; step < 5; ++step) {
        const auto [loss, grads] = loss_and_grads(host, x, y);
        const auto [device_loss, device_grads] = loss_and_grads(device, dx, dy);
        CHECK(device_loss.is_cuda());
        require_close(device_loss, loss, 1e-5);
        require_close(device_grads["w1"_s], grads["w1"_s], 1e-4);
        require_close(device_grads["b1"_s], grads["b1"_s], 1e-4);
        host_opt.step(grads);
        device_opt.step(device_grads);
        (step == 0 ? first : last) = device_loss.item();
    }
    CHECK(last < first);
    require_close(device["w2"_s], host["w2"_s], 1e-4);
}
