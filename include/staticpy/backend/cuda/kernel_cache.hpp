#pragma once
// The on-disk cache of compiled kernels, so that a program's second start compiles nothing (as
// CuPy's and Jitify's). An entry is keyed by everything that changes the compiler's output: the
// source, the options, the architecture, the compiler's version and staticpy's. Its file name is a
// 128-bit hash of that key; the file holds the key itself too, so a hash collision, a truncated
// write or a flipped byte is detected (and the entry compiled again and rewritten), never loaded.
//
// Where: $STATICPY_KERNEL_CACHE_DIR, else $XDG_CACHE_HOME/staticpy/kernels, else
// ~/.cache/staticpy/kernels; STATICPY_KERNEL_CACHE_DIR set to "" turns the cache off. With
// $STATICPY_KERNEL_CACHE_LOG=1 each hit, miss, corrupt entry and failed write is logged on stderr.
//
//   staticpy::cuda::kernel_cache cache(dir);
//   std::string ptx = cache.get_or_compile(key, [&] { return compile(key.source); });

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "staticpy/backend/cuda/library.hpp"
#include "staticpy/core/config.hpp"
#include <unistd.h>

namespace staticpy::cuda {

/// What a compiled kernel depends on.
struct kernel_cache_key {
    std::string source;
    std::string options;  // the compiler's options, as one text
    std::string arch;     // "compute_90", "sm_90"
    std::string compiler; // "nvrtc 13.0"
};

namespace detail {

/// FNV-1a, 64 bits, from `basis`: two bases give the entry's 128-bit name.
inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t basis) {
    std::uint64_t h = basis;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/// The key as the one text that is hashed and stored in the entry.
inline std::string key_text(const kernel_cache_key& key) {
    std::string s = "staticpy ";
    s += STATICPY_VERSION;
    s += "\n" + key.compiler + "\n" + key.arch + "\n" + key.options + "\n" + key.source;
    return s;
}

inline constexpr std::string_view entry_magic = "STATICPY-KERNEL-CACHE 1\n";

inline void put_u64(std::string& out, std::uint64_t v) {
    char b[8];
    for (int i = 0; i < 8; ++i)
        b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    out.append(b, 8);
}

inline bool get_u64(std::string_view& in, std::uint64_t& v) {
    if (in.size() < 8)
        return false;
    v = 0;
    for (int i = 0; i < 8; ++i)
        v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[i])) << (8 * i);
    in.remove_prefix(8);
    return true;
}

} // namespace detail

/// A folder of compiled kernels shared by every process that uses it.
class kernel_cache {
public:
    /// A cache in `directory` (created at the first store); an empty path is a cache that holds
    /// nothing. `log`: hits, misses and faults on stderr.
    explicit kernel_cache(std::filesystem::path directory, bool log = false)
        : dir_(std::move(directory)), log_(log) {}

    /// The process's cache: the folder and the log switch from the environment (see above).
    static kernel_cache& process() {
        static kernel_cache cache(default_directory(),
                                  detail::environment("STATICPY_KERNEL_CACHE_LOG") == "1");
        return cache;
    }

    /// $STATICPY_KERNEL_CACHE_DIR where set (empty: no cache), else $XDG_CACHE_HOME/staticpy/
    /// kernels, else $HOME/.cache/staticpy/kernels, else no cache.
    static std::filesystem::path default_directory() {
        if (const char* v = std::getenv("STATICPY_KERNEL_CACHE_DIR"))
            return v;
        if (const std::string xdg = detail::environment("XDG_CACHE_HOME"); !xdg.empty())
            return std::filesystem::path(xdg) / "staticpy" / "kernels";
        if (const std::string home = detail::environment("HOME"); !home.empty())
            return std::filesystem::path(home) / ".cache" / "staticpy" / "kernels";
        return {};
    }

    [[nodiscard]] const std::filesystem::path& directory() const noexcept { return dir_; }
    [[nodiscard]] bool enabled() const noexcept { return !dir_.empty(); }

    /// The file that holds `key`'s entry.
    [[nodiscard]] std::filesystem::path entry_path(const kernel_cache_key& key) const {
        const std::string text = detail::key_text(key);
        char name[40];
        std::snprintf(name, sizeof name, "%016llx%016llx.kernel",
                      static_cast<unsigned long long>(detail::fnv1a(text, 0xcbf29ce484222325ULL)),
                      static_cast<unsigned long long>(detail::fnv1a(text, 0x84222325cbf29ce4ULL)));
        return dir_ / name;
    }

    /// The stored compiler output for `key`, or nothing (a miss; a corrupt entry is removed).
    [[nodiscard]] std::optional<std::string> load(const kernel_cache_key& key) const {
        if (!enabled())
            return std::nullopt;
        const std::filesystem::path path = entry_path(key);
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            ++misses_;
            say("miss", path, "");
            return std::nullopt;
        }
        const std::string bytes{std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>()};
        std::string why;
        std::optional<std::string> payload = decode(bytes, detail::key_text(key), why);
        if (!payload) {
            ++corrupt_;
            say("corrupt entry, compiled again", path, why);
            std::error_code ec;
            std::filesystem::remove(path, ec);
            return std::nullopt;
        }
        ++hits_;
        say("hit", path, "");
        return payload;
    }

    /// Stores `payload` as `key`'s entry: written to a temporary file beside it, then renamed over
    /// it, so that a reader sees a whole entry or none, and two processes storing the same entry
    /// leave one whole file. False (and a log line) where the folder cannot be written.
    bool store(const kernel_cache_key& key, std::string_view payload) const {
        if (!enabled())
            return false;
        const std::filesystem::path path = entry_path(key);
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        static std::atomic<unsigned> serial{0};
        std::filesystem::path tmp = path;
        tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
        const std::string bytes = encode(detail::key_text(key), payload);
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            out.close();
            if (!out) {
                std::filesystem::remove(tmp, ec);
                say("cannot write", tmp, std::strerror(errno));
                return false;
            }
        }
        std::filesystem::rename(tmp, path, ec);
        if (ec) {
            say("cannot rename into place", path, ec.message());
            std::filesystem::remove(tmp, ec);
            return false;
        }
        say("stored", path, "");
        return true;
    }

    /// The entry for `key`, or compile()'s result, stored for the next time.
    template <class Compile>
    std::string get_or_compile(const kernel_cache_key& key, Compile&& compile) const {
        if (std::optional<std::string> hit = load(key))
            return std::move(*hit);
        std::string out = compile();
        store(key, out);
        return out;
    }

    /// Counts since construction (the tests' and the benchmarks' way to see a second start
    /// compile nothing).
    [[nodiscard]] unsigned long hits() const noexcept { return hits_; }
    [[nodiscard]] unsigned long misses() const noexcept { return misses_; }
    [[nodiscard]] unsigned long corrupt() const noexcept { return corrupt_; }

    /// The entry's bytes: magic, key, payload, and a checksum of all three.
    static std::string encode(const std::string& key_text, std::string_view payload) {
        std::string out(detail::entry_magic);
        detail::put_u64(out, key_text.size());
        out += key_text;
        detail::put_u64(out, payload.size());
        out += payload;
        detail::put_u64(out, detail::fnv1a(out, 0xcbf29ce484222325ULL));
        return out;
    }

    /// The payload of an entry's bytes, or nothing with `why` where they are not a whole entry for
    /// this key.
    static std::optional<std::string> decode(std::string_view bytes, const std::string& key_text,
                                             std::string& why) {
        std::string_view in = bytes;
        if (!in.starts_with(detail::entry_magic)) {
            why = "not an entry of this staticpy";
            return std::nullopt;
        }
        in.remove_prefix(detail::entry_magic.size());
        std::uint64_t key_size = 0, payload_size = 0, checksum = 0;
        if (!detail::get_u64(in, key_size) || key_size > in.size()) {
            why = "truncated key";
            return std::nullopt;
        }
        if (in.substr(0, key_size) != key_text) {
            why = "its key differs (a hash collision or a damaged key)";
            return std::nullopt;
        }
        in.remove_prefix(key_size);
        if (!detail::get_u64(in, payload_size) || payload_size > in.size()) {
            why = "truncated payload";
            return std::nullopt;
        }
        const std::string_view payload = in.substr(0, payload_size);
        in.remove_prefix(payload_size);
        const std::size_t summed = bytes.size() - in.size();
        if (!detail::get_u64(in, checksum) || !in.empty()) {
            why = "truncated or overlong";
            return std::nullopt;
        }
        if (checksum != detail::fnv1a(bytes.substr(0, summed), 0xcbf29ce484222325ULL)) {
            why = "checksum mismatch";
            return std::nullopt;
        }
        return std::string(payload);
    }

private:
    void say(const char* what, const std::filesystem::path& path, const std::string& why) const {
        if (!log_)
            return;
        std::fprintf(stderr, "staticpy: kernel cache %s: %s%s%s\n", what, path.c_str(),
                     why.empty() ? "" : ": ", why.c_str());
    }

    std::filesystem::path dir_;
    bool log_;
    mutable std::atomic<unsigned long> hits_{0}, misses_{0}, corrupt_{0};
};

} // namespace staticpy::cuda
