#pragma once
// Where a tensor's elements live, as torch.device: the CPU, or CUDA device N.
//
//   staticpy::Device d("cuda:1");       // d.type() == DeviceType::CUDA, d.index() == 1
//   auto y = x.to("cuda");              // the current CUDA device (0)
//   std::cout << y.device();            // cuda:0
//
// The core knows devices only as names; the memory of a CUDA device comes from the CUDA backend
// (backend/cuda, through <staticpy/cuda.hpp>), which fills in the hooks below when a program
// includes it. A program that does not cannot put a tensor on a GPU, and is told so.

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "staticpy/core/error.hpp"

namespace staticpy {

/// torch.device's type: the CPU or an NVIDIA GPU.
enum class DeviceType : std::uint8_t { CPU, CUDA };

/// torch.device: a type and, optionally, an index ("cuda" alone means the current device).
class Device {
public:
    /// The CPU.
    constexpr Device() = default;
    /// A device of `type`, index -1 meaning none (the current one, for CUDA).
    constexpr Device(DeviceType type, int index = -1) : type_(type), index_(check_index(index)) {}
    /// Parses "cpu", "cuda", "cuda:N" as torch.device does, with its errors (RuntimeError).
    Device(std::string_view text) { parse(text); }
    Device(const char* text) : Device(std::string_view(text)) {}
    Device(const std::string& text) : Device(std::string_view(text)) {}

    [[nodiscard]] constexpr DeviceType type() const noexcept { return type_; }
    /// The index, -1 when none was given.
    [[nodiscard]] constexpr int index() const noexcept { return index_; }
    [[nodiscard]] constexpr bool has_index() const noexcept { return index_ >= 0; }
    [[nodiscard]] constexpr bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
    [[nodiscard]] constexpr bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }

    /// str(torch.device): "cpu", "cuda", "cuda:1".
    [[nodiscard]] std::string str() const {
        std::string s = is_cuda() ? "cuda" : "cpu";
        if (has_index())
            s += ":" + std::to_string(index_);
        return s;
    }
    /// repr(torch.device): "device(type='cuda', index=1)".
    void repr_into(std::string& out) const {
        out += "device(type='";
        out += is_cuda() ? "cuda" : "cpu";
        out += "'";
        if (has_index())
            out += ", index=" + std::to_string(index_);
        out += ")";
    }

    friend constexpr bool operator==(const Device&, const Device&) = default;

    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                         const Device& d) {
        return os << d.str();
    }

private:
    static constexpr int check_index(int index) {
        if (index < -1)
            throw RuntimeError("Device index must be -1 or non-negative, got " +
                               std::to_string(index));
        return index;
    }

    void parse(std::string_view text) {
        const std::size_t colon = text.find(':');
        const std::string_view name = text.substr(0, colon);
        if (name == "cpu")
            type_ = DeviceType::CPU;
        else if (name == "cuda")
            type_ = DeviceType::CUDA;
        else
            throw RuntimeError("Expected one of cpu, cuda device type at start of device string: " +
                               std::string(text));
        if (colon == std::string_view::npos)
            return;
        const std::string_view digits = text.substr(colon + 1);
        // PyTorch's grammar: a decimal index without sign or leading zeros.
        bool valid =
            !digits.empty() && digits.size() <= 9 && (digits.size() == 1 || digits[0] != '0');
        int index = 0;
        for (const char c : digits) {
            if (c < '0' || c > '9') {
                valid = false;
                break;
            }
            index = index * 10 + (c - '0');
        }
        if (!valid)
            throw RuntimeError("Invalid device string: '" + std::string(text) + "'");
        index_ = index;
    }

    DeviceType type_ = DeviceType::CPU;
    int index_ = -1;
};

/// libtorch's names of the device types: x.to(staticpy::kCUDA).
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

namespace detail {

/// What the core needs of a device it does not implement itself: memory and copies. The CUDA
/// backend fills in one table (backend/cuda/device_memory.hpp) when a program includes it.
struct device_memory_hooks {
    /// Device memory of `bytes` on device `index` (never null; MemoryError when refused).
    void* (*allocate)(std::size_t bytes, int index);
    /// Returns what allocate gave.
    void (*release)(void* p, std::size_t bytes, int index) noexcept;
    /// Copies `bytes` from src to dst, either of which may be on the device; synchronous with
    /// respect to the host.
    void (*copy)(void* dst, Device dst_device, const void* src, Device src_device,
                 std::size_t bytes);
    /// The device a bare "cuda" means (the current one).
    int (*current_index)();
    /// How many devices there are (an index past them is an error before any allocation).
    int (*count)();
    /// Whether a device can be used (never throws): where it cannot, pinning is skipped with a
    /// warning rather than failing (DataLoader's pin_memory).
    bool (*available)() noexcept;
    /// Page-locked host memory of `bytes` (never null; the "CUDA is not available" error or
    /// MemoryError otherwise), which the device reads and writes without the host's help.
    void* (*allocate_pinned)(std::size_t bytes);
    /// Returns what allocate_pinned gave, for reuse once the copies queued on it are done.
    void (*release_pinned)(void* p) noexcept;
    /// Queues a copy of `bytes` between page-locked host memory and a device (either way) on
    /// that device's stream, and returns at once: the host side must not be read or written
    /// until the stream has done it (cuda::synchronize(), or a later synchronous copy).
    void (*copy_async)(void* dst, Device dst_device, const void* src, Device src_device,
                       std::size_t bytes);
    /// Copies a strided view into another of the same sizes on the same device, on the device:
    /// elements of element_size bytes, strides in elements, pointers at the views' first
    /// elements, views not overlapping. False, with nothing done, where it cannot (the caller
    /// goes through the host).
    bool (*copy_strided)(void* dst, const std::int64_t* dst_strides, const void* src,
                         const std::int64_t* src_strides, const std::int64_t* sizes, int rank,
                         std::size_t element_size, int index);
};

/// The CUDA backend's table, null until a translation unit of the program includes
/// <staticpy/cuda.hpp>.
inline const device_memory_hooks*& cuda_memory_hooks() noexcept {
    static const device_memory_hooks* hooks = nullptr;
    return hooks;
}

/// The table for a CUDA device, or the error saying why there is none.
inline const device_memory_hooks& cuda_memory() {
    const device_memory_hooks* hooks = cuda_memory_hooks();
    if (hooks == nullptr)
        throw RuntimeError("staticpy: CUDA is not available: this program does not include "
                           "<staticpy/cuda.hpp>, the CUDA backend");
    return *hooks;
}

/// d with its index filled in: the current CUDA device for a bare "cuda", checked against the
/// devices present; the CPU has no index.
inline Device resolve_device(const Device& d) {
    if (d.is_cpu())
        return Device{};
    const device_memory_hooks& hooks = cuda_memory();
    const int index = d.has_index() ? d.index() : hooks.current_index();
    const int count = hooks.count();
    if (index >= count)
        throw RuntimeError("staticpy: CUDA error: invalid device ordinal " + std::to_string(index) +
                           " (" + std::to_string(count) + (count == 1 ? " device)" : " devices)"));
    return Device(DeviceType::CUDA, index);
}

/// The error of a CPU computation handed memory of another device.
[[noreturn]] inline void throw_not_on_cpu(const Device& d) {
    throw RuntimeError("staticpy: this op runs on the CPU, but a tensor is on " + d.str() +
                       " (no CUDA kernel for it yet: copy it with .cpu() first)");
}

/// PyTorch's error for an op whose tensors are on different devices.
[[noreturn]] inline void throw_device_mismatch(const Device& a, const Device& b) {
    // PyTorch names the GPU first.
    const bool swap = a.is_cpu() && b.is_cuda();
    throw RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, " +
        (swap ? b : a).str() + " and " + (swap ? a : b).str() + "!");
}

} // namespace detail

} // namespace staticpy
