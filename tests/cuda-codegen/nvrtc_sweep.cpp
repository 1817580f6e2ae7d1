// Every kernel the emulated-device tests generated, through the real NVRTC and ptxas.
//
// The emulated-device tests (emulated_*_test.cpp) run graphs, their derivatives, nn models and
// their training steps, the optimisers and the eager ops on GPU tensors: each kernel source
// staticpy generates there goes through the stand-in NVRTC, which keeps it beside the library it
// makes (fake_nvrtc.cpp), in the tests' shared kernel folder. This program takes every source
// found there and compiles it as a GPU machine would: NVRTC to PTX for compute capabilities 8.0
// and 9.0, each `extern "C" __global__` kernel of the source an entry of the PTX, and ptxas
// accepts that PTX. So the kernels the tests check on the host are the kernels checked for the
// device, not a chosen set (kernels_test.cpp compiles its own).
//
//   nvrtc_sweep <kernel folder> <ptxas or "">
//
// Exit status 0: every source compiled; 1: a problem, each printed with its file; 77 (CTest's
// skip): no NVRTC, and why. CTest runs it after the emulated-device tests (the fixture
// staticpy_emulated_kernels, tests/CMakeLists.txt), label cuda-codegen. Built without the
// sanitizers (tests/cuda-codegen/CMakeLists.txt): its work is NVRTC's and ptxas's, which
// AddressSanitizer slows 2.4 times and does not check.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <staticpy/backend/cuda/compile.hpp>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace staticpy;

namespace {

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The names of the source's `extern "C" __global__ void NAME(` kernels.
std::vector<std::string> kernel_entries(const std::string& source) {
    static const std::string marker = "extern \"C\" __global__ void ";
    std::vector<std::string> names;
    for (std::size_t at = source.find(marker); at != std::string::npos;
         at = source.find(marker, at + 1)) {
        const std::size_t begin = at + marker.size();
        names.push_back(source.substr(begin, source.find('(', begin) - begin));
    }
    return names;
}

/// What is wrong with `source` compiled for compute_`arch` and checked by `ptxas` (none when
/// empty) for sm_`arch`: "" when nothing is. `scratch` is a file this call may write.
std::string compile_problem(const std::string& source, const std::string& arch,
                            const std::string& ptxas, const fs::path& scratch) {
    const cuda::kernel_cache no_cache{fs::path()};
    std::string ptx;
    try {
        ptx = cuda::compile_kernels(source, "compute_" + arch, no_cache);
    } catch (const std::exception& e) {
        return std::string("NVRTC: ") + e.what();
    }
    if (ptx.find(".target sm_" + arch) == std::string::npos)
        return "the PTX does not target sm_" + arch;
    const std::vector<std::string> entries = kernel_entries(source);
    if (entries.empty())
        return "the source has no extern \"C\" __global__ kernel";
    for (const std::string& entry : entries)
        if (ptx.find(".entry " + entry) == std::string::npos)
            return "the PTX has no entry " + entry;
    if (ptxas.empty())
        return "";
    {
        std::ofstream out(scratch, std::ios::binary);
        out << ptx;
    }
    const fs::path log = scratch.string() + ".log";
    const std::string command = ptxas + " -arch=sm_" + arch + " " + scratch.string() +
                                " -o /dev/null > " + log.string() + " 2>&1";
    if (std::system(command.c_str()) != 0)
        return "ptxas -arch=sm_" + arch + ": " + read(log);
    return "";
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: nvrtc_sweep <kernel folder> <ptxas or \"\">\n");
        return 2;
    }
    const fs::path folder = argv[1];
    const std::string ptxas = argv[2];
    if (!cuda::detail::process_nvrtc().api) {
        std::printf("skipped: NVRTC is not available: %s\n",
                    cuda::detail::process_nvrtc().unavailable.c_str());
        return 77;
    }
    if (ptxas.empty())
        std::printf("ptxas part skipped: no CUDA toolkit found by CMake\n");

    std::vector<fs::path> sources;
    std::error_code listing;
    for (const auto& entry : fs::directory_iterator(folder, listing))
        if (entry.path().extension() == ".cu")
            sources.push_back(entry.path());
    std::sort(sources.begin(), sources.end());
    // The emulated-device tests run first (CTest's fixture); no source there means they did not.
    if (sources.size() < 50) {
        std::printf("FAILED: %zu kernel sources in %s (the emulated-device tests leave ~150 "
                    "there: did they run?)\n",
                    sources.size(), folder.c_str());
        return 1;
    }

    // Two workers (the build machines' cores: CTest starts this after the tests it needs), each
    // taking the next source.
    const fs::path scratch =
        fs::temp_directory_path() / ("staticpy_nvrtc_sweep_" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    std::vector<std::string> problems(sources.size());
    std::atomic<std::size_t> next = 0, entries = 0;
    auto work = [&](int worker) {
        for (std::size_t i = next++; i < sources.size(); i = next++) {
            const std::string source = read(sources[i]);
            entries += kernel_entries(source).size();
            for (const char* arch : {"80", "90"}) {
                const std::string problem = compile_problem(
                    source, arch, ptxas, scratch / ("w" + std::to_string(worker) + ".ptx"));
                if (!problem.empty())
                    problems[i] += std::string("compute_") + arch + ": " + problem + "\n";
            }
        }
    };
    std::thread helper(work, 1);
    work(0);
    helper.join();
    fs::remove_all(scratch);

    std::size_t failed = 0;
    for (std::size_t i = 0; i < sources.size(); ++i)
        if (!problems[i].empty()) {
            ++failed;
            std::printf("FAILED: %s\n%s\n", sources[i].c_str(), problems[i].c_str());
        }
    std::printf("%zu kernel sources (%zu kernels) compiled by NVRTC for compute_80 and "
                "compute_90%s: %zu failed\n",
                sources.size(), entries.load(), ptxas.empty() ? "" : ", PTX checked by ptxas",
                failed);
    return failed == 0 ? 0 : 1;
}
