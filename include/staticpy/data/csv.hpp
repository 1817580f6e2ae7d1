#pragma once
// CSV files of numbers, as numpy.loadtxt(path, delimiter=",", skiprows=1 if header) reads them.
//
//   auto table = read_csv<float>("iris.csv", {.header = true});   // Tensor<float, [rows, cols]>
//
// Every row must have as many fields as the first; each field is a number of T (surrounding
// spaces and tabs ignored, blank lines skipped, CRLF line ends accepted). Errors name the file,
// the line and the column, as numpy's do the row and column.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "staticpy/core/error.hpp"
#include "staticpy/data/detail/io.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::data {

/// read_csv's keyword arguments: whether the first line is a header (skipped, as skiprows=1),
/// and the delimiter.
///   read_csv<double>(path, {.header = true, .delimiter = ';'});
///   read_csv<double>(path);   // no header, ','
struct CsvOptions {
    bool header = false;
    char delimiter = ',';
};

namespace detail {

inline std::string_view trim_field(std::string_view s, char delimiter) {
    const auto blank = [delimiter](char c) { return (c == ' ' || c == '\t') && c != delimiter; };
    while (!s.empty() && blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return s;
}

/// One field as T; false when it is not a number of T (or out of T's range: `range` set).
template <class T>
bool parse_number(std::string_view s, T& out, bool& range) {
    range = false;
    // from_chars takes no leading '+', which Python's float() and int() accept.
    if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+')
        s.remove_prefix(1);
    const char* first = s.data();
    const char* last = s.data() + s.size();
    if constexpr (std::is_same_v<T, bool>) {
        if (s == "1" || s == "True" || s == "true") {
            out = true;
            return true;
        }
        if (s == "0" || s == "False" || s == "false") {
            out = false;
            return true;
        }
        return false;
    } else if constexpr (std::is_floating_point_v<T>) {
        const auto [p, ec] = std::from_chars(first, last, out);
        range = ec == std::errc::result_out_of_range;
        return ec == std::errc() && p == last && !s.empty();
    } else {
        std::int64_t v = 0;
        const auto [p, ec] = std::from_chars(first, last, v);
        if (ec == std::errc::result_out_of_range && p == last) {
            range = true;
            return false;
        }
        if (ec != std::errc() || p != last || s.empty())
            return false;
        if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
            v > static_cast<std::int64_t>(std::numeric_limits<T>::max())) {
            range = true;
            return false;
        }
        out = static_cast<T>(v);
        return true;
    }
}

/// The longest field read_csv parses (leading blanks aside), and the longest header line it
/// skips: a number has no use for more, and a file that is not a CSV of numbers (a binary file,
/// /dev/zero) fails there instead of being gathered into memory.
inline constexpr std::size_t csv_max_field = 4096;
inline constexpr std::size_t csv_max_header = std::size_t{1} << 20;

/// A field as Python's repr shows a str in a message: printable ASCII as is, other bytes as
/// \xNN, and only the first 60 characters of a long one.
inline std::string field_text(std::string_view s) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < s.size() && i < 60; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            out += "\\x";
            out += digits[c >> 4];
            out += digits[c & 0xF];
        }
    }
    return s.size() > 60 ? out + "..." : out;
}

/// The tokenizer behind read_csv: fed the file in chunks, it keeps only the field being read
/// and the values so far, never the text, so memory follows the numbers the file holds.
template <class T>
class csv_parser {
public:
    csv_parser(const input_file& f, CsvOptions options)
        : f_(f), options_(options), in_header_(options.header) {}

    void feed(const char* p, std::size_t n) {
        for (const char* end = p + n; p != end; ++p) {
            const char c = *p;
            if (in_header_) {
                if (c == '\n') {
                    in_header_ = false;
                    ++line_no_;
                } else if (++header_length_ > csv_max_header) {
                    f_.fail("line 1: a header line longer than " + std::to_string(csv_max_header) +
                            " characters (is it a CSV file?)");
                }
            } else if (c == '\n') {
                end_line();
            } else if (c == options_.delimiter) {
                has_delimiter_ = true;
                end_field();
            } else if (!(field_.empty() && blank(c))) { // leading blanks are never kept
                if (field_.size() == csv_max_field)
                    f_.fail("line " + std::to_string(line_no_) + ", column " +
                            std::to_string(col_ + 1) + ": could not convert string '" +
                            field_text(field_) + "' to " + dtype_text() + " (a field longer than " +
                            std::to_string(csv_max_field) + " characters)");
                field_ += c;
            }
        }
    }

    /// After the last chunk: the last line, which may lack its '\n'.
    Tensor<T, dynamic_shape<2>> finish() {
        if (!in_header_)
            end_line();
        const std::int64_t cols = cols_ < 0 ? 0 : cols_;
        auto out =
            f_.allocate([&] { return Tensor<T, dynamic_shape<2>>{dynamic_shape<2>(rows_, cols)}; });
        std::copy(values_.begin(), values_.end(), out.data());
        return out;
    }

private:
    bool blank(char c) const { return (c == ' ' || c == '\t') && c != options_.delimiter; }
    static std::string dtype_text() { return std::string(dtype_name(dtype_of_v<T>)); }

    void end_field() {
        const std::string_view field = trim_field(field_, options_.delimiter);
        ++col_;
        T v{};
        bool range = false;
        if (!parse_number(field, v, range))
            f_.fail("line " + std::to_string(line_no_) + ", column " + std::to_string(col_) +
                    (range ? ": " + field_text(field) + " is out of range for "
                           : ": could not convert string '" + field_text(field) + "' to ") +
                    dtype_text());
        values_.push_back(v);
        field_.clear();
    }

    void end_line() {
        if (!field_.empty() && field_.back() == '\r')
            field_.pop_back();
        // A line of blanks only is skipped (no delimiter, nothing kept of the field).
        if (has_delimiter_ || !trim_field(field_, options_.delimiter).empty()) {
            end_field();
            if (cols_ < 0) {
                cols_ = col_;
                first_data_line_ = line_no_;
            } else if (col_ != cols_) {
                f_.fail("line " + std::to_string(line_no_) +
                        ": the number of columns changed from " + std::to_string(cols_) +
                        " (line " + std::to_string(first_data_line_) + ") to " +
                        std::to_string(col_));
            }
            ++rows_;
        }
        field_.clear();
        has_delimiter_ = false;
        col_ = 0;
        ++line_no_;
    }

    const input_file& f_;
    CsvOptions options_;
    std::vector<T> values_;
    std::string field_;
    std::int64_t rows_ = 0;
    std::int64_t cols_ = -1;
    std::int64_t col_ = 0; // fields ended in this line
    std::int64_t line_no_ = 1;
    std::int64_t first_data_line_ = 0;
    std::size_t header_length_ = 0;
    bool in_header_;
    bool has_delimiter_ = false;
};

} // namespace detail

/// A CSV file of numbers (plain, or gzip-compressed with zlib) as a new Tensor<T, [rows, cols]>.
/// ValueError naming the file, line and column for a field that is not a number of T
/// ("CSV file 'a.csv': line 3, column 2: could not convert string 'abc' to float32") or out of
/// its range, and for a row whose number of columns differs from the first row's ("line 4: the
/// number of columns changed from 3 to 2"). A file without data rows gives a [0, 0] tensor. The
/// file is parsed as it is read (a pipe or /dev/stdin works); memory holds the numbers, not the
/// text, and running out of it is a MemoryError.
///   auto x = read_csv<float>("features.csv", {.header = true});
///   x.sizes();   // {rows, columns}
template <class T>
Tensor<T, dynamic_shape<2>> read_csv(const std::filesystem::path& path, CsvOptions options = {}) {
    static_assert(is_tensor_element_v<T>,
                  "staticpy: TypeError: read_csv reads bool, uint8_t, int32_t, int64_t, float or "
                  "double");
    detail::input_file f(path, "CSV file");
    detail::csv_parser<T> parser(f, options);
    try {
        char chunk[1 << 16];
        while (true) {
            const std::size_t got = f.read(chunk, sizeof chunk);
            parser.feed(chunk, got);
            if (got < sizeof chunk)
                break;
        }
        return parser.finish();
    } catch (const std::bad_alloc&) {
        f.fail<MemoryError>("out of memory holding the values read so far");
    }
}

} // namespace staticpy::data
