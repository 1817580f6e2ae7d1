#pragma once
// The CUDA backend: the driver and NVRTC loaded at first use, kernel source generated from a
// graph's fused kernels, compiled kernels cached on disk. A program that never calls into it never
// loads a CUDA library, and builds with no CUDA toolkit.   #include <staticpy/cuda.hpp>
//   if (staticpy::cuda::is_available()) std::printf("%d GPUs\n", staticpy::cuda::device_count());

#include <array>
#include <string>
#include <vector>

#include "staticpy/backend/cuda/allocator.hpp"
#include "staticpy/backend/cuda/class_loss.hpp"
#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/compile.hpp"
#include "staticpy/backend/cuda/conv_pool.hpp"
#include "staticpy/backend/cuda/cublas.hpp"
#include "staticpy/backend/cuda/device_memory.hpp"
#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/dropout.hpp"
#include "staticpy/backend/cuda/element_rule.hpp"
#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/backend/cuda/indexing.hpp"
#include "staticpy/backend/cuda/kernel_cache.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/backend/cuda/normalization.hpp"
#include "staticpy/backend/cuda/nvrtc.hpp"
#include "staticpy/backend/cuda/row_reduce.hpp"
#include "staticpy/backend/cuda/stream.hpp"
#include "staticpy/jit.hpp"

namespace staticpy::cuda {

/// The CUDA source of the fused kernels f traces to with args, kernel k specialised for
/// layouts[k] (the strided rank-1 form where layouts has no entry): what the CUDA evaluator
/// compiles, and what the tests compile with NVRTC and run on the host.
///   std::string src = staticpy::cuda::to_cuda(f, {{.contiguous = true}}, x, y);
template <class F, class... Args>
std::string to_cuda(const jit_function<F>& f, const std::vector<cuda_layout>& layouts,
                    const Args&... args) {
    graph::trace<F, Args...> t(f.function(), args...);
    return t.template with_program<std::string>(
        [&](auto tag, const auto& nodes) -> std::string {
            using numbered = decltype(tag); // the program under its short name
            return cuda_source<numbered>(nodes, numbered::roots, layouts);
        },
        []() -> std::string { staticpy::detail::no_graph_to_show("to_cuda"); });
}

} // namespace staticpy::cuda
