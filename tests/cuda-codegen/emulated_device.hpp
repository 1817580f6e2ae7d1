// What the emulated-device tests share: the stand-ins selected before main (the driver,
// fake_libcuda.cpp; NVRTC, fake_nvrtc.cpp: kernels compiled for the host and run there; cuBLAS,
// fake_cublas.cpp), and comparisons of device tensors with the CPU backend's.
#pragma once

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

namespace emulated_device {

using namespace staticpy;

// Before main: the process's driver is loaded at its first use, from this variable.
// The stand-in NVRTC compiles kernels for the host, where the stand-in driver runs them; no disk
// cache (its entries would name libraries that are gone after the run).
inline const bool fake_driver_selected =
    ::setenv("STATICPY_CUDA_DRIVER_LIBRARY", STATICPY_TEST_FAKE_LIBCUDA, 1) == 0 &&
    ::setenv("STATICPY_NVRTC_LIBRARY", STATICPY_TEST_FAKE_NVRTC, 1) == 0 &&
    ::setenv("STATICPY_CUBLAS_LIBRARY", STATICPY_TEST_FAKE_CUBLAS, 1) == 0 &&
    ::setenv("STATICPY_KERNEL_CACHE_DIR", "", 1) == 0;

/// Whether two host tensors have the same sizes and elements (torch.equal).
template <class T, class S1, class S2>
bool same(const Tensor<T, S1>& a, const Tensor<T, S2>& b) {
    if (!a.is_cpu() || !b.is_cpu() || a.sizes() != b.sizes())
        return false;
    const auto ca = a.contiguous();
    const auto cb = b.contiguous();
    return std::vector<T>(ca.data(), ca.data() + ca.numel()) ==
           std::vector<T>(cb.data(), cb.data() + cb.numel());
}

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

} // namespace emulated_device
