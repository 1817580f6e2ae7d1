#pragma once
// Printing a Tensor as PyTorch prints it (torch/_tensor_str.py, default print options:
// precision 4, threshold 1000, edgeitems 3, linewidth 80):
//   tensor([[1., 2.],
//           [3., 4.]])
//   tensor([1.0000e-05, 1.0000e+05])
//   tensor([ True, False])
//   tensor([1, 2, 3], dtype=torch.int32)
// Floats: when every finite non-zero value is an integer they print as "1." (int mode); the
// scientific form "%.4e" is used when max/min of the finite non-zero magnitudes exceeds 1000,
// the max exceeds 1e8, or (outside int mode) the min is below 1e-4; otherwise "%.4f". Every
// element is right-aligned to the widest finite non-zero one. Above 1000 elements each dimension
// shows its first and last 3 entries around "...". The dtype is shown unless it is float32,
// int64 or bool (PyTorch's defaults).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "staticpy/tensor/tensor.hpp"

namespace staticpy {
namespace detail {

struct print_options {
    static constexpr int precision = 4;
    static constexpr std::int64_t threshold = 1000;
    static constexpr std::int64_t edgeitems = 3;
    static constexpr std::int64_t linewidth = 80;
};

/// One value, as Python's format() writes it with a C printf spec (nan and inf as Python does).
inline std::string format_double(const char* spec, double v) {
    if (std::isnan(v))
        return "nan";
    if (std::isinf(v))
        return v < 0 ? "-inf" : "inf";
    char buf[512];
    const int n = std::snprintf(buf, sizeof buf, spec, v);
    return std::string(buf, static_cast<std::size_t>(std::max(n, 0)));
}

/// _Formatter: decides the notation and the common width from the values that will be shown.
class tensor_formatter {
public:
    template <class T>
    explicit tensor_formatter(const std::vector<T>& values) {
        if constexpr (std::is_floating_point_v<T>) {
            floating_ = true;
            double lo = 0, hi = 0;
            bool any = false;
            for (T x : values) {
                const double v = static_cast<double>(x);
                if (!std::isfinite(v) || v == 0)
                    continue;
                const double a = std::fabs(v);
                if (!any) {
                    lo = hi = a;
                    any = true;
                }
                lo = std::min(lo, a);
                hi = std::max(hi, a);
                if (v != std::ceil(v))
                    int_mode_ = false;
            }
            if (!any)
                return;
            sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
            for (T x : values) {
                const double v = static_cast<double>(x);
                if (!std::isfinite(v) || v == 0)
                    continue;
                std::size_t w = 0;
                if (sci_mode_)
                    w = format_double("%.4e", v).size();
                else if (int_mode_)
                    w = format_double("%.0f", v).size() + 1;
                else
                    w = format_double("%.4f", v).size();
                width_ = std::max(width_, w);
            }
        } else {
            for (T x : values)
                width_ = std::max(width_, plain(x).size());
        }
    }

    [[nodiscard]] std::size_t width() const { return width_; }

    template <class T>
    [[nodiscard]] std::string format(T x) const {
        std::string s;
        if constexpr (std::is_floating_point_v<T>) {
            const double v = static_cast<double>(x);
            if (sci_mode_) {
                s = format_double("%.4e", v);
            } else if (int_mode_) {
                s = format_double("%.0f", v);
                if (std::isfinite(v))
                    s += '.';
            } else {
                s = format_double("%.4f", v);
            }
        } else {
            s = plain(x);
        }
        if (s.size() < width_)
            s.insert(0, width_ - s.size(), ' ');
        return s;
    }

private:
    template <class T>
    static std::string plain(T x) {
        if constexpr (std::is_same_v<T, bool>)
            return x ? "True" : "False";
        else
            return std::to_string(static_cast<std::int64_t>(x));
    }

    bool floating_ = false;
    bool int_mode_ = true;
    bool sci_mode_ = false;
    std::size_t width_ = 1;
};

/// The tensor's layout, type-erased over the rank so that printing recurses at run time.
template <class T>
struct print_view {
    const T* base;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;
    bool summarize;

    /// The indices along a dimension of size n that are shown (-1 stands for "...").
    [[nodiscard]] std::vector<std::int64_t> shown(std::int64_t n) const {
        std::vector<std::int64_t> out;
        if (summarize && n > 2 * print_options::edgeitems) {
            for (std::int64_t i = 0; i < print_options::edgeitems; ++i)
                out.push_back(i);
            out.push_back(-1);
            for (std::int64_t i = n - print_options::edgeitems; i < n; ++i)
                out.push_back(i);
        } else {
            for (std::int64_t i = 0; i < n; ++i)
                out.push_back(i);
        }
        return out;
    }

    void collect(std::int64_t offset, std::size_t d, std::vector<T>& out) const {
        if (d == sizes.size()) {
            out.push_back(base[offset]);
            return;
        }
        for (std::int64_t i : shown(sizes[d]))
            if (i >= 0)
                collect(offset + i * strides[d], d + 1, out);
    }

    [[nodiscard]] std::string render(std::int64_t offset, std::size_t d, std::size_t indent,
                                     const tensor_formatter& f) const {
        const std::size_t rank = sizes.size();
        if (d == rank)
            return f.format(base[offset]);
        if (d + 1 == rank) { // _vector_str
            const std::size_t element_length = f.width() + 2;
            const auto per_line = std::max<std::size_t>(
                1, static_cast<std::size_t>(print_options::linewidth -
                                            static_cast<std::int64_t>(indent)) /
                       element_length);
            std::vector<std::string> data;
            for (std::int64_t i : shown(sizes[d]))
                data.push_back(i < 0 ? std::string(" ...")
                                     : f.format(base[offset + i * strides[d]]));
            std::string out = "[";
            for (std::size_t k = 0; k < data.size(); ++k) {
                if (k != 0) {
                    if (k % per_line == 0) {
                        out += ",\n";
                        out.append(indent + 1, ' ');
                    } else {
                        out += ", ";
                    }
                }
                out += data[k];
            }
            return out + "]";
        }
        std::string sep = ",";
        sep.append(rank - d - 1, '\n');
        sep.append(indent + 1, ' ');
        std::string out = "[";
        bool first = true;
        for (std::int64_t i : shown(sizes[d])) {
            if (!first)
                out += sep;
            first = false;
            out +=
                i < 0 ? std::string("...") : render(offset + i * strides[d], d + 1, indent + 1, f);
        }
        return out + "]";
    }
};

/// repr(t) of a tensor on the host, with `device` (empty for the CPU) as its first suffix.
template <class T, class S>
void tensor_repr_into(std::string& out, const Tensor<T, S>& t, const std::string& device) {
    constexpr std::size_t indent = 7; // len("tensor(")
    std::string text = "tensor(";
    std::vector<std::string> suffixes;
    if (!device.empty())
        suffixes.push_back(device);
    if (t.numel() == 0) {
        if constexpr (S::rank != 1) {
            std::string size = "size=(";
            for (std::size_t i = 0; i < S::rank; ++i) {
                if (i != 0)
                    size += ", ";
                size += std::to_string(t.sizes()[i]);
            }
            suffixes.push_back(size + ")");
        }
        if constexpr (!std::is_same_v<T, float>)
            suffixes.push_back("dtype=torch." + std::string(dtype_name(dtype_of_v<T>)));
        text += "[]";
    } else {
        if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, std::int64_t> &&
                      !std::is_same_v<T, bool>)
            suffixes.push_back("dtype=torch." + std::string(dtype_name(dtype_of_v<T>)));
        print_view<T> v{t.storage().data(),
                        std::vector<std::int64_t>(t.sizes().begin(), t.sizes().end()),
                        std::vector<std::int64_t>(t.strides().begin(), t.strides().end()),
                        t.numel() > print_options::threshold};
        std::vector<T> shown;
        v.collect(t.storage_offset(), 0, shown);
        const tensor_formatter f(shown);
        text += v.render(t.storage_offset(), 0, indent, f);
    }
    // _add_suffixes
    const auto nl = text.rfind('\n');
    std::size_t last_line_len = nl == std::string::npos ? text.size() + 2 : text.size() - nl + 1;
    for (const auto& s : suffixes) {
        if (last_line_len + s.size() + 2 > static_cast<std::size_t>(print_options::linewidth)) {
            text += ",\n";
            text.append(indent, ' ');
            text += s;
            last_line_len = indent + s.size();
        } else {
            text += ", " + s;
            last_line_len += s.size() + 2;
        }
    }
    out += text + ")";
}

template <class T, class S>
void tensor_repr_into(std::string& out, const Tensor<T, S>& t) {
    if (!t.defined()) {
        out += "tensor(undefined)";
        return;
    }
    if (t.is_cuda()) { // printed from a copy on the host, the device first among the suffixes
        tensor_repr_into(out, t.cpu(), "device='" + t.device().str() + "'");
        return;
    }
    tensor_repr_into(out, t, {});
}

} // namespace detail

} // namespace staticpy
