#pragma once
// Tensors on a GPU: the core's hooks for device memory (core/device.hpp) filled in with the caching
// allocator and the driver's copies. Including <staticpy/cuda.hpp> registers them before main, so
// that x.to("cuda") works in any translation unit of the program.
//
// Ordering: staticpy's kernels and these copies all go to the legacy default stream (PyTorch's
// default stream), whose work runs in order; the copies are the driver's synchronous ones, so a
// copy to the host returns with the elements there, after every kernel launched before it. The
// exception is a non_blocking copy to or from pinned host memory (pinned_memory.hpp): queued on
// the same stream, so still in order with the kernels, but the host does not wait for it.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "staticpy/backend/cuda/allocator.hpp"
#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/pinned_memory.hpp"
#include "staticpy/backend/cuda/strided_copy.hpp"
#include "staticpy/core/device.hpp"

namespace staticpy::cuda::detail {

inline void* allocate_device_memory(std::size_t bytes, int ordinal) {
    return reinterpret_cast<void*>(process_allocator(ordinal).allocate(bytes));
}

inline void release_device_memory(void* p, std::size_t, int ordinal) noexcept {
    try {
        process_allocator(ordinal).release(reinterpret_cast<std::uintptr_t>(p));
    } catch (...) { // only a pointer the allocator never gave: nothing to give back
    }
}

inline CUdeviceptr device_address(const void* p) {
    return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p));
}

/// A synchronous copy of `bytes`: host to device, device to host, or device to device (through the
/// host between two devices, which share no context).
inline void copy_memory(void* dst, Device dst_device, const void* src, Device src_device,
                        std::size_t bytes) {
    const driver_api& api = driver();
    if (dst_device.is_cuda() && src_device.is_cuda()) {
        if (dst_device.index() == src_device.index()) {
            make_current(dst_device.index());
            check(api.cuMemcpyDtoD_v2(device_address(dst), device_address(src), bytes),
                  "cuMemcpyDtoD");
            return;
        }
        std::vector<unsigned char> staged(bytes);
        copy_memory(staged.data(), Device{}, src, src_device, bytes);
        copy_memory(dst, dst_device, staged.data(), Device{}, bytes);
    } else if (dst_device.is_cuda()) {
        make_current(dst_device.index());
        check(api.cuMemcpyHtoD_v2(device_address(dst), src, bytes), "cuMemcpyHtoD");
    } else if (src_device.is_cuda()) {
        make_current(src_device.index());
        check(api.cuMemcpyDtoH_v2(dst, device_address(src), bytes), "cuMemcpyDtoH");
    } else if (bytes != 0) {
        std::memcpy(dst, src, bytes);
    }
}

/// Queues a copy between pinned host memory and a device on the device's legacy default stream,
/// and marks the pinned block as in use by it until the stream gets there.
inline void copy_memory_async(void* dst, Device dst_device, const void* src, Device src_device,
                              std::size_t bytes) {
    const driver_api& api = driver();
    if (dst_device.is_cuda()) {
        make_current(dst_device.index());
        check(api.cuMemcpyHtoDAsync_v2(device_address(dst), src, bytes, nullptr),
              "cuMemcpyHtoDAsync");
        process_pinned_memory().record_copy(src, dst_device.index());
    } else {
        make_current(src_device.index());
        check(api.cuMemcpyDtoHAsync_v2(dst, device_address(src), bytes, nullptr),
              "cuMemcpyDtoHAsync");
        process_pinned_memory().record_copy(dst, src_device.index());
    }
}

inline void* allocate_pinned_memory(std::size_t bytes) {
    return process_pinned_memory().allocate(bytes);
}

inline void release_pinned_memory(void* p) noexcept {
    process_pinned_memory().release(p);
}

inline bool device_available() noexcept {
    return is_available();
}

/// The device a bare "cuda" means: 0 (no cuda::set_device yet). Checks that CUDA is there.
inline int current_device_index() {
    (void)driver();
    return 0;
}

/// The devices present; RuntimeError "CUDA is not available: ..." where there is no driver.
inline int present_device_count() {
    (void)driver();
    return process_driver().device_count;
}

inline const staticpy::detail::device_memory_hooks device_memory_hooks{
    &allocate_device_memory, &release_device_memory, &copy_memory,
    &current_device_index,   &present_device_count,  &device_available,
    &allocate_pinned_memory, &release_pinned_memory, &copy_memory_async,
    &copy_strided_on_device};

/// Registered at static initialisation by every translation unit that includes this header.
inline const bool device_memory_registered =
    (staticpy::detail::cuda_memory_hooks() = &device_memory_hooks, true);

} // namespace staticpy::cuda::detail
