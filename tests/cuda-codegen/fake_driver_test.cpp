// The CUDA backend's host side on the stand-in driver (fake_libcuda.cpp, loaded through
// STATICPY_CUDA_DRIVER_LIBRARY, set before any test runs): the paths a machine with a GPU takes
// (the driver found and initialised, a device, its name and capability, the primary context,
// device memory through the caching allocator, copies) and the errors on them (an invalid device
// ordinal, out of memory, a driver error named in the driver's own words).
#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/backend/cuda/allocator.hpp>
#include <staticpy/backend/cuda/driver.hpp>
#include <staticpy/backend/cuda/stream.hpp>

#include "../test_errors.hpp"

using namespace staticpy;

namespace {
// Before main: the process's driver is loaded at its first use, from this variable.
const bool fake_driver_selected =
    ::setenv("STATICPY_CUDA_DRIVER_LIBRARY", STATICPY_TEST_FAKE_LIBCUDA, 1) == 0;
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
    cuda::Stream moved = std::move(s);
    moved.synchronize();
    CHECK(test_errors::error_of<RuntimeError>([] { cuda::Stream bad(2); }) ==
          "staticpy: CUDA error: invalid device ordinal 2 (1 device)");
}

TEST_CASE("fake driver: a module the driver refuses is an error naming the call") {
    CHECK_THAT(test_errors::error_of<RuntimeError>([] { cuda::detail::module m("not PTX"); }),
               Catch::StartsWith("staticpy: CUDA error: cuModuleLoadData failed: "));
}
