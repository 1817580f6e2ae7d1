// A stand-in for NVRTC (libnvrtc.so) that compiles kernel source for the host: the source, each
// `extern "C" __global__` kernel given an emulation entry point (STATICPY_EMULATE), is compiled by
// the host compiler into a shared library with the emulation layer (cuda_host_emulation.hpp)
// included first, and the "PTX" it returns names that library. The stand-in driver
// (fake_libcuda.cpp) loads such an image and runs its kernels over their grids, so that the CUDA
// backend's whole path (source, compile, cache, module, launch, device memory) runs, and its
// results can be checked, on a machine without a GPU. Loaded through STATICPY_NVRTC_LIBRARY.
//
// Built with FAKE_NVRTC_CXX (the host compiler) and FAKE_NVRTC_EMULATION (the emulation header).
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

struct _nvrtcProgram {
    std::string source, name, log, image;
};

namespace {
constexpr int success = 0, compilation_failed = 6, invalid_input = 3;

/// The libraries made, removed at exit (a loaded one stays mapped until then anyway).
std::mutex made_mutex;
std::vector<std::string>* made = nullptr;
void remove_made() {
    for (const std::string& path : *made)
        std::remove(path.c_str());
}

/// The names of the source's `extern "C" __global__ void NAME(` kernels.
std::string emulation_entries(const std::string& source) {
    static const std::string marker = "extern \"C\" __global__ void ";
    std::string entries;
    for (std::size_t at = source.find(marker); at != std::string::npos;
         at = source.find(marker, at + 1)) {
        const std::size_t begin = at + marker.size();
        const std::size_t end = source.find('(', begin);
        entries += "STATICPY_EMULATE(" + source.substr(begin, end - begin) + ")\n";
    }
    return entries;
}
} // namespace

extern "C" {

int nvrtcVersion(int* major, int* minor) {
    *major = 99; // no real NVRTC's: a cache entry of this one is never taken for a real one's
    *minor = 0;
    return success;
}
const char* nvrtcGetErrorString(int r) {
    return r == success ? "NVRTC_SUCCESS" : "NVRTC_ERROR_COMPILATION (fake NVRTC)";
}
int nvrtcCreateProgram(_nvrtcProgram** prog, const char* source, const char* name, int,
                       const char* const*, const char* const*) {
    if (prog == nullptr || source == nullptr)
        return invalid_input;
    *prog = new _nvrtcProgram{source, name ? name : "program", {}, {}};
    return success;
}
int nvrtcDestroyProgram(_nvrtcProgram** prog) {
    delete *prog;
    *prog = nullptr;
    return success;
}
int nvrtcCompileProgram(_nvrtcProgram* prog, int, const char* const*) {
    static std::atomic<int> serial = 0;
    // $STATICPY_FAKE_NVRTC_OUTPUT_DIR keeps the libraries made (a kernel cache's entries name
    // them, for the processes that come after); else they go to /tmp and are removed at exit.
    const char* output_dir = std::getenv("STATICPY_FAKE_NVRTC_OUTPUT_DIR");
    const bool keep = output_dir != nullptr && *output_dir != '\0';
    const std::string stem = (keep ? std::string(output_dir) : std::string("/tmp")) +
                             "/staticpy_fake_nvrtc_" + std::to_string(::getpid()) + "_" +
                             std::to_string(serial++);
    {
        std::ofstream out(stem + ".cpp");
        out << prog->source << "\n" << emulation_entries(prog->source);
    }
    const std::string command =
        std::string(FAKE_NVRTC_CXX) + " -std=c++20 -O0 -w -pthread -shared -fPIC -include " +
        FAKE_NVRTC_EMULATION + " " + stem + ".cpp -o " + stem + ".so > " + stem + ".log 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream log(stem + ".log");
    std::stringstream text;
    text << log.rdbuf();
    prog->log = text.str();
    std::remove((stem + ".log").c_str());
    std::remove((stem + ".cpp").c_str());
    // A kept library keeps its source beside it, as the kernel was given: the real NVRTC's sweep
    // (nvrtc_sweep_test.cpp) compiles every kernel the emulated-device tests made.
    if (keep && status == 0) {
        std::ofstream source(stem + ".cu");
        source << prog->source;
    }
    if (status != 0)
        return compilation_failed;
    if (!keep) {
        std::lock_guard lock(made_mutex);
        if (made == nullptr) {
            made = new std::vector<std::string>;
            std::atexit(remove_made);
        }
        made->push_back(stem + ".so");
    }
    prog->image = "//staticpy-emulation " + stem + ".so\n";
    return success;
}
int nvrtcGetProgramLogSize(_nvrtcProgram* prog, std::size_t* n) {
    *n = prog->log.size() + 1;
    return success;
}
int nvrtcGetProgramLog(_nvrtcProgram* prog, char* out) {
    std::memcpy(out, prog->log.c_str(), prog->log.size() + 1);
    return success;
}
int nvrtcGetPTXSize(_nvrtcProgram* prog, std::size_t* n) {
    *n = prog->image.size() + 1;
    return success;
}
int nvrtcGetPTX(_nvrtcProgram* prog, char* out) {
    std::memcpy(out, prog->image.c_str(), prog->image.size() + 1);
    return success;
}
int nvrtcGetCUBINSize(_nvrtcProgram* prog, std::size_t* n) {
    return nvrtcGetPTXSize(prog, n);
}
int nvrtcGetCUBIN(_nvrtcProgram* prog, char* out) {
    return nvrtcGetPTX(prog, out);
}

} // extern "C"
