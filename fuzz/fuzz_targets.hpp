#pragma once
// The fuzz targets of staticpy's readers: one function per target, taking libFuzzer's input
// (data, size) and returning what the read did. The libFuzzer entry points (fuzz_main.cpp) and
// the Catch2 replay test (tests/data/fuzz_regressions_test.cpp) call these same functions, so a
// crash the fuzzer finds replays as an ordinary test with nothing rewritten.
//
// A target catches staticpy::Error (a reader refusing bad input is the documented behaviour)
// and lets everything else out: any other exception, and any broken invariant below (thrown as
// invariant_violation), is a bug, which run_libfuzzer turns into an abort.
//
// Inputs (see docs/fuzzing.md):
//   idx, npy            the bytes of a file, plain or gzip (the readers sniff the magic)
//   idx_info, npy_info  the same, through read_idx_info / read_npy_info only
//   csv                 one option byte (dtype, delimiter, header), then the file's bytes
//   idx_gz, npy_gz      [gzip mode][parameter][content]: the harness gzips the content, intact
//                       or damaged (cut, no trailer, garbage after it, two members), so that
//                       mutations reach the parser behind a valid stream instead of breaking CRCs
//   csv_gz              one option byte, then as idx_gz
//   checkpoint          the bytes of a safetensors file (nn::load reads it as a file and
//                       nn::load_bytes from memory; both must agree). It has no _gz target:
//                       nn::load reads safetensors files as they are, never gzip.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#ifdef STATICPY_HAS_ZLIB
#include <zlib.h>
#endif

#include "staticpy/core/error.hpp"
#include "staticpy/data/csv.hpp"
#include "staticpy/data/idx.hpp"
#include "staticpy/data/npy.hpp"
#include "staticpy/nn/checkpoint.hpp"

namespace staticpy_fuzz {

using bytes = std::vector<std::uint8_t>;

/// A broken promise of a reader that is not an exception of its own (e.g. a damaged gzip stream
/// that loads): not a staticpy::Error, so it counts as a crash.
class invariant_violation : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

/// What one read did: loaded a tensor (its sizes and raw bytes), or threw a staticpy::Error.
struct outcome {
    bool ok = true;
    std::string error;   // python_name(): "ValueError", ...
    std::string message; // what()
    std::string path;    // the path the reader was given; error messages must name it
    std::vector<std::int64_t> sizes;
    bytes data;
};

/// The input as a file the readers can open by path: an anonymous memory file (memfd), named
/// /proc/self/fd/N, so that fuzzing at thousands of inputs a second never touches the disk.
class memory_file {
public:
    memory_file(const std::uint8_t* data, std::size_t size) {
        fd_ = ::memfd_create("staticpy-fuzz", MFD_CLOEXEC);
        if (fd_ < 0)
            throw std::runtime_error("memfd_create failed");
        std::size_t done = 0;
        while (done < size) {
            const ::ssize_t n = ::write(fd_, data + done, size - done);
            if (n <= 0) {
                ::close(fd_);
                throw std::runtime_error("cannot write the fuzz input to a memfd");
            }
            done += static_cast<std::size_t>(n);
        }
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    explicit memory_file(const bytes& b) : memory_file(b.data(), b.size()) {}
    memory_file(const memory_file&) = delete;
    memory_file& operator=(const memory_file&) = delete;
    ~memory_file() { ::close(fd_); }
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    int fd_ = -1;
    std::string path_;
};

namespace detail {

template <class T, class S>
void keep(outcome& o, const staticpy::Tensor<T, S>& t) {
    const auto c = t.contiguous();
    o.sizes.assign(t.sizes().begin(), t.sizes().end());
    const auto* p = reinterpret_cast<const std::uint8_t*>(c.data());
    o.data.assign(p, p + static_cast<std::size_t>(c.numel()) * sizeof(T));
}

/// Runs read(path, o) on the input as a file; a staticpy::Error becomes the outcome.
template <class Read>
outcome capture(const std::uint8_t* data, std::size_t size, Read&& read) {
    const memory_file file(data, size);
    outcome o;
    o.path = file.path();
    try {
        read(std::filesystem::path(file.path()), o);
    } catch (const staticpy::Error& e) {
        o = outcome{false, e.python_name(), e.what(), file.path(), {}, {}};
    }
    return o;
}

template <class T>
void check_sizes(const outcome& o, const std::vector<std::int64_t>& header, const char* what) {
    if (o.sizes != header)
        throw invariant_violation(std::string(what) +
                                  ": the tensor's sizes differ from the header");
    if (o.data.size() % sizeof(T) != 0)
        throw invariant_violation(std::string(what) + ": partial element");
}

// The (T, Rank) the header asks for, for Rank in First..First+sizeof...(R)-1; another rank is
// read as First, which must then be refused.
template <class T, std::size_t First, std::size_t... R>
void read_idx_as(const std::filesystem::path& p, const staticpy::data::IdxInfo& info, outcome& o,
                 std::index_sequence<R...>) {
    const bool matched =
        ((info.dims.size() == First + R ? (keep(o, staticpy::data::read_idx<T, First + R>(p)), true)
                                        : false) ||
         ...);
    if (!matched) {
        (void)staticpy::data::read_idx<T, First>(p);
        throw invariant_violation("read_idx accepted a file of another rank");
    }
    check_sizes<T>(o, info.dims, "read_idx");
}

template <class T, std::size_t First, std::size_t... R>
void load_npy_as(const std::filesystem::path& p, const staticpy::data::NpyInfo& info, outcome& o,
                 std::index_sequence<R...>) {
    const bool matched = ((info.shape.size() == First + R
                               ? (keep(o, staticpy::data::load_npy<T, First + R>(p)), true)
                               : false) ||
                          ...);
    if (!matched) {
        (void)staticpy::data::load_npy<T, First>(p);
        throw invariant_violation("load_npy accepted a file of another rank");
    }
    check_sizes<T>(o, info.shape, "load_npy");
}

/// A loaded checkpoint in an outcome: each tensor's rank then sizes in `sizes`, and its dtype,
/// name and bytes in `data`, so that two loads compare as two outcomes.
inline void keep_state(outcome& o, const staticpy::nn::optim::state_dict_t& sd) {
    for (const auto& [name, value] : sd) {
        if (!value.defined())
            throw invariant_violation("nn::load gave an undefined tensor");
        o.sizes.push_back(value.dim());
        o.sizes.insert(o.sizes.end(), value.sizes().begin(), value.sizes().end());
        o.data.push_back(static_cast<std::uint8_t>(value.dtype()));
        o.data.insert(o.data.end(), name.begin(), name.end());
        o.data.push_back(0);
        const auto* p = static_cast<const std::uint8_t*>(value.data());
        o.data.insert(o.data.end(), p, p + value.nbytes());
    }
}

/// read_csv's options from one byte: bits 0-2 the dtype (mod 6), bits 3-4 the delimiter, bit 5
/// the header.
inline staticpy::data::CsvOptions csv_options(std::uint8_t b) {
    static constexpr std::array<char, 4> delimiters{',', ';', '\t', ' '};
    return {.header = (b & 0x20) != 0, .delimiter = delimiters[(b >> 3) & 3]};
}

template <class T>
void read_csv_as(const std::filesystem::path& p, staticpy::data::CsvOptions options, outcome& o) {
    const auto t = staticpy::data::read_csv<T>(p, options);
    keep(o, t);
    if (o.data.size() != static_cast<std::size_t>(t.numel()) * sizeof(T))
        throw invariant_violation("read_csv: the tensor's sizes differ from its data");
}

#ifdef STATICPY_HAS_ZLIB
/// One gzip member of data (zlib's deflate with gzip framing).
inline bytes gzip(const std::uint8_t* data, std::size_t size, int level = 6) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("deflateInit2 failed");
    bytes out(deflateBound(&z, static_cast<uLong>(size)) + 16);
    z.next_in = const_cast<Bytef*>(data); // zlib's API is not const-correct; it does not write
    z.avail_in = static_cast<uInt>(size);
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw std::runtime_error("deflate failed");
    return out;
}
#endif

/// How the gz targets wrap their content: intact modes must read as the content itself does,
/// damaged ones must be refused (issue 8, item 1).
enum class gz_mode : std::uint8_t { intact, cut, no_trailer, garbage, two_members, count };

} // namespace detail

#ifdef STATICPY_HAS_ZLIB
/// The gz targets' input [mode][parameter][content...] as the file to read. `intact` tells
/// whether it must read exactly as the plain content does.
inline bytes gz_container(const std::uint8_t* data, std::size_t size, bool& intact) {
    using detail::gz_mode;
    const auto mode = static_cast<gz_mode>(size > 0 ? data[0] % std::uint8_t(gz_mode::count) : 0);
    const std::uint8_t param = size > 1 ? data[1] : 0;
    const std::uint8_t* content = data + std::min<std::size_t>(size, 2);
    const std::size_t n = size - std::min<std::size_t>(size, 2);
    intact = mode == gz_mode::intact || mode == gz_mode::two_members;
    bytes out;
    switch (mode) {
    case gz_mode::cut: { // at least one byte, never into the 10-byte gzip header
        out = detail::gzip(content, n);
        out.resize(out.size() - 1 - param % (out.size() - 10));
        break;
    }
    case gz_mode::no_trailer:
        out = detail::gzip(content, n);
        out.resize(out.size() - 8);
        break;
    case gz_mode::garbage: { // 'G' first: neither another member's magic nor zero padding
        out = detail::gzip(content, n);
        out.push_back('G');
        for (unsigned i = 0; i < param % 16U; ++i)
            out.push_back(static_cast<std::uint8_t>(param * (i + 7)));
        break;
    }
    case gz_mode::two_members: {
        const std::size_t split = n == 0 ? 0 : param % (n + 1);
        out = detail::gzip(content, split);
        const bytes second = detail::gzip(content + split, n - split, 1);
        out.insert(out.end(), second.begin(), second.end());
        break;
    }
    default:
        out = detail::gzip(content, n);
    }
    return out;
}
#endif

// ---------------------------------------------------------------------------------------------
// The targets
// ---------------------------------------------------------------------------------------------

/// read_idx_info, then read_idx<T, Rank> with the T and Rank (1-4) the header gives.
inline outcome idx(const std::uint8_t* data, std::size_t size) {
    return detail::capture(data, size, [](const std::filesystem::path& p, outcome& o) {
        using namespace staticpy::data;
        const IdxInfo info = read_idx_info(p);
        constexpr auto ranks = std::make_index_sequence<4>{};
        if (info.dtype == staticpy::uint8)
            detail::read_idx_as<std::uint8_t, 1>(p, info, o, ranks);
        else if (info.dtype == staticpy::int32)
            detail::read_idx_as<std::int32_t, 1>(p, info, o, ranks);
        else if (info.dtype == staticpy::float32)
            detail::read_idx_as<float, 1>(p, info, o, ranks);
        else if (info.dtype == staticpy::float64)
            detail::read_idx_as<double, 1>(p, info, o, ranks);
        else
            throw invariant_violation("read_idx_info gave a dtype IDX files do not read into");
    });
}

/// read_idx_info alone.
inline outcome idx_info(const std::uint8_t* data, std::size_t size) {
    return detail::capture(data, size, [](const std::filesystem::path& p, outcome& o) {
        const auto info = staticpy::data::read_idx_info(p);
        if (info.dims.empty() || info.dims.size() > 255)
            throw invariant_violation("read_idx_info: impossible number of dimensions");
        o.sizes = info.dims;
    });
}

/// read_npy_info, then load_npy<T, Rank> with the T and Rank (0-3) the header gives.
inline outcome npy(const std::uint8_t* data, std::size_t size) {
    return detail::capture(data, size, [](const std::filesystem::path& p, outcome& o) {
        using namespace staticpy::data;
        const NpyInfo info = read_npy_info(p);
        constexpr auto ranks = std::make_index_sequence<4>{};
        if (info.dtype == staticpy::boolean)
            detail::load_npy_as<bool, 0>(p, info, o, ranks);
        else if (info.dtype == staticpy::uint8)
            detail::load_npy_as<std::uint8_t, 0>(p, info, o, ranks);
        else if (info.dtype == staticpy::int32)
            detail::load_npy_as<std::int32_t, 0>(p, info, o, ranks);
        else if (info.dtype == staticpy::int64)
            detail::load_npy_as<std::int64_t, 0>(p, info, o, ranks);
        else if (info.dtype == staticpy::float32)
            detail::load_npy_as<float, 0>(p, info, o, ranks);
        else
            detail::load_npy_as<double, 0>(p, info, o, ranks);
    });
}

/// read_npy_info alone.
inline outcome npy_info(const std::uint8_t* data, std::size_t size) {
    return detail::capture(data, size, [](const std::filesystem::path& p, outcome& o) {
        o.sizes = staticpy::data::read_npy_info(p).shape;
    });
}

/// read_csv<T>(path, {.header, .delimiter}) with T, header and delimiter from the first byte.
inline outcome csv(const std::uint8_t* data, std::size_t size) {
    const std::uint8_t b = size > 0 ? data[0] : 0;
    const std::size_t skip = std::min<std::size_t>(size, 1);
    return detail::capture(data + skip, size - skip,
                           [b](const std::filesystem::path& p, outcome& o) {
                               const auto options = detail::csv_options(b);
                               switch ((b & 7) % 6) {
                               case 0:
                                   detail::read_csv_as<bool>(p, options, o);
                                   break;
                               case 1:
                                   detail::read_csv_as<std::uint8_t>(p, options, o);
                                   break;
                               case 2:
                                   detail::read_csv_as<std::int32_t>(p, options, o);
                                   break;
                               case 3:
                                   detail::read_csv_as<std::int64_t>(p, options, o);
                                   break;
                               case 4:
                                   detail::read_csv_as<float>(p, options, o);
                                   break;
                               default:
                                   detail::read_csv_as<double>(p, options, o);
                                   break;
                               }
                           });
}

/// nn::load on the input as a file, and nn::load_bytes on it in memory: the same tensors, or
/// the same error with the same words after the label that names the input. A checkpoint that
/// loads saves (nn::save_bytes) and loads back to the same tensors.
inline outcome checkpoint(const std::uint8_t* data, std::size_t size) {
    namespace nn = staticpy::nn;
    outcome from_file = detail::capture(data, size, [](const std::filesystem::path& p, outcome& o) {
        detail::keep_state(o, nn::load(p));
    });
    const std::string& name = from_file.path;
    outcome from_memory;
    nn::optim::state_dict_t loaded;
    try {
        loaded = nn::load_bytes({data, size}, name);
        detail::keep_state(from_memory, loaded);
    } catch (const staticpy::Error& e) {
        from_memory = outcome{false, e.python_name(), e.what(), name, {}, {}};
    }
    if (from_file.ok != from_memory.ok)
        throw invariant_violation(
            "checkpoint: the file " +
            (from_file.ok ? "loaded" : "failed (" + from_file.message + ")") +
            ", the same bytes in memory " +
            (from_memory.ok ? "loaded" : "failed (" + from_memory.message + ")"));
    if (!from_file.ok) {
        const std::string file_label = "safetensors file '" + name + "'";
        const std::string memory_label = "safetensors data '" + name + "'";
        const auto words = [](const std::string& message, const std::string& label) {
            return message.starts_with(label) ? message.substr(label.size()) : "<" + message + ">";
        };
        if (from_file.error != from_memory.error ||
            words(from_file.message, file_label) != words(from_memory.message, memory_label))
            throw invariant_violation("checkpoint: the file and the same bytes in memory fail "
                                      "differently: " +
                                      from_file.error + ": " + from_file.message + " / " +
                                      from_memory.error + ": " + from_memory.message);
        return from_file;
    }
    if (from_file.sizes != from_memory.sizes || from_file.data != from_memory.data)
        throw invariant_violation("checkpoint: the file and the same bytes in memory load "
                                  "different tensors");
    const bytes saved = nn::save_bytes(loaded);
    outcome again;
    detail::keep_state(again, nn::load_bytes(saved));
    if (again.sizes != from_memory.sizes || again.data != from_memory.data)
        throw invariant_violation("checkpoint: a loaded checkpoint saved and loaded back differs");
    return from_file;
}

#ifdef STATICPY_HAS_ZLIB
namespace detail {

/// The gz target of `plain`: reads the content gzipped (as gz_container makes it) and checks it
/// against the plain read: an intact stream reads the same, a damaged one is refused.
inline outcome gz_target(outcome (*plain)(const std::uint8_t*, std::size_t), const char* name,
                         const bytes& prefix, const std::uint8_t* data, std::size_t size) {
    bool intact = false;
    bytes file = prefix;
    const bytes gz = gz_container(data, size, intact);
    file.insert(file.end(), gz.begin(), gz.end());
    outcome o = plain(file.data(), file.size());
    if (!intact) {
        if (o.ok)
            throw invariant_violation(std::string(name) + ": a damaged gzip stream loaded");
        return o;
    }
    const std::size_t skip = std::min<std::size_t>(size, 2);
    // Content that is itself gzip is decompressed once more by the plain read: not comparable.
    if (size - skip >= 2 && data[skip] == 0x1f && data[skip + 1] == 0x8b)
        return o;
    bytes content = prefix;
    content.insert(content.end(), data + skip, data + size);
    const outcome ref = plain(content.data(), content.size());
    if (o.ok != ref.ok)
        throw invariant_violation(std::string(name) + ": the gzip file " +
                                  (o.ok ? "loaded" : "failed (" + o.message + ")") +
                                  ", the same content uncompressed " +
                                  (ref.ok ? "loaded" : "failed (" + ref.message + ")"));
    if (o.ok && (o.sizes != ref.sizes || o.data != ref.data))
        throw invariant_violation(std::string(name) +
                                  ": the gzip file and its content read differently");
    return o;
}

} // namespace detail

/// idx on the gzipped content: [gz mode][parameter][IDX file].
inline outcome idx_gz(const std::uint8_t* data, std::size_t size) {
    return detail::gz_target(&idx, "idx_gz", {}, data, size);
}

/// npy on the gzipped content: [gz mode][parameter][.npy file].
inline outcome npy_gz(const std::uint8_t* data, std::size_t size) {
    return detail::gz_target(&npy, "npy_gz", {}, data, size);
}

/// csv on the gzipped content: [option byte][gz mode][parameter][CSV file].
inline outcome csv_gz(const std::uint8_t* data, std::size_t size) {
    // The option byte goes before the gzip stream, not into it; an empty input reads as 0.
    const std::size_t skip = std::min<std::size_t>(size, 1);
    return detail::gz_target(&csv, "csv_gz", bytes{size > 0 ? data[0] : std::uint8_t{0}},
                             data + skip, size - skip);
}
#endif

/// A target by name, as fuzz/CMakeLists.txt builds one executable each and the replay test
/// finds them by fuzz/regressions/<target>/.
struct target {
    std::string_view name;
    outcome (*run)(const std::uint8_t*, std::size_t);
};

inline constexpr std::array targets{
    target{"idx", &idx},           target{"idx_info", &idx_info}, target{"npy", &npy},
    target{"npy_info", &npy_info}, target{"csv", &csv},           target{"checkpoint", &checkpoint},
#ifdef STATICPY_HAS_ZLIB
    target{"idx_gz", &idx_gz},     target{"npy_gz", &npy_gz},     target{"csv_gz", &csv_gz},
#endif
};

/// libFuzzer's LLVMFuzzerTestOneInput for `run`: anything but a staticpy::Error aborts, with
/// its type and message, so that libFuzzer saves the input as a crash.
inline int run_libfuzzer(outcome (*run)(const std::uint8_t*, std::size_t), const std::uint8_t* data,
                         std::size_t size) {
    try {
        (void)run(data, size);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "staticpy fuzz: not a staticpy::Error: %s: %s\n", typeid(e).name(),
                     e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "staticpy fuzz: an exception that is not a std::exception\n");
        std::abort();
    }
    return 0;
}

} // namespace staticpy_fuzz
