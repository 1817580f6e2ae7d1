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
#include <utility>
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

/// A safetensors file: the 8-byte little-endian length of `header`, `header`, then `data`.
inline bytes safetensors_raw(const std::string& header, const bytes& data) {
    bytes b;
    for (int k = 0; k < 8; ++k)
        b.push_back(
            static_cast<std::uint8_t>(static_cast<std::uint64_t>(header.size()) >> (8 * k)));
    b.insert(b.end(), header.begin(), header.end());
    b.insert(b.end(), data.begin(), data.end());
    return b;
}

/// One tensor of a safetensors file: name, dtype, shape (JSON text) and raw bytes.
struct st_tensor {
    std::string name;
    std::string dtype;
    std::string shape;
    bytes data;
};

/// A safetensors file of `tensors`, their data in the order given, `metadata` (a JSON object's
/// text) first when there is one; the header padded with spaces to a multiple of 8, as the
/// reference pads it.
inline bytes safetensors_file(const std::vector<st_tensor>& tensors,
                              const std::string& metadata = "") {
    std::string header = "{";
    if (!metadata.empty())
        header += "\"__metadata__\":" + metadata;
    bytes data;
    for (const auto& t : tensors) {
        if (header.size() > 1)
            header += ',';
        header += "\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":" + t.shape +
                  ",\"data_offsets\":[" + std::to_string(data.size()) + "," +
                  std::to_string(data.size() + t.data.size()) + "]}";
        data.insert(data.end(), t.data.begin(), t.data.end());
    }
    header += '}';
    header.append((8 - header.size() % 8) % 8, ' ');
    return safetensors_raw(header, data);
}

/// The tensors of every dtype nn::load reads, 2 x 3 each (bools 0 and 1).
inline std::vector<st_tensor> safetensors_dtypes() {
    const std::vector<std::pair<std::string, std::size_t>> types{
        {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
        {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
    std::vector<st_tensor> out;
    for (const auto& [dtype, size] : types)
        out.push_back({dtype, dtype, "[2,3]", npy_data(6, size, dtype == "BOOL")});
    return out;
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

    // safetensors checkpoints: every dtype alone and together (with metadata), a 0-dim, an empty
    // and a rank-4 tensor, an optimiser's names, and what the reference accepts beyond what it
    // writes: whitespace, escapes, unknown fields, "__metadata__": null, tensors listed out of
    // the order of their data.
    for (const auto& t : safetensors_dtypes())
        add("checkpoint", t.dtype + ".safetensors", safetensors_file({t}));
    add("checkpoint", "all_dtypes_metadata.safetensors",
        safetensors_file(safetensors_dtypes(), R"({"format":"pt","epoch":"3"})"));
    add("checkpoint", "empty.safetensors", safetensors_file({}));
    add("checkpoint", "scalar_empty_rank4.safetensors",
        safetensors_file({{"scalar", "F32", "[]", npy_data(1, 4)},
                          {"empty", "F64", "[0,3]", {}},
                          {"rank4", "I32", "[1,2,1,2]", npy_data(4, 4)}}));
    add("checkpoint", "optimizer_state.safetensors",
        safetensors_file({{"state.0.weight.step", "I64", "[]", npy_data(1, 8)},
                          {"param_groups.0.lr", "F64", "[]", npy_data(1, 8)},
                          {"param_groups.0.nesterov", "BOOL", "[]", {0}},
                          {"state.0.weight.exp_avg", "F32", "[2,2]", npy_data(4, 4)}}));
    add("checkpoint", "lenient.safetensors",
        safetensors_raw("{\n  \"b\\u00fc\\n\" : {\"x\": [{\"y\": null}, true, -1.5e3], "
                        "\"data_offsets\": [2, 3], \"shape\": [1], \"dtype\": \"U8\"},\n  "
                        "\"a\": {\"dtype\": \"U8\", \"shape\": [2], \"data_offsets\": [0, 2]},"
                        "\"__metadata__\": null}\r\n\t ",
                        {1, 2, 3}));

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

    // Checkpoints (safetensors): sizes a small file claims, and what the format forbids. None
    // is gzip (nn::load reads checkpoints as they are).
    const auto one = [](const std::string& dtype, const std::string& shape,
                        const std::string& offsets) {
        return "{\"a\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
               ",\"data_offsets\":" + offsets + "}}";
    };
    bytes header_1e15 = safetensors_raw("{}      ", {});
    for (int k = 0; k < 8; ++k)
        header_1e15[static_cast<std::size_t>(k)] =
            static_cast<std::uint8_t>(std::uint64_t{1'000'000'000'000'000} >> (8 * k));
    add("checkpoint", "header_length_1e15", header_1e15);
    bytes beyond = safetensors_raw("{}      ", {});
    beyond[0] = 200;
    add("checkpoint", "header_length_beyond_file", beyond);
    add("checkpoint", "offsets_claim_1e15_bytes",
        safetensors_raw(one("F64", "[125000000000000]", "[0,1000000000000000]"), bytes(8, 0)));
    add("checkpoint", "shape_overflows_u64",
        safetensors_raw(one("F64", "[4294967296,4294967296]", "[0,8]"), bytes(8, 0)));
    add("checkpoint", "zero_beside_4G_4G",
        safetensors_raw(one("F32", "[0,4294967296,4294967296]", "[0,0]"), {}));
    add("checkpoint", "nesting_1000_deep",
        safetensors_raw("{\"a\":{\"x\":" + std::string(1000, '[') + std::string(1000, ']') + "}}",
                        {}));
    add("checkpoint", "duplicate_name",
        safetensors_file({{"a", "U8", "[1]", {1}}, {"a", "U8", "[1]", {2}}}));
    add("checkpoint", "overlapping_offsets",
        safetensors_raw(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                        R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                        {1, 2, 3}));
    bytes truncated = safetensors_file(safetensors_dtypes());
    truncated.resize(truncated.size() - 5);
    add("checkpoint", "truncated_data", truncated);
    add("checkpoint", "header_not_utf8", safetensors_raw("{\"\xff\":1}", {}));
    add("checkpoint", "bool_byte_2", safetensors_file({{"a", "BOOL", "[2]", {1, 2}}}));
    add("checkpoint", "u32_dtype", safetensors_file({{"a", "U32", "[1]", bytes(4, 0)}}));
    add("checkpoint", "all_dtypes", safetensors_file(safetensors_dtypes(), R"({"format":"pt"})"));
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
