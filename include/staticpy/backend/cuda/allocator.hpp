#pragma once
// The caching allocator of device memory, as PyTorch's: cuMemAlloc and cuMemFree are slow and
// synchronise the device, so a freed block is kept and handed to the next request of its size
// class instead of being returned to the driver. A request that the driver refuses first returns
// every cached block to it and tries again; only then is it "CUDA out of memory".
//
//   size classes   requests are rounded up to 512 bytes below 1 MiB, to 2 MiB from there (PyTorch
//                  rounds to 512 bytes and carves small blocks out of 2 MiB segments; staticpy
//                  does not split blocks yet, so it rounds large ones coarser to keep reuse likely)
//   statistics     memory_allocated (blocks in use, rounded sizes, as PyTorch counts them),
//                  max_memory_allocated, memory_reserved (in use + cached), reset_peak_memory_stats
//   empty_cache    returns the cached blocks to the driver
//
// The allocator itself only keeps books; where memory comes from is its backend (the driver's
// cuMemAlloc_v2/cuMemFree_v2 for the process's allocator, a host stand-in in the tests).
//
//   auto ptr = staticpy::cuda::detail::process_allocator().allocate(bytes);  ...  release(ptr)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/core/error.hpp"

namespace staticpy::cuda::detail {

/// Where a caching allocator's memory comes from: allocate returns 0 where there is no memory
/// left (and throws for any other failure); release gives a block back.
struct memory_backend {
    std::function<std::uintptr_t(std::size_t)> allocate;
    std::function<void(std::uintptr_t)> release;
};

class caching_allocator {
public:
    static constexpr std::size_t small_round = 512;
    static constexpr std::size_t large_threshold = std::size_t{1} << 20;
    static constexpr std::size_t large_round = std::size_t{2} << 20;

    explicit caching_allocator(memory_backend backend) : backend_(std::move(backend)) {}
    caching_allocator(const caching_allocator&) = delete;
    caching_allocator& operator=(const caching_allocator&) = delete;
    ~caching_allocator() { empty_cache(); }

    /// The size class a request of `bytes` is served from.
    static std::size_t size_class(std::size_t bytes) {
        const std::size_t r = bytes < large_threshold ? small_round : large_round;
        if (bytes > SIZE_MAX - r)
            return 0; // no class: the request cannot be met
        return bytes == 0 ? small_round : (bytes + r - 1) / r * r;
    }

    /// A block of at least `bytes`: a cached one of its size class, else a new one from the
    /// backend (after returning the cache to it, where it refuses). MemoryError with PyTorch's
    /// "CUDA out of memory" text where even that fails.
    std::uintptr_t allocate(std::size_t bytes) {
        const std::size_t size = size_class(bytes);
        std::lock_guard lock(mutex_);
        std::uintptr_t ptr = 0;
        if (size != 0) {
            if (auto it = cached_.find(size); it != cached_.end()) {
                ptr = it->second;
                cached_.erase(it);
                cached_bytes_ -= size;
            } else {
                ptr = backend_.allocate(size);
                if (ptr == 0 && cached_bytes_ > 0) {
                    release_cached();
                    ptr = backend_.allocate(size);
                }
            }
        }
        if (ptr == 0)
            throw MemoryError("staticpy: CUDA out of memory. Tried to allocate " +
                              human_bytes(bytes) + " (" + human_bytes(allocated_) +
                              " already allocated; " + human_bytes(allocated_ + cached_bytes_) +
                              " reserved in total by staticpy)");
        in_use_.emplace(ptr, size);
        allocated_ += size;
        peak_ = std::max(peak_, allocated_);
        return ptr;
    }

    /// Gives a block back to the cache. A pointer this allocator did not hand out is a
    /// RuntimeError, not a corrupted cache.
    void release(std::uintptr_t ptr) {
        std::lock_guard lock(mutex_);
        const auto it = in_use_.find(ptr);
        if (it == in_use_.end())
            throw RuntimeError("staticpy: CUDA error: release of a device pointer the caching "
                               "allocator did not hand out");
        const std::size_t size = it->second;
        in_use_.erase(it);
        allocated_ -= size;
        cached_.emplace(size, ptr);
        cached_bytes_ += size;
    }

    /// Returns every cached block to the backend (torch.cuda.empty_cache()).
    void empty_cache() {
        std::lock_guard lock(mutex_);
        release_cached();
    }

    [[nodiscard]] std::size_t memory_allocated() const {
        std::lock_guard lock(mutex_);
        return allocated_;
    }
    [[nodiscard]] std::size_t max_memory_allocated() const {
        std::lock_guard lock(mutex_);
        return peak_;
    }
    [[nodiscard]] std::size_t memory_reserved() const {
        std::lock_guard lock(mutex_);
        return allocated_ + cached_bytes_;
    }
    void reset_peak_memory_stats() {
        std::lock_guard lock(mutex_);
        peak_ = allocated_;
    }

    /// "2.00 MiB", as PyTorch's out-of-memory message writes sizes.
    static std::string human_bytes(std::size_t bytes) {
        const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
        double v = static_cast<double>(bytes);
        int u = 0;
        while (v >= 1024 && u < 4) {
            v /= 1024;
            ++u;
        }
        char buf[48];
        if (u == 0)
            std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
        else
            std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
        return buf;
    }

private:
    void release_cached() {
        for (const auto& [size, ptr] : cached_)
            backend_.release(ptr);
        cached_.clear();
        cached_bytes_ = 0;
    }

    memory_backend backend_;
    mutable std::mutex mutex_;
    std::multimap<std::size_t, std::uintptr_t> cached_; // size class -> free blocks
    std::unordered_map<std::uintptr_t, std::size_t> in_use_;
    std::size_t allocated_ = 0, cached_bytes_ = 0, peak_ = 0;
};

/// Device `ordinal`'s memory from the driver: cuMemAlloc_v2 (CUDA_ERROR_OUT_OF_MEMORY is "no
/// memory left"; any other failure throws) and cuMemFree_v2, in its primary context.
inline memory_backend driver_memory(int ordinal) {
    return memory_backend{[ordinal](std::size_t bytes) -> std::uintptr_t {
                              make_current(ordinal);
                              CUdeviceptr p = 0;
                              const CUresult r = driver().cuMemAlloc_v2(&p, bytes);
                              if (r == 2) // CUDA_ERROR_OUT_OF_MEMORY
                                  return 0;
                              check(r, "cuMemAlloc");
                              return static_cast<std::uintptr_t>(p);
                          },
                          [ordinal](std::uintptr_t p) {
                              make_current(ordinal);
                              (void)driver().cuMemFree_v2(static_cast<CUdeviceptr>(p));
                          }};
}

/// The process's allocators, one per device that has had one (PyTorch keeps a pool per device).
/// Kept until exit, as the driver (driver.hpp).
struct process_allocators {
    std::mutex mutex;
    std::vector<caching_allocator*> by_device;
    static process_allocators& instance() {
        static process_allocators* const all = new process_allocators;
        return *all;
    }
};

/// The allocator of device `ordinal`'s memory, made at its first use (RuntimeError where CUDA is
/// not available or there is no such device).
inline caching_allocator& process_allocator(int ordinal = 0) {
    (void)device_handle(ordinal); // the errors before any bookkeeping
    auto& all = process_allocators::instance();
    std::lock_guard lock(all.mutex);
    if (all.by_device.size() <= static_cast<std::size_t>(ordinal))
        all.by_device.resize(static_cast<std::size_t>(ordinal) + 1, nullptr);
    caching_allocator*& slot = all.by_device[static_cast<std::size_t>(ordinal)];
    if (slot == nullptr)
        slot = new caching_allocator(driver_memory(ordinal));
    return *slot;
}

/// Device `ordinal`'s allocator if it has one, else null: the statistics of a device nothing was
/// allocated on are zeros, as PyTorch's, with or without CUDA.
inline caching_allocator* existing_allocator(int ordinal) {
    auto& all = process_allocators::instance();
    std::lock_guard lock(all.mutex);
    return ordinal >= 0 && static_cast<std::size_t>(ordinal) < all.by_device.size()
               ? all.by_device[static_cast<std::size_t>(ordinal)]
               : nullptr;
}

} // namespace staticpy::cuda::detail

namespace staticpy::cuda {

/// Bytes of device memory in tensors (torch.cuda.memory_allocated()); 0 before any.
///   std::printf("%zu\n", staticpy::cuda::memory_allocated());
inline std::size_t memory_allocated(int device = 0) {
    const auto* a = detail::existing_allocator(device);
    return a != nullptr ? a->memory_allocated() : 0;
}
/// The most memory_allocated() has been since the start or reset_peak_memory_stats().
inline std::size_t max_memory_allocated(int device = 0) {
    const auto* a = detail::existing_allocator(device);
    return a != nullptr ? a->max_memory_allocated() : 0;
}
/// memory_allocated() plus the cached blocks (torch.cuda.memory_reserved()).
inline std::size_t memory_reserved(int device = 0) {
    const auto* a = detail::existing_allocator(device);
    return a != nullptr ? a->memory_reserved() : 0;
}
inline void reset_peak_memory_stats(int device = 0) {
    if (auto* a = detail::existing_allocator(device))
        a->reset_peak_memory_stats();
}
/// Returns the cached blocks to the driver (torch.cuda.empty_cache()).
inline void empty_cache(int device = 0) {
    if (auto* a = detail::existing_allocator(device))
        a->empty_cache();
}

} // namespace staticpy::cuda
