#pragma once
// What the readers (IDX, .npy, CSV) share: a file opened for reading that may be gzip-compressed,
// errors that name the file, and byte order.
//
// zlib is optional: the headers use it when STATICPY_HAS_ZLIB is defined (CMake defines it, and
// links ZLIB::ZLIB, when it finds zlib1g-dev). Without it plain files still read, and a gzip file
// is a RuntimeError that says what is missing, so that the library stays header-only with no
// required link dependency.

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#ifdef STATICPY_HAS_ZLIB
#include <zlib.h>
#endif

#include "staticpy/core/error.hpp"

namespace staticpy::data::detail {

/// Whether staticpy's readers were compiled with zlib (gzip-compressed files).
inline constexpr bool has_zlib =
#ifdef STATICPY_HAS_ZLIB
    true;
#else
    false;
#endif

/// The largest ratio of uncompressed to compressed size deflate can reach (zlib's FAQ: 1032:1).
/// It bounds what a gzip file can hold, so that a corrupt size field fails before allocating.
inline constexpr std::uint64_t max_deflate_ratio = 1032;

/// A file opened for reading, plain or gzip-compressed (told by the magic bytes 1f 8b, not the
/// name). Every error it throws starts with `what` and the file's name, e.g. "IDX file
/// 'train.idx': ...", so that a message read in a log says which file is wrong.
class input_file {
public:
    input_file(const std::filesystem::path& path, std::string_view what)
        : label_(std::string(what) + " '" + path.string() + "'") {
        file_ = std::fopen(path.c_str(), "rb");
        if (file_ == nullptr) {
            // Python's OSError text: "[Errno 2] No such file or directory: 'x'".
            const int e = errno;
            throw RuntimeError("[Errno " + std::to_string(e) + "] " + std::strerror(e) + ": '" +
                               path.string() + "'");
        }
        std::error_code ec;
        size_ = std::filesystem::file_size(path, ec);
        if (ec)
            size_ = 0;
        unsigned char magic[2] = {0, 0};
        const std::size_t got = std::fread(magic, 1, 2, file_);
        gzip_ = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        if (!gzip_) {
            std::rewind(file_);
            return;
        }
        std::fclose(file_);
        file_ = nullptr;
#ifdef STATICPY_HAS_ZLIB
        gz_ = gzopen(path.c_str(), "rb");
        if (gz_ == nullptr)
            throw RuntimeError(label_ + ": cannot open the gzip stream");
        gzbuffer(gz_, 1U << 17); // fewer, larger reads: these files are tens of MB
#else
        throw RuntimeError(label_ +
                           ": the file is gzip-compressed, but staticpy was built without zlib "
                           "(install zlib1g-dev and reconfigure, or define STATICPY_HAS_ZLIB and "
                           "link -lz; or decompress it with gunzip)");
#endif
    }
    input_file(const input_file&) = delete;
    input_file& operator=(const input_file&) = delete;
    ~input_file() {
        if (file_ != nullptr)
            std::fclose(file_);
#ifdef STATICPY_HAS_ZLIB
        if (gz_ != nullptr)
            gzclose(gz_);
#endif
    }

    /// "IDX file 'x.idx'": how messages name the file.
    [[nodiscard]] const std::string& label() const noexcept {
        return label_;
    }
    [[nodiscard]] bool gzip() const noexcept {
        return gzip_;
    }
    /// The size on disk (compressed size for a gzip file).
    [[nodiscard]] std::uint64_t disk_size() const noexcept {
        return size_;
    }

    /// The most bytes the file can still hold from where reading started: exact for a plain file,
    /// the deflate bound for a gzip one.
    [[nodiscard]] std::uint64_t max_content() const noexcept {
        if (!gzip_)
            return size_;
        return size_ > UINT64_MAX / max_deflate_ratio ? UINT64_MAX : size_ * max_deflate_ratio;
    }

    /// Reads up to n bytes into dst; fewer only at the end of the file. A read error or corrupt
    /// gzip data throws.
    std::size_t read(void* dst, std::size_t n) {
        auto* out = static_cast<unsigned char*>(dst);
        std::size_t done = 0;
        if (!gzip_) {
            done = std::fread(out, 1, n, file_);
            if (done < n && std::ferror(file_) != 0)
                throw RuntimeError(label_ + ": read error after " + std::to_string(done) +
                                   " bytes");
            return done;
        }
#ifdef STATICPY_HAS_ZLIB
        while (done < n) {
            const auto chunk = static_cast<unsigned>(std::min<std::size_t>(n - done, 1U << 30));
            const int got = gzread(gz_, out + done, chunk);
            if (got < 0) {
                int code = 0;
                const char* msg = gzerror(gz_, &code);
                throw ValueError(label_ + ": corrupt gzip data (zlib: " + msg + ")");
            }
            if (got == 0)
                break;
            done += static_cast<std::size_t>(got);
        }
        if (done < n) {
            int code = 0;
            const char* msg = gzerror(gz_, &code);
            if (code != Z_OK && code != Z_STREAM_END)
                gz_note_ = std::string(" (zlib: ") + msg + ")";
        }
#endif
        return done;
    }

    /// Why a gzip stream ended early (" (zlib: unexpected end of file)"), for truncation errors.
    [[nodiscard]] const std::string& end_note() const noexcept {
        return gz_note_;
    }

    /// Whether nothing is left to read.
    bool at_end() {
        unsigned char c = 0;
        return read(&c, 1) == 0;
    }

    /// Reads everything left.
    std::string read_all() {
        std::string out;
        if (!gzip_)
            out.reserve(static_cast<std::size_t>(size_));
        char buf[1 << 16];
        while (true) {
            const std::size_t got = read(buf, sizeof buf);
            out.append(buf, got);
            if (got < sizeof buf)
                return out;
        }
    }

    /// Throws E with the file's label: fail<ValueError>("bad magic") → "IDX file 'x': bad magic".
    template <class E = ValueError>
    [[noreturn]] void fail(const std::string& what) const {
        throw E(label_ + ": " + what);
    }

    /// Reads exactly n bytes of a header, or fails with "truncated header".
    void read_header(void* dst, std::size_t n, std::string_view part) {
        const std::size_t got = read(dst, n);
        if (got != n)
            fail("truncated header: expected " + std::to_string(n) + " bytes of " +
                 std::string(part) + ", got " + std::to_string(got) + gz_note_);
    }

    /// Reads exactly `bytes` bytes of data into dst, or fails with "truncated" (the count of
    /// what was there). A plain file too short is caught before reading; a gzip file's bound is
    /// checked so that a corrupt size does not reach the allocator (check_data_size).
    void read_data(void* dst, std::uint64_t bytes) {
        const std::size_t got = read(dst, static_cast<std::size_t>(bytes));
        if (got != bytes)
            fail("truncated: expected " + std::to_string(bytes) + " bytes of data, got " +
                 std::to_string(got) + gz_note_);
    }

    /// Before allocating `bytes` for the data after a header of `header_bytes`: fails when the
    /// file cannot hold them (a plain file shorter than that, or a gzip file beyond the deflate
    /// bound), so that a corrupt size field is an error, not a huge allocation.
    void check_data_size(std::uint64_t bytes, std::uint64_t header_bytes) const {
        if (!gzip_) {
            const std::uint64_t have = size_ > header_bytes ? size_ - header_bytes : 0;
            if (bytes > have)
                fail("truncated: expected " + std::to_string(bytes) + " bytes of data, got " +
                     std::to_string(have));
        } else if (bytes > max_content()) {
            fail("the header asks for " + std::to_string(bytes) +
                 " bytes of data, more than a gzip file of " + std::to_string(size_) +
                 " bytes can hold (truncated or corrupt)");
        }
    }

private:
    std::string label_;
    std::FILE* file_ = nullptr;
#ifdef STATICPY_HAS_ZLIB
    gzFile gz_ = nullptr;
#endif
    bool gzip_ = false;
    std::uint64_t size_ = 0;
    std::string gz_note_;
};

/// A file opened for writing, with errors that name it.
class output_file {
public:
    output_file(const std::filesystem::path& path, std::string_view what)
        : label_(std::string(what) + " '" + path.string() + "'") {
        file_ = std::fopen(path.c_str(), "wb");
        if (file_ == nullptr) {
            const int e = errno;
            throw RuntimeError("[Errno " + std::to_string(e) + "] " + std::strerror(e) + ": '" +
                               path.string() + "'");
        }
    }
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;
    ~output_file() {
        if (file_ != nullptr)
            std::fclose(file_);
    }
    void write(const void* p, std::size_t n) {
        if (n > 0 && std::fwrite(p, 1, n, file_) != n)
            throw RuntimeError(label_ + ": write error");
    }
    /// Flushes and closes, so that a full disk is an error here rather than lost in a destructor.
    void close() {
        std::FILE* f = std::exchange(file_, nullptr);
        if (std::fclose(f) != 0)
            throw RuntimeError(label_ + ": write error on close");
    }

private:
    std::string label_;
    std::FILE* file_ = nullptr;
};

/// Reverses the bytes of each of n elements of `size` bytes in place: the formats' byte order
/// (IDX is big-endian) to the machine's.
inline void swap_bytes(void* data, std::size_t size, std::uint64_t n) {
    if (size <= 1)
        return;
    auto* p = static_cast<unsigned char*>(data);
    for (std::uint64_t i = 0; i < n; ++i, p += size)
        std::reverse(p, p + size);
}

/// `count` elements of `size` bytes each, or false when the product overflows.
inline bool checked_bytes(std::uint64_t count, std::uint64_t size, std::uint64_t& out) {
    if (size != 0 && count > UINT64_MAX / size)
        return false;
    out = count * size;
    return out <= static_cast<std::uint64_t>(SIZE_MAX);
}

} // namespace staticpy::data::detail
