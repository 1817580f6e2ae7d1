#pragma once
// Test data files, written at test time into a private temporary directory (nothing binary is
// committed): IDX files of every type, plain or gzip-compressed, and raw bytes.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <staticpy/tensor/tensor.hpp>

#include "../test_errors.hpp"
#include <unistd.h>

#ifdef STATICPY_HAS_ZLIB
#include <zlib.h>
#endif

namespace test_files {

/// A directory of its own per process (CTest runs test cases as parallel processes), removed at
/// the end.
class temp_dir {
public:
    explicit temp_dir(const std::string& name)
        : path_(std::filesystem::temp_directory_path() /
                ("staticpy_" + name + "_" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    [[nodiscard]] std::filesystem::path operator/(const std::string& file) const {
        return path_ / file;
    }
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

using bytes = std::vector<unsigned char>;

using test_errors::error_of;

/// A tensor's elements in row-major order, whatever its strides.
template <class T, class S>
std::vector<T> values(const staticpy::Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<T>(c.data(), c.data() + c.numel());
}

inline bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

inline void write_file(const std::filesystem::path& p, const bytes& b) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    if (!f)
        throw std::runtime_error("cannot write " + p.string());
}

inline void write_text(const std::filesystem::path& p, const std::string& s) {
    write_file(p, bytes(s.begin(), s.end()));
}

inline bytes read_file(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

#ifdef STATICPY_HAS_ZLIB
inline void write_gz(const std::filesystem::path& p, const bytes& b) {
    gzFile f = gzopen(p.c_str(), "wb");
    if (f == nullptr)
        throw std::runtime_error("cannot write " + p.string());
    if (!b.empty())
        gzwrite(f, b.data(), static_cast<unsigned>(b.size()));
    gzclose(f);
}

/// b as one gzip member in memory, at zlib's `level` (0 stores the data uncompressed, so that a
/// cut at a known offset leaves a known prefix of it).
inline bytes gzip_bytes(const bytes& b, int level = Z_DEFAULT_COMPRESSION) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2 failed");
    bytes out(deflateBound(&z, static_cast<uLong>(b.size())) + 64);
    z.next_in = const_cast<unsigned char*>(b.data());
    z.avail_in = static_cast<uInt>(b.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw std::runtime_error("deflate failed");
    return out;
}
#endif

/// Appends v's bytes, big-endian.
template <class V>
void put_be(bytes& out, V v) {
    unsigned char raw[sizeof(V)];
    std::memcpy(raw, &v, sizeof(V));
    for (std::size_t i = sizeof(V); i-- > 0;)
        out.push_back(raw[i]); // the test machines are little-endian (x86-64)
}

/// An IDX file's bytes: magic (0, 0, type, ndim), big-endian uint32 dims, then `data`.
inline bytes idx_bytes(unsigned char type, const std::vector<std::uint32_t>& dims,
                       const bytes& data) {
    bytes out{0, 0, type, static_cast<unsigned char>(dims.size())};
    for (std::uint32_t d : dims)
        put_be(out, d);
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

/// A .npy file with the given version and header text (padded as numpy pads) and data.
inline bytes npy_file(int major, std::string header, const bytes& data) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    bytes out{0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(major), 0};
    const std::size_t n = header.size();
    out.push_back(static_cast<unsigned char>(n & 0xFF));
    out.push_back(static_cast<unsigned char>((n >> 8) & 0xFF));
    if (major != 1) {
        out.push_back(static_cast<unsigned char>((n >> 16) & 0xFF));
        out.push_back(static_cast<unsigned char>(n >> 24));
    }
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

/// values as big-endian elements of V.
template <class V, class Src>
bytes be_data(const std::vector<Src>& values) {
    bytes out;
    for (Src v : values)
        put_be(out, static_cast<V>(v));
    return out;
}

} // namespace test_files
