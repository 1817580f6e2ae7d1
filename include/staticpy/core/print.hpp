#pragma once
// Python's print(), and repr() of any type that C++ can stream with <<. Kept apart from repr.hpp
// because <iostream> and <sstream> cost more to compile than all of list and dict.

#include <cstddef>
#include <iostream>
#include <sstream>
#include <string>

#include "staticpy/core/repr.hpp"

namespace staticpy {

namespace detail {
template <class T>
struct stream_repr {
    static void into(std::string& out, const T& x) {
        std::ostringstream os;
        os << x;
        out += os.str();
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
