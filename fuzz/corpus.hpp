#pragma once
// The inputs the fuzz targets start from and the regression inputs of issue 8, built in code so
// that nothing binary is committed that a program cannot remake: make_seed_corpus.cpp writes
// them to disk (libFuzzer's corpus directories, fuzz/regressions/), and the replay test
// (tests/data/fuzz_regressions_test.cpp) builds the seeds in memory.
//
// Each input is in its target's format (see fuzz_targets.hpp): a csv input starts with the
// option byte, a *_gz input with the gzip mode and its parameter.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_targets.hpp"

namespace staticpy_fuzz {

/// One input of one target. `ok`: a seed that must load (all but the damaged gzip ones).
struct input {
    std::string target;
    std::string name;
    bytes data;
    bool ok = true;
};

namespace corpus {

inline void put_be32(bytes& b, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8)
        b.push_back(static_cast<std::uint8_t>(v >> s));
}

/// The value i as `size` bytes of an IDX element of type `code`, big-endian.
inline void put_idx_element(bytes& b, std::uint8_t code, std::uint32_t i) {
    std::uint64_t raw = i;
    std::size_t size = 1;
    if (code == 0x0B) {
        size = 2;
    } else if (code == 0x0C) {
        size = 4;
    } else if (code == 0x0D) {
        const float f = static_cast<float>(i) * 0.5F;
        std::uint32_t u = 0;
        std::memcpy(&u, &f, 4);
        raw = u;
        size = 4;
    } else if (code == 0x0E) {
        const double d = static_cast<double>(i) * 0.25;
        std::memcpy(&raw, &d, 8);
        size = 8;
    }
    for (std::size_t k = size; k-- > 0;)
        b.push_back(static_cast<std::uint8_t>(raw >> (8 * k)));
}

/// An IDX file of type `code` and dimensions `dims`, elements 0, 1, 2, ...
inline bytes idx_file(std::uint8_t code, const std::vector<std::uint32_t>& dims) {
    bytes b{0, 0, code, static_cast<std::uint8_t>(dims.size())};
    std::uint64_t n = 1;
    for (auto d : dims) {
        put_be32(b, d);
        n *= d;
    }
    for (std::uint32_t i = 0; i < n; ++i)
        put_idx_element(b, code, i % 100);
    return b;
}

/// A .npy file of version `major`: the header as numpy writes it, padded to 64 bytes, then
/// `data`.
inline bytes npy_file(std::string_view descr, std::string_view shape, const bytes& data,
                      int major = 1) {
    std::string header = "{'descr': '" + std::string(descr) +
                         "', 'fortran_order': False, 'shape': " + std::string(shape) + ", }";
    const std::size_t prefix = major == 1 ? 10 : 12;
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    bytes b{0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<std::uint8_t>(major), 0};
    for (std::size_t k = 0; k < prefix - 8; ++k)
        b.push_back(static_cast<std::uint8_t>(header.size() >> (8 * k)));
    b.insert(b.end(), header.begin(), header.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

/// n elements of a .npy dtype of `size` bytes (little-endian 0, 1, 2, ...; bools 0/1).
inline bytes npy_data(std::size_t n, std::size_t size, bool is_bool = false) {
    bytes b;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < size; ++k)
            b.push_back(k == 0 ? static_cast<std::uint8_t>(is_bool ? i % 2 : i % 100) : 0);
    return b;
}

inline bytes text(std::string_view s) {
    return bytes(s.begin(), s.end());
}

inline bytes cat(bytes a, const bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

#ifdef STATICPY_HAS_ZLIB
inline bytes gz(const bytes& b, int level = 6) {
    return detail::gzip(b.data(), b.size(), level);
}
#endif

} // namespace corpus

/// The seed inputs of every target: valid files of every type, a few shapes, plain and gzip.
inline std::vector<input> seeds() {
    using namespace corpus;
    std::vector<input> out;
    const auto add = [&out](const std::string& target, const std::string& name, bytes data,
                            bool ok = true) {
        out.push_back({target, name, std::move(data), ok});
    };

    // IDX: every type code, ranks 1 to 4.
    const std::vector<std::pair<std::uint8_t, std::string>> idx_types{
        {0x08, "u8"}, {0x09, "i8"}, {0x0B, "i16"}, {0x0C, "i32"}, {0x0D, "f32"}, {0x0E, "f64"}};
    const std::vector<std::vector<std::uint32_t>> idx_shapes{{5}, {2, 3}, {2, 2, 3}, {1, 2, 1, 2}};
    for (const auto& [code, type] : idx_types) {
        for (const auto& dims : idx_shapes) {
            const std::string name = type + "_rank" + std::to_string(dims.size());
            const bytes file = idx_file(code, dims);
            add("idx", name + ".idx", file);
            add("idx_info", name + ".idx", file);
#ifdef STATICPY_HAS_ZLIB
            add("idx", name + ".idx.gz", gz(file));
            add("idx_gz", name, cat({0, 0}, file));
#endif
        }
    }

    // npy: every dtype, ranks 0 to 3, versions 1 to 3.
    struct npy_type {
        std::string descr;
        std::size_t size;
    };
    const std::vector<npy_type> npy_types{{"|b1", 1}, {"|u1", 1}, {"<i4", 4},
                                          {"<i8", 8}, {"<f4", 4}, {"<f8", 8}};
    const std::vector<std::pair<std::string, std::size_t>> npy_shapes{
        {"()", 1}, {"(4,)", 4}, {"(2, 3)", 6}, {"(2, 1, 2)", 4}};
    for (const auto& t : npy_types) {
        for (const auto& [shape, n] : npy_shapes) {
            const int major = 1 + static_cast<int>(n % 3);
            const bytes file =
                npy_file(t.descr, shape, npy_data(n, t.size, t.descr == "|b1"), major);
            const std::string name =
                t.descr.substr(1) + "_" + std::to_string(n) + "_v" + std::to_string(major);
            add("npy", name + ".npy", file);
            add("npy_info", name + ".npy", file);
#ifdef STATICPY_HAS_ZLIB
            add("npy", name + ".npy.gz", gz(file));
            add("npy_gz", name, cat({0, 0}, file));
#endif
        }
    }

    // CSV: every dtype, delimiter and header flag (the option byte), with blank lines, spaces
    // and CRLF line ends that the reader accepts.
    const std::vector<std::string> dtypes{"bool", "u8", "i32", "i64", "f32", "f64"};
    const std::vector<std::string> delimiters{",", ";", "\t", " "};
    for (std::uint8_t d = 0; d < 6; ++d) {
        for (std::uint8_t k = 0; k < 4; ++k) {
            for (std::uint8_t h = 0; h < 2; ++h) {
                const auto option = static_cast<std::uint8_t>(d | (k << 3) | (h << 5));
                const std::string& sep = delimiters[k];
                std::string s = h != 0 ? "a" + sep + "b" + sep + "c\n" : "";
                if (d == 0)
                    s += "1" + sep + "0" + sep + "True\r\n\nfalse" + sep + "1" + sep + "0\n";
                else if (d >= 4)
                    s += "1.5" + sep + "-2e3" + sep + "nan\n\n+4" + sep + "inf" + sep + "0.25\n";
                else
                    s += "1" + sep + "2" + sep + "3\r\n\n" + (d == 1 ? "255" : "-7") + sep + "5" +
                         sep + "+6\n";
                const std::string name =
                    dtypes[d] + "_delim" + std::to_string(k) + (h != 0 ? "_header" : "");
                add("csv", name + ".csv", cat({option}, text(s)));
#ifdef STATICPY_HAS_ZLIB
                add("csv", name + ".csv.gz", cat({option}, gz(text(s))));
                add("csv_gz", name, cat({option, 0, 0}, text(s)));
#endif
            }
        }
    }

#ifdef STATICPY_HAS_ZLIB
    // The gz targets' other container modes, once each: cut, no trailer, garbage (all refused),
    // two members (read as one stream).
    const bytes idx_small = idx_file(0x08, {2, 3});
    const bytes npy_small = npy_file("<f4", "(3,)", npy_data(3, 4));
    for (std::uint8_t mode = 1; mode < 5; ++mode) {
        const bool ok = mode == 4;
        const std::string name = "mode" + std::to_string(mode);
        add("idx_gz", name, cat({mode, 5}, idx_small), ok);
        add("npy_gz", name, cat({mode, 5}, npy_small), ok);
        add("csv_gz", name, cat({4, mode, 5}, text("1.5,2\n3,4\n")), ok);
    }
#endif
    return out;
}

#ifdef STATICPY_HAS_ZLIB
/// The regression inputs of issue 8 (fuzz/regressions/<target>/<name>, expected outcomes in
/// fuzz/regressions/EXPECTED). Small: the largest is a few KB.
inline std::vector<input> regressions() {
    using namespace corpus;
    std::vector<input> out;
    const auto add = [&out](const std::string& target, const std::string& name, bytes data) {
        out.push_back({target, name, std::move(data), true});
    };
    const auto no_trailer = [](bytes b) {
        b.resize(b.size() - 8);
        return b;
    };
    const auto garbage = [](bytes b) { return cat(std::move(b), text("GARBAGE!")); };
    const std::uint8_t csv_i64 = 3; // the option byte: int64, ',', no header

    // Item 1: a .csv.gz cut inside 3456789, after "345". Stored (level 0) so that the cut lands
    // on a known byte of the content: 10 bytes of gzip header, 5 of stored-block header.
    const std::string table = "1,2\n3456789,5\n";
    const bytes stored = gz(text(table), 0);
    add("csv", "gz_truncated_mid_number",
        cat({csv_i64}, bytes(stored.begin(), stored.begin() + 15 + 7)));
    add("csv", "gz_no_trailer", cat({csv_i64}, no_trailer(gz(text(table)))));
    add("csv", "gz_garbage_after_member", cat({csv_i64}, garbage(gz(text(table)))));
    add("csv", "gz_concatenated_members",
        cat({csv_i64}, cat(gz(text("1,2\n34")), gz(text("56789,5\n")))));

    const bytes idx = idx_file(0x0C, {3, 4});
    add("idx", "gz_no_trailer", no_trailer(gz(idx)));
    add("idx", "gz_garbage_after_member", garbage(gz(idx)));
    add("idx", "gz_concatenated_members",
        cat(gz(bytes(idx.begin(), idx.begin() + 13)), gz(bytes(idx.begin() + 13, idx.end()))));
    const bytes cut = gz(idx, 0);
    add("idx", "gz_truncated_data", bytes(cut.begin(), cut.begin() + 15 + 20 + 10));

    const bytes npy = npy_file("<f8", "(2, 3)", npy_data(6, 8));
    add("npy", "gz_no_trailer", no_trailer(gz(npy)));
    add("npy", "gz_garbage_after_member", garbage(gz(npy)));
    add("npy", "gz_concatenated_members",
        cat(gz(bytes(npy.begin(), npy.begin() + 40)), gz(bytes(npy.begin() + 40, npy.end()))));

    // Item 2: sizes a small compressed file claims. 2^30 uint8 elements, 64 bytes of them.
    bytes claim{0, 0, 0x08, 1};
    put_be32(claim, 1U << 30);
    claim.resize(claim.size() + 64, 7);
    add("idx", "gz_header_claims_1GiB", gz(claim));
    // 2^30 int8 elements: a 4 GiB int32 tensor.
    bytes int8_claim{0, 0, 0x09, 2};
    put_be32(int8_claim, 1U << 15);
    put_be32(int8_claim, 1U << 15);
    int8_claim.resize(int8_claim.size() + 64, 7);
    add("idx", "gz_int8_claims_1G_elements", gz(int8_claim));
    bytes npy_claim{0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xF0, 0xFF, 0xFF, 0x3F};
    npy_claim.resize(npy_claim.size() + 64, ' ');
    add("npy", "gz_v2_header_length_1GiB", gz(npy_claim));
    // ~3 MB of blank lines (no rows: a [0, 0] table) and of zero bytes (not a number), 3 KB
    // compressed each.
    std::string blank;
    for (int i = 0; i < 100000; ++i)
        blank += "                            \r\n";
    add("csv", "gz_whitespace_3MB", cat({csv_i64}, gz(text(blank), 9)));
    add("csv", "gz_zeros_3MB", cat({csv_i64}, gz(bytes(3000000, 0), 9)));

    // Item 3: a zero beside huge extents, the product 0 but the strides overflowing int64.
    bytes zero_huge{0, 0, 0x08, 3};
    put_be32(zero_huge, 0);
    put_be32(zero_huge, 0xFFFFFFFFU);
    put_be32(zero_huge, 0xFFFFFFFFU);
    add("idx", "dims_0_4G_4G", zero_huge);
    add("npy", "shape_3037000500_3037000500_0", npy_file("<f8", "(3037000500, 3037000500, 0)", {}));
    return out;
}

/// Regressions too large to commit (~1 MiB each), made when the replay test runs: a file big
/// enough that the deflate bound admits the 1 GiB its header claims, so that only allocating as
/// data arrives keeps the reader from allocating it (issue 8, item 2). Incompressible content
/// stored as it is (level 0): 1 MiB of file, 1 MiB of data.
inline std::vector<input> large_regressions() {
    using namespace corpus;
    bytes noise(std::size_t{1} << 20);
    std::uint32_t x = 12345;
    for (auto& b : noise) {
        x = x * 1103515245U + 12345U;
        b = static_cast<std::uint8_t>(x >> 24);
    }
    bytes idx{0, 0, 0x08, 1};
    put_be32(idx, 1U << 30);
    bytes int8{0, 0, 0x09, 2};
    put_be32(int8, 1U << 15);
    put_be32(int8, 1U << 15);
    bytes npy{0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xF0, 0xFF, 0xFF, 0x3F};
    return {
        {"idx", "gz_1MiB_claims_1GiB", gz(cat(idx, noise), 0), true},
        {"idx", "gz_1MiB_int8_claims_1GiB", gz(cat(int8, noise), 0), true},
        {"npy", "gz_1MiB_v2_header_length_1GiB", gz(cat(npy, noise), 0), true},
    };
}
#endif

} // namespace staticpy_fuzz
