// kernels::max_pool2d_forward / max_pool2d_backward against a direct loop over PyTorch's rule
// (taps row by row, left to right; a tap replaces the max when greater or NaN, so of equal values
// the first stays and of NaNs the last wins; the gradient goes to that tap), bit for bit: the
// values are drawn from a few that tie (0 and -0 included, whose sign tells which tap won), NaN
// and the infinities. The shapes cover the 2 x 2, stride-2 windows' eight-at-a-time path (whole
// blocks of eight outputs, a row's last few, an odd width's and height's uncovered column and
// row, planes of one window), windows it does not take (ceil_mode's partial ones, padding) and
// planes split among threads. backend_pool_avx_test builds this file again with AVX, where the
// row's last outputs are read and written through masked loads and stores.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/core/threads.hpp>
#include <staticpy/kernels/pool.hpp>

namespace {

using staticpy::kernels::pool2d_geometry;

pool2d_geometry geometry(std::int64_t planes, std::int64_t h, std::int64_t w, std::int64_t pad,
                         bool ceil_mode) {
    auto out = [&](std::int64_t n) {
        const std::int64_t span = n + 2 * pad - 2;
        return (ceil_mode ? (span + 1) / 2 : span / 2) + 1;
    };
    return {.planes = planes,
            .in_h = h,
            .in_w = w,
            .out_h = out(h),
            .out_w = out(w),
            .kernel_h = 2,
            .kernel_w = 2,
            .stride_h = 2,
            .stride_w = 2,
            .pad_h = pad,
            .pad_w = pad};
}

/// Each output's argmax in its plane, by PyTorch's rule (the windows clipped to the plane).
std::vector<std::int64_t> naive_argmax(const std::vector<float>& x, const pool2d_geometry& g) {
    std::vector<std::int64_t> at;
    for (std::int64_t p = 0; p < g.planes; ++p)
        for (std::int64_t oh = 0; oh < g.out_h; ++oh)
            for (std::int64_t ow = 0; ow < g.out_w; ++ow) {
                std::int64_t best = -1;
                for (std::int64_t ih = oh * 2 - g.pad_h; ih < oh * 2 - g.pad_h + 2; ++ih)
                    for (std::int64_t iw = ow * 2 - g.pad_w; iw < ow * 2 - g.pad_w + 2; ++iw) {
                        if (ih < 0 || iw < 0 || ih >= g.in_h || iw >= g.in_w)
                            continue;
                        const std::int64_t i = ih * g.in_w + iw;
                        const float v = x[static_cast<std::size_t>(p * g.in_plane() + i)];
                        const float m =
                            best < 0 ? 0.0F : x[static_cast<std::size_t>(p * g.in_plane() + best)];
                        if (best < 0 || v > m || std::isnan(v))
                            best = i;
                    }
                at.push_back(best);
            }
    return at;
}

std::vector<float> draw(std::size_t n, unsigned seed) {
    const float choices[] = {0.0F,     -0.0F, 1.0F, -1.0F, 2.5F,      1.0F, -0.0F,
                             INFINITY, 0.0F,  NAN,  1.0F,  -INFINITY, 2.5F, 0.5F};
    std::vector<float> x(n);
    for (auto& v : x) {
        seed = seed * 1103515245U + 12345U;
        v = choices[(seed >> 16) % (sizeof(choices) / sizeof(float))];
    }
    return x;
}

/// Whether a and b hold the same bits (NaN for NaN, -0 for -0).
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void check(const pool2d_geometry& g, unsigned seed) {
    CAPTURE(g.planes, g.in_h, g.in_w, g.out_h, g.out_w, g.pad_h, seed);
    const auto x = draw(static_cast<std::size_t>(g.planes * g.in_plane()), seed);
    const auto at = naive_argmax(x, g);
    std::vector<float> expected_y(at.size()), grad_out(at.size());
    std::vector<float> expected_gi(x.size(), 0.0F);
    for (std::size_t o = 0; o < at.size(); ++o) {
        const auto p = static_cast<std::int64_t>(o) / g.out_plane();
        const auto i = static_cast<std::size_t>(p * g.in_plane() + at[o]);
        expected_y[o] = x[i];
        grad_out[o] = static_cast<float>(o % 11) - 4.0F; // -0 nowhere: 0 + g keeps g's bits
        expected_gi[i] += grad_out[o];
    }
    std::vector<float> y(at.size(), 7.0F), gi(x.size(), 7.0F); // 7: what is not written shows
    staticpy::kernels::max_pool2d_forward(x.data(), y.data(), g);
    staticpy::kernels::max_pool2d_backward(grad_out.data(), x.data(), gi.data(), g);
    CHECK(same_bits(y, expected_y));
    CHECK(same_bits(gi, expected_gi));
}

} // namespace

TEST_CASE("max_pool2d 2 x 2, stride 2: PyTorch's max and argmax, ties, signed zeros and NaN") {
    unsigned seed = 1;
    // Whole windows: blocks of eight outputs and a row's last few; odd sizes leave a column and
    // a row under no window.
    for (std::int64_t h : {2, 3, 4, 7, 10, 28})
        for (std::int64_t w : {2, 3, 10, 15, 16, 17, 28, 33, 34, 35})
            check(geometry(3, h, w, 0, false), seed++);
    // Windows it does not take: ceil_mode's partial last window, padding.
    for (std::int64_t w : {5, 17, 19})
        check(geometry(2, 7, w, 0, true), seed++);
    check(geometry(2, 6, 18, 1, false), seed++);
}

TEST_CASE("max_pool2d 2 x 2, stride 2: planes split among threads give the same bits") {
    const int threads = staticpy::get_num_threads();
    staticpy::set_num_threads(2);
    check(geometry(64 * 6, 28, 28, 0, false), 99);  // LeNet-5's first pooling
    check(geometry(64 * 16, 10, 10, 0, false), 98); // and its second
    staticpy::set_num_threads(threads);
}
