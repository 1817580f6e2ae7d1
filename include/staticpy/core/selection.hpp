#pragma once
// Selections of positions out of a fixed set (a program's slots, an op's arguments), given as a
// mask: how many are chosen, each chosen one's rank among them, and the chosen ones in order.
// A fused kernel keeps its values and pointers by rank among the few slots it uses, rather than
// in structures with one entry per slot of the whole program.
//
//   constexpr std::array<bool, 4> m{false, true, false, true};
//   selection::count(m)        // 2
//   selection::ranks(m)        // {0, 0, 0, 1, 0}: position 1 is the first chosen, 3 the second
//   selection::chosen<2>(m)    // {1, 3}

#include <array>
#include <cstddef>

namespace staticpy::selection {

/// How many positions the mask chooses.
template <std::size_t N>
constexpr std::size_t count(const std::array<bool, N>& mask) {
    std::size_t n = 0;
    for (bool m : mask)
        n += m;
    return n;
}

/// Each chosen position's rank among the chosen ones (0 at the others), and one entry more, 0,
/// so that a table over no positions is still an array to index.
template <std::size_t N>
constexpr std::array<std::size_t, N + 1> ranks(const std::array<bool, N>& mask) {
    std::array<std::size_t, N + 1> r{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < N; ++i)
        r[i] = mask[i] ? n++ : 0;
    return r;
}

/// The chosen positions in increasing order; Count is count(mask).
template <std::size_t Count, std::size_t N>
constexpr std::array<std::size_t, Count> chosen(const std::array<bool, N>& mask) {
    std::array<std::size_t, Count> c{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < N; ++i)
        if (mask[i])
            c[n++] = i;
    return c;
}

} // namespace staticpy::selection
