#pragma once
// The CUDA driver API, loaded from libcuda.so.1 at first use (backend/cuda/library.hpp): no CUDA
// header or library on the user's compile or link line, and a program that never touches CUDA
// never loads it. The types below are the driver API's own (opaque handles, int results), declared
// here so that nothing from the toolkit is needed to build.
//
//   if (staticpy::cuda::is_available()) std::printf("%d GPUs\n", staticpy::cuda::device_count());
//   staticpy::cuda::detail::driver();   // throws "staticpy: CUDA is not available: <why>" without
//   one
//
// Why CUDA is not available is said in words: the library could not be loaded (where it looked),
// cuInit failed (the error's name and text: CUDA_ERROR_STUB_LIBRARY where the loader found the
// toolkit's stub libcuda, CUDA_ERROR_NO_DEVICE without a GPU), or no device is present.

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "staticpy/backend/cuda/library.hpp"
#include "staticpy/core/error.hpp"

// The driver API's opaque handle types, declared where cuda.h declares them (the global
// namespace), so that a program that also includes cuda.h sees the same types.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace staticpy::cuda::detail {

// The driver API's types (cuda.h's names), as the ABI has them on 64-bit Linux.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = ::CUctx_st*;
using CUmodule = ::CUmod_st*;
using CUfunction = ::CUfunc_st*;
using CUstream = ::CUstream_st*;
using CUevent = ::CUevent_st*;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

/// The driver's entry points staticpy calls, by their ABI names (cuda.h maps cuMemAlloc to
/// cuMemAlloc_v2 and so on; dlsym needs the real name).
struct driver_api {
    shared_library library;
    CUresult (*cuInit)(unsigned) = nullptr;
    CUresult (*cuDriverGetVersion)(int*) = nullptr;
    CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
    CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
    CUresult (*cuDeviceGetCount)(int*) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceTotalMem_v2)(std::size_t*, CUdevice) = nullptr;
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*cuDevicePrimaryCtxRelease_v2)(CUdevice) = nullptr;
    CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
    CUresult (*cuCtxSynchronize)() = nullptr;
    CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
    CUresult (*cuModuleUnload)(CUmodule) = nullptr;
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void**, void**) = nullptr;
    CUresult (*cuMemAlloc_v2)(CUdeviceptr*, std::size_t) = nullptr;
    CUresult (*cuMemFree_v2)(CUdeviceptr) = nullptr;
    CUresult (*cuMemAllocHost_v2)(void**, std::size_t) = nullptr;
    CUresult (*cuMemFreeHost)(void*) = nullptr;
    CUresult (*cuMemcpyHtoD_v2)(CUdeviceptr, const void*, std::size_t) = nullptr;
    CUresult (*cuMemcpyDtoH_v2)(void*, CUdeviceptr, std::size_t) = nullptr;
    CUresult (*cuMemcpyDtoD_v2)(CUdeviceptr, CUdeviceptr, std::size_t) = nullptr;
    CUresult (*cuMemcpyHtoDAsync_v2)(CUdeviceptr, const void*, std::size_t, CUstream) = nullptr;
    CUresult (*cuMemcpyDtoHAsync_v2)(void*, CUdeviceptr, std::size_t, CUstream) = nullptr;
    CUresult (*cuMemcpyDtoDAsync_v2)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream) = nullptr;
    CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
    CUresult (*cuStreamDestroy_v2)(CUstream) = nullptr;
    CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
    CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*cuEventDestroy_v2)(CUevent) = nullptr;
    CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*cuEventSynchronize)(CUevent) = nullptr;
    CUresult (*cuEventQuery)(CUevent) = nullptr;
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
};

/// The names and meanings of the results staticpy may meet, for a driver whose cuGetErrorName
/// does not answer (the toolkit's stub answers nothing: it is the stub that must be named).
struct result_text {
    CUresult code;
    const char* name;
    const char* meaning;
};
inline constexpr std::array<result_text, 22> known_results{{
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {34, "CUDA_ERROR_STUB_LIBRARY",
     "the CUDA driver library found is the toolkit's stub, not a real driver"},
    {35, "CUDA_ERROR_INSUFFICIENT_DRIVER", "the installed driver is older than the runtime needs"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "the device is busy or unavailable"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for the device"},
    {218, "CUDA_ERROR_INVALID_PTX", "the PTX could not be compiled for the device"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the PTX was made by a newer toolkit than the driver supports"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "a shared object's initialisation failed"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM", "an operating system call failed"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "the kernel module's version does not match the driver library's"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
}};

/// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)": the driver's own words where it
/// gives them, else the table's, else the number.
inline std::string result_words(const driver_api* api, CUresult r) {
    const char* name = nullptr;
    const char* meaning = nullptr;
    if (api && api->cuGetErrorName && api->cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = nullptr;
    if (api && api->cuGetErrorString && api->cuGetErrorString(r, &meaning) != CUDA_SUCCESS)
        meaning = nullptr;
    for (const result_text& t : known_results)
        if (t.code == r) {
            name = name ? name : t.name;
            meaning = meaning ? meaning : t.meaning;
        }
    std::string s = name ? std::string(name) : "CUDA error " + std::to_string(r);
    if (meaning)
        s += std::string(" (") + meaning + ")";
    return s;
}

/// A loaded driver with at least one device, or why there is none.
struct driver_state {
    std::unique_ptr<driver_api> api; // null where CUDA is not available
    std::string unavailable;         // why, where api is null
    int device_count = 0;
    int version = 0; // cuDriverGetVersion: 1000 * major + 10 * minor
};

/// Loads the driver from the first of `candidates` that opens and initialises it. Not cached:
/// driver() below keeps the process's one; tests call this with their own candidates.
inline driver_state load_driver(const std::vector<std::string>& candidates) {
    driver_state st;
    std::string why;
    shared_library lib = shared_library::open_first(candidates, why);
    if (!lib) {
        st.unavailable = "the CUDA driver library could not be loaded (" + why +
                         "); is the NVIDIA driver installed?";
        return st;
    }
    auto api = std::make_unique<driver_api>();
    std::string missing;
    const shared_library& l = lib;
    load_symbol(l, "cuInit", api->cuInit, missing);
    load_symbol(l, "cuDriverGetVersion", api->cuDriverGetVersion, missing);
    load_symbol(l, "cuGetErrorName", api->cuGetErrorName, missing);
    load_symbol(l, "cuGetErrorString", api->cuGetErrorString, missing);
    load_symbol(l, "cuDeviceGetCount", api->cuDeviceGetCount, missing);
    load_symbol(l, "cuDeviceGet", api->cuDeviceGet, missing);
    load_symbol(l, "cuDeviceGetName", api->cuDeviceGetName, missing);
    load_symbol(l, "cuDeviceGetAttribute", api->cuDeviceGetAttribute, missing);
    load_symbol(l, "cuDeviceTotalMem_v2", api->cuDeviceTotalMem_v2, missing);
    load_symbol(l, "cuDevicePrimaryCtxRetain", api->cuDevicePrimaryCtxRetain, missing);
    load_symbol(l, "cuDevicePrimaryCtxRelease_v2", api->cuDevicePrimaryCtxRelease_v2, missing);
    load_symbol(l, "cuCtxSetCurrent", api->cuCtxSetCurrent, missing);
    load_symbol(l, "cuCtxSynchronize", api->cuCtxSynchronize, missing);
    load_symbol(l, "cuModuleLoadData", api->cuModuleLoadData, missing);
    load_symbol(l, "cuModuleUnload", api->cuModuleUnload, missing);
    load_symbol(l, "cuModuleGetFunction", api->cuModuleGetFunction, missing);
    load_symbol(l, "cuLaunchKernel", api->cuLaunchKernel, missing);
    load_symbol(l, "cuMemAlloc_v2", api->cuMemAlloc_v2, missing);
    load_symbol(l, "cuMemFree_v2", api->cuMemFree_v2, missing);
    load_symbol(l, "cuMemAllocHost_v2", api->cuMemAllocHost_v2, missing);
    load_symbol(l, "cuMemFreeHost", api->cuMemFreeHost, missing);
    load_symbol(l, "cuMemcpyHtoD_v2", api->cuMemcpyHtoD_v2, missing);
    load_symbol(l, "cuMemcpyDtoH_v2", api->cuMemcpyDtoH_v2, missing);
    load_symbol(l, "cuMemcpyDtoD_v2", api->cuMemcpyDtoD_v2, missing);
    load_symbol(l, "cuMemcpyHtoDAsync_v2", api->cuMemcpyHtoDAsync_v2, missing);
    load_symbol(l, "cuMemcpyDtoHAsync_v2", api->cuMemcpyDtoHAsync_v2, missing);
    load_symbol(l, "cuMemcpyDtoDAsync_v2", api->cuMemcpyDtoDAsync_v2, missing);
    load_symbol(l, "cuStreamCreate", api->cuStreamCreate, missing);
    load_symbol(l, "cuStreamDestroy_v2", api->cuStreamDestroy_v2, missing);
    load_symbol(l, "cuStreamSynchronize", api->cuStreamSynchronize, missing);
    load_symbol(l, "cuEventCreate", api->cuEventCreate, missing);
    load_symbol(l, "cuEventDestroy_v2", api->cuEventDestroy_v2, missing);
    load_symbol(l, "cuEventRecord", api->cuEventRecord, missing);
    load_symbol(l, "cuEventSynchronize", api->cuEventSynchronize, missing);
    load_symbol(l, "cuEventQuery", api->cuEventQuery, missing);
    load_symbol(l, "cuEventElapsedTime", api->cuEventElapsedTime, missing);
    if (!missing.empty()) {
        st.unavailable =
            lib.path() + " lacks " + missing + " (a driver older than CUDA 11 is not supported)";
        return st;
    }
    if (const CUresult r = api->cuInit(0); r != CUDA_SUCCESS) {
        st.unavailable = "cuInit failed in " + lib.path() + ": " + result_words(api.get(), r);
        return st;
    }
    int count = 0;
    if (const CUresult r = api->cuDeviceGetCount(&count); r != CUDA_SUCCESS) {
        st.unavailable = "cuDeviceGetCount failed: " + result_words(api.get(), r);
        return st;
    }
    if (count <= 0) {
        st.unavailable = "no CUDA device is present (the driver in " + lib.path() + " sees none)";
        return st;
    }
    if (api->cuDriverGetVersion(&st.version) != CUDA_SUCCESS)
        st.version = 0;
    st.device_count = count;
    api->library = std::move(lib);
    st.api = std::move(api);
    return st;
}

/// Where the driver is looked for: $STATICPY_CUDA_DRIVER_LIBRARY where set, else libcuda.so.1 on
/// the loader's path (the driver installs it there; the toolkit's lib64/stubs copy is never
/// searched, since it can only fail).
inline std::vector<std::string> driver_candidates() {
    return library_candidates("STATICPY_CUDA_DRIVER_LIBRARY", {"libcuda.so.1"}, false);
}

/// The process's driver, loaded once (thread-safe), at the first call. It stays loaded until the
/// process ends (never destroyed): static destructors that run later may still use it, and a
/// library unloaded before exit leaves its own allocations unreachable (LeakSanitizer reports
/// NVRTC's that way).
inline const driver_state& process_driver() {
    static const driver_state* const state = new driver_state(load_driver(driver_candidates()));
    return *state;
}

/// The driver's API, or staticpy::RuntimeError "staticpy: CUDA is not available: <why>".
inline const driver_api& driver() {
    const driver_state& st = process_driver();
    if (!st.api)
        throw RuntimeError("staticpy: CUDA is not available: " + st.unavailable);
    return *st.api;
}

/// Throws staticpy::RuntimeError "staticpy: CUDA error: <call> failed: <name> (<meaning>)"
/// unless r is CUDA_SUCCESS.
inline void check(CUresult r, const char* call) {
    if (r != CUDA_SUCCESS)
        throw RuntimeError(std::string("staticpy: CUDA error: ") + call +
                           " failed: " + result_words(process_driver().api.get(), r));
}

/// Device `ordinal`'s handle; RuntimeError "staticpy: CUDA error: invalid device ordinal" (as
/// PyTorch's) where there is no such device.
inline CUdevice device_handle(int ordinal) {
    const driver_api& api = driver();
    const int count = process_driver().device_count;
    if (ordinal < 0 || ordinal >= count)
        throw RuntimeError("staticpy: CUDA error: invalid device ordinal " +
                           std::to_string(ordinal) + " (" + std::to_string(count) +
                           (count == 1 ? " device)" : " devices)"));
    CUdevice d = 0;
    check(api.cuDeviceGet(&d, ordinal), "cuDeviceGet");
    return d;
}

/// Makes device `ordinal`'s primary context (the one the CUDA runtime and PyTorch use, retained
/// once per process) current on the calling thread.
inline void make_current(int ordinal) {
    static std::mutex mutex;
    static std::vector<CUcontext> contexts;
    const CUdevice d = device_handle(ordinal);
    CUcontext ctx = nullptr;
    {
        std::lock_guard lock(mutex);
        contexts.resize(static_cast<std::size_t>(process_driver().device_count), nullptr);
        CUcontext& slot = contexts[static_cast<std::size_t>(ordinal)];
        if (!slot)
            check(driver().cuDevicePrimaryCtxRetain(&slot, d), "cuDevicePrimaryCtxRetain");
        ctx = slot;
    }
    check(driver().cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

} // namespace staticpy::cuda::detail

namespace staticpy::cuda {

/// Whether a CUDA device can be used: a driver loads, initialises and sees a device. Never throws;
/// loads the driver on its first call (torch.cuda.is_available()).
///   if (!staticpy::cuda::is_available()) std::puts("CPU only");
inline bool is_available() noexcept {
    try {
        return detail::process_driver().api != nullptr;
    } catch (...) { // std::bad_alloc while loading: as good as no CUDA
        return false;
    }
}

/// The number of CUDA devices, 0 where CUDA is not available (torch.cuda.device_count()).
///   for (int d = 0; d < staticpy::cuda::device_count(); ++d) ...
inline int device_count() noexcept {
    try {
        return detail::process_driver().device_count;
    } catch (...) {
        return 0;
    }
}

/// Why CUDA is not available, or "" where it is: the text of the error a CUDA use would throw.
///   if (!staticpy::cuda::is_available()) std::puts(staticpy::cuda::unavailable_reason().c_str());
inline std::string unavailable_reason() {
    return detail::process_driver().unavailable;
}

} // namespace staticpy::cuda

namespace staticpy::cuda {

/// The device's name (torch.cuda.get_device_name()).
///   std::puts(staticpy::cuda::get_device_name(0).c_str());   // "NVIDIA H200"
inline std::string get_device_name(int device = 0) {
    const detail::CUdevice d = detail::device_handle(device);
    char name[256] = {};
    detail::check(detail::driver().cuDeviceGetName(name, sizeof name - 1, d), "cuDeviceGetName");
    return name;
}

/// The device's compute capability as (major, minor) (torch.cuda.get_device_capability()).
///   auto [major, minor] = staticpy::cuda::get_device_capability();   // (9, 0) on an H200
inline std::pair<int, int> get_device_capability(int device = 0) {
    const detail::CUdevice d = detail::device_handle(device);
    int major = 0, minor = 0;
    detail::check(detail::driver().cuDeviceGetAttribute(
                      &major, detail::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d),
                  "cuDeviceGetAttribute");
    detail::check(detail::driver().cuDeviceGetAttribute(
                      &minor, detail::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d),
                  "cuDeviceGetAttribute");
    return {major, minor};
}

} // namespace staticpy::cuda
