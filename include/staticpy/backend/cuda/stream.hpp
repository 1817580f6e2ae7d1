#pragma once
// Streams, events and modules on the driver API: torch.cuda.Stream, torch.cuda.Event,
// torch.cuda.synchronize(), and the compiled kernels' modules with their launch.
//
//   staticpy::cuda::Stream s;  staticpy::cuda::Event a, b;
//   a.record(s);  ...work on s...  b.record(s);  b.synchronize();  float ms = a.elapsed_time(b);

#include <string>
#include <utility>

#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/launch.hpp"

namespace staticpy::cuda {

/// A stream of device work (torch.cuda.Stream): work queued on one stream runs in order; work on
/// different streams may overlap. Non-blocking: it does not wait for the legacy default stream.
class Stream {
public:
    explicit Stream(int device = 0) : device_(device) {
        detail::make_current(device);
        detail::check(detail::driver().cuStreamCreate(&handle_, 1 /* CU_STREAM_NON_BLOCKING */),
                      "cuStreamCreate");
    }
    /// The legacy default stream of `device` (torch.cuda.default_stream()): where staticpy's
    /// kernels and copies run, in order with each other. Not owned: nothing to destroy.
    static Stream default_stream(int device = 0) {
        detail::make_current(device);
        return Stream(nullptr, device);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)), device_(o.device_) {}
    Stream& operator=(Stream&& o) noexcept {
        std::swap(handle_, o.handle_);
        std::swap(device_, o.device_);
        return *this;
    }
    ~Stream() {
        if (handle_)
            (void)detail::driver().cuStreamDestroy_v2(handle_);
    }

    /// Waits until the work queued on this stream is done.
    void synchronize() const {
        detail::check(detail::driver().cuStreamSynchronize(handle_), "cuStreamSynchronize");
    }
    [[nodiscard]] detail::CUstream handle() const noexcept { return handle_; }
    [[nodiscard]] int device() const noexcept { return device_; }

private:
    Stream(detail::CUstream handle, int device) : handle_(handle), device_(device) {}
    detail::CUstream handle_ = nullptr;
    int device_ = 0;
};

/// A marker in a stream (torch.cuda.Event(enable_timing=True)): record it, wait for it, and time
/// the work between two.
class Event {
public:
    explicit Event(int device = 0) {
        detail::make_current(device);
        detail::check(detail::driver().cuEventCreate(&handle_, 0), "cuEventCreate");
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
    Event& operator=(Event&& o) noexcept {
        std::swap(handle_, o.handle_);
        return *this;
    }
    ~Event() {
        if (handle_)
            (void)detail::driver().cuEventDestroy_v2(handle_);
    }

    /// Marks the point in `stream`'s queue reached when this call returns.
    void record(const Stream& stream) {
        detail::check(detail::driver().cuEventRecord(handle_, stream.handle()), "cuEventRecord");
        recorded_ = true;
    }
    /// Waits until the work before the recorded point is done.
    void synchronize() const {
        detail::check(detail::driver().cuEventSynchronize(handle_), "cuEventSynchronize");
    }
    /// Milliseconds from this event to `end` (both recorded and done); RuntimeError otherwise, as
    /// PyTorch's.
    [[nodiscard]] float elapsed_time(const Event& end) const {
        if (!recorded_ || !end.recorded_)
            throw RuntimeError("staticpy: CUDA error: elapsed_time needs both events recorded");
        float ms = 0;
        detail::check(detail::driver().cuEventElapsedTime(&ms, handle_, end.handle_),
                      "cuEventElapsedTime");
        return ms;
    }

private:
    detail::CUevent handle_ = nullptr;
    bool recorded_ = false;
};

/// Waits until all work on the device is done (torch.cuda.synchronize()).
///   staticpy::cuda::synchronize();
inline void synchronize(int device = 0) {
    detail::make_current(device);
    detail::check(detail::driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

namespace detail {

/// A loaded module of compiled kernels (PTX or CUBIN from compile_kernels), unloaded at the end.
class module {
public:
    explicit module(const std::string& image, int device = 0) {
        make_current(device);
        check(driver().cuModuleLoadData(&handle_, image.c_str()), "cuModuleLoadData");
    }
    module(const module&) = delete;
    module& operator=(const module&) = delete;
    ~module() {
        if (handle_)
            (void)driver().cuModuleUnload(handle_);
    }
    /// The kernel `name` (an extern "C" __global__ function of the source).
    [[nodiscard]] CUfunction function(const std::string& name) const {
        CUfunction f = nullptr;
        check(driver().cuModuleGetFunction(&f, handle_, name.c_str()),
              ("cuModuleGetFunction(" + name + ")").c_str());
        return f;
    }

private:
    CUmodule handle_ = nullptr;
};

/// Queues kernel f over grid_x * grid_y blocks of `block` threads on `stream`, with `args`.
inline void launch(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned block,
                   kernel_arguments& args, const Stream& stream) {
    check(driver().cuLaunchKernel(f, grid_x, grid_y, 1, block, 1, 1, 0, stream.handle(),
                                  args.pointers(), nullptr),
          "cuLaunchKernel");
}

} // namespace detail

} // namespace staticpy::cuda
