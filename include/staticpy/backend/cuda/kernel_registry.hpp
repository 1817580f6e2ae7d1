#pragma once
// The process's compiled kernels and their launch: each kernel source (a graph's fused kernels,
// the class losses' rows, the strided copy) is generated, compiled by NVRTC (through the disk
// cache) and loaded once per key and device, then launched on the legacy default stream, where
// the copies of device_memory.hpp go too.
//
//   auto& ks = kernel_registry::process().get(key, [] { return source; });
//   launch_default(ks.function("name"), grid_for(n, shape_of_device(0)), 1, block, args);

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <typeindex>
#include <typeinfo>

#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/compile.hpp"
#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/backend/cuda/stream.hpp"

namespace staticpy::cuda::detail {

/// What the launcher needs of a device: its threads per block and how many blocks fill it.
struct device_shape {
    unsigned block = 256;  // threads per block staticpy launches
    unsigned max_grid = 1; // blocks that keep every multiprocessor full
    unsigned multiprocessors = 1;
};

inline device_shape shape_of_device(int ordinal) {
    static std::mutex mutex;
    static std::map<int, device_shape> known;
    std::lock_guard lock(mutex);
    if (const auto it = known.find(ordinal); it != known.end())
        return it->second;
    const CUdevice d = device_handle(ordinal);
    auto attribute = [&](int which, int fallback) {
        int v = 0;
        check(driver().cuDeviceGetAttribute(&v, which, d), "cuDeviceGetAttribute");
        return v > 0 ? v : fallback;
    };
    device_shape s;
    const int max_block = attribute(1, 1024);                    // MAX_THREADS_PER_BLOCK
    s.multiprocessors = static_cast<unsigned>(attribute(16, 1)); // MULTIPROCESSOR_COUNT
    const int per_sm = attribute(39, 2048);                      // MAX_THREADS_PER_MULTIPROCESSOR
    s.block = static_cast<unsigned>(std::min(256, max_block));
    s.max_grid = s.multiprocessors * std::max(1u, static_cast<unsigned>(per_sm) / s.block);
    known.emplace(ordinal, s);
    return s;
}

/// Blocks for `work` items, one per thread, at most a device's worth (grid-stride loops do the
/// rest); at least one.
inline unsigned grid_for(long long work, const device_shape& dev) {
    const long long blocks = (work + dev.block - 1) / dev.block;
    return static_cast<unsigned>(std::clamp<long long>(blocks, 1, dev.max_grid));
}

/// The identity of a compiled kernel: its program's type, its index there, its layout, the
/// device (each has its own modules).
struct kernel_key {
    std::type_index program;
    std::size_t kernel;
    cuda_layout layout;
    int device;
    friend bool operator<(const kernel_key& a, const kernel_key& b) {
        auto tie = [](const kernel_key& k) {
            return std::tuple(k.program, k.kernel, k.layout.contiguous, k.layout.rank,
                              k.layout.reduced_rank, k.layout.block_reduce, k.layout.vector_width,
                              k.device);
        };
        return tie(a) < tie(b);
    }
};

/// A compiled kernel's module (it holds the kernel and its fill, finish and partials kernels).
class compiled_kernels {
public:
    compiled_kernels(const std::string& image, int device) : module_(image, device) {}
    CUfunction function(const std::string& name) {
        std::lock_guard lock(mutex_);
        auto& f = functions_[name];
        if (f == nullptr)
            f = module_.function(name);
        return f;
    }

private:
    module module_;
    std::mutex mutex_;
    std::map<std::string, CUfunction> functions_;
};

/// The process's compiled kernels, by kernel_key: each source is generated and compiled (through
/// the disk cache) the first time its key is asked for. Kept until exit, as the driver.
class kernel_registry {
public:
    static kernel_registry& process() {
        static kernel_registry* const registry = new kernel_registry;
        return *registry;
    }
    /// The module of `key`, made from make_source() where there is none yet.
    template <class MakeSource>
    compiled_kernels& get(const kernel_key& key, MakeSource&& make_source) {
        std::lock_guard lock(mutex_);
        auto& slot = modules_[key];
        if (!slot) {
            const auto [major, minor] = get_device_capability(key.device);
            const std::string arch = "compute_" + std::to_string(major * 10 + minor);
            ++compiles_;
            slot = std::make_unique<compiled_kernels>(
                compile_kernels(std::string(cuda_prelude) + make_source(), arch), key.device);
        }
        return *slot;
    }
    /// How many kernel sources this process has compiled (or taken from the disk cache).
    [[nodiscard]] std::size_t compiles() const {
        std::lock_guard lock(mutex_);
        return compiles_;
    }

private:
    mutable std::mutex mutex_;
    std::map<kernel_key, std::unique_ptr<compiled_kernels>> modules_;
    std::size_t compiles_ = 0;
};

/// The module of a fixed kernel source, Kernels::source() (the class losses', the strided
/// copy's, ...), keyed by the type Kernels: compiled and loaded on `device` at its first use.
template <class Kernels>
compiled_kernels& module_of(int device) {
    return kernel_registry::process().get(
        kernel_key{std::type_index(typeid(Kernels)), 0, cuda_layout{}, device},
        [] { return Kernels::source(); });
}

/// Queues f on the legacy default stream, where the copies of device_memory.hpp go too.
inline void launch_default(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned block,
                           kernel_arguments& args) {
    check(driver().cuLaunchKernel(f, grid_x, grid_y, 1, block, 1, 1, 0, nullptr, args.pointers(),
                                  nullptr),
          "cuLaunchKernel");
}

} // namespace staticpy::cuda::detail
