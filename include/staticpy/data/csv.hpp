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

} // namespace detail

/// A CSV file of numbers (plain, or gzip-compressed with zlib) as a new Tensor<T, [rows, cols]>.
/// ValueError naming the file, line and column for a field that is not a number of T
/// ("CSV file 'a.csv': line 3, column 2: could not convert string 'abc' to float32") or out of
/// its range, and for a row whose number of columns differs from the first row's ("line 4: the
/// number of columns changed from 3 to 2"). A file without data rows gives a [0, 0] tensor.
///   auto x = read_csv<float>("features.csv", {.header = true});
///   x.sizes();   // {rows, columns}
template <class T>
Tensor<T, dynamic_shape<2>> read_csv(const std::filesystem::path& path, CsvOptions options = {}) {
    static_assert(is_tensor_element_v<T>,
                  "staticpy: TypeError: read_csv reads bool, uint8_t, int32_t, int64_t, float or "
                  "double");
    detail::input_file f(path, "CSV file");
    const std::string text = f.read_all();
    std::vector<T> values;
    std::int64_t rows = 0;
    std::int64_t cols = -1;
    std::int64_t first_data_line = 0;
    std::size_t pos = 0;
    std::int64_t line_no = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (options.header && line_no == 1)
            continue;
        if (detail::trim_field(line, options.delimiter).empty())
            continue;
        std::int64_t col = 0;
        std::size_t start = 0;
        while (true) {
            const std::size_t stop = line.find(options.delimiter, start);
            const std::string_view field = detail::trim_field(
                line.substr(start,
                            stop == std::string_view::npos ? std::string_view::npos : stop - start),
                options.delimiter);
            ++col;
            T v{};
            bool range = false;
            if (!detail::parse_number(field, v, range))
                f.fail("line " + std::to_string(line_no) + ", column " + std::to_string(col) +
                       (range ? ": " + std::string(field) + " is out of range for "
                              : ": could not convert string '" + std::string(field) + "' to ") +
                       std::string(dtype_name(dtype_of_v<T>)));
            values.push_back(v);
            if (stop == std::string_view::npos)
                break;
            start = stop + 1;
        }
        if (cols < 0) {
            cols = col;
            first_data_line = line_no;
        } else if (col != cols) {
            f.fail("line " + std::to_string(line_no) + ": the number of columns changed from " +
                   std::to_string(cols) + " (line " + std::to_string(first_data_line) + ") to " +
                   std::to_string(col));
        }
        ++rows;
    }
    if (cols < 0)
        cols = 0;
    Tensor<T, dynamic_shape<2>> out{dynamic_shape<2>(rows, cols)};
    std::copy(values.begin(), values.end(), out.data());
    return out;
}

} // namespace staticpy::data
