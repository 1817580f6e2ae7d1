#pragma once
// Checkpoints in the safetensors format, the one PyTorch users exchange weights in
// (huggingface/safetensors): save a model's or an optimiser's state_dict, load it back.
//
//   nn::save(model.state_dict(), "model.safetensors");
//   nn::save(opt.state_dict(), "opt.safetensors");
//   nn::load_state_dict(model, nn::load("model.safetensors"));   // PyTorch's errors
//   opt.load_state_dict(nn::load("opt.safetensors"));
//
// A file is an 8-byte little-endian header length N, N bytes of a JSON header
//   {"__metadata__":{"format":"pt"},"0.weight":{"dtype":"F32","shape":[16,8],
//    "data_offsets":[0,512]},...}
// padded with spaces to a multiple of 8, then the tensors' raw little-endian row-major bytes, the
// offsets counted from the end of the header. The writer does what the reference implementation
// does byte for byte: compact JSON, __metadata__ first, the tensors ordered by descending dtype
// (its alignment order) then by name, each data section right after the previous one.
//
// The reader takes what the reference accepts and refuses what the format forbids: offsets that
// overlap, leave holes or do not reach the end of the file; also, where the reference lets them
// through, duplicate names and a header that does not begin with '{' (the format's MUSTs), and
// bool bytes other than 0 and 1 (undefined behaviour to read as a C++ bool). It never
// allocates what a header claims before checking it against the file's size: the header length
// is bounded (100 MB, the reference's limit) and compared with the file's size, and every
// tensor's bytes lie inside the file once the offsets are checked, so what it allocates is at
// most a few times the file. Errors name the file and give the reference's words
// ("safetensors file 'x': Error while deserializing header: header too large"): ValueError for a
// malformed file, TypeError for a dtype staticpy has no tensor for, RuntimeError for the
// operating system's errors (Python's OSError text), MemoryError when memory runs out.
//
// staticpy's tensors hold bool, uint8, int32, int64, float32 and float64: F16 and BF16 tensors
// load as float32, I8 and I16 as int32, every value exactly (load_state_dict then casts to the
// model's element type, as PyTorch's copy_ does). U16, U32, U64, C64 and the 4-, 6- and 8-bit
// float types are TypeErrors.

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/hana/for_each.hpp>

#include "staticpy/containers/dict.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/config.hpp"
#include "staticpy/nn/modules.hpp" // declares load_state_dict (with its default)
#include "staticpy/nn/optim.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/tensor.hpp"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace staticpy::nn {

/// A safetensors file's "__metadata__": free-form text keyed by text, sorted by key.
///   nn::save(sd, "model.safetensors", {{"format", "pt"}});
using safetensors_metadata = std::map<std::string, std::string, std::less<>>;

/// What load_state_dict(..., strict = false) did not match (PyTorch's _IncompatibleKeys): the
/// model's names the state_dict lacks, and the state_dict's names the model does not have.
///   auto keys = nn::load_state_dict(model, sd, false);   keys.missing_keys[0] == "0.bias"
struct IncompatibleKeys {
    std::vector<std::string> missing_keys;
    std::vector<std::string> unexpected_keys;

    /// As Python prints it: <All keys matched successfully>, or
    /// _IncompatibleKeys(missing_keys=['0.bias'], unexpected_keys=[]).
    void repr_into(std::string& out) const {
        if (missing_keys.empty() && unexpected_keys.empty()) {
            out += "<All keys matched successfully>";
            return;
        }
        const auto list = [&out](const std::vector<std::string>& keys) {
            out += '[';
            for (std::size_t i = 0; i < keys.size(); ++i)
                out.append(i > 0 ? ", '" : "'").append(keys[i]).append("'");
            out += ']';
        };
        out += "_IncompatibleKeys(missing_keys=";
        list(missing_keys);
        out += ", unexpected_keys=";
        list(unexpected_keys);
        out += ')';
    }
};

namespace detail::safetensors {

static_assert(std::endian::native == std::endian::little,
              "staticpy: RuntimeError: safetensors checkpoints are read and written on "
              "little-endian machines (the format's byte order)");

/// The reference's MAX_HEADER_SIZE: a longer header is refused before it is read.
inline constexpr std::uint64_t max_header_size = 100'000'000;
/// serde_json's recursion limit, which the reference's header parser inherits.
inline constexpr int max_json_depth = 128;

/// How a file's elements become a staticpy tensor's.
enum class element_kind : std::uint8_t { none, bool_, u8, i8, i16, i32, i64, f16, bf16, f32, f64 };

/// A safetensors dtype: its name, its width, and what staticpy reads it into.
struct dtype_spec {
    std::string_view name;
    unsigned bits;
    element_kind kind; // none: a dtype staticpy has no tensor for
};

/// Every dtype the reference knows, in the order of its Dtype enum (increasing alignment): its
/// writers lay tensors out by descending position here, then by name.
inline constexpr std::array<dtype_spec, 22> dtype_specs{{
    {"BOOL", 8, element_kind::bool_},
    {"F4", 4, element_kind::none},
    {"F6_E2M3", 6, element_kind::none},
    {"F6_E3M2", 6, element_kind::none},
    {"U8", 8, element_kind::u8},
    {"I8", 8, element_kind::i8},
    {"F8_E5M2", 8, element_kind::none},
    {"F8_E4M3", 8, element_kind::none},
    {"F8_E8M0", 8, element_kind::none},
    {"F8_E4M3FNUZ", 8, element_kind::none},
    {"F8_E5M2FNUZ", 8, element_kind::none},
    {"I16", 16, element_kind::i16},
    {"U16", 16, element_kind::none},
    {"F16", 16, element_kind::f16},
    {"BF16", 16, element_kind::bf16},
    {"I32", 32, element_kind::i32},
    {"U32", 32, element_kind::none},
    {"F32", 32, element_kind::f32},
    {"C64", 64, element_kind::none},
    {"F64", 64, element_kind::f64},
    {"I64", 64, element_kind::i64},
    {"U64", 64, element_kind::none},
}};

inline const dtype_spec* find_dtype(std::string_view name) {
    for (const auto& d : dtype_specs)
        if (d.name == name)
            return &d;
    return nullptr;
}

/// The position of a dtype in dtype_specs (the reference's layout order).
inline std::size_t dtype_order(const dtype_spec* d) {
    return static_cast<std::size_t>(d - dtype_specs.data());
}

/// The safetensors dtype a staticpy dtype is written as.
inline const dtype_spec* spec_of(staticpy::dtype d) {
    switch (d) {
    case staticpy::boolean:
        return find_dtype("BOOL");
    case staticpy::uint8:
        return find_dtype("U8");
    case staticpy::int32:
        return find_dtype("I32");
    case staticpy::int64:
        return find_dtype("I64");
    case staticpy::float32:
        return find_dtype("F32");
    case staticpy::float64:
        return find_dtype("F64");
    }
    return nullptr;
}

inline std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out.append(i > 0 ? ", " : "").append(std::to_string(shape[i]));
    return out + "]";
}

/// Python's OSError text for errno e and a path: "[Errno 2] No such file or directory: 'x'".
inline std::string os_error_text(int e, const std::filesystem::path& path) {
    return "[Errno " + std::to_string(e) + "] " + std::strerror(e) + ": '" + path.string() + "'";
}

// ---- UTF-8 and JSON -----------------------------------------------------------------------------

/// The first invalid UTF-8 sequence of s, as Rust's str::from_utf8 reports it ("invalid utf-8
/// sequence of 1 bytes from index 5", "incomplete utf-8 byte sequence from index 7"), or "".
inline std::string utf8_error(std::string_view s) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const auto continuation = [&](std::size_t i) { return (byte(i) & 0xC0U) == 0x80U; };
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = byte(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        const std::size_t width = c >= 0xC2 && c <= 0xDF   ? 2
                                  : c >= 0xE0 && c <= 0xEF ? 3
                                  : c >= 0xF0 && c <= 0xF4 ? 4
                                                           : 0;
        const auto invalid = [&](std::size_t n) {
            return "invalid utf-8 sequence of " + std::to_string(n) + " bytes from index " +
                   std::to_string(i);
        };
        const std::string incomplete =
            "incomplete utf-8 byte sequence from index " + std::to_string(i);
        if (width == 0)
            return invalid(1);
        if (i + 1 >= s.size())
            return incomplete;
        // The second byte's range excludes overlong forms, surrogates and code points above
        // U+10FFFF.
        const unsigned char lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        const unsigned char hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        if (byte(i + 1) < lo || byte(i + 1) > hi)
            return invalid(1);
        for (std::size_t k = 2; k < width; ++k) {
            if (i + k >= s.size())
                return incomplete;
            if (!continuation(i + k))
                return invalid(k);
        }
        i += width;
    }
    return {};
}

/// s as a JSON string literal, escaped as serde_json (and Python's json) escape it: the quote,
/// the backslash and control characters; other characters, UTF-8 included, as they are.
inline void json_string_into(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 0xF];
            } else {
                out += ch;
            }
        }
    }
    out += '"';
}

/// One tensor of a header.
struct tensor_entry {
    std::string name;
    const dtype_spec* dtype = nullptr;
    std::vector<std::uint64_t> shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

/// A parsed header: the tensors in the order of their data, and the metadata.
struct parsed_header {
    std::vector<tensor_entry> tensors;
    safetensors_metadata metadata;
};

/// A strict JSON parser for exactly what a header may hold (RFC 8259 grammar, UTF-8 already
/// checked): an object of tensor entries and "__metadata__". Fields of a tensor entry other than
/// dtype, shape and data_offsets are parsed and ignored, as the reference ignores them. Nesting
/// deeper than serde_json's limit is refused, so a header of a million '[' cannot exhaust the
/// stack. Errors read as serde_json's, with the line and column.
class header_parser {
public:
    header_parser(std::string_view text, const std::string& label) : s_(text), label_(label) {}

    parsed_header parse() {
        parsed_header out;
        skip_ws();
        if (pos_ == s_.size())
            fail("EOF while parsing a value");
        if (pos_ != 0 || s_[0] != '{')
            fail_plain("the header does not begin with '{' (the safetensors format requires it)");
        ++pos_;
        std::set<std::string, std::less<>> names;
        bool has_metadata = false;
        skip_ws();
        if (peek() == '}') {
            ++pos_;
        } else {
            while (true) {
                skip_ws();
                if (peek() != '"')
                    fail(pos_ == s_.size() ? "EOF while parsing an object"
                                           : "key must be a string");
                std::string key = string_value();
                expect_colon();
                if (key == "__metadata__") {
                    if (has_metadata)
                        fail("duplicate field `__metadata__`");
                    has_metadata = true;
                    metadata(out.metadata);
                } else {
                    if (names.contains(key))
                        fail("duplicate tensor name `" + key +
                             "` (the safetensors format forbids duplicate keys)");
                    tensor_entry t;
                    t.name = key;
                    tensor(t);
                    names.insert(std::move(key));
                    out.tensors.push_back(std::move(t));
                }
                if (!next_member('}', "an object"))
                    break;
            }
        }
        skip_ws();
        if (pos_ != s_.size())
            fail("trailing characters");
        return out;
    }

private:
    [[noreturn]] void fail_plain(const std::string& what) const {
        throw ValueError(label_ + ": Error while deserializing header: " + what);
    }
    /// serde_json's "<what> at line L column C", C the column of the last character read.
    [[noreturn]] void fail(const std::string& what) const {
        const std::size_t at = std::min(pos_, s_.size());
        std::size_t line = 1;
        std::size_t line_start = 0;
        for (std::size_t i = 0; i < at; ++i) {
            if (s_[i] == '\n') {
                ++line;
                line_start = i + 1;
            }
        }
        const std::size_t column = at - line_start + (at < s_.size() ? 1 : 0);
        fail_plain("invalid JSON in header: " + what + " at line " + std::to_string(line) +
                   " column " + std::to_string(column));
    }

    [[nodiscard]] char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    void skip_ws() {
        while (pos_ < s_.size() &&
               (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
            ++pos_;
    }
    void expect_colon() {
        skip_ws();
        if (peek() != ':')
            fail(pos_ == s_.size() ? "EOF while parsing an object" : "expected `:`");
        ++pos_;
        skip_ws();
    }
    /// After a member or element: true at ',' (another follows), false at the closing bracket.
    bool next_member(char close, const char* what) {
        skip_ws();
        if (peek() == ',') {
            ++pos_;
            skip_ws();
            if (peek() == close)
                fail("trailing comma");
            return true;
        }
        if (peek() == close) {
            ++pos_;
            return false;
        }
        if (pos_ == s_.size())
            fail(std::string("EOF while parsing ") + what);
        fail(close == '}' ? "expected `,` or `}`" : "expected `,` or `]`");
    }

    /// What a value starting here is, for "invalid type" errors.
    [[nodiscard]] std::string kind_here() const {
        switch (peek()) {
        case '{':
            return "map";
        case '[':
            return "sequence";
        case '"':
            return "string";
        case 't':
        case 'f':
            return "boolean";
        case 'n':
            return "null";
        default:
            return "number";
        }
    }

    static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    }
    unsigned hex4() {
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            if (pos_ == s_.size())
                fail("EOF while parsing a string");
            const int d = hex_digit(s_[pos_]);
            if (d < 0)
                fail("invalid escape");
            v = v * 16 + static_cast<unsigned>(d);
            ++pos_;
        }
        return v;
    }
    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    /// A string at '"', its escapes decoded.
    std::string string_value() {
        ++pos_; // the opening quote
        std::string out;
        while (true) {
            if (pos_ == s_.size())
                fail("EOF while parsing a string");
            const char c = s_[pos_];
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20)
                fail("control character (\\u0000-\\u001F) found while parsing a string");
            if (c != '\\') {
                out += c;
                ++pos_;
                continue;
            }
            ++pos_;
            if (pos_ == s_.size())
                fail("EOF while parsing a string");
            const char e = s_[pos_++];
            switch (e) {
            case '"':
            case '\\':
            case '/':
                out += e;
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    fail("lone trailing surrogate in hex escape");
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (s_.substr(pos_, 2) != "\\u")
                        fail("lone leading surrogate in hex escape");
                    pos_ += 2;
                    const unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF)
                        fail("lone leading surrogate in hex escape");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                append_utf8(out, cp);
                break;
            }
            default:
                --pos_;
                fail("invalid escape");
            }
        }
    }

    /// A number's text at the current position, checked against JSON's grammar.
    std::string_view number_text() {
        const std::size_t start = pos_;
        if (peek() == '-')
            ++pos_;
        const auto digits = [&] {
            const std::size_t from = pos_;
            while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9')
                ++pos_;
            return pos_ - from;
        };
        if (peek() == '0') {
            ++pos_;
        } else if (digits() == 0) {
            fail(pos_ == s_.size() ? "EOF while parsing a value" : "invalid number");
        }
        if (peek() == '.') {
            ++pos_;
            if (digits() == 0)
                fail(pos_ == s_.size() ? "EOF while parsing a value" : "invalid number");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-')
                ++pos_;
            if (digits() == 0)
                fail(pos_ == s_.size() ? "EOF while parsing a value" : "invalid number");
        }
        return s_.substr(start, pos_ - start);
    }

    /// A non-negative integer (serde's usize), as shape and data_offsets hold.
    std::uint64_t unsigned_value() {
        if (peek() != '-' && (peek() < '0' || peek() > '9'))
            fail("invalid type: " + kind_here() + ", expected usize");
        const std::string_view text = number_text();
        if (text.find_first_of(".eE") != std::string_view::npos)
            fail("invalid type: floating point `" + std::string(text) + "`, expected usize");
        if (text[0] == '-')
            fail("invalid value: integer `" + std::string(text) + "`, expected usize");
        std::uint64_t v = 0;
        for (char c : text) {
            const auto d = static_cast<std::uint64_t>(c - '0');
            if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
                fail("number out of range");
            v = v * 10 + d;
        }
        return v;
    }

    std::vector<std::uint64_t> unsigned_array() {
        if (peek() != '[')
            fail("invalid type: " + kind_here() + ", expected a sequence");
        ++pos_;
        std::vector<std::uint64_t> out;
        skip_ws();
        if (peek() == ']') {
            ++pos_;
            return out;
        }
        do {
            skip_ws();
            out.push_back(unsigned_value());
        } while (next_member(']', "a list"));
        return out;
    }

    /// Any JSON value, parsed and dropped (an entry's fields the format does not define).
    void skip_value(int depth) {
        if (depth > max_json_depth)
            fail("recursion limit exceeded");
        skip_ws();
        const char c = peek();
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++pos_;
            skip_ws();
            if (peek() == close) {
                ++pos_;
                return;
            }
            do {
                skip_ws();
                if (c == '{') {
                    if (peek() != '"')
                        fail(pos_ == s_.size() ? "EOF while parsing an object"
                                               : "key must be a string");
                    (void)string_value();
                    expect_colon();
                }
                skip_value(depth + 1);
            } while (next_member(close, c == '{' ? "an object" : "a list"));
        } else if (c == '"') {
            (void)string_value();
        } else if (s_.substr(pos_, 4) == "true" || s_.substr(pos_, 4) == "null") {
            pos_ += 4;
        } else if (s_.substr(pos_, 5) == "false") {
            pos_ += 5;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            (void)number_text();
        } else {
            fail(pos_ == s_.size() ? "EOF while parsing a value" : "expected value");
        }
    }

    /// A tensor's entry: {"dtype": ..., "shape": [...], "data_offsets": [begin, end]}.
    void tensor(tensor_entry& t) {
        if (peek() != '{')
            fail("invalid type: " + kind_here() + ", expected struct TensorInfo");
        ++pos_;
        bool has_dtype = false;
        bool has_shape = false;
        bool has_offsets = false;
        skip_ws();
        if (peek() == '}') {
            ++pos_;
        } else {
            do {
                skip_ws();
                if (peek() != '"')
                    fail(pos_ == s_.size() ? "EOF while parsing an object"
                                           : "key must be a string");
                const std::string field = string_value();
                expect_colon();
                const auto once = [&](bool& seen) {
                    if (seen)
                        fail("duplicate field `" + field + "`");
                    seen = true;
                };
                if (field == "dtype") {
                    once(has_dtype);
                    if (peek() != '"')
                        fail("invalid type: " + kind_here() + ", expected a dtype name");
                    const std::string name = string_value();
                    t.dtype = find_dtype(name);
                    if (t.dtype == nullptr) {
                        std::string known;
                        for (const auto& d : dtype_specs)
                            known.append(known.empty() ? "`" : ", `").append(d.name).append("`");
                        fail("unknown variant `" + name + "`, expected one of " + known);
                    }
                } else if (field == "shape") {
                    once(has_shape);
                    t.shape = unsigned_array();
                } else if (field == "data_offsets") {
                    once(has_offsets);
                    const auto offsets = unsigned_array();
                    if (offsets.size() != 2)
                        fail("invalid length " + std::to_string(offsets.size()) +
                             ", expected a tuple of size 2");
                    t.begin = offsets[0];
                    t.end = offsets[1];
                } else {
                    skip_value(3);
                }
            } while (next_member('}', "an object"));
        }
        if (!has_dtype || !has_shape || !has_offsets)
            fail(std::string("missing field `") +
                 (!has_dtype   ? "dtype"
                  : !has_shape ? "shape"
                               : "data_offsets") +
                 "`");
    }

    /// "__metadata__": null, or an object of strings.
    void metadata(safetensors_metadata& out) {
        if (s_.substr(pos_, 4) == "null") {
            pos_ += 4;
            return;
        }
        if (peek() != '{')
            fail("invalid type: " + kind_here() + ", expected a map");
        ++pos_;
        skip_ws();
        if (peek() == '}') {
            ++pos_;
            return;
        }
        do {
            skip_ws();
            if (peek() != '"')
                fail(pos_ == s_.size() ? "EOF while parsing an object" : "key must be a string");
            std::string key = string_value();
            expect_colon();
            if (peek() != '"')
                fail("invalid type: " + kind_here() + ", expected a string");
            std::string value = string_value();
            if (out.contains(key))
                fail("duplicate key `" + key + "` in __metadata__");
            out.emplace(std::move(key), std::move(value));
        } while (next_member('}', "an object"));
    }

    std::string_view s_;
    const std::string& label_;
    std::size_t pos_ = 0;
};

/// The reference's Metadata::validate, on a header's tensors: sorted by their offsets, each must
/// start where the previous one ends (no overlap, no hole) and hold exactly its shape's bytes.
/// Also what staticpy needs beyond it: sizes that fit int64. Returns where the data ends.
inline std::uint64_t validate(const std::string& label, std::vector<tensor_entry>& tensors) {
    const auto fail = [&](const std::string& what) {
        throw ValueError(label + ": Error while deserializing header: " + what);
    };
    std::sort(tensors.begin(), tensors.end(), [](const tensor_entry& a, const tensor_entry& b) {
        return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
    });
    std::uint64_t start = 0;
    for (const tensor_entry& t : tensors) {
        if (t.begin != start || t.end < t.begin)
            fail("invalid offset for tensor `" + t.name + "` (data_offsets [" +
                 std::to_string(t.begin) + ", " + std::to_string(t.end) +
                 "]; the tensors before it end at " + std::to_string(start) +
                 ": offsets must not overlap or leave holes)");
        start = t.end;
        std::uint64_t numel = 1;
        std::uint64_t int64_numel = 1; // the product of the non-zero sizes: staticpy's strides
        constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        bool overflow = false;
        bool too_large = false;
        for (std::uint64_t d : t.shape) {
            overflow =
                overflow || (d != 0 && numel > std::numeric_limits<std::uint64_t>::max() / d);
            if (!overflow)
                numel *= d;
            if (d > max || (d != 0 && int64_numel > max / d))
                too_large = true;
            else if (d != 0)
                int64_numel *= d;
        }
        std::uint64_t bits = 0;
        if (overflow || numel > std::numeric_limits<std::uint64_t>::max() / t.dtype->bits)
            fail("overflow computing buffer size from shape and/or element type (tensor `" +
                 t.name + "`, shape " + shape_text(t.shape) + ")");
        bits = numel * t.dtype->bits;
        if (bits % 8 != 0)
            fail("The slice is slicing for subbytes dtypes, and the slice does not end up at a "
                 "byte boundary, this is invalid. (tensor `" +
                 t.name + "`)");
        if (t.end - t.begin != bits / 8)
            fail("invalid shape, data type, or offset for tensor `" + t.name + "` (shape " +
                 shape_text(t.shape) + " of " + std::string(t.dtype->name) + " is " +
                 std::to_string(bits / 8) + " bytes; its data_offsets [" + std::to_string(t.begin) +
                 ", " + std::to_string(t.end) + "] hold " + std::to_string(t.end - t.begin) + ")");
        if (too_large)
            fail("the shape " + shape_text(t.shape) + " of tensor `" + t.name +
                 "` does not fit staticpy's int64 sizes");
    }
    return start;
}

// ---- reading ------------------------------------------------------------------------------------

/// The bytes of a checkpoint held in memory, read forward.
class memory_source {
public:
    memory_source(std::span<const std::uint8_t> bytes, std::string label)
        : bytes_(bytes), label_(std::move(label)) {}
    [[nodiscard]] const std::string& label() const noexcept { return label_; }
    [[nodiscard]] std::uint64_t size() const noexcept { return bytes_.size(); }
    void read(void* dst, std::size_t n) {
        if (n > bytes_.size() - pos_)
            throw ValueError(label_ + ": truncated: expected " + std::to_string(n) +
                             " more bytes, got " + std::to_string(bytes_.size() - pos_));
        if (n > 0)
            std::memcpy(dst, bytes_.data() + pos_, n);
        pos_ += n;
    }

private:
    std::span<const std::uint8_t> bytes_;
    std::string label_;
    std::size_t pos_ = 0;
};

/// A checkpoint file opened for reading. A regular file is read in place; anything else (a
/// pipe, /dev/stdin) has no size to check a header against, so stream_bytes() reads it into
/// memory first, no further than its header says the file goes.
class file_source {
public:
    explicit file_source(const std::filesystem::path& path)
        : label_("safetensors file '" + path.string() + "'") {
        file_ = std::fopen(path.c_str(), "rb");
        if (file_ == nullptr)
            throw RuntimeError(os_error_text(errno, path));
        struct stat st {};
        if (::fstat(::fileno(file_), &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                std::fclose(file_);
                file_ = nullptr;
                throw RuntimeError(os_error_text(EISDIR, path));
            }
            regular_ = S_ISREG(st.st_mode);
            size_ = static_cast<std::uint64_t>(st.st_size);
        }
    }
    file_source(const file_source&) = delete;
    file_source& operator=(const file_source&) = delete;
    ~file_source() {
        if (file_ != nullptr)
            std::fclose(file_);
    }

    [[nodiscard]] const std::string& label() const noexcept { return label_; }
    [[nodiscard]] bool regular() const noexcept { return regular_; }
    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

    void read(void* dst, std::size_t n) {
        const std::size_t got = read_some(dst, n);
        if (got != n) // the file shrank while it was read
            throw ValueError(label_ + ": truncated: expected " + std::to_string(n) +
                             " more bytes, got " + std::to_string(got));
    }

    /// The whole stream as bytes, read until its header's length, then its tensors' end, plus
    /// one byte (so that data past the end shows), growing the buffer only as bytes arrive.
    std::vector<std::uint8_t> stream_bytes() {
        std::vector<std::uint8_t> out;
        const auto fill_to = [&](std::uint64_t want) {
            while (out.size() < want) {
                const std::uint64_t next =
                    std::min<std::uint64_t>(want, std::max<std::uint64_t>(out.size() * 2, 1 << 16));
                const std::size_t have = out.size();
                try {
                    out.resize(static_cast<std::size_t>(next));
                } catch (const std::bad_alloc&) {
                    throw MemoryError(label_ + ": out of memory reading the stream");
                }
                const std::size_t got = read_some(out.data() + have, out.size() - have);
                out.resize(have + got);
                if (got == 0)
                    return;
            }
        };
        fill_to(8);
        if (out.size() < 8)
            return out;
        std::uint64_t n = 0;
        std::memcpy(&n, out.data(), 8);
        if (n > max_header_size)
            return out;
        fill_to(8 + n);
        if (out.size() < 8 + n)
            return out;
        const std::string_view text(reinterpret_cast<const char*>(out.data() + 8),
                                    static_cast<std::size_t>(n));
        if (!utf8_error(text).empty())
            return out;
        auto header = header_parser(text, label_).parse();
        const std::uint64_t data_end = validate(label_, header.tensors);
        if (data_end > std::numeric_limits<std::uint64_t>::max() - 9 - n)
            return out;
        fill_to(8 + n + data_end + 1);
        return out;
    }

private:
    std::size_t read_some(void* dst, std::size_t n) {
        if (n == 0)
            return 0;
        errno = 0;
        const std::size_t got = std::fread(dst, 1, n, file_);
        if (got < n && std::ferror(file_) != 0) {
            const int e = errno;
            throw RuntimeError(label_ + ": read error" +
                               (e != 0 ? std::string(": ") + std::strerror(e) : ""));
        }
        return got;
    }

    std::string label_;
    std::FILE* file_ = nullptr;
    bool regular_ = false;
    std::uint64_t size_ = 0;
};

/// Reads and checks the length and the header (the reference's read_metadata): the tensors in
/// the order of their data, the metadata; data_size is what the file holds after the header.
template <class Source>
parsed_header read_header(Source& src) {
    const std::string& label = src.label();
    const auto fail = [&](const std::string& what) {
        throw ValueError(label + ": Error while deserializing header: " + what);
    };
    const std::uint64_t size = src.size();
    if (size < 8)
        fail("header too small (the file has " + std::to_string(size) +
             " bytes; the 8-byte header length comes first)");
    std::uint64_t n = 0;
    src.read(&n, 8);
    if (n > max_header_size)
        fail("header too large (its length says " + std::to_string(n) +
             " bytes; the format's limit is " + std::to_string(max_header_size) + ")");
    if (n > size - 8)
        fail("invalid header length (" + std::to_string(n) + " bytes, but the file has " +
             std::to_string(size - 8) + " after the length)");
    std::string text;
    try {
        text.resize(static_cast<std::size_t>(n));
    } catch (const std::bad_alloc&) {
        throw MemoryError(label + ": out of memory reading a header of " + std::to_string(n) +
                          " bytes");
    }
    src.read(text.data(), text.size());
    if (const std::string bad = utf8_error(text); !bad.empty())
        fail("invalid UTF-8 in header: " + bad);
    parsed_header header = header_parser(text, label).parse();
    const std::uint64_t data_end = validate(label, header.tensors);
    if (data_end != size - 8 - n)
        fail("incomplete metadata, file not fully covered (the tensors' data ends at byte " +
             std::to_string(data_end) + " of a data section of " + std::to_string(size - 8 - n) +
             " bytes)");
    for (const tensor_entry& t : header.tensors)
        if (t.dtype->kind == element_kind::none)
            throw TypeError(label + ": tensor `" + t.name + "` has dtype " +
                            std::string(t.dtype->name) +
                            ", which staticpy does not read (it reads F64, F32, F16, BF16, I64, "
                            "I32, I16, I8, U8 and BOOL)");
    return header;
}

/// IEEE 754 binary16 as float, exactly (subnormals, infinities and NaNs included).
inline float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1FU;
    std::uint32_t mantissa = h & 0x3FFU;
    std::uint32_t bits = sign;
    if (exponent == 0x1F) {
        bits |= 0x7F800000U | (mantissa << 13);
    } else if (exponent != 0) {
        bits |= ((exponent + 112) << 23) | (mantissa << 13);
    } else if (mantissa != 0) { // subnormal: shift the leading 1 into the implicit bit
        std::uint32_t e = 113;
        while ((mantissa & 0x400U) == 0) {
            mantissa <<= 1;
            --e;
        }
        bits |= (e << 23) | ((mantissa & 0x3FFU) << 13);
    }
    return std::bit_cast<float>(bits);
}

/// Reads one tensor's bytes from src into a new staticpy tensor of its element type.
template <class E, class Source>
optim::state_value read_elements(Source& src, const tensor_entry& t) {
    const std::string& label = src.label();
    std::vector<std::int64_t> sizes(t.shape.begin(), t.shape.end());
    std::uint64_t numel = 1;
    for (std::uint64_t d : t.shape)
        numel *= d;
    Storage<E> storage;
    try {
        storage = Storage<E>::allocate(static_cast<std::int64_t>(numel));
    } catch (const MemoryError& e) {
        throw MemoryError(label + ": tensor `" + t.name + "`: " + e.what());
    } catch (const std::bad_alloc&) {
        throw MemoryError(label + ": tensor `" + t.name + "`: out of memory");
    }
    E* out = storage.data();
    const element_kind kind = t.dtype->kind;
    const bool same_layout = kind != element_kind::bool_ && t.dtype->bits == sizeof(E) * 8;
    if (same_layout) {
        src.read(out, static_cast<std::size_t>(t.end - t.begin));
    } else if constexpr (std::is_same_v<E, bool> || std::is_same_v<E, std::int32_t> ||
                         std::is_same_v<E, float>) {
        // Converted in chunks, so that no second copy of the whole tensor is held.
        const std::size_t item = t.dtype->bits / 8;
        std::array<std::uint8_t, 1 << 14> chunk{};
        std::uint64_t done = 0;
        while (done < numel) {
            const auto n = static_cast<std::size_t>(
                std::min<std::uint64_t>(numel - done, chunk.size() / item));
            src.read(chunk.data(), n * item);
            for (std::size_t i = 0; i < n; ++i) {
                const std::uint8_t* p = chunk.data() + i * item;
                if constexpr (std::is_same_v<E, bool>) {
                    // Any byte but 0 and 1 in a bool is undefined behaviour to read.
                    if (p[0] > 1)
                        throw ValueError(label + ": tensor `" + t.name +
                                         "`: bool data holds the byte " + std::to_string(p[0]) +
                                         " at element " + std::to_string(done + i) +
                                         " (only 0 and 1 are bools)");
                    out[done + i] = p[0] != 0;
                } else if constexpr (std::is_same_v<E, std::int32_t>) {
                    std::int16_t v = 0;
                    if (kind == element_kind::i8)
                        v = static_cast<std::int8_t>(p[0]);
                    else
                        std::memcpy(&v, p, 2);
                    out[done + i] = v;
                } else {
                    std::uint16_t v = 0;
                    std::memcpy(&v, p, 2);
                    out[done + i] = kind == element_kind::f16
                                        ? half_to_float(v)
                                        : std::bit_cast<float>(static_cast<std::uint32_t>(v) << 16);
                }
            }
            done += n;
        }
    }
    return optim::state_value(storage, sizes);
}

template <class Source>
optim::state_value read_tensor(Source& src, const tensor_entry& t) {
    switch (t.dtype->kind) {
    case element_kind::bool_:
        return read_elements<bool>(src, t);
    case element_kind::u8:
        return read_elements<std::uint8_t>(src, t);
    case element_kind::i8:
    case element_kind::i16:
    case element_kind::i32:
        return read_elements<std::int32_t>(src, t);
    case element_kind::i64:
        return read_elements<std::int64_t>(src, t);
    case element_kind::f16:
    case element_kind::bf16:
    case element_kind::f32:
        return read_elements<float>(src, t);
    case element_kind::f64:
        return read_elements<double>(src, t);
    case element_kind::none:
        break;
    }
    throw TypeError(src.label() + ": tensor `" + t.name + "`: unsupported dtype");
}

/// The header, then every tensor in the order of its data (the file is read front to back).
template <class Source>
optim::state_dict_t load_from(Source& src) {
    const parsed_header header = read_header(src);
    optim::state_dict_t out;
    for (const tensor_entry& t : header.tensors)
        out.emplace(t.name, read_tensor(src, t));
    return out;
}

// ---- writing ------------------------------------------------------------------------------------

/// What a writer needs: the padded header and the values in the order of their data.
struct prepared {
    std::string header;
    std::vector<const optim::state_value*> values;
};

/// The reference's prepare(): tensors ordered by descending dtype then by name, offsets one after
/// the other, the header compact JSON with __metadata__ first, padded with spaces to a multiple
/// of 8 bytes.
inline prepared prepare(const optim::state_dict_t& state, const safetensors_metadata& metadata,
                        const std::string& label) {
    const auto fail = [&](const std::string& what) {
        throw ValueError(label + ": Error while serializing: " + what);
    };
    struct item {
        std::size_t order;
        const std::string* name;
        const optim::state_value* value;
    };
    std::vector<item> items;
    for (const auto& [name, value] : state) {
        if (name == "__metadata__")
            fail("a tensor cannot be called `__metadata__` (the name of the header's metadata)");
        if (const std::string bad = utf8_error(name); !bad.empty())
            fail("the tensor name `" + name + "` is not valid UTF-8 (" + bad + ")");
        if (!value.defined())
            fail("the tensor `" + name + "` is undefined");
        items.push_back({dtype_order(spec_of(value.dtype())), &name, &value});
    }
    for (const auto& [key, value] : metadata)
        if (!utf8_error(key).empty() || !utf8_error(value).empty())
            fail("the metadata entry `" + key + "` is not valid UTF-8");
    std::sort(items.begin(), items.end(), [](const item& a, const item& b) {
        return a.order != b.order ? a.order > b.order : *a.name < *b.name;
    });

    prepared out;
    std::string& h = out.header;
    h += '{';
    if (!metadata.empty()) {
        h += "\"__metadata__\":{";
        bool first = true;
        for (const auto& [key, value] : metadata) {
            if (!first)
                h += ',';
            first = false;
            json_string_into(h, key);
            h += ':';
            json_string_into(h, value);
        }
        h += '}';
    }
    std::uint64_t offset = 0;
    for (const item& it : items) {
        if (h.size() > 1)
            h += ',';
        json_string_into(h, *it.name);
        h += ":{\"dtype\":\"";
        h += spec_of(it.value->dtype())->name;
        h += "\",\"shape\":[";
        for (std::size_t d = 0; d < it.value->sizes().size(); ++d)
            h.append(d > 0 ? "," : "").append(std::to_string(it.value->sizes()[d]));
        const auto bytes = static_cast<std::uint64_t>(it.value->nbytes());
        h += "],\"data_offsets\":[" + std::to_string(offset) + "," +
             std::to_string(offset + bytes) + "]}";
        offset += bytes;
        out.values.push_back(it.value);
    }
    h += '}';
    h.append((8 - h.size() % 8) % 8, ' ');
    if (h.size() > max_header_size)
        fail("header too large (" + std::to_string(h.size()) + " bytes; the format's limit is " +
             std::to_string(max_header_size) + ")");
    return out;
}

/// A file written under a temporary name beside its final one, then renamed over it: a reader
/// (or a crash) sees the old file or the whole new one, never half of one. The data is flushed to
/// the disk (fsync) before the rename, so the rename cannot reach the disk before the data.
/// Errors are RuntimeErrors with Python's OSError text naming the final path.
class atomic_file {
public:
    explicit atomic_file(std::filesystem::path path) : path_(std::move(path)) {
        static std::atomic<unsigned> counter{0};
        for (int attempt = 0; attempt < 100; ++attempt) {
            temp_ = path_.string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(counter.fetch_add(1));
            fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (fd_ >= 0 || errno != EEXIST)
                break;
        }
        if (fd_ < 0)
            fail(errno);
    }
    atomic_file(const atomic_file&) = delete;
    atomic_file& operator=(const atomic_file&) = delete;
    ~atomic_file() {
        if (fd_ >= 0)
            ::close(fd_);
        if (!committed_)
            ::unlink(temp_.c_str());
    }

    void write(const void* data, std::size_t n) {
        const auto* p = static_cast<const char*>(data);
        while (n > 0) {
            const ::ssize_t k = ::write(fd_, p, n);
            if (k < 0) {
                if (errno == EINTR)
                    continue;
                fail(errno);
            }
            p += k;
            n -= static_cast<std::size_t>(k);
        }
    }

    /// fsync, close (where a full disk may show last), then rename over the final path.
    void commit() {
        if (::fsync(fd_) != 0)
            fail(errno);
        const int fd = std::exchange(fd_, -1);
        if (::close(fd) != 0)
            fail(errno);
        if (std::rename(temp_.c_str(), path_.c_str()) != 0)
            fail(errno);
        committed_ = true;
    }

private:
    [[noreturn]] void fail(int e) const { throw RuntimeError(os_error_text(e, path_)); }

    std::filesystem::path path_;
    std::string temp_;
    int fd_ = -1;
    bool committed_ = false;
};

template <class Sink>
void write_to(Sink& sink, const prepared& p) {
    const auto n = static_cast<std::uint64_t>(p.header.size());
    sink.write(&n, 8);
    sink.write(p.header.data(), p.header.size());
    for (const optim::state_value* v : p.values)
        sink.write(v->data(), static_cast<std::size_t>(v->nbytes()));
}

struct byte_sink {
    std::vector<std::uint8_t>& out;
    void write(const void* p, std::size_t n) {
        const auto* b = static_cast<const std::uint8_t*>(p);
        out.insert(out.end(), b, b + n);
    }
};

/// A staticpy dict of tensors (a module's state_dict()) as a state_dict_t sharing its tensors.
template <class... Items>
optim::state_dict_t to_state_dict(const dict_t<Items...>& d, const std::string& label) {
    optim::state_dict_t out;
    boost::hana::for_each(d.entries, [&](const auto& item) {
        using value_type = std::remove_cvref_t<decltype(item.value)>;
        static_assert(is_tensor_v<value_type>,
                      "staticpy: TypeError: nn::save takes a dict of tensors (a module's "
                      "state_dict()) or an optimiser's state_dict_t");
        const std::string name(std::remove_cvref_t<decltype(item.key)>::value);
        if (!item.value.defined())
            throw ValueError(label + ": Error while serializing: the tensor `" + name +
                             "` is undefined");
        out.emplace(name, optim::state_value(item.value));
    });
    return out;
}

// ---- load_state_dict ----------------------------------------------------------------------------

/// One module of a model, as PyTorch's load_state_dict visits it: its prefix ("", "0.",
/// "fc1."), its own parameters' (and buffers') names and its children's names.
struct module_level {
    std::string prefix;
    std::vector<std::string> own;
    std::vector<std::string> children;
};

/// The levels of m and its descendants, m first (PyTorch's pre-order). A module's own names are
/// the keys of its state_dict() without a dot: a child's are "child.name", and PyTorch forbids
/// dots in a parameter's or a child's name.
template <class M>
void collect_levels(const M& m, const std::string& prefix, std::vector<module_level>& out) {
    module_level level{prefix, {}, {}};
    boost::hana::for_each(m.state_dict().entries, [&](const auto& item) {
        const std::string_view key = std::remove_cvref_t<decltype(item.key)>::value;
        if (key.find('.') == std::string_view::npos)
            level.own.emplace_back(key);
    });
    if constexpr (requires { m.children(); }) {
        const auto children = m.children();
        boost::hana::for_each(children.entries, [&](const auto& item) {
            level.children.emplace_back(std::remove_cvref_t<decltype(item.key)>::value);
        });
        out.push_back(std::move(level));
        boost::hana::for_each(children.entries, [&](const auto& item) {
            collect_levels(
                *item.value,
                prefix + std::string(std::remove_cvref_t<decltype(item.key)>::value) + ".", out);
        });
    } else {
        out.push_back(std::move(level));
    }
}

template <class T>
constexpr std::string_view pretty_function() {
    return __PRETTY_FUNCTION__;
}

/// Python's type(m).__name__: M::class_name when M has one, else the name of M's type without
/// its namespaces, enclosing functions and template arguments ("Sequential", "Linear", "MLP").
template <class M>
std::string class_name() {
    if constexpr (requires { std::string_view(M::class_name); }) {
        return std::string(std::string_view(M::class_name));
    } else {
        // "... [with T = ns::Name<...>; ...]" (g++) or "... [T = ns::Name<...>]" (clang++).
        const std::string_view f = pretty_function<M>();
        const std::size_t from = f.find("T = ");
        if (from == std::string_view::npos)
            return "Module";
        std::size_t name_start = from + 4;
        std::size_t name_end = std::string_view::npos;
        int depth = 0;
        for (std::size_t i = from + 4; i < f.size(); ++i) {
            const char c = f[i];
            if (c == '<' || c == '(' || c == '[') {
                if (c == '<' && depth == 0 && name_end == std::string_view::npos)
                    name_end = i;
                ++depth;
            } else if (c == '>' || c == ')' || (c == ']' && depth > 0)) {
                --depth;
            } else if (depth == 0 && (c == ';' || c == ']')) {
                if (name_end == std::string_view::npos)
                    name_end = i;
                break;
            } else if (depth == 0 && c == ':' && i + 1 < f.size() && f[i + 1] == ':') {
                name_start = i + 2;
                name_end = std::string_view::npos;
                ++i;
            }
        }
        if (name_end == std::string_view::npos || name_end < name_start)
            name_end = f.size();
        return std::string(f.substr(name_start, name_end - name_start));
    }
}

/// torch.Size's repr: torch.Size([128, 784]).
template <class Sizes>
std::string torch_size_text(const Sizes& sizes) {
    std::string out = "torch.Size([";
    std::size_t i = 0;
    for (auto s : sizes)
        out.append(i++ > 0 ? ", " : "").append(std::to_string(s));
    return out + "])";
}

/// dst = the elements of v (the first one only when `first_only`), each converted as PyTorch's
/// copy_ converts it.
template <class T, class S>
void copy_value(const optim::state_value& v, const Tensor<T, S>& dst, bool first_only) {
    if constexpr (!is_dynamic_shape_v<S>) {
        // One copy per (dtype, rank), not per parameter's shape: the same elements, seen with
        // dynamic extents.
        copy_value(v, Tensor<T, dynamic_shape<S::rank>>(dst), first_only);
    } else {
        const auto copy = [&](const auto* src) {
            std::int64_t i = 0;
            T* out = dst.storage().data();
            staticpy::detail::for_each_offset(dst.sizes(), dst.storage_offset(), dst.strides(),
                                              [&](std::int64_t o) {
                                                  out[o] = staticpy::detail::convert<T>(src[i]);
                                                  i += first_only ? 0 : 1;
                                              });
        };
        switch (v.dtype()) {
        case staticpy::boolean:
            return copy(static_cast<const bool*>(v.data()));
        case staticpy::uint8:
            return copy(static_cast<const std::uint8_t*>(v.data()));
        case staticpy::int32:
            return copy(static_cast<const std::int32_t*>(v.data()));
        case staticpy::int64:
            return copy(static_cast<const std::int64_t*>(v.data()));
        case staticpy::float32:
            return copy(static_cast<const float*>(v.data()));
        case staticpy::float64:
            return copy(static_cast<const double*>(v.data()));
        }
    }
}

} // namespace detail::safetensors

// =================================================================================================
// save and load
// =================================================================================================

// The entry points below that take no template argument of their own are templates anyway
// (template <class = void>): an inline function's body is compiled in every file that includes
// it, called or not, and with it the reader and writer for every dtype, ~2 s of g++ in each of
// a project's files. As templates they are compiled where they are called; in compiled mode
// (STATICPY_COMPILED_KERNELS, kernels/config.hpp) not even there: they take no model type, so
// staticpy::kernels compiles them once (the list after them): a file that saves and loads a
// checkpoint compiles in 5.1 s of g++ -O2 rather than 7.3 s.

/// safetensors' save (to bytes): state as a safetensors file's bytes.
///   auto bytes = nn::save_bytes(model.state_dict());
template <class = void>
std::vector<std::uint8_t> save_bytes(const optim::state_dict_t& state,
                                     const safetensors_metadata& metadata = {}) {
    const auto p = detail::safetensors::prepare(state, metadata, "safetensors data");
    std::vector<std::uint8_t> out;
    detail::safetensors::byte_sink sink{out};
    detail::safetensors::write_to(sink, p);
    return out;
}
template <class... Items>
std::vector<std::uint8_t> save_bytes(const dict_t<Items...>& state,
                                     const safetensors_metadata& metadata = {}) {
    return save_bytes(detail::safetensors::to_state_dict(state, "safetensors data"), metadata);
}

/// torch.save / safetensors' save_file: a module's state_dict() (a dict of tensors) or an
/// optimiser's or lr scheduler's state_dict_t as a safetensors file, with optional metadata.
/// The file is written under a temporary name and renamed into place. RuntimeError (Python's
/// OSError text, naming path) when it cannot be written, ValueError for a name the format cannot
/// hold (invalid UTF-8, "__metadata__") or an undefined tensor.
///   nn::save(model.state_dict(), "model.safetensors");
///   nn::save(opt.state_dict(), "opt.safetensors", {{"epoch", "3"}});
template <class = void>
void save(const optim::state_dict_t& state, const std::filesystem::path& path,
          const safetensors_metadata& metadata = {}) {
    const auto p =
        detail::safetensors::prepare(state, metadata, "safetensors file '" + path.string() + "'");
    detail::safetensors::atomic_file file(path);
    detail::safetensors::write_to(file, p);
    file.commit();
}
template <class... Items>
void save(const dict_t<Items...>& state, const std::filesystem::path& path,
          const safetensors_metadata& metadata = {}) {
    save(detail::safetensors::to_state_dict(state, "safetensors file '" + path.string() + "'"),
         path, metadata);
}

/// safetensors' load (from bytes): the tensors of a safetensors file held in memory; `name`
/// names it in error messages ("safetensors data 'name': ...").
///   auto sd = nn::load_bytes(bytes);
template <class = void>
optim::state_dict_t load_bytes(std::span<const std::uint8_t> bytes, std::string_view name = {}) {
    detail::safetensors::memory_source src(bytes, name.empty() ? std::string("safetensors data")
                                                               : "safetensors data '" +
                                                                     std::string(name) + "'");
    return detail::safetensors::load_from(src);
}

/// torch.load / safetensors' load_file: the tensors of a safetensors file by name, each with the
/// dtype and shape the file gives (F16 and BF16 as float32, I8 and I16 as int32). Errors name the
/// file: ValueError for a truncated or malformed file, TypeError for a dtype staticpy does not
/// read, RuntimeError when it cannot be opened or read.
///   nn::load_state_dict(model, nn::load("model.safetensors"));
///   opt.load_state_dict(nn::load("opt.safetensors"));
template <class = void>
optim::state_dict_t load(const std::filesystem::path& path) {
    detail::safetensors::file_source file(path);
    if (file.regular())
        return detail::safetensors::load_from(file);
    const std::vector<std::uint8_t> bytes = file.stream_bytes();
    detail::safetensors::memory_source src(bytes, file.label());
    return detail::safetensors::load_from(src);
}

/// The "__metadata__" of a safetensors file (safe_open(path).metadata()), empty when it has none;
/// the file is checked as load() checks it, without reading its tensors.
///   nn::load_metadata("model.safetensors").at("format") == "pt"
template <class = void>
safetensors_metadata load_metadata(const std::filesystem::path& path) {
    detail::safetensors::file_source file(path);
    if (file.regular())
        return detail::safetensors::read_header(file).metadata;
    const std::vector<std::uint8_t> bytes = file.stream_bytes();
    detail::safetensors::memory_source src(bytes, file.label());
    return detail::safetensors::read_header(src).metadata;
}

STATICPY_KERNEL_INSTANCE(template std::vector<std::uint8_t> save_bytes<void>(
    const optim::state_dict_t&, const safetensors_metadata&))
STATICPY_KERNEL_INSTANCE(template void save<void>(const optim::state_dict_t&,
                                                  const std::filesystem::path&,
                                                  const safetensors_metadata&))
STATICPY_KERNEL_INSTANCE(
    template optim::state_dict_t load_bytes<void>(std::span<const std::uint8_t>, std::string_view))
STATICPY_KERNEL_INSTANCE(template optim::state_dict_t load<void>(const std::filesystem::path&))
STATICPY_KERNEL_INSTANCE(
    template safetensors_metadata load_metadata<void>(const std::filesystem::path&))

// =================================================================================================
// load_state_dict
// =================================================================================================

/// PyTorch's module.load_state_dict(state_dict, strict): copies each tensor of state_dict into
/// the model's tensor of the same name (module.state_dict()' handles), cast to its element type
/// as copy_ casts. Everything is checked before anything is written: on an error the model is
/// unchanged. The errors are PyTorch 1.13's RuntimeError,
///   Error(s) in loading state_dict for Sequential:
///   	Missing key(s) in state_dict: "0.bias".
///   	Unexpected key(s) in state_dict: "x".
///   	size mismatch for 0.weight: copying a param with shape torch.Size([16, 4]) from checkpoint,
///   the shape in current model is torch.Size([16, 8]).
/// the module named by its class (Python's type(model).__name__: "Sequential", "Linear", your
/// struct's name, or its static member class_name). With strict = false missing and unexpected
/// keys are not errors but returned; size mismatches still are.
///   nn::load_state_dict(model, nn::load("model.safetensors"));
///   auto keys = nn::load_state_dict(model, sd, false);   // keys.missing_keys, .unexpected_keys
template <class M>
IncompatibleKeys load_state_dict(M& module, const optim::state_dict_t& state_dict,
                                 bool strict) { // strict = true: the declaration in nn/modules.hpp
    namespace st = detail::safetensors;
    const auto targets = module.state_dict();
    std::vector<st::module_level> levels;
    st::collect_levels(module, "", levels);

    IncompatibleKeys result;
    std::vector<std::string> error_msgs;
    std::vector<char> copy_first_only; // per target, in order: 1 for a 1-element-to-0-dim copy
    boost::hana::for_each(targets.entries, [&](const auto& item) {
        const std::string key(std::remove_cvref_t<decltype(item.key)>::value);
        const auto it = state_dict.find(key);
        copy_first_only.push_back(0);
        if (it == state_dict.end()) {
            result.missing_keys.push_back(key);
            return;
        }
        const optim::state_value& input = it->second;
        if (!input.defined()) {
            error_msgs.push_back("While copying the parameter named \"" + key +
                                 "\", expected torch.Tensor or Tensor-like object from "
                                 "checkpoint but received <class 'NoneType'>");
            return;
        }
        const auto& param_sizes = item.value.sizes();
        std::vector<std::int64_t> input_sizes = input.sizes();
        // PyTorch's compatibility with 0.3's checkpoints: a 1-dim value loads into a 0-dim
        // parameter as its first element.
        if (param_sizes.empty() && input_sizes.size() == 1) {
            if (input_sizes[0] == 0)
                throw IndexError("index 0 is out of bounds for dimension 0 with size 0");
            input_sizes.clear();
            copy_first_only.back() = 1;
        }
        if (!std::equal(input_sizes.begin(), input_sizes.end(), param_sizes.begin(),
                        param_sizes.end()))
            error_msgs.push_back("size mismatch for " + key + ": copying a param with shape " +
                                 st::torch_size_text(input_sizes) +
                                 " from checkpoint, the shape in current model is " +
                                 st::torch_size_text(param_sizes) + ".");
    });
    // Unexpected keys as PyTorch finds them, module by module: a key under a module's prefix
    // whose next name is neither one of its own tensors nor one of its children.
    for (const st::module_level& level : levels) {
        const std::string extra_state = level.prefix + "_extra_state";
        if (state_dict.contains(extra_state))
            result.unexpected_keys.push_back(extra_state);
        for (auto it = state_dict.lower_bound(level.prefix);
             it != state_dict.end() && it->first.starts_with(level.prefix); ++it) {
            if (it->first == extra_state)
                continue;
            const std::string_view rest = std::string_view(it->first).substr(level.prefix.size());
            const std::string_view name = rest.substr(0, rest.find('.'));
            const auto is = [&](const std::vector<std::string>& names) {
                return std::find(names.begin(), names.end(), name) != names.end();
            };
            if (!is(level.children) && !is(level.own))
                result.unexpected_keys.push_back(it->first);
        }
    }
    if (strict) {
        const auto quoted = [](const std::vector<std::string>& keys) {
            std::string out;
            for (std::size_t i = 0; i < keys.size(); ++i)
                out.append(i > 0 ? ", \"" : "\"").append(keys[i]).append("\"");
            return out;
        };
        if (!result.unexpected_keys.empty())
            error_msgs.insert(error_msgs.begin(), "Unexpected key(s) in state_dict: " +
                                                      quoted(result.unexpected_keys) + ". ");
        if (!result.missing_keys.empty())
            error_msgs.insert(error_msgs.begin(), "Missing key(s) in state_dict: " +
                                                      quoted(result.missing_keys) + ". ");
    }
    if (!error_msgs.empty()) {
        std::string text =
            "Error(s) in loading state_dict for " + st::class_name<std::remove_cvref_t<M>>() + ":";
        for (const std::string& m : error_msgs)
            text += "\n\t" + m;
        throw RuntimeError(text);
    }
    std::size_t index = 0;
    boost::hana::for_each(targets.entries, [&](const auto& item) {
        const auto it = state_dict.find(std::remove_cvref_t<decltype(item.key)>::value);
        if (it != state_dict.end())
            st::copy_value(it->second, item.value, copy_first_only[index] != 0);
        ++index;
    });
    return result;
}

} // namespace staticpy::nn
