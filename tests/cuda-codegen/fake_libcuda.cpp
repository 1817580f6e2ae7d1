// A stand-in for the CUDA driver (libcuda.so.1) with one "device" whose memory is host memory:
// what the tests of the CUDA backend's host side load (through STATICPY_CUDA_DRIVER_LIBRARY) to
// take the paths a machine with a GPU takes: the driver found and initialised, a device present,
// contexts, device and pinned allocations, copies, streams and events. It runs the kernels the
// stand-in NVRTC (fake_nvrtc.cpp) makes: their "PTX" names a shared library of the kernel source
// compiled for the host with the emulation layer (cuda_host_emulation.hpp), which cuModuleLoadData
// opens and cuLaunchKernel calls over the grid. Any other image is refused
// (CUDA_ERROR_INVALID_IMAGE).
//
// Each entry point has the driver's ABI and, for UBSan's check of calls through function pointers,
// the very types staticpy declares (cuda.h's: opaque handle structs in the global namespace).
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include <dlfcn.h>

struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace {
constexpr int success = 0, invalid_value = 1, out_of_memory = 2, not_initialized = 3,
              invalid_device = 101, invalid_image = 200;
bool initialised = false;
std::mutex mutex;
std::set<unsigned long long> device_blocks; // what cuMemAlloc handed out and not yet freed
std::size_t device_used = 0;
constexpr std::size_t device_capacity = std::size_t{64} << 20; // 64 MiB
struct fake_event {
    std::chrono::steady_clock::time_point at;
};
} // namespace

extern "C" {

int cuInit(unsigned flags) {
    if (flags != 0)
        return invalid_value;
    initialised = true;
    return success;
}
int cuDriverGetVersion(int* v) {
    *v = 13000;
    return success;
}
int cuGetErrorName(int, const char** s) {
    *s = "FAKE_CUDA_ERROR";
    return success;
}
int cuGetErrorString(int, const char** s) {
    *s = "an error of the fake driver";
    return success;
}
int cuDeviceGetCount(int* n) {
    if (!initialised)
        return not_initialized;
    *n = 1;
    return success;
}
int cuDeviceGet(int* d, int ordinal) {
    if (ordinal != 0)
        return invalid_device;
    *d = 0;
    return success;
}
int cuDeviceGetName(char* name, int len, int dev) {
    if (dev != 0)
        return invalid_device;
    std::strncpy(name, "staticpy fake GPU", static_cast<std::size_t>(len));
    return success;
}
int cuDeviceGetAttribute(int* v, int attribute, int dev) {
    if (dev != 0)
        return invalid_device;
    switch (attribute) {
    case 1:
        *v = 64;
        return success; // max threads per block: small blocks keep the emulation quick
    case 39:
        *v = 128;
        return success; // max threads per multiprocessor: two blocks each
    case 16:
        *v = 4;
        return success; // multiprocessors
    case 75:
        *v = 9;
        return success; // compute capability major
    case 76:
        *v = 0;
        return success; // minor
    default:
        *v = 0;
        return success;
    }
}
int cuDeviceTotalMem_v2(std::size_t* bytes, int dev) {
    if (dev != 0)
        return invalid_device;
    *bytes = device_capacity;
    return success;
}
int cuDevicePrimaryCtxRetain(CUctx_st** ctx, int dev) {
    if (dev != 0)
        return invalid_device;
    static int context_token = 0;
    *ctx = reinterpret_cast<CUctx_st*>(&context_token);
    return success;
}
int cuDevicePrimaryCtxRelease_v2(int) {
    return success;
}
int cuCtxSetCurrent(CUctx_st*) {
    return success;
}
int cuCtxSynchronize() {
    return success;
}
int cuModuleLoadData(CUmod_st** module, const void* image) {
    static const std::string prefix = "//staticpy-emulation ";
    const std::string text(static_cast<const char*>(image));
    if (text.compare(0, prefix.size(), prefix) != 0)
        return invalid_image;
    std::string path = text.substr(prefix.size());
    while (!path.empty() && (path.back() == '\n' || path.back() == '\0'))
        path.pop_back();
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
        return invalid_image;
    *module = reinterpret_cast<CUmod_st*>(handle);
    return success;
}
int cuModuleUnload(CUmod_st* module) {
    if (module != nullptr)
        ::dlclose(reinterpret_cast<void*>(module));
    return success;
}
int cuModuleGetFunction(CUfunc_st** f, CUmod_st* module, const char* name) {
    void* entry =
        ::dlsym(reinterpret_cast<void*>(module), (std::string("emulate_") + name).c_str());
    if (entry == nullptr)
        return 500; // CUDA_ERROR_NOT_FOUND
    *f = reinterpret_cast<CUfunc_st*>(entry);
    return success;
}
/// Runs the kernel's emulation over the grid (x by y blocks of block_x threads) before returning:
/// every launch is synchronous here.
int cuLaunchKernel(CUfunc_st* f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                   unsigned block_x, unsigned block_y, unsigned block_z, unsigned, CUstream_st*,
                   void** params, void**) {
    if (grid_z != 1 || block_y != 1 || block_z != 1 || grid_x == 0 || grid_y == 0 || block_x == 0 ||
        block_x > 1024)
        return invalid_value;
    using entry = void(unsigned, unsigned, unsigned, void**);
    reinterpret_cast<entry*>(reinterpret_cast<void*>(f))(grid_x, grid_y, block_x, params);
    return success;
}
int cuMemAlloc_v2(unsigned long long* p, std::size_t bytes) {
    std::lock_guard lock(mutex);
    if (device_used + bytes > device_capacity)
        return out_of_memory;
    void* q = std::malloc(bytes);
    if (!q)
        return out_of_memory;
    *p = reinterpret_cast<unsigned long long>(q);
    device_blocks.insert(*p);
    device_used += bytes;
    return success;
}
int cuMemFree_v2(unsigned long long p) {
    std::lock_guard lock(mutex);
    if (device_blocks.erase(p) == 0)
        return invalid_value;
    // the fake does not track sizes per block: capacity is only checked on the way up
    std::free(reinterpret_cast<void*>(p));
    return success;
}
int cuMemAllocHost_v2(void** p, std::size_t bytes) { // page-aligned, as the driver's
    *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096 + (bytes == 0 ? 4096 : 0));
    return *p ? success : out_of_memory;
}
int cuMemFreeHost(void* p) {
    std::free(p);
    return success;
}
int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, std::size_t n) {
    std::memcpy(reinterpret_cast<void*>(dst), src, n);
    return success;
}
int cuMemcpyDtoH_v2(void* dst, unsigned long long src, std::size_t n) {
    std::memcpy(dst, reinterpret_cast<const void*>(src), n);
    return success;
}
int cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, std::size_t n) {
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
    return success;
}
int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void* src, std::size_t n, CUstream_st*) {
    return cuMemcpyHtoD_v2(dst, src, n);
}
int cuMemcpyDtoHAsync_v2(void* dst, unsigned long long src, std::size_t n, CUstream_st*) {
    return cuMemcpyDtoH_v2(dst, src, n);
}
int cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, std::size_t n,
                         CUstream_st*) {
    return cuMemcpyDtoD_v2(dst, src, n);
}
int cuStreamCreate(CUstream_st** s, unsigned) {
    static int stream_token = 0;
    *s = reinterpret_cast<CUstream_st*>(&stream_token);
    return success;
}
int cuStreamDestroy_v2(CUstream_st*) {
    return success;
}
int cuStreamSynchronize(CUstream_st*) {
    return success;
}
int cuEventCreate(CUevent_st** e, unsigned) {
    *e = reinterpret_cast<CUevent_st*>(new fake_event{});
    return success;
}
int cuEventDestroy_v2(CUevent_st* e) {
    delete reinterpret_cast<fake_event*>(e);
    return success;
}
int cuEventRecord(CUevent_st* e, CUstream_st*) {
    reinterpret_cast<fake_event*>(e)->at = std::chrono::steady_clock::now();
    return success;
}
int cuEventSynchronize(CUevent_st*) {
    return success;
}
int cuEventQuery(CUevent_st*) { // the stand-in's copies are done when they return
    return success;
}
int cuEventElapsedTime(float* ms, CUevent_st* start, CUevent_st* end) {
    *ms = std::chrono::duration<float, std::milli>(reinterpret_cast<fake_event*>(end)->at -
                                                   reinterpret_cast<fake_event*>(start)->at)
              .count();
    return success;
}

} // extern "C"
