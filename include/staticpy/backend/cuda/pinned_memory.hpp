#pragma once
// Page-locked ("pinned") host memory, cached as PyTorch's CachingHostAllocator caches it: the
// device copies to and from it by DMA while the host goes on (tensor.to(kCUDA, non_blocking)), and
// cuMemAllocHost / cuMemFreeHost are slow (they map pages for the device and synchronise it), so a
// freed block is kept for the next request of its size class.
//
// A block freed while a copy queued on it may still be running must not be handed out again
// before that copy is done: every asynchronous copy records an event on the block after it is
// queued, and a cached block is reused only once its event has completed (cuEventQuery).
//
//   size classes   requests are rounded up to a power of two, at least a page (as PyTorch's)
//   empty_cache    gives the cached blocks back to the driver, after their copies
//
//   void* p = staticpy::cuda::detail::process_pinned_memory().allocate(bytes);  ... release(p)

#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "staticpy/backend/cuda/allocator.hpp"
#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/core/error.hpp"

namespace staticpy::cuda::detail {

class pinned_memory_pool {
public:
    static constexpr std::size_t min_block = 4096;

    /// The size class a request of `bytes` is served from (0: none, the request cannot be met).
    static std::size_t size_class(std::size_t bytes) {
        if (bytes <= min_block)
            return min_block;
        return bytes > (std::size_t{1} << 62) ? 0 : std::bit_ceil(bytes);
    }

    /// Page-locked memory of at least `bytes`: a cached block of its size class whose copies
    /// are done, else a new one from the driver (after giving the finished cached blocks back,
    /// where it refuses). MemoryError where even that fails.
    void* allocate(std::size_t bytes) {
        const std::size_t size = size_class(bytes);
        std::lock_guard lock(mutex_);
        for (auto [it, end] = free_.equal_range(size); it != end; ++it) {
            block& b = blocks_.at(it->second);
            if (copies_done(b)) {
                b.in_use = true;
                const std::uintptr_t p = it->second;
                free_.erase(it);
                cached_bytes_ -= size;
                return reinterpret_cast<void*>(p);
            }
        }
        void* p = size == 0 ? nullptr : allocate_from_driver(size);
        if (p == nullptr && size != 0 && release_finished() > 0)
            p = allocate_from_driver(size);
        if (p == nullptr)
            throw MemoryError("staticpy: CUDA out of memory: cannot allocate " +
                              caching_allocator::human_bytes(bytes) +
                              " of page-locked host memory");
        blocks_.emplace(reinterpret_cast<std::uintptr_t>(p), block{size});
        return p;
    }

    /// Gives a block back to the cache, where it waits for its copies before being reused.
    void release(void* p) noexcept {
        std::lock_guard lock(mutex_);
        const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(p));
        if (it == blocks_.end() || !it->second.in_use)
            return; // not a block of this pool: nothing to give back
        it->second.in_use = false;
        free_.emplace(it->second.size, it->first);
        cached_bytes_ += it->second.size;
    }

    /// Marks the block holding host address p as read or written by a copy just queued on the
    /// legacy default stream of `device`: the block is not reused before that point of the
    /// stream is reached.
    void record_copy(const void* p, int device) {
        std::lock_guard lock(mutex_);
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        auto it = blocks_.upper_bound(a);
        if (it == blocks_.begin())
            return;
        --it;
        block& b = it->second;
        if (a >= it->first + b.size)
            return; // not in a block of this pool
        const driver_api& api = driver();
        if (b.event != nullptr && b.event_device != device) {
            // An event belongs to its device's context: a block copied to another device waits
            // for its last copy, then gets an event there.
            check(api.cuEventSynchronize(b.event), "cuEventSynchronize");
            (void)api.cuEventDestroy_v2(b.event);
            b.event = nullptr;
        }
        make_current(device);
        if (b.event == nullptr) {
            check(api.cuEventCreate(&b.event, 2 /* CU_EVENT_DISABLE_TIMING */), "cuEventCreate");
            b.event_device = device;
        }
        check(api.cuEventRecord(b.event, nullptr), "cuEventRecord");
    }

    /// Gives every cached block back to the driver, each after its copies.
    void empty_cache() {
        std::lock_guard lock(mutex_);
        for (const auto& [size, p] : free_) {
            release_to_driver(p, true);
            cached_bytes_ -= size;
        }
        free_.clear();
    }

    /// Bytes of the cached blocks (page-locked, not in use).
    [[nodiscard]] std::size_t cached_bytes() const {
        std::lock_guard lock(mutex_);
        return cached_bytes_;
    }
    /// Bytes of the blocks in use.
    [[nodiscard]] std::size_t allocated_bytes() const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& [p, b] : blocks_)
            n += b.in_use ? b.size : 0;
        return n;
    }

private:
    struct block {
        std::size_t size = 0;
        bool in_use = true;
        CUevent event = nullptr; // recorded after the last copy queued on the block
        int event_device = 0;
    };

    static void* allocate_from_driver(std::size_t size) {
        make_current(0); // host memory: any context will do, and with unified addressing
                         // every device sees it as page-locked
        void* p = nullptr;
        const CUresult r = driver().cuMemAllocHost_v2(&p, size);
        if (r == 2 /* CUDA_ERROR_OUT_OF_MEMORY */)
            return nullptr;
        check(r, "cuMemAllocHost");
        return p;
    }

    bool copies_done(block& b) {
        if (b.event == nullptr)
            return true;
        const CUresult r = driver().cuEventQuery(b.event);
        if (r == 600 /* CUDA_ERROR_NOT_READY */)
            return false;
        check(r, "cuEventQuery");
        return true;
    }

    void release_to_driver(std::uintptr_t p, bool wait) {
        const auto it = blocks_.find(p);
        const driver_api& api = driver();
        if (it->second.event != nullptr) {
            if (wait)
                check(api.cuEventSynchronize(it->second.event), "cuEventSynchronize");
            (void)api.cuEventDestroy_v2(it->second.event);
        }
        check(api.cuMemFreeHost(reinterpret_cast<void*>(p)), "cuMemFreeHost");
        blocks_.erase(it);
    }

    /// Gives the cached blocks whose copies are done back to the driver; returns how many.
    std::size_t release_finished() {
        std::size_t n = 0;
        for (auto it = free_.begin(); it != free_.end();) {
            if (!copies_done(blocks_.at(it->second))) {
                ++it;
                continue;
            }
            cached_bytes_ -= it->first;
            release_to_driver(it->second, false);
            it = free_.erase(it);
            ++n;
        }
        return n;
    }

    mutable std::mutex mutex_;
    std::map<std::uintptr_t, block> blocks_;          // every block, by address
    std::multimap<std::size_t, std::uintptr_t> free_; // the cached ones, by size class
    std::size_t cached_bytes_ = 0;
};

/// The process's pool, never destroyed (pinned tensors in static storage may be freed after it
/// would have been, and the driver is never unloaded either).
inline pinned_memory_pool& process_pinned_memory() {
    static pinned_memory_pool* const pool = new pinned_memory_pool;
    return *pool;
}

} // namespace staticpy::cuda::detail
