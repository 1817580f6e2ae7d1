#pragma once
// The IDX format of MNIST and Fashion-MNIST (Y. LeCun's "train-images-idx3-ubyte"), plain or
// gzip-compressed.
//
//   auto images = read_idx<std::uint8_t, 3>("train-images-idx3-ubyte.gz");  // [60000, 28, 28]
//   auto labels = read_idx<std::uint8_t, 1>("train-labels-idx1-ubyte.gz");  // [60000]
//
// A file is a big-endian magic number (two zero bytes, a type byte, the number of dimensions),
// one big-endian uint32 per dimension, then the elements, big-endian, row-major. The element
// type and rank are the Tensor's template arguments, so they are checked against the header when
// reading: read_idx_info() tells them beforehand. staticpy has no int8 or int16 dtype, so those
// files read (widened, exactly) into int32.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/data/detail/io.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::data {

/// What an IDX header says: the type byte (0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D
/// float32, 0x0E float64), its name, the staticpy dtype it reads into, and the dimensions.
///   auto info = read_idx_info("train-labels-idx1-ubyte.gz");
///   info.type_name == "uint8"; info.dims == std::vector<std::int64_t>{60000};
struct IdxInfo {
    std::uint8_t type_code = 0;
    std::string_view type_name;
    staticpy::dtype dtype = staticpy::uint8;
    std::vector<std::int64_t> dims;
    bool gzip = false;
};

namespace detail {

struct idx_type {
    std::uint8_t code;
    std::string_view name;
    std::size_t size;
    staticpy::dtype dtype;
};

inline const idx_type* find_idx_type(std::uint8_t code) {
    static constexpr std::array<idx_type, 6> types{{
        {0x08, "uint8", 1, staticpy::uint8},
        {0x09, "int8", 1, staticpy::int32},
        {0x0B, "int16", 2, staticpy::int32},
        {0x0C, "int32", 4, staticpy::int32},
        {0x0D, "float32", 4, staticpy::float32},
        {0x0E, "float64", 8, staticpy::float64},
    }};
    for (const auto& t : types)
        if (t.code == code)
            return &t;
    return nullptr;
}

inline std::string hex_byte(unsigned v) {
    static constexpr char digits[] = "0123456789ABCDEF";
    return std::string("0x") + digits[(v >> 4) & 0xF] + digits[v & 0xF];
}

/// Reads and checks the magic number and the dimensions; the file is left at the data.
inline IdxInfo read_idx_header(input_file& f, const idx_type*& type) {
    unsigned char magic[4];
    f.read_header(magic, 4, "magic number");
    if (magic[0] != 0 || magic[1] != 0)
        f.fail("bad magic number " + hex_byte(magic[0]) + hex_byte(magic[1]).substr(2) +
               hex_byte(magic[2]).substr(2) + hex_byte(magic[3]).substr(2) +
               ": an IDX file starts with two zero bytes, a type byte and the number of "
               "dimensions (is it an IDX file?)");
    type = find_idx_type(magic[2]);
    if (type == nullptr)
        f.fail("unknown data type " + hex_byte(magic[2]) +
               " in the magic number (IDX types: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, "
               "0x0D float32, 0x0E float64)");
    const unsigned ndim = magic[3];
    if (ndim == 0)
        f.fail("the magic number gives 0 dimensions (an IDX file has at least one)");
    std::vector<unsigned char> raw(4 * static_cast<std::size_t>(ndim));
    f.read_header(raw.data(), raw.size(), std::to_string(ndim) + " dimension sizes");
    IdxInfo info;
    info.type_code = type->code;
    info.type_name = type->name;
    info.dtype = type->dtype;
    info.gzip = f.gzip();
    for (unsigned d = 0; d < ndim; ++d) {
        const unsigned char* p = raw.data() + 4 * d;
        info.dims.push_back(static_cast<std::int64_t>((std::uint32_t{p[0]} << 24) |
                                                      (std::uint32_t{p[1]} << 16) |
                                                      (std::uint32_t{p[2]} << 8) | p[3]));
    }
    return info;
}

/// The elements of n values of type `From` (big-endian) at `raw`, as T.
template <class From, class T>
void idx_widen(const unsigned char* raw, T* out, std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
        From v;
        std::memcpy(&v, raw + i * sizeof(From), sizeof(From));
        if constexpr (sizeof(From) > 1 && std::endian::native == std::endian::little)
            v = static_cast<From>(static_cast<std::uint16_t>((static_cast<std::uint16_t>(v) >> 8) |
                                                             (static_cast<std::uint16_t>(v) << 8)));
        out[i] = static_cast<T>(v);
    }
}

} // namespace detail

/// The header of an IDX file (plain or gzip), without reading its data. ValueError for a header
/// that is not IDX's; RuntimeError when the file cannot be opened.
///   auto info = read_idx_info(path);
///   if (info.dtype == staticpy::uint8 && info.dims.size() == 3) { ... }
inline IdxInfo read_idx_info(const std::filesystem::path& path) {
    detail::input_file f(path, "IDX file");
    const detail::idx_type* type = nullptr;
    return detail::read_idx_header(f, type);
}

/// An IDX file (plain or gzip-compressed, told by its first bytes) as a new contiguous Tensor of
/// rank Rank. T is the dtype of the file's type (uint8_t for 0x08, int32_t for 0x09 int8, 0x0B
/// int16 and 0x0C int32, float for 0x0D, double for 0x0E): another T is a TypeError, another rank
/// a ValueError. Corrupt or truncated files are ValueErrors naming the file and the fault, e.g.
/// "IDX file 'x.idx': truncated: expected 47040000 bytes of data, got 1000"; data after the
/// elements the dimensions describe is one too.
///   auto images = read_idx<std::uint8_t, 3>("train-images-idx3-ubyte.gz");
///   images.sizes();   // {60000, 28, 28}
template <class T, std::size_t Rank>
Tensor<T, dynamic_shape<Rank>> read_idx(const std::filesystem::path& path) {
    static_assert(Rank > 0, "staticpy: ValueError: an IDX file has at least one dimension");
    detail::input_file f(path, "IDX file");
    const detail::idx_type* type = nullptr;
    const IdxInfo info = detail::read_idx_header(f, type);
    const std::string sizes = staticpy::detail::sizes_text(info.dims);
    if (info.dims.size() != Rank)
        f.fail("holds " + std::to_string(info.dims.size()) + "-D data " + sizes + ", read as " +
               std::to_string(Rank) + "-D (read_idx<T, " + std::to_string(info.dims.size()) + ">)");
    if (info.dtype != dtype_of_v<T>)
        f.template fail<TypeError>("holds " + std::string(type->name) + " data, read as " +
                                   std::string(dtype_name(dtype_of_v<T>)) + " (read it as " +
                                   std::string(dtype_name(info.dtype)) +
                                   ", then convert with .to<T>())");
    std::uint64_t numel = 1;
    std::uint64_t bytes = 0;
    bool ok = true;
    for (std::int64_t d : info.dims)
        ok = ok && detail::checked_bytes(numel, static_cast<std::uint64_t>(d), numel);
    ok = ok && detail::checked_bytes(numel, type->size, bytes);
    if (!ok)
        f.fail("dimensions " + sizes + " describe more data than memory can address");
    f.check_data_size(bytes);

    std::array<std::int64_t, Rank> dims{};
    for (std::size_t d = 0; d < Rank; ++d)
        dims[d] = info.dims[d];
    const auto shape = f.allocate([&] { return dynamic_shape<Rank>(dims); });
    const auto make = [&] { return Tensor<T, dynamic_shape<Rank>>{shape}; };
    Tensor<T, dynamic_shape<Rank>> out;
    if (type->size == sizeof(T)) {
        out = f.read_data_into(bytes, make);
    } else { // int8 and int16 widen into int32: the raw data first, the tensor once it is there
        const auto raw = f.read_data_into(bytes, [&] { return std::vector<unsigned char>(bytes); });
        out = f.allocate(make);
        if constexpr (std::is_same_v<T, std::int32_t>) {
            if (type->size == 1)
                detail::idx_widen<std::int8_t>(raw.data(), out.data(), numel);
            else
                detail::idx_widen<std::int16_t>(raw.data(), out.data(), numel);
        }
    }
    if constexpr (sizeof(T) > 1 && std::endian::native == std::endian::little)
        if (type->size == sizeof(T))
            detail::swap_bytes(out.data(), sizeof(T), numel);
    if (!f.at_end())
        f.fail("more data than the dimensions " + sizes + " describe (" + std::to_string(bytes) +
               " bytes of " + std::string(type->name) + "): wrong dimensions?");
    return out;
}

} // namespace staticpy::data
