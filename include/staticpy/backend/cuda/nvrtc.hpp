#pragma once
// NVRTC, the CUDA toolkit's run-time compiler, loaded with dlopen at first use (library.hpp): it
// turns the kernels' generated source into PTX (for the driver to finish) or a CUBIN (for one
// architecture), with no CUDA toolkit on the program's compile line.
//
//   auto ptx = staticpy::cuda::detail::nvrtc_compile(source, "kernels.cu",
//   {"--gpu-architecture=compute_90"});
//
// A compile error throws staticpy::RuntimeError with NVRTC's log; where $STATICPY_CUDA_DUMP_DIR is
// set, the failing source is written there first and the message names the file.

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "staticpy/backend/cuda/library.hpp"
#include "staticpy/core/error.hpp"
#include <unistd.h>

// NVRTC's opaque program type, declared where nvrtc.h declares it (the global namespace).
struct _nvrtcProgram;

namespace staticpy::cuda::detail {

using nvrtcResult = int;
using nvrtcProgram = ::_nvrtcProgram*;
inline constexpr nvrtcResult NVRTC_SUCCESS = 0;

struct nvrtc_api {
    shared_library library;
    nvrtcResult (*nvrtcVersion)(int*, int*) = nullptr;
    const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int,
                                      const char* const*, const char* const*) = nullptr;
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*) = nullptr;
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, std::size_t*) = nullptr;
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, std::size_t*) = nullptr;
    nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, std::size_t*) = nullptr;
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*) = nullptr;
    int major = 0, minor = 0; // nvrtcVersion
};

/// A loaded NVRTC, or why there is none.
struct nvrtc_state {
    std::unique_ptr<nvrtc_api> api;
    std::string unavailable;
};

/// Loads NVRTC from the first of `candidates` that opens and has every entry point. Not cached:
/// nvrtc() keeps the process's one; tests call this with their own candidates.
inline nvrtc_state load_nvrtc(const std::vector<std::string>& candidates) {
    nvrtc_state st;
    std::string why;
    shared_library lib = shared_library::open_first(candidates, why);
    if (!lib) {
        st.unavailable = "NVRTC could not be loaded (" + why +
                         "); install the CUDA toolkit or set STATICPY_NVRTC_LIBRARY to its "
                         "libnvrtc.so";
        return st;
    }
    auto api = std::make_unique<nvrtc_api>();
    std::string missing;
    const shared_library& l = lib;
    load_symbol(l, "nvrtcVersion", api->nvrtcVersion, missing);
    load_symbol(l, "nvrtcGetErrorString", api->nvrtcGetErrorString, missing);
    load_symbol(l, "nvrtcCreateProgram", api->nvrtcCreateProgram, missing);
    load_symbol(l, "nvrtcDestroyProgram", api->nvrtcDestroyProgram, missing);
    load_symbol(l, "nvrtcCompileProgram", api->nvrtcCompileProgram, missing);
    load_symbol(l, "nvrtcGetProgramLogSize", api->nvrtcGetProgramLogSize, missing);
    load_symbol(l, "nvrtcGetProgramLog", api->nvrtcGetProgramLog, missing);
    load_symbol(l, "nvrtcGetPTXSize", api->nvrtcGetPTXSize, missing);
    load_symbol(l, "nvrtcGetPTX", api->nvrtcGetPTX, missing);
    load_symbol(l, "nvrtcGetCUBINSize", api->nvrtcGetCUBINSize, missing);
    load_symbol(l, "nvrtcGetCUBIN", api->nvrtcGetCUBIN, missing);
    if (!missing.empty()) {
        st.unavailable =
            lib.path() + " lacks " + missing + " (an NVRTC older than CUDA 11.1 is not supported)";
        return st;
    }
    if (api->nvrtcVersion(&api->major, &api->minor) != NVRTC_SUCCESS) {
        st.unavailable = "nvrtcVersion failed in " + lib.path();
        return st;
    }
    api->library = std::move(lib);
    st.api = std::move(api);
    return st;
}

/// Where NVRTC is looked for: $STATICPY_NVRTC_LIBRARY where set, else the sonames of CUDA 13 and
/// 12 on the loader's path, then in the toolkit's lib64 ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda).
inline std::vector<std::string> nvrtc_candidates() {
    return library_candidates("STATICPY_NVRTC_LIBRARY",
                              {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}, true);
}

/// The process's NVRTC, loaded once at the first call and kept until exit (as process_driver()).
inline const nvrtc_state& process_nvrtc() {
    static const nvrtc_state* const state = new nvrtc_state(load_nvrtc(nvrtc_candidates()));
    return *state;
}

/// The process's NVRTC, or staticpy::RuntimeError "staticpy: CUDA is not available: <why>".
inline const nvrtc_api& nvrtc() {
    const nvrtc_state& st = process_nvrtc();
    if (!st.api)
        throw RuntimeError("staticpy: CUDA is not available: " + st.unavailable);
    return *st.api;
}

/// Writes `source` under $STATICPY_CUDA_DUMP_DIR (where set) and returns the file's path, or "".
inline std::string dump_source(const std::string& source, const std::string& name) {
    const std::string dir = environment("STATICPY_CUDA_DUMP_DIR");
    if (dir.empty())
        return {};
    static std::atomic<unsigned> serial{0};
    const std::string path = dir + "/" + name + "." + std::to_string(::getpid()) + "." +
                             std::to_string(serial++) + ".cu";
    std::ofstream out(path, std::ios::binary);
    out << source;
    out.close();
    return out ? path : std::string();
}

/// What NVRTC makes: PTX (virtual architecture compute_XX, finished by the driver) or a CUBIN
/// (real architecture sm_XX).
enum class nvrtc_output { ptx, cubin };

/// Compiles `source` with NVRTC and the given options; returns the PTX text or the CUBIN bytes.
/// `name` names the program in NVRTC's log and in the dump file.
inline std::string nvrtc_compile(const nvrtc_api& api, const std::string& source,
                                 const std::string& name, const std::vector<std::string>& options,
                                 nvrtc_output output = nvrtc_output::ptx) {
    auto fail = [&](const char* call, nvrtcResult r, const std::string& log) {
        std::string msg = std::string("staticpy: CUDA error: ") + call + " failed for " + name +
                          ": " + api.nvrtcGetErrorString(r);
        if (!log.empty())
            msg += "\n" + log;
        if (const std::string path = dump_source(source, name); !path.empty())
            msg += "\n(the source is in " + path + ")";
        else
            msg += "\n(set STATICPY_CUDA_DUMP_DIR to a folder to keep the failing source)";
        throw RuntimeError(msg);
    };
    nvrtcProgram prog = nullptr;
    if (const nvrtcResult r =
            api.nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
        r != NVRTC_SUCCESS)
        fail("nvrtcCreateProgram", r, {});
    struct destroy {
        const nvrtc_api& api;
        nvrtcProgram& prog;
        ~destroy() { api.nvrtcDestroyProgram(&prog); }
    } destroy_at_exit{api, prog};
    std::vector<const char*> argv;
    argv.reserve(options.size());
    for (const std::string& o : options)
        argv.push_back(o.c_str());
    const nvrtcResult compiled =
        api.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    std::string log;
    if (std::size_t n = 0; api.nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
        log.resize(n);
        if (api.nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS)
            log.clear();
        while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
            log.pop_back();
    }
    if (compiled != NVRTC_SUCCESS)
        fail("nvrtcCompileProgram", compiled, log);
    const bool ptx = output == nvrtc_output::ptx;
    std::size_t size = 0;
    if (const nvrtcResult r =
            ptx ? api.nvrtcGetPTXSize(prog, &size) : api.nvrtcGetCUBINSize(prog, &size);
        r != NVRTC_SUCCESS)
        fail(ptx ? "nvrtcGetPTXSize" : "nvrtcGetCUBINSize", r, log);
    std::string out(size, '\0');
    if (const nvrtcResult r =
            ptx ? api.nvrtcGetPTX(prog, out.data()) : api.nvrtcGetCUBIN(prog, out.data());
        r != NVRTC_SUCCESS)
        fail(ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", r, log);
    if (ptx)
        while (!out.empty() && out.back() == '\0') // the PTX size counts its terminator
            out.pop_back();
    return out;
}

} // namespace staticpy::cuda::detail
