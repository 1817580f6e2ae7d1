// The CUDA backend's run-time pieces that work without a GPU: loading the driver and NVRTC with
// dlopen (and saying why CUDA is not available), NVRTC's errors, and the disk cache of compiled
// kernels. Label cuda-codegen: they run on the GPU-less build machines; where the CUDA toolkit is
// absent the NVRTC cases say so and check the "not available" path instead.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/backend/cuda/compile.hpp>
#include <staticpy/backend/cuda/driver.hpp>

#include "../test_errors.hpp"
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace staticpy;

namespace {

/// A fresh folder under the build's temporary space, removed at the end of the test.
struct temp_dir {
    fs::path path;
    temp_dir() {
        path = fs::temp_directory_path() /
               ("staticpy_cuda_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    static inline int n = 0;
};

const std::string stub_driver = "/usr/local/cuda/lib64/stubs/libcuda.so";

bool nvrtc_present() {
    return cuda::detail::process_nvrtc().api != nullptr;
}

const std::string good_kernel =
    "extern \"C\" __global__ void twice(float* x, long long n) {\n"
    "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= 2;\n}\n";

} // namespace

TEST_CASE("driver: no libcuda is 'CUDA is not available' with where it looked") {
    const auto st = cuda::detail::load_driver({"/nonexistent/libcuda.so.1"});
    REQUIRE(st.api == nullptr);
    CHECK_THAT(st.unavailable, Catch::Contains("the CUDA driver library could not be loaded") &&
                                   Catch::Contains("/nonexistent/libcuda.so.1"));
}

TEST_CASE("driver: the toolkit's stub libcuda is named by cuInit's error") {
    if (!fs::exists(stub_driver)) {
        WARN("skipped: no CUDA toolkit stub at " << stub_driver);
        return;
    }
    const auto st = cuda::detail::load_driver({stub_driver});
    REQUIRE(st.api == nullptr);
    CHECK_THAT(st.unavailable, Catch::Contains("cuInit failed") &&
                                   Catch::Contains("CUDA_ERROR_STUB_LIBRARY") &&
                                   Catch::Contains("stub"));
}

TEST_CASE("driver: the process's state agrees with is_available, device_count and the error") {
    // On the build machines there is no GPU; on a GPU machine the same test checks the other side.
    if (cuda::is_available()) {
        CHECK(cuda::device_count() >= 1);
        CHECK(cuda::unavailable_reason().empty());
        CHECK_NOTHROW(cuda::detail::driver());
    } else {
        CHECK(cuda::device_count() == 0);
        CHECK_FALSE(cuda::unavailable_reason().empty());
        CHECK(test_errors::error_of<RuntimeError>([] { (void)cuda::detail::driver(); }) ==
              "staticpy: CUDA is not available: " + cuda::unavailable_reason());
    }
}

TEST_CASE("driver: an error result is named, from the table where the driver does not answer") {
    CHECK(cuda::detail::result_words(nullptr, 100) ==
          "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
    CHECK(cuda::detail::result_words(nullptr, 12345) == "CUDA error 12345");
}

TEST_CASE("nvrtc: a missing NVRTC is 'CUDA is not available' with where it looked") {
    const auto st = cuda::detail::load_nvrtc({"/nonexistent/libnvrtc.so.13"});
    REQUIRE(st.api == nullptr);
    CHECK_THAT(st.unavailable, Catch::Contains("NVRTC could not be loaded") &&
                                   Catch::Contains("/nonexistent/libnvrtc.so.13") &&
                                   Catch::Contains("STATICPY_NVRTC_LIBRARY"));
    // A library that is not NVRTC: found, but without its entry points.
    const auto wrong = cuda::detail::load_nvrtc({"libm.so.6"});
    REQUIRE(wrong.api == nullptr);
    CHECK_THAT(wrong.unavailable, Catch::Contains("lacks nvrtcVersion"));
}

TEST_CASE("nvrtc: a kernel compiles to PTX and to a CUBIN") {
    if (!nvrtc_present()) {
        WARN("skipped: " << cuda::detail::process_nvrtc().unavailable);
        return;
    }
    const auto& api = cuda::detail::nvrtc();
    CHECK(api.major >= 11);
    const std::string ptx = cuda::detail::nvrtc_compile(api, good_kernel, "twice.cu",
                                                        {"--gpu-architecture=compute_80"});
    CHECK_THAT(ptx, Catch::Contains(".target sm_80") && Catch::Contains(".entry twice"));
    const std::string cubin =
        cuda::detail::nvrtc_compile(api, good_kernel, "twice.cu", {"--gpu-architecture=sm_90"},
                                    cuda::detail::nvrtc_output::cubin);
    REQUIRE(cubin.size() > 4);
    CHECK(cubin.substr(0, 4) == "\x7f"
                                "ELF");
}

TEST_CASE("nvrtc: a compile error carries NVRTC's log and the dumped source") {
    if (!nvrtc_present()) {
        WARN("skipped: " << cuda::detail::process_nvrtc().unavailable);
        return;
    }
    temp_dir dir;
    ::setenv("STATICPY_CUDA_DUMP_DIR", dir.path.c_str(), 1);
    const std::string bad = "extern \"C\" __global__ void k(float* x) { x[0] = undefined_name; }";
    std::string message;
    try {
        (void)cuda::detail::nvrtc_compile(cuda::detail::nvrtc(), bad, "bad.cu",
                                          {"--gpu-architecture=compute_80"});
    } catch (const RuntimeError& e) {
        message = e.what();
    }
    ::unsetenv("STATICPY_CUDA_DUMP_DIR");
    CHECK_THAT(message, Catch::StartsWith("staticpy: CUDA error: nvrtcCompileProgram failed for "
                                          "bad.cu: NVRTC_ERROR_COMPILATION") &&
                            Catch::Contains("undefined_name") &&
                            Catch::Contains(dir.path.string()));
    std::vector<fs::path> dumped(fs::directory_iterator(dir.path), fs::directory_iterator{});
    REQUIRE(dumped.size() == 1);
    std::ifstream in(dumped[0]);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    CHECK(text == bad);
}

TEST_CASE("kernel cache: a miss stores, a hit loads, and any change of the key misses") {
    temp_dir dir;
    const cuda::kernel_cache cache(dir.path);
    const cuda::kernel_cache_key key{"source", "--opt", "compute_90", "nvrtc 13.0"};
    int compiles = 0;
    auto compile = [&] {
        ++compiles;
        return std::string("compiled\0bytes", 14);
    };
    CHECK(cache.get_or_compile(key, compile) == std::string("compiled\0bytes", 14));
    CHECK(cache.get_or_compile(key, compile) == std::string("compiled\0bytes", 14));
    CHECK(compiles == 1);
    CHECK(cache.hits() == 1);
    CHECK(cache.misses() == 1);
    // A second cache on the same folder (another process's) hits too.
    const cuda::kernel_cache other(dir.path);
    CHECK(other.load(key).has_value());
    for (auto changed : {cuda::kernel_cache_key{"source2", "--opt", "compute_90", "nvrtc 13.0"},
                         cuda::kernel_cache_key{"source", "--opt2", "compute_90", "nvrtc 13.0"},
                         cuda::kernel_cache_key{"source", "--opt", "compute_80", "nvrtc 13.0"},
                         cuda::kernel_cache_key{"source", "--opt", "compute_90", "nvrtc 12.8"}}) {
        CHECK(cache.entry_path(changed) != cache.entry_path(key));
        CHECK_FALSE(cache.load(changed).has_value());
    }
    // No temporary files are left behind.
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir.path)) {
        ++files;
        CHECK(e.path().extension() == ".kernel");
    }
    CHECK(files == 1);
}

TEST_CASE("kernel cache: a damaged or foreign entry is detected, removed and compiled again") {
    temp_dir dir;
    const cuda::kernel_cache cache(dir.path);
    const cuda::kernel_cache_key key{"src", "", "compute_80", "nvrtc 13.0"};
    REQUIRE(cache.store(key, "PTX TEXT"));
    const fs::path path = cache.entry_path(key);
    std::ifstream in(path, std::ios::binary);
    const std::string whole{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    in.close();
    auto rewrite = [&](const std::string& bytes) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << bytes;
    };
    std::vector<std::string> damaged;
    for (std::size_t n : {std::size_t{0}, std::size_t{5}, whole.size() / 2, whole.size() - 1})
        damaged.push_back(whole.substr(0, n)); // truncated
    for (std::size_t at : {std::size_t{3}, whole.size() / 2, whole.size() - 3}) {
        std::string flipped = whole; // one bit flipped
        flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
        damaged.push_back(flipped);
    }
    damaged.push_back(whole + "x"); // overlong
    // Another key's whole entry under this key's name (what a hash collision looks like).
    damaged.push_back(cuda::kernel_cache::encode(
        cuda::detail::key_text({"other", "", "compute_80", "nvrtc 13.0"}), "PTX TEXT"));
    for (const std::string& bytes : damaged) {
        rewrite(bytes);
        int compiles = 0;
        CHECK(cache.get_or_compile(key, [&] {
            ++compiles;
            return std::string("PTX TEXT");
        }) == "PTX TEXT");
        CHECK(compiles == 1);
        CHECK(cache.load(key) == std::optional<std::string>("PTX TEXT")); // rewritten whole
    }
    CHECK(cache.corrupt() == damaged.size());
}

TEST_CASE("kernel cache: two processes storing the same entry leave one whole entry") {
    temp_dir dir;
    const cuda::kernel_cache_key key{"shared source", "", "compute_90", "nvrtc 13.0"};
    const std::string payload(1 << 20, 'p'); // large enough that the writes overlap
    std::vector<pid_t> children;
    for (int c = 0; c < 2; ++c) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            const cuda::kernel_cache cache(dir.path);
            bool ok = true;
            for (int i = 0; i < 20; ++i)
                ok = cache.store(key, payload) && ok;
            ::_exit(ok ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    const cuda::kernel_cache cache(dir.path);
    CHECK(cache.load(key) == std::optional<std::string>(payload));
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path))
        ++files;
    CHECK(files == 1);
}

TEST_CASE("kernel cache: the folder comes from the environment, and an empty one turns it off") {
    ::setenv("STATICPY_KERNEL_CACHE_DIR", "/some/where", 1);
    CHECK(cuda::kernel_cache::default_directory() == fs::path("/some/where"));
    ::setenv("STATICPY_KERNEL_CACHE_DIR", "", 1);
    CHECK(cuda::kernel_cache::default_directory().empty());
    const cuda::kernel_cache off(cuda::kernel_cache::default_directory());
    CHECK_FALSE(off.store({"s", "", "a", "c"}, "x"));
    ::unsetenv("STATICPY_KERNEL_CACHE_DIR");
    ::setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(cuda::kernel_cache::default_directory() == fs::path("/xdg/staticpy/kernels"));
    ::unsetenv("XDG_CACHE_HOME");
}

TEST_CASE("compile_kernels: NVRTC behind the cache, compiled once") {
    if (!nvrtc_present()) {
        CHECK_THAT(test_errors::error_of<RuntimeError>(
                       [] { (void)cuda::compile_kernels(good_kernel, "compute_80"); }),
                   Catch::StartsWith("staticpy: CUDA is not available: "));
        return;
    }
    temp_dir dir;
    const cuda::kernel_cache cache(dir.path);
    const std::string first = cuda::compile_kernels(good_kernel, "compute_80", cache);
    const std::string second = cuda::compile_kernels(good_kernel, "compute_80", cache);
    CHECK(first == second);
    CHECK(cache.misses() == 1);
    CHECK(cache.hits() == 1);
}
