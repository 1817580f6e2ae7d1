#pragma once
// Loading the CUDA libraries (the driver's libcuda, the toolkit's NVRTC) with dlopen at first use,
// so that a program built with plain g++ or clang++ and no CUDA on its compile or link line runs on
// a machine without them, as PyTorch's lazy NVRTC stub and Jitify do. A library is looked up by
// the candidates given, in order: an environment variable's path (a user's override, and the tests'
// way to point at a missing or a stub library), sonames on the loader's path, then the toolkit's
// folders ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda), since the toolkit's lib64 is not on the
// loader's path of a default install.

#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <dlfcn.h>

namespace staticpy::cuda::detail {

/// An open shared library; closed when the last owner goes. Move-only.
class shared_library {
public:
    shared_library() = default;
    shared_library(const shared_library&) = delete;
    shared_library& operator=(const shared_library&) = delete;
    shared_library(shared_library&& o) noexcept
        : handle_(std::exchange(o.handle_, nullptr)), path_(std::move(o.path_)) {}
    shared_library& operator=(shared_library&& o) noexcept {
        if (this != &o) {
            close();
            handle_ = std::exchange(o.handle_, nullptr);
            path_ = std::move(o.path_);
        }
        return *this;
    }
    ~shared_library() { close(); }

    /// Opens the first candidate that loads. On failure the result is empty and `why` lists each
    /// candidate with dlerror()'s reason, so that "not found" says where it looked.
    static shared_library open_first(const std::vector<std::string>& candidates, std::string& why) {
        shared_library lib;
        why.clear();
        for (const std::string& path : candidates) {
            // RTLD_LOCAL: the CUDA symbols stay out of the program's namespace (a program that also
            // links the toolkit's libraries keeps its own).
            if (void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
                lib.handle_ = h;
                lib.path_ = path;
                return lib;
            }
            const char* err = ::dlerror();
            why += why.empty() ? "" : "; ";
            why += err ? err : (path + ": cannot be loaded");
        }
        if (candidates.empty())
            why = "no library to try";
        return lib;
    }

    explicit operator bool() const noexcept { return handle_ != nullptr; }
    /// The candidate that loaded.
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    /// The address of `name` as a pointer to function type F, or nullptr where the library lacks
    /// it.
    template <class F>
    [[nodiscard]] F* symbol(const char* name) const noexcept {
        static_assert(std::is_function_v<F>);
        if (!handle_)
            return nullptr;
        void* p = ::dlsym(handle_, name);
        // POSIX guarantees that dlsym's object pointer converts to a function pointer.
        return reinterpret_cast<F*>(p);
    }

private:
    void close() noexcept {
        if (handle_)
            ::dlclose(handle_);
        handle_ = nullptr;
    }
    void* handle_ = nullptr;
    std::string path_;
};

/// Sets `slot` to `name`'s address in `lib`; where it is missing, appends the name to `missing`
/// (a library's entry points are all loaded, then the missing ones named at once).
template <class F>
bool load_symbol(const shared_library& lib, const char* name, F*& slot, std::string& missing) {
    slot = lib.template symbol<F>(name);
    if (!slot)
        missing += missing.empty() ? name : std::string(", ") + name;
    return slot != nullptr;
}

/// The value of environment variable `name`, or "" where it is unset.
inline std::string environment(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

/// The candidates for a library: $<override_variable> alone where it is set (a user who names a
/// file means that file); else `sonames` on the loader's path, then each soname in the toolkit's
/// lib64 folders ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda).
inline std::vector<std::string> library_candidates(const char* override_variable,
                                                   const std::vector<std::string>& sonames,
                                                   bool search_toolkit) {
    if (std::string path = environment(override_variable); !path.empty())
        return {path};
    std::vector<std::string> out = sonames;
    if (search_toolkit) {
        std::vector<std::string> roots;
        for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
            if (std::string root = environment(var); !root.empty())
                roots.push_back(root);
        roots.emplace_back("/usr/local/cuda");
        for (const std::string& root : roots)
            for (const std::string& soname : sonames)
                out.push_back(root + "/lib64/" + soname);
    }
    return out;
}

} // namespace staticpy::cuda::detail
