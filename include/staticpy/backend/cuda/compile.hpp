#pragma once
// Generated source to a loadable kernel image: NVRTC (nvrtc.hpp) behind the disk cache
// (kernel_cache.hpp), so that each source is compiled once per machine, not once per process.
//
//   std::string ptx = staticpy::cuda::compile_kernels(source, "compute_90");

#include <string>
#include <vector>

#include "staticpy/backend/cuda/kernel_cache.hpp"
#include "staticpy/backend/cuda/nvrtc.hpp"

namespace staticpy::cuda {

/// The options every kernel is compiled with: C++17 (NVRTC's default differs across versions),
/// and IEEE float semantics (no fast math: the results must match the CPU backend's).
inline std::vector<std::string> kernel_compile_options(const std::string& arch) {
    return {"--gpu-architecture=" + arch, "--std=c++17", "--fmad=true"};
}

/// Compiles `source` for `arch` ("compute_90": PTX, which the driver finishes for the device;
/// "sm_90": a CUBIN for that device only), through `cache`.
inline std::string compile_kernels(const std::string& source, const std::string& arch,
                                   const kernel_cache& cache = kernel_cache::process()) {
    const detail::nvrtc_api& api = detail::nvrtc();
    const std::vector<std::string> options = kernel_compile_options(arch);
    std::string joined;
    for (const std::string& o : options)
        joined += o + " ";
    const kernel_cache_key key{source, joined, arch,
                               "nvrtc " + std::to_string(api.major) + "." +
                                   std::to_string(api.minor)};
    return cache.get_or_compile(key, [&] {
        return detail::nvrtc_compile(api, source, "staticpy_kernels.cu", options,
                                     arch.starts_with("sm_") ? detail::nvrtc_output::cubin
                                                             : detail::nvrtc_output::ptx);
    });
}

} // namespace staticpy::cuda
