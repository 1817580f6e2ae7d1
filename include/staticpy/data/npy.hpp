#pragma once
// NumPy's .npy format (numpy.save / numpy.load), versions 1.0, 2.0 and 3.0.
//
//   save_npy("x.npy", x);                      // x: Tensor<float, ...> of any rank
//   auto y = load_npy<float, 2>("x.npy");      // Tensor<float, dynamic_shape<2>>
//
// A file is the magic "\x93NUMPY", a version, a little-endian header length, a header that is a
// Python dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }) and the raw
// elements. staticpy reads C-ordered little-endian data of its dtypes: '<f4' '<f8' '<i4' '<i8'
// '|u1' '|b1'. As with read_idx, the element type and rank are template arguments checked
// against the header; read_npy_info() tells them beforehand.

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/data/detail/io.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::data {

/// What a .npy header says: its format version, 'descr' (e.g. "<f4") and the dtype it reads
/// into, 'fortran_order' and 'shape'.
///   auto info = read_npy_info("x.npy");
///   info.descr == "<f4"; info.shape == std::vector<std::int64_t>{3, 4};
struct NpyInfo {
    int major_version = 1;
    int minor_version = 0;
    std::string descr;
    staticpy::dtype dtype = staticpy::float32;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
    std::uint64_t header_bytes = 0; // where the data starts
};

namespace detail {

/// The descr numpy writes for T on this machine: little-endian, '|' for one-byte types.
template <class T>
constexpr std::string_view npy_descr() {
    if constexpr (std::is_same_v<T, bool>)
        return "|b1";
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return "|u1";
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return "<i4";
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return "<i8";
    else if constexpr (std::is_same_v<T, float>)
        return "<f4";
    else
        return "<f8";
}

/// The parser of the header's dict literal: numpy writes it with repr(), so only strings, True,
/// False and tuples of integers occur, but keys may come in any order and spacing varies.
class npy_header_parser {
public:
    npy_header_parser(std::string_view text, const input_file& f) : s_(text), f_(f) {}

    NpyInfo parse() {
        NpyInfo info;
        bool has_descr = false;
        bool has_order = false;
        bool has_shape = false;
        expect('{');
        while (true) {
            skip();
            if (peek() == '}')
                break;
            const std::string key = string_literal();
            expect(':');
            if (key == "descr") {
                info.descr = string_literal();
                has_descr = true;
            } else if (key == "fortran_order") {
                info.fortran_order = boolean();
                has_order = true;
            } else if (key == "shape") {
                info.shape = int_tuple();
                has_shape = true;
            } else {
                bad("unexpected key '" + key + "'");
            }
            skip();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            if (peek() != '}')
                bad("expected ',' or '}'");
        }
        if (!has_descr || !has_order || !has_shape)
            f_.fail("bad header: missing key '" +
                    std::string(!has_descr   ? "descr"
                                : !has_order ? "fortran_order"
                                             : "shape") +
                    "' in " + std::string(s_));
        return info;
    }

private:
    [[noreturn]] void bad(const std::string& what) const {
        f_.fail("bad header: " + what + " at character " + std::to_string(pos_) + " of " +
                std::string(s_));
    }
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    void skip() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_])) != 0)
            ++pos_;
    }
    void expect(char c) {
        skip();
        if (peek() != c)
            bad(std::string("expected '") + c + "'");
        ++pos_;
    }
    std::string string_literal() {
        skip();
        const char q = peek();
        if (q != '\'' && q != '"')
            bad("expected a string");
        const std::size_t end = s_.find(q, pos_ + 1);
        if (end == std::string_view::npos)
            bad("unterminated string");
        std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
        return out;
    }
    bool boolean() {
        skip();
        if (s_.substr(pos_, 4) == "True") {
            pos_ += 4;
            return true;
        }
        if (s_.substr(pos_, 5) == "False") {
            pos_ += 5;
            return false;
        }
        bad("expected True or False");
    }
    std::vector<std::int64_t> int_tuple() {
        expect('(');
        std::vector<std::int64_t> out;
        while (true) {
            skip();
            if (peek() == ')') {
                ++pos_;
                return out;
            }
            if (std::isdigit(static_cast<unsigned char>(peek())) == 0)
                bad("expected a non-negative integer in 'shape'");
            std::int64_t v = 0;
            while (std::isdigit(static_cast<unsigned char>(peek())) != 0) {
                if (v > (INT64_MAX - 9) / 10)
                    bad("a dimension in 'shape' is too large");
                v = v * 10 + (s_[pos_++] - '0');
            }
            if (peek() == 'L') // Python 2's long suffix, which old numpy versions wrote
                ++pos_;
            out.push_back(v);
            skip();
            if (peek() == ',')
                ++pos_;
            else if (peek() != ')')
                bad("expected ',' or ')' in 'shape'");
        }
    }

    std::string_view s_;
    const input_file& f_;
    std::size_t pos_ = 0;
};

/// numpy's _MAX_HEADER_SIZE: the longest header numpy.load reads by default.
inline constexpr std::uint64_t npy_max_header_size = 10000;

inline NpyInfo read_npy_header(input_file& f) {
    unsigned char pre[8];
    f.read_header(pre, 8, "magic string and version");
    static constexpr unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (!std::equal(magic, magic + 6, pre))
        f.fail("bad magic string: a .npy file starts with \"\\x93NUMPY\" (is it a .npy file?)");
    const int major = pre[6];
    const int minor = pre[7];
    if (major < 1 || major > 3)
        f.fail("unsupported format version " + std::to_string(major) + "." + std::to_string(minor) +
               " (staticpy reads 1.0, 2.0 and 3.0)");
    std::uint64_t len = 0;
    std::uint64_t prefix = 10;
    if (major == 1) {
        unsigned char b[2];
        f.read_header(b, 2, "header length");
        len = b[0] | (std::uint64_t{b[1]} << 8);
    } else {
        unsigned char b[4];
        f.read_header(b, 4, "header length");
        len = b[0] | (std::uint64_t{b[1]} << 8) | (std::uint64_t{b[2]} << 16) |
              (std::uint64_t{b[3]} << 24);
        prefix = 12;
    }
    // numpy.load refuses headers longer than this (max_header_size) unless told to trust the
    // file; here it also keeps a corrupt length from reaching the allocator.
    if (len > npy_max_header_size)
        f.fail("Header info length (" + std::to_string(len) +
               ") is large and may not be safe to load securely (numpy's max_header_size is " +
               std::to_string(npy_max_header_size) + ")");
    std::string text(static_cast<std::size_t>(len), '\0');
    f.read_header(text.data(), text.size(), "header");
    NpyInfo info = npy_header_parser(text, f).parse();
    info.major_version = major;
    info.minor_version = minor;
    info.header_bytes = prefix + len;

    const std::string& d = info.descr;
    if (d.size() >= 2 && d[0] == '>' && d.substr(1) != "u1" && d.substr(1) != "b1" &&
        d.substr(1) != "i1")
        f.fail("big-endian data ('" + d +
               "') is not supported: staticpy reads little-endian .npy files (numpy: "
               "a.astype(a.dtype.newbyteorder('<')))");
    const std::string kind =
        d.size() >= 2 && (d[0] == '<' || d[0] == '|' || d[0] == '=' || d[0] == '>') ? d.substr(1)
                                                                                    : d;
    if (kind == "b1")
        info.dtype = staticpy::boolean;
    else if (kind == "u1")
        info.dtype = staticpy::uint8;
    else if (kind == "i4")
        info.dtype = staticpy::int32;
    else if (kind == "i8")
        info.dtype = staticpy::int64;
    else if (kind == "f4")
        info.dtype = staticpy::float32;
    else if (kind == "f8")
        info.dtype = staticpy::float64;
    else
        f.fail("unsupported dtype '" + d +
               "' (staticpy reads '<f4', '<f8', '<i4', '<i8', '|u1' and '|b1')");
    if (info.fortran_order)
        f.fail("fortran_order is True: staticpy reads C-ordered arrays (numpy: "
               "np.save(path, np.ascontiguousarray(a)))");
    return info;
}

} // namespace detail

/// The header of a .npy file, without reading its data; ValueError for a malformed header or a
/// dtype, byte order or Fortran order staticpy does not read.
///   auto info = read_npy_info("x.npy");
///   if (info.dtype == staticpy::float32 && info.shape.size() == 2) { ... }
inline NpyInfo read_npy_info(const std::filesystem::path& path) {
    detail::input_file f(path, "npy file");
    return detail::read_npy_header(f);
}

/// numpy.load of a .npy file as a new contiguous Tensor<T, dynamic_shape<Rank>>. T must be the
/// file's dtype ('<f4' float, '<f8' double, '<i4' int32_t, '<i8' int64_t, '|u1' uint8_t, '|b1'
/// bool), else TypeError; Rank its number of dimensions, else ValueError. Big-endian data,
/// fortran_order True, other dtypes, a malformed header and truncated data are ValueErrors naming
/// the file (a gzip-compressed .npy reads too, with zlib).
///   auto x = load_npy<float, 2>("features.npy");
///   auto y = load_npy<std::int64_t, 1>("labels.npy");
template <class T, std::size_t Rank>
Tensor<T, dynamic_shape<Rank>> load_npy(const std::filesystem::path& path) {
    static_assert(std::endian::native == std::endian::little,
                  "staticpy: RuntimeError: load_npy reads little-endian data into a "
                  "little-endian machine's memory");
    detail::input_file f(path, "npy file");
    const NpyInfo info = detail::read_npy_header(f);
    const std::string sizes = staticpy::detail::sizes_text(info.shape);
    if (info.shape.size() != Rank)
        f.fail("holds " + std::to_string(info.shape.size()) + "-D data " + sizes + ", read as " +
               std::to_string(Rank) + "-D (load_npy<T, " + std::to_string(info.shape.size()) +
               ">)");
    if (info.dtype != dtype_of_v<T>)
        f.template fail<TypeError>("holds " + std::string(dtype_name(info.dtype)) + " data ('" +
                                   info.descr + "'), read as " +
                                   std::string(dtype_name(dtype_of_v<T>)));
    std::uint64_t numel = 1;
    std::uint64_t bytes = 0;
    bool ok = true;
    for (std::int64_t d : info.shape)
        ok = ok && detail::checked_bytes(numel, static_cast<std::uint64_t>(d), numel);
    ok = ok && detail::checked_bytes(numel, sizeof(T), bytes);
    if (!ok)
        f.fail("shape " + sizes + " describes more data than memory can address");
    f.check_data_size(bytes);
    std::array<std::int64_t, Rank> dims{};
    for (std::size_t d = 0; d < Rank; ++d)
        dims[d] = info.shape[d];
    const auto shape = f.allocate([&] { return dynamic_shape<Rank>(dims); });
    const auto make = [&] { return Tensor<T, dynamic_shape<Rank>>{shape}; };
    Tensor<T, dynamic_shape<Rank>> out;
    if constexpr (std::is_same_v<T, bool>) {
        // Any byte but 0 and 1 in a bool is undefined behaviour to read: check the raw bytes.
        const auto raw = f.read_data_into(bytes, [&] { return std::vector<unsigned char>(bytes); });
        out = f.allocate(make);
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] > 1)
                f.fail("bool data holds the byte " + std::to_string(raw[i]) + " at element " +
                       std::to_string(i) + " (only 0 and 1 are bools)");
            out.data()[i] = raw[i] != 0;
        }
    } else {
        out = f.read_data_into(bytes, make);
    }
    // numpy ignores what follows the data; a gzip stream is still read to its end, so that its
    // CRC and size are checked.
    f.finish();
    return out;
}

/// numpy.save: t (any rank, any layout: non-contiguous tensors are written in C order) as a
/// version 1.0 .npy file that numpy.load reads. RuntimeError when the file cannot be written.
///   save_npy("x.npy", arange<float>(0, 6).reshape(2, 3));
///   np.load("x.npy")   # array([[0., 1., 2.], [3., 4., 5.]], dtype=float32)
template <class T, class S>
void save_npy(const std::filesystem::path& path, const Tensor<T, S>& t) {
    static_assert(std::endian::native == std::endian::little,
                  "staticpy: RuntimeError: save_npy writes little-endian data from a "
                  "little-endian machine's memory");
    std::string shape = "(";
    for (std::size_t d = 0; d < S::rank; ++d)
        shape += (d > 0 ? ", " : "") + std::to_string(t.sizes()[d]);
    shape += S::rank == 1 ? ",)" : ")"; // as Python writes a tuple: (3,), (2, 3), ()
    std::string header = "{'descr': '" + std::string(detail::npy_descr<T>()) +
                         "', 'fortran_order': False, 'shape': " + shape + ", }";
    // numpy pads with spaces and a newline so that the data starts on a 64-byte boundary.
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    if (header.size() > 65535)
        throw ValueError("npy file '" + path.string() + "': header too long for version 1.0");
    detail::output_file out(path, "npy file");
    const unsigned char pre[10] = {0x93,
                                   'N',
                                   'U',
                                   'M',
                                   'P',
                                   'Y',
                                   1,
                                   0,
                                   static_cast<unsigned char>(header.size() & 0xFF),
                                   static_cast<unsigned char>(header.size() >> 8)};
    out.write(pre, sizeof pre);
    out.write(header.data(), header.size());
    const auto c = t.contiguous();
    out.write(c.data(), static_cast<std::size_t>(c.numel()) * sizeof(T));
    out.close();
}

} // namespace staticpy::data
