#pragma once
// Python's print(), and repr() of any type that C++ can stream with <<. Kept apart from repr.hpp
// because <iostream> costs more to compile than all of list and dict. A streamed value goes
// straight into the repr's string through a small stream buffer, not an std::ostringstream, so
// that <sstream> is not needed either.

#include <cstddef>
#include <iostream>
#include <streambuf>
#include <string>

#include "staticpy/core/repr.hpp"

namespace staticpy {

namespace detail {
/// A stream buffer that appends what is written to a std::string (what std::ostringstream does,
/// without <sstream>).
class string_appender final : public std::streambuf {
public:
    explicit string_appender(std::string& out) : out_(out) {}

protected:
    int_type overflow(int_type c) override {
        if (!traits_type::eq_int_type(c, traits_type::eof()))
            out_ += traits_type::to_char_type(c);
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        out_.append(s, static_cast<std::size_t>(n));
        return n;
    }

private:
    std::string& out_;
};

template <class T>
struct stream_repr {
    static void into(std::string& out, const T& x) {
        string_appender buffer(out);
        std::ostream os(&buffer);
        os << x;
    }
};
} // namespace detail

/// Python's print(*args): str() of each, separated by spaces, then a newline.
///   staticpy::print("total:"_s, list(1, 2));   // total: [1, 2]
template <class... Ts>
void print(const Ts&... xs) {
    std::string line;
    std::size_t i = 0;
    ((line += (i++ == 0 ? "" : " "), line += str_of(xs)), ...);
    line += '\n';
    std::cout << line;
}

} // namespace staticpy
