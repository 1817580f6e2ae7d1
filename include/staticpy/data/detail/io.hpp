#pragma once
// What the readers (IDX, .npy, CSV) share: a file read forward as a stream, plain or
// gzip-compressed, errors that name the file, and byte order.
//
// The file is read through one buffer and never seeks: the gzip magic is sniffed from that buffer,
// so a pipe or /dev/stdin reads exactly like a file. gzip data goes through zlib's inflate()
// directly rather than gzread(), because gzread() hides the faults that matter: a stream cut short
// reads as a clean end, and a missing CRC/size trailer or garbage after the stream passes. Here a
// damaged stream is always an error; concatenated gzip members (what `gzip` and Python's gzip
// module read as one stream) are the one thing accepted after a member.
//
// Nothing large is allocated for a size a header merely claims: the readers allocate the data of
// a plain file of known size once it is checked against that size, and otherwise grow a buffer as
// the data arrives, so that a 1 MiB file claiming 1 GiB fails after a few MiB.
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
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <sys/stat.h>

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
/// It bounds what a gzip file can hold, so that a corrupt size field fails before reading.
inline constexpr std::uint64_t max_deflate_ratio = 1032;

/// Python's OSError text for errno e and a path: "[Errno 2] No such file or directory: 'x'".
inline std::string os_error_text(int e, const std::filesystem::path& path) {
    return "[Errno " + std::to_string(e) + "] " + std::strerror(e) + ": '" + path.string() + "'";
}

/// A file opened for reading, plain or gzip-compressed (told by the magic bytes 1f 8b, not the
/// name), read forward only. Every error it throws starts with `what` and the file's name, e.g.
/// "IDX file 'train.idx': ...", so that a message read in a log says which file is wrong.
class input_file {
public:
    input_file(const std::filesystem::path& path, std::string_view what)
        : label_(std::string(what) + " '" + path.string() + "'") {
        file_ = std::fopen(path.c_str(), "rb");
        if (file_ == nullptr)
            throw RuntimeError(os_error_text(errno, path));
        // Only a regular file has a size to check against: a pipe, a character device
        // (/dev/stdin, /dev/zero) or a FIFO is read until it ends.
        struct stat st {};
        if (::fstat(::fileno(file_), &st) == 0) {
            if (S_ISDIR(st.st_mode)) { // fopen opens one; Python's open() raises IsADirectoryError
                std::fclose(file_);
                file_ = nullptr;
                throw RuntimeError(os_error_text(EISDIR, path));
            }
            if (S_ISREG(st.st_mode)) {
                regular_ = true;
                size_ = static_cast<std::uint64_t>(st.st_size);
            }
        }
        buffer_ = std::make_unique<unsigned char[]>(buffer_size);
        ensure(2);
        gzip_ = len_ - pos_ >= 2 && buffer_[pos_] == 0x1f && buffer_[pos_ + 1] == 0x8b;
        if (!gzip_)
            return;
#ifdef STATICPY_HAS_ZLIB
        // 16 + MAX_WBITS: gzip framing only (header, deflate data, CRC-32 and size trailer).
        if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
            std::fclose(file_);
            file_ = nullptr;
            throw MemoryError(label_ + ": cannot start zlib's inflate (out of memory)");
        }
        z_ready_ = true;
#else
        std::fclose(file_);
        file_ = nullptr;
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
        if (z_ready_)
            inflateEnd(&z_);
#endif
    }

    /// "IDX file 'x.idx'": how messages name the file.
    [[nodiscard]] const std::string& label() const noexcept {
        return label_;
    }
    [[nodiscard]] bool gzip() const noexcept {
        return gzip_;
    }
    /// The size on disk (compressed size for a gzip file); 0 when it is not a regular file.
    [[nodiscard]] std::uint64_t disk_size() const noexcept {
        return size_;
    }
    /// Whether what is left to read is known exactly: a plain regular file.
    [[nodiscard]] bool exact_size() const noexcept {
        return regular_ && !gzip_;
    }

    /// The most bytes the file can still hold from here: exact for a plain regular file, the
    /// deflate bound for a gzip one, and no bound for a pipe or device.
    [[nodiscard]] std::uint64_t max_content() const noexcept {
        if (!regular_)
            return UINT64_MAX;
        if (!gzip_)
            return size_ > consumed() ? size_ - consumed() : 0;
        return size_ > UINT64_MAX / max_deflate_ratio ? UINT64_MAX : size_ * max_deflate_ratio;
    }

    /// Reads up to n bytes into dst; fewer only at the clean end of the file. A read error, or a
    /// gzip stream that is corrupt, cut short or followed by garbage, throws.
    std::size_t read(void* dst, std::size_t n) {
        if (n == 0) // dst may be null: the data of an empty tensor, or of an empty vector
            return 0;
        auto* out = static_cast<unsigned char*>(dst);
        return gzip_ ? read_gzip(out, n) : read_plain(out, n);
    }

    /// Whether nothing is left to read (for gzip: the last member ended, its trailer checked).
    bool at_end() {
        unsigned char c = 0;
        return read(&c, 1) == 0;
    }

    /// Reads a gzip stream to its end, discarding what is left, so that its CRC and size trailer
    /// are checked even when the format stops reading earlier (a plain file is left as it is).
    void finish() {
        if (!gzip_)
            return;
        unsigned char sink[1 << 14];
        while (read(sink, sizeof sink) == sizeof sink) {}
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
                 std::string(part) + ", got " + std::to_string(got));
    }

    /// Reads exactly `bytes` bytes of data into dst, or fails with "truncated" (the count of
    /// what was there).
    void read_data(void* dst, std::uint64_t bytes) {
        const std::size_t got = read(dst, static_cast<std::size_t>(bytes));
        if (got != bytes)
            fail_truncated(bytes, got);
    }

    /// Reads exactly `bytes` bytes of data into what make() allocates (a Tensor, a vector: any
    /// contiguous buffer of `bytes` bytes with data()), or fails with "truncated". What a header
    /// claims is allocated only once the file has shown it credible: at once for a plain regular
    /// file (check_data_size compared its size), otherwise once an eighth of the bytes has
    /// arrived, into a staging buffer grown by doubling from 1 MiB. So a claim the stream does not
    /// back costs at most about 8 times what did arrive, and a genuine file is inflated straight
    /// into its tensor after its first eighth. MemoryError when memory runs out.
    template <class Make>
    auto read_data_into(std::uint64_t bytes, Make&& make) -> decltype(make()) {
        std::vector<unsigned char> staged;
        std::uint64_t have = 0;
        try {
            const std::uint64_t credible = exact_size() ? 0 : bytes / credible_fraction;
            while (have < credible) {
                const std::uint64_t next = std::min(credible, std::max(have * 2, first_step));
                staged.resize(static_cast<std::size_t>(next));
                const auto want = static_cast<std::size_t>(next - have);
                const std::size_t got = read(staged.data() + have, want);
                have += got;
                if (got != want)
                    fail_truncated(bytes, have);
            }
        } catch (const std::bad_alloc&) {
            fail<MemoryError>("out of memory reading " + std::to_string(bytes) + " bytes of data");
        }
        auto out = allocate(make);
        auto* dst = static_cast<unsigned char*>(static_cast<void*>(out.data()));
        if (have > 0)
            std::memcpy(dst, staged.data(), static_cast<std::size_t>(have));
        staged = {};
        const std::size_t got = read(dst + have, static_cast<std::size_t>(bytes - have));
        if (have + got != bytes)
            fail_truncated(bytes, have + got);
        return out;
    }

    /// Before reading `bytes` of data: fails when the file cannot hold them (a plain file
    /// shorter than that, or a gzip file beyond the deflate bound), so that a corrupt size field
    /// is an error at once. A pipe has no bound: read_data_into stops it as data stops arriving.
    void check_data_size(std::uint64_t bytes) const {
        if (!regular_)
            return;
        if (!gzip_) {
            if (bytes > max_content())
                fail_truncated(bytes, max_content());
        } else if (bytes > max_content()) {
            fail("the header asks for " + std::to_string(bytes) +
                 " bytes of data, more than a gzip file of " + std::to_string(size_) +
                 " bytes can hold (truncated or corrupt)");
        }
    }

    /// Runs make() (which allocates what the header describes) with its failures named after the
    /// file: a size the tensor layer refuses becomes a ValueError about this file, memory running
    /// out a MemoryError about it.
    template <class Make>
    auto allocate(Make&& make) const -> decltype(make()) {
        try {
            return make();
        } catch (const MemoryError& e) {
            fail<MemoryError>(e.what());
        } catch (const std::bad_alloc&) {
            fail<MemoryError>("out of memory");
        } catch (const RuntimeError& e) {
            fail(e.what());
        }
    }

private:
    static constexpr std::size_t buffer_size = std::size_t{1} << 17;
    static constexpr std::uint64_t first_step = std::uint64_t{1} << 20;
    static constexpr std::uint64_t credible_fraction = 8;

    [[noreturn]] void fail_truncated(std::uint64_t bytes, std::uint64_t got) const {
        fail("truncated: expected " + std::to_string(bytes) + " bytes of data, got " +
             std::to_string(got));
    }

    /// Bytes of the file consumed so far (read from it, less what waits in the buffer).
    [[nodiscard]] std::uint64_t consumed() const noexcept {
        return file_pos_ - (len_ - pos_);
    }

    /// Reads from the file into the buffer after what is still unread there (moved to the
    /// front), so that a look-ahead of a few bytes never loses any. False at the end of the file.
    bool refill() {
        if (eof_)
            return false;
        if (pos_ > 0) {
            std::memmove(buffer_.get(), buffer_.get() + pos_, len_ - pos_);
            len_ -= pos_;
            pos_ = 0;
        }
        const std::size_t got = raw_read(buffer_.get() + len_, buffer_size - len_);
        len_ += got;
        return got > 0;
    }
    /// Whether at least n (<= buffer_size) unread bytes are in the buffer, reading more if not.
    bool ensure(std::size_t n) {
        while (len_ - pos_ < n)
            if (!refill())
                return false;
        return true;
    }
    std::size_t raw_read(unsigned char* dst, std::size_t n) {
        errno = 0;
        const std::size_t got = std::fread(dst, 1, n, file_);
        file_pos_ += got;
        if (got < n) {
            if (std::ferror(file_) != 0) {
                const int e = errno;
                fail<RuntimeError>("read error after " + std::to_string(file_pos_) + " bytes" +
                                   (e != 0 ? std::string(": ") + std::strerror(e) : ""));
            }
            eof_ = true;
        }
        return got;
    }

    std::size_t read_plain(unsigned char* out, std::size_t n) {
        std::size_t done = std::min(n, len_ - pos_);
        std::memcpy(out, buffer_.get() + pos_, done);
        pos_ += done;
        if (done == n || eof_)
            return done;
        if (n - done >= buffer_size) // a large read goes straight to its destination
            return done + raw_read(out + done, n - done);
        while (done < n && refill()) {
            const std::size_t k = std::min(n - done, len_ - pos_);
            std::memcpy(out + done, buffer_.get() + pos_, k);
            pos_ += k;
            done += k;
        }
        return done;
    }

    std::size_t read_gzip(unsigned char* out, std::size_t n) {
        std::size_t done = 0;
#ifdef STATICPY_HAS_ZLIB
        while (done < n) {
            if (member_ended_ && !next_member())
                break;
            if (pos_ == len_ && !refill())
                fail("truncated gzip stream: the file ends inside compressed data, after " +
                     std::to_string(inflated_) +
                     " bytes of decompressed data (zlib: unexpected "
                     "end of file)");
            const auto out_chunk = static_cast<uInt>(std::min<std::size_t>(n - done, 1U << 30));
            z_.next_in = buffer_.get() + pos_;
            z_.avail_in = static_cast<uInt>(len_ - pos_);
            z_.next_out = out + done;
            z_.avail_out = out_chunk;
            const int rc = inflate(&z_, Z_NO_FLUSH);
            const std::size_t produced = out_chunk - z_.avail_out;
            pos_ = len_ - z_.avail_in;
            done += produced;
            inflated_ += produced;
            if (rc == Z_STREAM_END) {
                member_ended_ = true;
            } else if (rc == Z_MEM_ERROR) {
                fail<MemoryError>("out of memory inflating gzip data");
            } else if (rc != Z_OK) {
                // Z_DATA_ERROR (bad deflate data, CRC or length), Z_NEED_DICT, or Z_BUF_ERROR,
                // which with input and output space left means inflate cannot go on.
                fail("corrupt gzip data after " + std::to_string(inflated_) +
                     " bytes of decompressed data (zlib: " +
                     (z_.msg != nullptr ? z_.msg : "error " + std::to_string(rc)) + ")");
            }
        }
#else
        (void)out;
        (void)n;
#endif
        return done;
    }

#ifdef STATICPY_HAS_ZLIB
    /// After a member's trailer: the end of the file, or another member (concatenated gzip, as
    /// `cat a.gz b.gz` makes); anything else is an error.
    bool next_member() {
        if (!ensure(1))
            return false;
        if (!ensure(2) || buffer_[pos_] != 0x1f || buffer_[pos_ + 1] != 0x8b)
            fail("unexpected data after the end of the gzip stream, at byte " +
                 std::to_string(consumed()) +
                 " of the file: not another gzip member (corrupt, or not one gzip stream)");
        if (inflateReset(&z_) != Z_OK)
            fail("cannot restart zlib's inflate for the next gzip member");
        member_ended_ = false;
        return true;
    }

    z_stream z_{};
    bool z_ready_ = false;
    bool member_ended_ = false;
    std::uint64_t inflated_ = 0; // decompressed bytes delivered
#endif

    std::string label_;
    std::FILE* file_ = nullptr;
    std::unique_ptr<unsigned char[]> buffer_;
    std::size_t pos_ = 0;        // next unread byte in buffer_
    std::size_t len_ = 0;        // bytes in buffer_
    std::uint64_t file_pos_ = 0; // bytes read from the file
    std::uint64_t size_ = 0;     // of a regular file
    bool regular_ = false;
    bool gzip_ = false;
    bool eof_ = false;
};

/// A file opened for writing, with errors that name it.
class output_file {
public:
    output_file(const std::filesystem::path& path, std::string_view what)
        : label_(std::string(what) + " '" + path.string() + "'") {
        file_ = std::fopen(path.c_str(), "wb");
        if (file_ == nullptr)
            throw RuntimeError(os_error_text(errno, path));
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
