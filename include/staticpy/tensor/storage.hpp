#pragma once
// The memory behind Tensors: a buffer that views share, as torch.Storage.
//
// Owning storage is allocated with alignment `storage_alignment` (64 bytes: a cache line and an
// AVX-512 vector), so data() of a tensor at offset 0 is 64-byte aligned, and freed when the last
// Tensor that views it goes away (shared ownership). Non-owning storage wraps a user pointer
// (torch.from_blob): the user keeps the memory alive for as long as tensors view it.
//   auto s = staticpy::Storage<float>::allocate(6);     // owning, aligned, shared by views
//   auto w = staticpy::Storage<float>::wrap(ptr, 6);    // non-owning
//   auto g = staticpy::Storage<float>::allocate(6, "cuda");  // on the GPU (<staticpy/cuda.hpp>)
//   auto h = staticpy::Storage<float>::allocate_pinned(6);   // page-locked host memory (same)
//
// The memory of a CUDA device is not the host's: data() is the host's way in, and throws for a
// storage on a GPU, so that no CPU loop ever reads device memory; the CUDA backend takes the
// device address with device_data().

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>

#include "staticpy/core/device.hpp"
#include "staticpy/core/error.hpp"

namespace staticpy {

/// The alignment in bytes of every buffer staticpy allocates.
inline constexpr std::size_t storage_alignment = 64;

namespace detail {

/// Large buffers freed recently, kept for the next allocation of the same size. A large block
/// comes from mmap and goes back to the system when freed, so every new tensor of that size
/// would fault in each of its pages again (a 4 MB result: a thousand page faults, more time than
/// computing it). Eager ops and graph outputs allocate the same sizes over and over; reusing a
/// block costs a lock. Bounded (64 blocks, 1 GiB); off under AddressSanitizer, which must see
/// every free to find use-after-free.
class block_cache {
public:
    static constexpr std::size_t min_bytes = std::size_t{1} << 16;
    static constexpr std::size_t max_blocks = 64;
    static constexpr std::size_t max_bytes = std::size_t{1} << 30;

    static block_cache& instance() {
        // Never destroyed: tensors in static storage may be freed after it would have been.
        static block_cache* cache = new block_cache;
        return *cache;
    }

    void* take(std::size_t bytes) {
        if (!enabled || bytes < min_bytes)
            return nullptr;
        std::lock_guard lock(mutex_);
        for (std::size_t i = count_; i-- > 0;) {
            if (blocks_[i].bytes == bytes) {
                void* p = blocks_[i].ptr;
                held_ -= bytes;
                blocks_[i] = blocks_[--count_];
                return p;
            }
        }
        return nullptr;
    }

    /// Keeps p (of `bytes`) for reuse, or frees it, or frees an older block to make room.
    void give(void* p, std::size_t bytes) {
        if (enabled && bytes >= min_bytes && bytes <= max_bytes) {
            std::lock_guard lock(mutex_);
            while (count_ > 0 && (count_ == max_blocks || held_ + bytes > max_bytes)) {
                release(blocks_[0]);
                held_ -= blocks_[0].bytes;
                blocks_[0] = blocks_[--count_];
            }
            blocks_[count_++] = block{p, bytes};
            held_ += bytes;
            return;
        }
        release(block{p, bytes});
    }

private:
#if defined(__SANITIZE_ADDRESS__)
    static constexpr bool enabled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    static constexpr bool enabled = false;
#else
    static constexpr bool enabled = true;
#endif
#else
    static constexpr bool enabled = true;
#endif
    struct block {
        void* ptr = nullptr;
        std::size_t bytes = 0;
    };
    static void release(const block& b) noexcept {
        ::operator delete (b.ptr, std::align_val_t{storage_alignment});
    }
    std::mutex mutex_;
    std::array<block, max_blocks> blocks_{};
    std::size_t count_ = 0;
    std::size_t held_ = 0;
};

} // namespace detail

template <class T>
class Storage {
public:
    using value_type = T;

    /// A storage with no memory (size 0, data() null).
    Storage() = default;

    /// An owning buffer of n elements, 64-byte aligned. Arithmetic elements are left
    /// uninitialised (as torch.empty), bools are set to false (every byte is a valid bool).
    static Storage allocate(std::int64_t n) { return allocate(n, Device{}); }

    /// An owning buffer of n elements on `device` (the CPU, or a CUDA device through the CUDA
    /// backend's caching allocator), elements uninitialised except bools on the CPU.
    static Storage allocate(std::int64_t n, const Device& device) {
        const std::size_t bytes = allocation_bytes(n);
        Storage s;
        s.size_ = n;
        s.owning_ = true;
        if (device.is_cuda()) {
            const Device d = detail::resolve_device(device);
            void* raw = detail::cuda_memory().allocate(bytes, d.index());
            s.data_ = std::shared_ptr<T>(static_cast<T*>(raw), device_deleter{bytes, d.index()});
            s.device_ = d;
            return s;
        }
        void* raw = detail::block_cache::instance().take(bytes);
        if (raw == nullptr) {
            try {
                raw = ::operator new (bytes, std::align_val_t{storage_alignment});
            } catch (const std::bad_alloc&) {
                // PyTorch's words (a RuntimeError there); Python's MemoryError here, so that
                // a caller can tell memory running out from a bad argument.
                throw MemoryError("DefaultCPUAllocator: can't allocate memory: you tried to "
                                  "allocate " +
                                  std::to_string(bytes) + " bytes.");
            }
        }
        if constexpr (std::is_same_v<T, bool>)
            std::memset(raw, 0, bytes);
        s.data_ = std::shared_ptr<T>(static_cast<T*>(raw), aligned_deleter{bytes});
        return s;
    }

    /// An owning buffer of n elements on the host in page-locked memory from the CUDA driver
    /// (torch's pinned memory), which a device copies to and from asynchronously. The "CUDA is
    /// not available" RuntimeError where there is no driver or device.
    static Storage allocate_pinned(std::int64_t n) {
        const std::size_t bytes = allocation_bytes(n);
        void* raw = detail::cuda_memory().allocate_pinned(bytes);
        if constexpr (std::is_same_v<T, bool>)
            std::memset(raw, 0, bytes);
        Storage s;
        s.size_ = n;
        s.owning_ = true;
        s.pinned_ = true;
        s.data_ = std::shared_ptr<T>(static_cast<T*>(raw), pinned_deleter{});
        return s;
    }

    /// A non-owning view of n elements at p; p must outlive every Tensor over it.
    static Storage wrap(T* p, std::int64_t n) {
        if (n < 0)
            throw RuntimeError("Storage size must be non-negative, got " + std::to_string(n));
        Storage s;
        s.data_ = std::shared_ptr<T>(std::shared_ptr<T>{}, p); // aliasing: owns nothing
        s.size_ = n;
        s.owning_ = false;
        return s;
    }

    /// The first element, for the host. Tensors are handles, as in PyTorch: a const Tensor still
    /// lets its elements be written, so data() is not const-qualified in what it returns.
    /// RuntimeError for memory on a GPU, which the host cannot read.
    [[nodiscard]] T* data() const {
        if (device_.is_cuda()) [[unlikely]]
            detail::throw_not_on_cpu(device_);
        return data_.get();
    }
    /// The first element's address on its device (the host's for a CPU storage).
    [[nodiscard]] T* device_data() const noexcept { return data_.get(); }
    /// Where the elements are: the CPU, or cuda:N (always with its index).
    [[nodiscard]] const Device& device() const noexcept { return device_; }
    /// Elements in the buffer (torch.UntypedStorage.size() / itemsize).
    [[nodiscard]] std::int64_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t nbytes() const noexcept {
        return static_cast<std::size_t>(size_) * sizeof(T);
    }
    /// Whether the memory is page-locked host memory (torch.Tensor.is_pinned()).
    [[nodiscard]] bool is_pinned() const noexcept { return pinned_; }
    /// Whether the memory is staticpy's (false for wrap / from_blob).
    [[nodiscard]] bool is_owning() const noexcept { return owning_; }
    /// How many Storage handles share the owning buffer (0 for a non-owning one).
    [[nodiscard]] long use_count() const noexcept { return data_.use_count(); }
    /// Whether two storages are the same buffer.
    [[nodiscard]] bool is_same(const Storage& o) const noexcept {
        return data_.get() == o.data_.get();
    }
    explicit operator bool() const noexcept { return data_ != nullptr; }

private:
    /// The bytes an owning buffer of n elements takes: at least one, rounded up to the alignment,
    /// so that data() is never null and the size is a multiple of the alignment.
    static std::size_t allocation_bytes(std::int64_t n) {
        if (n < 0)
            throw RuntimeError("Storage size must be non-negative, got " + std::to_string(n));
        if (static_cast<std::uint64_t>(n) >
            (std::numeric_limits<std::size_t>::max() - storage_alignment) / sizeof(T))
            throw RuntimeError("Storage of " + std::to_string(n) + " elements is too large");
        const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
        return bytes == 0 ? storage_alignment
                          : (bytes + storage_alignment - 1) / storage_alignment * storage_alignment;
    }

    struct aligned_deleter {
        std::size_t bytes;
        void operator()(T* p) const noexcept {
            detail::block_cache::instance().give(static_cast<void*>(p), bytes);
        }
    };

    struct device_deleter {
        std::size_t bytes;
        int index;
        void operator()(T* p) const noexcept {
            detail::cuda_memory_hooks()->release(static_cast<void*>(p), bytes, index);
        }
    };

    struct pinned_deleter {
        void operator()(T* p) const noexcept {
            detail::cuda_memory_hooks()->release_pinned(static_cast<void*>(p));
        }
    };

    std::shared_ptr<T> data_;
    std::int64_t size_ = 0;
    bool owning_ = false;
    bool pinned_ = false;
    Device device_{};
};

} // namespace staticpy
