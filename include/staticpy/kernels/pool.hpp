#pragma once
// The loops of 2-D pooling (tensor/ops_pool.hpp): max_pool2d, avg_pool2d and adaptive_avg_pool2d,
// forward and backward, over `planes` contiguous planes of in_h x in_w elements (an NCHW or CHW
// tensor, N * C planes), writing contiguous planes of out_h x out_w.
//
//   kernels::pool2d_geometry geo{.planes = 64 * 6, .in_h = 28, .in_w = 28, .out_h = 14, ...};
//   kernels::max_pool2d_forward(in, out, geo);   // out[p, oh, ow] = the max of in's window
//
// The windows and the numbers are those of PyTorch 1.13's CPU kernels (NCHW):
//   max       window taps start = o * stride - pad, start + dilation, ... below
//             min(start + (k - 1) * dilation + 1, n), the taps before 0 skipped; the max keeps the
//             first of equal values and the last NaN (a NaN wins), and its argmax starts at the
//             window's first tap (so an all -inf window's gradient goes there);
//   avg       the window [start, min(start + k, n + pad)) clipped to [0, n), summed in T (float
//             sums in float, as PyTorch's) row by row and divided by divisor_override, or the
//             window's size within the padded input (count_include_pad), or within the input;
//             the gradient spreads g / that divisor over the window;
//   adaptive  output o along a dim of n: [floor(o n / out), ceil((o + 1) n / out)), the sum
//             divided by the window's height, then by its width.
//
// How they run fast: each output row's interior columns (whose windows lie inside the input) are
// computed by loops over the row's outputs that the compiler vectorises. For 2 x 2 and 3 x 3
// windows with stride 1 or 2 (without dilation) each output's taps are added or compared in
// registers; other windows go tap by tap across the row, out[ow] = max(out[ow], in[ih, ow *
// stride + tap]). Either way each output's taps come in PyTorch's order (row by row, left to
// right), so sums round as its do. The border columns run one window at a time. In those loops the
// max is a plain `v > m ? v : m` (maxps, and the argmax's a select of the tap): a plane with a NaN,
// which one vectorised pass finds first, runs window by window with PyTorch's exact rule instead
// (with its `|| isnan(v)` the compiler turned the selects into branches, which random data
// mispredicts: ten times slower). Float 2 x 2 windows with stride 2 that lie whole inside the
// input (LeNet's, VGG's) take eight outputs a step in vector registers, PyTorch's exact rule, NaN
// included, as compares and selects (pool2x2): at LeNet-5's two poolings, batch 64, two threads,
// the forward 34 + 24 -> 21 + 14 us and the backward 90 + 56 -> 42 + 23 us. Large inputs split
// their planes among threads (kernels/parallel.hpp); the planes are independent, backward passes
// included.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "staticpy/kernels/parallel.hpp"

namespace staticpy::kernels {

/// A 2-D pooling over `planes` planes: sizes and window (avg_pool2d's dilation is 1).
struct pool2d_geometry {
    std::int64_t planes = 0;
    std::int64_t in_h = 0, in_w = 0;
    std::int64_t out_h = 0, out_w = 0;
    std::int64_t kernel_h = 1, kernel_w = 1;
    std::int64_t stride_h = 1, stride_w = 1;
    std::int64_t pad_h = 0, pad_w = 0;
    std::int64_t dilation_h = 1, dilation_w = 1;

    [[nodiscard]] std::int64_t in_plane() const { return in_h * in_w; }
    [[nodiscard]] std::int64_t out_plane() const { return out_h * out_w; }
};

/// avg_pool2d's divisor: the window's size within the padded input (count_include_pad) or
/// within the input, unless divisor_override (non-zero) replaces it.
struct avg_pool2d_divisor {
    bool count_include_pad = true;
    std::int64_t divisor_override = 0; // 0: None
};

namespace pool_detail {

// ---- windows --------------------------------------------------------------------------------

/// Output position o's window along one dim: the input positions [begin, end) (taps `dilation`
/// apart from begin), and for avg pooling its size within the padded input.
struct span {
    std::int64_t begin;
    std::int64_t end;
    std::int64_t padded;
};

/// Max pooling's windows along one dim of n (PyTorch's: the taps before 0 are skipped).
inline std::vector<span> max_spans(std::int64_t out, std::int64_t n, std::int64_t k,
                                   std::int64_t stride, std::int64_t pad, std::int64_t dilation) {
    std::vector<span> spans(static_cast<std::size_t>(out));
    for (std::int64_t o = 0; o < out; ++o) {
        std::int64_t begin = o * stride - pad;
        const std::int64_t end = std::min(begin + (k - 1) * dilation + 1, n);
        if (begin < 0)
            begin += (-begin + dilation - 1) / dilation * dilation;
        spans[static_cast<std::size_t>(o)] = {begin, end, 0};
    }
    return spans;
}

/// Average pooling's windows along one dim of n: clipped to the padded input for `padded`,
/// then to the input.
inline std::vector<span> avg_spans(std::int64_t out, std::int64_t n, std::int64_t k,
                                   std::int64_t stride, std::int64_t pad) {
    std::vector<span> spans(static_cast<std::size_t>(out));
    for (std::int64_t o = 0; o < out; ++o) {
        const std::int64_t begin = o * stride - pad;
        const std::int64_t end = std::min(begin + k, n + pad);
        spans[static_cast<std::size_t>(o)] = {std::max<std::int64_t>(begin, 0), std::min(end, n),
                                              end - begin};
    }
    return spans;
}

/// Adaptive pooling's windows along one dim of n: [floor(o n / out), ceil((o + 1) n / out)).
inline std::vector<span> adaptive_spans(std::int64_t out, std::int64_t n) {
    std::vector<span> spans(static_cast<std::size_t>(out));
    for (std::int64_t o = 0; o < out; ++o) {
        const std::int64_t begin = o * n / out;
        const std::int64_t end = ((o + 1) * n + out - 1) / out;
        spans[static_cast<std::size_t>(o)] = {begin, end, end - begin};
    }
    return spans;
}

/// The outputs [lo, hi) along a dim whose windows (k taps `dilation` apart) lie wholly inside
/// [0, n): the columns a row computes in vectorised loops.
struct interior {
    std::int64_t lo;
    std::int64_t hi;
};
inline interior interior_of(std::int64_t out, std::int64_t n, std::int64_t k, std::int64_t stride,
                            std::int64_t pad, std::int64_t dilation) {
    const std::int64_t lo = std::min((pad + stride - 1) / stride, out);
    const std::int64_t last = n - 1 + pad - (k - 1) * dilation; // o * stride <= last
    const std::int64_t hi = last < 0 ? 0 : last / stride + 1;
    return {lo, std::clamp(hi, lo, out)};
}

// ---- one window at a time -------------------------------------------------------------------

/// PyTorch's max rule (`val > maxval || isnan(val)`): v replaces m when greater or NaN, so of
/// equal values the first stays and of NaNs the last wins. Without a NaN it is `v > m`.
template <class T>
inline bool replaces(T v, T m) {
    return v > m || v != v;
}

/// Whether n elements hold a NaN: one vectorised pass (an unsigned reduction: g++ 12 does not
/// vectorise a bool one).
template <class T>
bool has_nan(const T* x, std::int64_t n) {
    unsigned nan = 0;
    for (std::int64_t i = 0; i < n; ++i)
        nan |= static_cast<unsigned>(x[i] != x[i]);
    return nan != 0;
}

/// wins ? a : b for integers, as masks: g++ 12 (with its default -ftrapping-math) does not
/// if-convert a select of integers on a float comparison, and then vectorises no loop holding one
/// ("control flow in loop"); the masks are plain arithmetic.
template <class I>
inline I select_if(bool wins, I a, I b) {
    const I mask = -static_cast<I>(wins);
    return static_cast<I>((mask & a) | (~mask & b));
}

/// One window's max, taps in PyTorch's order (Exact: its NaN rule; else for a NaN-free plane).
template <bool Exact, class T>
T window_max(const T* plane, std::int64_t width, const span& r, const span& c, std::int64_t dh,
             std::int64_t dw) {
    T m = -std::numeric_limits<T>::infinity();
    for (std::int64_t ih = r.begin; ih < r.end; ih += dh)
        for (std::int64_t iw = c.begin; iw < c.end; iw += dw) {
            const T v = plane[ih * width + iw];
            m = (Exact ? replaces(v, m) : v > m) ? v : m;
        }
    return m;
}

/// Where one window's max is (an offset in the plane): PyTorch's argmax, which starts at the
/// first tap (Exact: its NaN rule; else for a NaN-free plane).
template <bool Exact, class T>
std::int64_t window_argmax(const T* plane, std::int64_t width, const span& r, const span& c,
                           std::int64_t dh, std::int64_t dw) {
    std::int64_t at = r.begin * width + c.begin;
    T m = -std::numeric_limits<T>::infinity();
    for (std::int64_t ih = r.begin; ih < r.end; ih += dh)
        for (std::int64_t iw = c.begin; iw < c.end; iw += dw) {
            const std::int64_t i = ih * width + iw;
            const T v = plane[i];
            const bool wins = Exact ? replaces(v, m) : v > m;
            at = select_if(wins, i, at);
            m = wins ? v : m;
        }
    return at;
}

/// One window's sum, from 0, taps in PyTorch's order.
template <class T>
T window_sum(const T* plane, std::int64_t width, const span& r, const span& c) {
    T sum = 0;
    for (std::int64_t ih = r.begin; ih < r.end; ++ih)
        for (std::int64_t iw = c.begin; iw < c.end; ++iw)
            sum += plane[ih * width + iw];
    return sum;
}

/// sum / divisor as PyTorch's kernel divides: in T for floating types, an integer division for
/// int64.
template <class T>
T divided(T sum, std::int64_t divisor) {
    if constexpr (std::is_floating_point_v<T>)
        return sum / static_cast<T>(divisor);
    else
        return static_cast<T>(sum / divisor);
}

/// avg pooling's divisor for a window of rows r and columns c.
inline std::int64_t divisor_of(const avg_pool2d_divisor& d, const span& r, const span& c) {
    if (d.divisor_override != 0)
        return d.divisor_override;
    if (d.count_include_pad)
        return r.padded * c.padded;
    return (r.end - r.begin) * (c.end - c.begin);
}

// ---- a row's interior windows, vectorised ---------------------------------------------------

/// out[j] = max(out[j], src[j * stride]) for j < n (First: out[j] = src[j * stride]); Stride 0:
/// the run-time `stride`.
template <std::int64_t Stride, bool First, class T>
void max_taps(T* out, const T* src, std::int64_t n, std::int64_t stride) {
    const std::int64_t s = Stride > 0 ? Stride : stride;
    for (std::int64_t j = 0; j < n; ++j) {
        const T v = src[j * s];
        out[j] = First || v > out[j] ? v : out[j];
    }
}

/// out[j] += src[j * stride] for j < n (First: out[j] = 0 + src[j * stride], as a sum from 0).
template <std::int64_t Stride, bool First, class T>
void sum_taps(T* out, const T* src, std::int64_t n, std::int64_t stride) {
    const std::int64_t s = Stride > 0 ? Stride : stride;
    for (std::int64_t j = 0; j < n; ++j)
        out[j] = (First ? T(0) : out[j]) + src[j * s];
}

/// best[j], where[j] = src[j * stride], offset where that beats best[j] (First: always).
/// Offset is an integer as wide as T where the plane allows, so that both fill a vector's lanes.
template <std::int64_t Stride, bool First, class T, class Offset>
void argmax_taps(T* best, Offset* where, const T* src, Offset offset, std::int64_t n,
                 std::int64_t stride) {
    const std::int64_t s = Stride > 0 ? Stride : stride;
    for (std::int64_t j = 0; j < n; ++j) {
        const T v = src[j * s];
        const bool wins = First || v > best[j];
        where[j] = select_if(wins, offset, where[j]);
        best[j] = wins ? v : best[j];
    }
}

/// Calls f(int_c<Stride>) with the stride as a compile-time 1 or 2 where it is one, else 0.
template <class F>
void with_stride(std::int64_t stride, const F& f) {
    if (stride == 1)
        f(std::integral_constant<std::int64_t, 1>{});
    else if (stride == 2)
        f(std::integral_constant<std::int64_t, 2>{});
    else
        f(std::integral_constant<std::int64_t, 0>{});
}

/// Calls f(int_c<K>, int_c<Stride>) for the windows with a registers-only loop (K x K, K 2 or 3,
/// stride 1 or 2 along the row, no dilation) and returns true; false for the others.
template <class F>
bool with_fixed_window(const pool2d_geometry& g, const F& f) {
    using two = std::integral_constant<int, 2>;
    using three = std::integral_constant<int, 3>;
    using one = std::integral_constant<int, 1>;
    if (g.kernel_h != g.kernel_w || g.dilation_h != 1 || g.dilation_w != 1)
        return false;
    if (g.kernel_w == 2 && g.stride_w == 2)
        f(two{}, two{});
    else if (g.kernel_w == 2 && g.stride_w == 1)
        f(two{}, one{});
    else if (g.kernel_w == 3 && g.stride_w == 2)
        f(three{}, two{});
    else if (g.kernel_w == 3 && g.stride_w == 1)
        f(three{}, one{});
    else
        return false;
    return true;
}

/// n outputs of K x K windows whose first taps are src[j * Stride], rows `width` apart: the max
/// (Max) or the sum from 0 of each, its taps in registers in PyTorch's order.
template <bool Max, int K, int Stride, class T>
void fixed_window_row(T* out, const T* src, std::int64_t n, std::int64_t width) {
    for (std::int64_t j = 0; j < n; ++j) {
        const T* w = src + j * Stride;
        T acc = Max ? w[0] : T(0) + w[0];
        for (int a = 0; a < K; ++a)
            for (int b = 0; b < K; ++b) {
                if (a == 0 && b == 0)
                    continue;
                const T v = w[a * width + b];
                if constexpr (Max)
                    acc = v > acc ? v : acc;
                else
                    acc += v;
            }
        out[j] = acc;
    }
}

/// Where each of n K x K windows' max is, as the offset of its tap from its first one.
template <int K, int Stride, class T, class Offset>
void fixed_argmax_row(Offset* where, const T* src, std::int64_t n, std::int64_t width) {
    for (std::int64_t j = 0; j < n; ++j) {
        const T* w = src + j * Stride;
        T best = w[0];
        Offset at = 0;
        for (int a = 0; a < K; ++a)
            for (int b = 0; b < K; ++b) {
                if (a == 0 && b == 0)
                    continue;
                const T v = w[a * width + b];
                const bool wins = v > best;
                at = select_if(wins, static_cast<Offset>(a * width + b), at);
                best = wins ? v : best;
            }
        where[j] = at;
    }
}

// ---- planes ---------------------------------------------------------------------------------

/// Runs body(begin, end) over chunks of the `planes` planes, split among threads when the work
/// (elements per plane times planes) is large.
template <class Body>
void for_plane_chunks(std::int64_t planes, std::int64_t per_plane, Body&& body) {
    per_plane = std::max<std::int64_t>(per_plane, 1);
    const int chunks = chunk_count(planes, threads_for(planes * per_plane),
                                   std::max<std::int64_t>(1, 8192 / per_plane));
    parallel_chunks(planes, chunks,
                    [&](std::int64_t begin, std::int64_t end, int) { body(begin, end); });
}

/// Runs plane(p) for each of `planes` planes (split as for_plane_chunks).
template <class Plane>
void for_each_plane(std::int64_t planes, std::int64_t per_plane, Plane&& plane) {
    for_plane_chunks(planes, per_plane, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t p = begin; p < end; ++p)
            plane(p);
    });
}

/// A max (NaN-free plane) or avg pooling forward pass over one plane: the border columns window
/// by window, the interior ones in vectorised loops; `finish(row, lo, hi, r)` then completes the
/// interior outputs of row r (avg: the division).
template <bool Max, class T, class Border, class Finish>
void pool_plane_forward(const T* in, T* out, const pool2d_geometry& g,
                        const std::vector<span>& rows, const std::vector<span>& cols,
                        const interior& inner, const Border& border, const Finish& finish) {
    const std::int64_t n = inner.hi - inner.lo;
    // The interior's first tap column: inner.lo * stride - pad >= 0.
    const std::int64_t first_column = inner.lo * g.stride_w - g.pad_w;
    const std::int64_t dh = Max ? g.dilation_h : 1;
    const std::int64_t dw = Max ? g.dilation_w : 1;
    for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
        const span& r = rows[static_cast<std::size_t>(oh)];
        T* row = out + oh * g.out_w;
        for (std::int64_t ow = 0; ow < inner.lo; ++ow)
            row[ow] = border(in, r, cols[static_cast<std::size_t>(ow)]);
        for (std::int64_t ow = inner.hi; ow < g.out_w; ++ow)
            row[ow] = border(in, r, cols[static_cast<std::size_t>(ow)]);
        if (n <= 0)
            continue;
        T* dst = row + inner.lo;
        const T* src = in + r.begin * g.in_w + first_column;
        if (r.end - r.begin == g.kernel_h && with_fixed_window(g, [&](auto k, auto s) {
                fixed_window_row<Max, decltype(k)::value, decltype(s)::value>(dst, src, n, g.in_w);
            })) {
            finish(row, inner.lo, inner.hi, r);
            continue;
        }
        if (r.begin >= r.end) { // no rows in the window (avg only): PyTorch's 0
            std::fill(dst, dst + n, T(0));
            continue;
        }
        with_stride(g.stride_w, [&](auto s) {
            bool first = true;
            for (std::int64_t ih = r.begin; ih < r.end; ih += dh)
                for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
                    const T* tap = in + ih * g.in_w + first_column + kw * dw;
                    if constexpr (Max) {
                        if (first)
                            max_taps<decltype(s)::value, true>(dst, tap, n, g.stride_w);
                        else
                            max_taps<decltype(s)::value, false>(dst, tap, n, g.stride_w);
                    } else {
                        if (first)
                            sum_taps<decltype(s)::value, true>(dst, tap, n, g.stride_w);
                        else
                            sum_taps<decltype(s)::value, false>(dst, tap, n, g.stride_w);
                    }
                    first = false;
                }
        });
        finish(row, inner.lo, inner.hi, r);
    }
}

/// Calls at(o, i) for each output o of a plane x (row-major) with i its window's argmax in the
/// plane: for a NaN-free plane each row's interior in vectorised loops (best and where: n of
/// scratch each) and its border window by window; for a plane with a NaN, window by window with
/// PyTorch's exact rule.
template <class Offset, class T, class At>
void for_each_argmax(const T* x, const pool2d_geometry& g, const std::vector<span>& rows,
                     const std::vector<span>& cols, const interior& inner, T* best, Offset* where,
                     const At& at) {
    if (has_nan(x, g.in_plane())) {
        for (std::int64_t oh = 0; oh < g.out_h; ++oh)
            for (std::int64_t ow = 0; ow < g.out_w; ++ow)
                at(oh * g.out_w + ow,
                   window_argmax<true>(x, g.in_w, rows[static_cast<std::size_t>(oh)],
                                       cols[static_cast<std::size_t>(ow)], g.dilation_h,
                                       g.dilation_w));
        return;
    }
    const std::int64_t n = inner.hi - inner.lo;
    const std::int64_t first_column = inner.lo * g.stride_w - g.pad_w;
    for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
        const span& r = rows[static_cast<std::size_t>(oh)];
        const std::int64_t o = oh * g.out_w;
        auto border = [&](std::int64_t ow) {
            at(o + ow, window_argmax<false>(x, g.in_w, r, cols[static_cast<std::size_t>(ow)],
                                            g.dilation_h, g.dilation_w));
        };
        for (std::int64_t ow = 0; ow < inner.lo; ++ow)
            border(ow);
        if (n > 0) {
            const std::int64_t base = r.begin * g.in_w + first_column;
            const bool fixed =
                r.end - r.begin == g.kernel_h && with_fixed_window(g, [&](auto k, auto s) {
                    fixed_argmax_row<decltype(k)::value, decltype(s)::value>(where, x + base, n,
                                                                             g.in_w);
                });
            if (fixed) {
                for (std::int64_t j = 0; j < n; ++j)
                    at(o + inner.lo + j,
                       base + j * g.stride_w + static_cast<std::int64_t>(where[j]));
            } else {
                with_stride(g.stride_w, [&](auto s) {
                    bool first = true;
                    for (std::int64_t ih = r.begin; ih < r.end; ih += g.dilation_h)
                        for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
                            const std::int64_t tap = ih * g.in_w + first_column + kw * g.dilation_w;
                            if (first)
                                argmax_taps<decltype(s)::value, true>(
                                    best, where, x + tap, static_cast<Offset>(tap), n, g.stride_w);
                            else
                                argmax_taps<decltype(s)::value, false>(
                                    best, where, x + tap, static_cast<Offset>(tap), n, g.stride_w);
                            first = false;
                        }
                });
                for (std::int64_t j = 0; j < n; ++j)
                    at(o + inner.lo + j, static_cast<std::int64_t>(where[j]) + j * g.stride_w);
            }
        }
        for (std::int64_t ow = inner.hi; ow < g.out_w; ++ow)
            border(ow);
    }
}

/// Calls plane_argmax(best, where) with for_each_argmax's scratch for a row's interior windows:
/// best of T, where of offsets as narrow as T where the plane's size allows (one per chunk of
/// planes, on its thread).
template <class T, class PlaneArgmax>
void with_argmax_scratch(const pool2d_geometry& g, const interior& inner,
                         const PlaneArgmax& plane_argmax) {
    using narrow = std::conditional_t<sizeof(T) <= 4, std::int32_t, std::int64_t>;
    const auto n = static_cast<std::size_t>(inner.hi - inner.lo);
    std::vector<T> best(n);
    if (g.in_plane() <= std::numeric_limits<narrow>::max()) {
        std::vector<narrow> where(n);
        plane_argmax(best.data(), where.data());
    } else {
        std::vector<std::int64_t> where(n);
        plane_argmax(best.data(), where.data());
    }
}

/// For each plane p of in (the planes split among threads, each thread's in order), calls
/// on_plane(p), then the visitor it returns with (output offset, its window's argmax's offset
/// in the plane) for each of the plane's outputs, in order.
template <class T, class OnPlane>
void for_each_plane_argmax(const T* in, const pool2d_geometry& g, const OnPlane& on_plane) {
    const auto rows = max_spans(g.out_h, g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.dilation_h);
    const auto cols = max_spans(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w);
    const interior inner =
        interior_of(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w);
    for_plane_chunks(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t b, std::int64_t e) {
        with_argmax_scratch<T>(g, inner, [&](T* best, auto* where) {
            for (std::int64_t p = b; p < e; ++p)
                for_each_argmax(in + p * g.in_plane(), g, rows, cols, inner, best, where,
                                on_plane(p));
        });
    });
}

// ---- 2 x 2 windows, stride 2: eight outputs a step ------------------------------------------

/// Whether g's windows are 2 x 2 with stride 2, no padding or dilation, each whole inside the
/// input (LeNet's and VGG's pooling): then an output row's windows are the even and odd columns of
/// two input rows side by side, and no tap is shared.
inline bool whole_2x2_windows(const pool2d_geometry& g) {
    return g.kernel_h == 2 && g.kernel_w == 2 && g.stride_h == 2 && g.stride_w == 2 &&
           g.pad_h == 0 && g.pad_w == 0 && g.dilation_h == 1 && g.dilation_w == 1 &&
           2 * g.out_h <= g.in_h && 2 * g.out_w <= g.in_w;
}

#if defined(__GNUC__) || defined(__clang__)
#define STATICPY_POOL_2X2 1
/// Eight 2 x 2 windows at a time through GCC's and clang's vector extensions: the even and odd
/// columns of the window's two rows taken apart by shuffles, then PyTorch's max rule (`v > m ||
/// isnan(v)`, taps row by row, left to right) as compares and bitwise selects, so a NaN needs no
/// separate pass and nothing branches. The scalar loops (fixed_window_row, fixed_argmax_row) took
/// 3 to 8 cycles an output: stride-2 loads, and the argmax's scattered adds after zeroing.
struct pool2x2 {
    using values = float __attribute__((vector_size(32)));
    using masks = std::int32_t __attribute__((vector_size(32)));
    static constexpr std::int64_t width = 8;

    // Vectors go by reference: passed or returned by value they change the ABI without AVX
    // (g++'s -Wpsabi).
    /// m ? a : b, lane by lane.
    static void select(values& out, const masks& m, const values& a, const values& b) {
        out = reinterpret_cast<values>((m & reinterpret_cast<masks>(a)) |
                                       (~m & reinterpret_cast<masks>(b)));
    }

    /// The four taps of outputs [0, 8) whose windows start at top[2 j] and bottom[2 j].
    struct taps {
        values t00, t01, t10, t11;
        taps(const float* top, const float* bottom) {
            values a0, a1, b0, b1;
            std::memcpy(&a0, top, sizeof(values));
            std::memcpy(&a1, top + width, sizeof(values));
            std::memcpy(&b0, bottom, sizeof(values));
            std::memcpy(&b1, bottom + width, sizeof(values));
            split(a0, a1, b0, b1);
        }
        taps(const values& a0, const values& a1, const values& b0, const values& b1) {
            split(a0, a1, b0, b1);
        }
        void split(const values& a0, const values& a1, const values& b0, const values& b1) {
            t00 = __builtin_shufflevector(a0, a1, 0, 2, 4, 6, 8, 10, 12, 14);
            t01 = __builtin_shufflevector(a0, a1, 1, 3, 5, 7, 9, 11, 13, 15);
            t10 = __builtin_shufflevector(b0, b1, 0, 2, 4, 6, 8, 10, 12, 14);
            t11 = __builtin_shufflevector(b0, b1, 1, 3, 5, 7, 9, 11, 13, 15);
        }
        /// Each window's max, and which tap holds it (0 to 3, row by row), PyTorch's rule.
        void argmax(values& best, masks& at) const {
            best = t00;
            at = masks{};
            const values later[3] = {t01, t10, t11};
            for (std::int32_t k = 0; k < 3; ++k) {
                const masks wins = (later[k] > best) | (later[k] != later[k]);
                select(best, wins, later[k], best);
                at = (wins & (k + 1)) | (~wins & at);
            }
        }
    };

    /// lo, hi = the count (<= 16) values at src, zeros after them; nothing past them is read.
    static void load16(const float* src, std::int64_t count, values& lo, values& hi) {
#if defined(__AVX__)
        lo = reinterpret_cast<values>(_mm256_maskload_ps(src, lanes_below(count)));
        hi = reinterpret_cast<values>(_mm256_maskload_ps(src + width, lanes_below(count - width)));
#else
        float padded[2 * width] = {};
        std::memcpy(padded, src, static_cast<std::size_t>(count) * sizeof(float));
        std::memcpy(&lo, padded, sizeof(values));
        std::memcpy(&hi, padded + width, sizeof(values));
#endif
    }
    /// v's first count (<= 8) lanes written to dst; nothing past them is written.
    static void store8(float* dst, std::int64_t count, const values& v) {
#if defined(__AVX__)
        _mm256_maskstore_ps(dst, lanes_below(count), reinterpret_cast<__m256>(v));
#else
        std::memcpy(dst, &v, static_cast<std::size_t>(count) * sizeof(float));
#endif
    }
#if defined(__AVX__)
    static __m256i lanes_below(std::int64_t count) {
        const masks lane = {0, 1, 2, 3, 4, 5, 6, 7};
        return reinterpret_cast<__m256i>(lane < static_cast<std::int32_t>(count));
    }
#endif

    /// Calls body(taps, j, n) for each run of up to eight outputs j.. of a row.
    template <class Body>
    static void for_row(const float* top, const float* bottom, std::int64_t out_w, Body&& body) {
        std::int64_t j = 0;
        for (; j + width <= out_w; j += width)
            body(taps(top + 2 * j, bottom + 2 * j), j, width);
        if (j < out_w) {
            const std::int64_t n = out_w - j;
            values a0, a1, b0, b1;
            load16(top + 2 * j, 2 * n, a0, a1);
            load16(bottom + 2 * j, 2 * n, b0, b1);
            body(taps(a0, a1, b0, b1), j, n);
        }
    }

    static void forward_plane(const float* x, float* y, const pool2d_geometry& g) {
        for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
            const float* top = x + 2 * oh * g.in_w;
            float* row = y + oh * g.out_w;
            for_row(top, top + g.in_w, g.out_w, [&](const taps& t, std::int64_t j, std::int64_t n) {
                values best;
                masks at;
                t.argmax(best, at);
                store8(row + j, n, best);
            });
        }
    }

    /// grad_in's plane: each output's gradient at its window's argmax, zeros elsewhere (the
    /// rows and the column that no window covers included).
    static void backward_plane(const float* go, const float* x, float* gi,
                               const pool2d_geometry& g) {
        for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
            const float* top = x + 2 * oh * g.in_w;
            float* gtop = gi + 2 * oh * g.in_w;
            float* gbottom = gtop + g.in_w;
            for_row(top, top + g.in_w, g.out_w, [&](const taps& t, std::int64_t j, std::int64_t n) {
                values best, grad, unused;
                masks at;
                t.argmax(best, at);
                load16(go + oh * g.out_w + j, n, grad, unused);
                const values zero = {};
                values g00, g01, g10, g11;
                select(g00, at == 0, grad, zero);
                select(g01, at == 1, grad, zero);
                select(g10, at == 2, grad, zero);
                select(g11, at == 3, grad, zero);
                const values out[4] = {
                    __builtin_shufflevector(g00, g01, 0, 8, 1, 9, 2, 10, 3, 11),
                    __builtin_shufflevector(g00, g01, 4, 12, 5, 13, 6, 14, 7, 15),
                    __builtin_shufflevector(g10, g11, 0, 8, 1, 9, 2, 10, 3, 11),
                    __builtin_shufflevector(g10, g11, 4, 12, 5, 13, 6, 14, 7, 15)};
                // The top row's 2 n values, then the bottom row's.
                for (int r = 0; r < 2; ++r) {
                    float* dst = (r == 0 ? gtop : gbottom) + 2 * j;
                    store8(dst, std::min(2 * n, width), out[2 * r]);
                    store8(dst + width, std::max<std::int64_t>(2 * n - width, 0), out[2 * r + 1]);
                }
            });
            // An odd width's last column, under no window.
            for (std::int64_t c = 2 * g.out_w; c < g.in_w; ++c)
                gtop[c] = gbottom[c] = 0.0F;
        }
        // An odd height's last row.
        std::fill(gi + 2 * g.out_h * g.in_w, gi + g.in_plane(), 0.0F);
    }
};
#endif

} // namespace pool_detail

/// max_pool2d: out[p, oh, ow] = the max of in[p]'s window (NaN when one is NaN).
template <class T, unsigned Build = kernel_build>
void max_pool2d_forward(const T* in, T* out, const pool2d_geometry& g) {
    using namespace pool_detail;
#if defined(STATICPY_POOL_2X2)
    if constexpr (std::is_same_v<T, float>)
        if (whole_2x2_windows(g)) {
            for_each_plane(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t p) {
                pool2x2::forward_plane(in + p * g.in_plane(), out + p * g.out_plane(), g);
            });
            return;
        }
#endif
    const auto rows = max_spans(g.out_h, g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.dilation_h);
    const auto cols = max_spans(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w);
    const interior inner =
        interior_of(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w);
    for_each_plane(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t p) {
        const T* x = in + p * g.in_plane();
        T* o = out + p * g.out_plane();
        if (has_nan(x, g.in_plane())) {
            for (std::int64_t oh = 0; oh < g.out_h; ++oh)
                for (std::int64_t ow = 0; ow < g.out_w; ++ow)
                    o[oh * g.out_w + ow] = window_max<true>(
                        x, g.in_w, rows[static_cast<std::size_t>(oh)],
                        cols[static_cast<std::size_t>(ow)], g.dilation_h, g.dilation_w);
            return;
        }
        pool_plane_forward<true>(
            x, o, g, rows, cols, inner,
            [&](const T* plane, const span& r, const span& c) {
                return window_max<false>(plane, g.in_w, r, c, g.dilation_h, g.dilation_w);
            },
            [](T*, std::int64_t, std::int64_t, const span&) {});
    });
}

/// max_pool2d's gradient: grad_in[p] = zeros with grad_out[p, oh, ow] added at each window's
/// argmax (in's), the outputs in order.
template <class T, unsigned Build = kernel_build>
void max_pool2d_backward(const T* grad_out, const T* in, T* grad_in, const pool2d_geometry& g) {
#if defined(STATICPY_POOL_2X2)
    if constexpr (std::is_same_v<T, float>)
        if (pool_detail::whole_2x2_windows(g)) {
            pool_detail::for_each_plane(
                g.planes, 2 * g.in_plane() + g.out_plane(), [&](std::int64_t p) {
                    pool_detail::pool2x2::backward_plane(grad_out + p * g.out_plane(),
                                                         in + p * g.in_plane(),
                                                         grad_in + p * g.in_plane(), g);
                });
            return;
        }
#endif
    pool_detail::for_each_plane_argmax(in, g, [&](std::int64_t p) {
        const T* go = grad_out + p * g.out_plane();
        T* gi = grad_in + p * g.in_plane();
        std::fill(gi, gi + g.in_plane(), T(0));
        return [go, gi](std::int64_t o, std::int64_t i) { gi[i] += go[o]; };
    });
}

/// The derivative of max_pool2d_backward with respect to its gradient: out[p, oh, ow] =
/// values[p] at the argmax of in[p]'s window (values has in's shape).
template <class T, unsigned Build = kernel_build>
void max_pool2d_at_argmax(const T* values, const T* in, T* out, const pool2d_geometry& g) {
    pool_detail::for_each_plane_argmax(in, g, [&](std::int64_t p) {
        const T* v = values + p * g.in_plane();
        T* o = out + p * g.out_plane();
        return [v, o](std::int64_t k, std::int64_t i) { o[k] = v[i]; };
    });
}

/// avg_pool2d: out[p, oh, ow] = the sum of in[p]'s window / its divisor.
template <class T, unsigned Build = kernel_build>
void avg_pool2d_forward(const T* in, T* out, const pool2d_geometry& g,
                        const avg_pool2d_divisor& divisor) {
    using namespace pool_detail;
    const auto rows = avg_spans(g.out_h, g.in_h, g.kernel_h, g.stride_h, g.pad_h);
    const auto cols = avg_spans(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w);
    const interior inner = interior_of(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, 1);
    // The interior columns' own span: the whole kernel, inside the input.
    const span full{0, g.kernel_w, g.kernel_w};
    for_each_plane(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t p) {
        pool_plane_forward<false>(
            in + p * g.in_plane(), out + p * g.out_plane(), g, rows, cols, inner,
            [&](const T* x, const span& r, const span& c) {
                if (r.begin >= r.end || c.begin >= c.end)
                    return T(0);
                return divided(window_sum(x, g.in_w, r, c), divisor_of(divisor, r, c));
            },
            [&](T* row, std::int64_t lo, std::int64_t hi, const span& r) {
                const std::int64_t d = divisor_of(divisor, r, full);
                for (std::int64_t ow = lo; ow < hi; ++ow)
                    row[ow] = divided(row[ow], d);
            });
    });
}

/// avg_pool2d's gradient: grad_out[p, oh, ow] / the window's divisor added over each window:
/// each row's interior tap by tap across it (the transpose of the forward's loops), its border
/// window by window.
template <class T, unsigned Build = kernel_build>
void avg_pool2d_backward(const T* grad_out, T* grad_in, const pool2d_geometry& g,
                         const avg_pool2d_divisor& divisor) {
    using namespace pool_detail;
    const auto rows = avg_spans(g.out_h, g.in_h, g.kernel_h, g.stride_h, g.pad_h);
    const auto cols = avg_spans(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w);
    const interior inner = interior_of(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, 1);
    const std::int64_t n = inner.hi - inner.lo;
    const std::int64_t first_column = inner.lo * g.stride_w - g.pad_w;
    const span full{0, g.kernel_w, g.kernel_w};
    for_plane_chunks(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t b, std::int64_t e) {
        std::vector<T> delta(static_cast<std::size_t>(n));
        for (std::int64_t p = b; p < e; ++p) {
            const T* go = grad_out + p * g.out_plane();
            T* gi = grad_in + p * g.in_plane();
            std::fill(gi, gi + g.in_plane(), T(0));
            for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
                const span& r = rows[static_cast<std::size_t>(oh)];
                if (r.begin >= r.end)
                    continue;
                auto border = [&](std::int64_t ow) {
                    const span& c = cols[static_cast<std::size_t>(ow)];
                    if (c.begin >= c.end)
                        return;
                    const T d = divided(go[oh * g.out_w + ow], divisor_of(divisor, r, c));
                    for (std::int64_t ih = r.begin; ih < r.end; ++ih)
                        for (std::int64_t iw = c.begin; iw < c.end; ++iw)
                            gi[ih * g.in_w + iw] += d;
                };
                for (std::int64_t ow = 0; ow < inner.lo; ++ow)
                    border(ow);
                if (n > 0) {
                    const std::int64_t d = divisor_of(divisor, r, full);
                    for (std::int64_t j = 0; j < n; ++j)
                        delta[static_cast<std::size_t>(j)] =
                            divided(go[oh * g.out_w + inner.lo + j], d);
                    with_stride(g.stride_w, [&](auto s) {
                        constexpr std::int64_t stride = decltype(s)::value;
                        const std::int64_t step = stride > 0 ? stride : g.stride_w;
                        for (std::int64_t ih = r.begin; ih < r.end; ++ih)
                            for (std::int64_t kw = 0; kw < g.kernel_w; ++kw) {
                                T* dst = gi + ih * g.in_w + first_column + kw;
                                for (std::int64_t j = 0; j < n; ++j)
                                    dst[j * step] += delta[static_cast<std::size_t>(j)];
                            }
                    });
                }
                for (std::int64_t ow = inner.hi; ow < g.out_w; ++ow)
                    border(ow);
            }
        }
    });
}

/// adaptive_avg_pool2d: out[p, oh, ow] = the sum of in[p]'s window / its height / its width. An
/// output of 1 x 1 is PyTorch's mean over the plane instead: the sum / (in_h in_w), NaN for an
/// empty plane.
template <class T, unsigned Build = kernel_build>
void adaptive_avg_pool2d_forward(const T* in, T* out, const pool2d_geometry& g) {
    using namespace pool_detail;
    const auto rows = adaptive_spans(g.out_h, g.in_h);
    const auto cols = adaptive_spans(g.out_w, g.in_w);
    const bool mean = g.out_h == 1 && g.out_w == 1;
    for_each_plane(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t p) {
        const T* x = in + p * g.in_plane();
        T* o = out + p * g.out_plane();
        for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
            const span& r = rows[static_cast<std::size_t>(oh)];
            for (std::int64_t ow = 0; ow < g.out_w; ++ow) {
                const span& c = cols[static_cast<std::size_t>(ow)];
                const T sum = window_sum(x, g.in_w, r, c);
                o[oh * g.out_w + ow] =
                    mean ? sum / static_cast<T>(g.in_plane())
                         : sum / static_cast<T>(r.padded) / static_cast<T>(c.padded);
            }
        }
    });
}

/// adaptive_avg_pool2d's gradient: grad_out[p, oh, ow] / height / width added over each window
/// (/ (in_h in_w) over the plane for a 1 x 1 output, mean's).
template <class T, unsigned Build = kernel_build>
void adaptive_avg_pool2d_backward(const T* grad_out, T* grad_in, const pool2d_geometry& g) {
    using namespace pool_detail;
    const auto rows = adaptive_spans(g.out_h, g.in_h);
    const auto cols = adaptive_spans(g.out_w, g.in_w);
    const bool mean = g.out_h == 1 && g.out_w == 1;
    for_each_plane(g.planes, g.in_plane() + g.out_plane(), [&](std::int64_t p) {
        const T* go = grad_out + p * g.out_plane();
        T* gi = grad_in + p * g.in_plane();
        std::fill(gi, gi + g.in_plane(), T(0));
        for (std::int64_t oh = 0; oh < g.out_h; ++oh) {
            const span& r = rows[static_cast<std::size_t>(oh)];
            for (std::int64_t ow = 0; ow < g.out_w; ++ow) {
                const span& c = cols[static_cast<std::size_t>(ow)];
                const T delta = mean ? go[oh * g.out_w + ow] / static_cast<T>(g.in_plane())
                                     : go[oh * g.out_w + ow] / static_cast<T>(r.padded) /
                                           static_cast<T>(c.padded);
                for (std::int64_t ih = r.begin; ih < r.end; ++ih)
                    for (std::int64_t iw = c.begin; iw < c.end; ++iw)
                        gi[ih * g.in_w + iw] += delta;
            }
        }
    });
}

#define STATICPY_POOL_INSTANCES(T)                                                                 \
    STATICPY_KERNEL_INSTANCE(                                                                      \
        template void max_pool2d_forward<T, kernel_build>(const T*, T*, const pool2d_geometry&))   \
    STATICPY_KERNEL_INSTANCE(template void max_pool2d_backward<T, kernel_build>(                   \
        const T*, const T*, T*, const pool2d_geometry&))                                           \
    STATICPY_KERNEL_INSTANCE(template void max_pool2d_at_argmax<T, kernel_build>(                  \
        const T*, const T*, T*, const pool2d_geometry&))                                           \
    STATICPY_KERNEL_INSTANCE(template void avg_pool2d_forward<T, kernel_build>(                    \
        const T*, T*, const pool2d_geometry&, const avg_pool2d_divisor&))                          \
    STATICPY_KERNEL_INSTANCE(template void avg_pool2d_backward<T, kernel_build>(                   \
        const T*, T*, const pool2d_geometry&, const avg_pool2d_divisor&))                          \
    STATICPY_KERNEL_INSTANCE(template void adaptive_avg_pool2d_forward<T, kernel_build>(           \
        const T*, T*, const pool2d_geometry&))                                                     \
    STATICPY_KERNEL_INSTANCE(template void adaptive_avg_pool2d_backward<T, kernel_build>(          \
        const T*, T*, const pool2d_geometry&))
STATICPY_POOL_INSTANCES(float)
STATICPY_POOL_INSTANCES(double)
#undef STATICPY_POOL_INSTANCES

} // namespace staticpy::kernels
