// kernels::conv2d_forward / conv2d_input_grad / conv2d_weight_grad against a direct loop over
// the definition, in float on small integers (every partial sum exact, so the comparison is
// exact): batches large enough to be cut into many tasks run on several threads, with the weight
// gradient's partial sums; stride, padding, dilation and groups; and the same bits on one thread
// and on several (the partial sums are added in an order fixed by the batch, not the threads);
// the forward's epilogue is handed every run of the result once, after it is written.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/core/threads.hpp>
#include <staticpy/kernels/conv.hpp>

namespace {

using staticpy::kernels::conv2d_geometry;

void set_output_size(conv2d_geometry& g) {
    g.out_h = (g.height + 2 * g.pad_h + g.pad_h_extra - g.dilation_h * (g.kernel_h - 1) - 1) /
                  g.stride_h +
              1;
    g.out_w =
        (g.width + 2 * g.pad_w + g.pad_w_extra - g.dilation_w * (g.kernel_w - 1) - 1) / g.stride_w +
        1;
}

conv2d_geometry make_geometry(std::int64_t batch, std::int64_t in_channels, std::int64_t size,
                              std::int64_t out_channels, std::int64_t kernel, std::int64_t stride,
                              std::int64_t pad, std::int64_t dilation, std::int64_t groups) {
    conv2d_geometry g;
    g.batch = batch;
    g.in_channels = in_channels;
    g.height = size;
    g.width = size + 1; // not square
    g.out_channels = out_channels;
    g.kernel_h = kernel;
    g.kernel_w = kernel;
    g.stride_h = stride;
    g.stride_w = stride;
    g.pad_h = pad;
    g.pad_w = pad;
    g.dilation_h = dilation;
    g.dilation_w = dilation;
    g.groups = groups;
    set_output_size(g);
    return g;
}

std::vector<float> pattern(std::int64_t n, int seed) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<float>((i * 7 + seed * 13) % 7 - 3);
    return v;
}

/// Calls f(n, o, oh, ow, c, ki, kj, x_index, w_index) for every term of the convolution's sums
/// whose input position is inside the image.
template <class F>
void for_each_term(const conv2d_geometry& g, F f) {
    const std::int64_t gi = g.in_channels / g.groups, go = g.out_channels / g.groups;
    for (std::int64_t n = 0; n < g.batch; ++n)
        for (std::int64_t o = 0; o < g.out_channels; ++o)
            for (std::int64_t oh = 0; oh < g.out_h; ++oh)
                for (std::int64_t ow = 0; ow < g.out_w; ++ow)
                    for (std::int64_t c = 0; c < gi; ++c)
                        for (std::int64_t ki = 0; ki < g.kernel_h; ++ki)
                            for (std::int64_t kj = 0; kj < g.kernel_w; ++kj) {
                                const std::int64_t ih =
                                    oh * g.stride_h - g.pad_h + ki * g.dilation_h;
                                const std::int64_t iw =
                                    ow * g.stride_w - g.pad_w + kj * g.dilation_w;
                                if (ih < 0 || ih >= g.height || iw < 0 || iw >= g.width)
                                    continue;
                                const std::int64_t ic = o / go * gi + c;
                                const std::int64_t xi =
                                    ((n * g.in_channels + ic) * g.height + ih) * g.width + iw;
                                const std::int64_t wi =
                                    ((o * gi + c) * g.kernel_h + ki) * g.kernel_w + kj;
                                const std::int64_t yi =
                                    ((n * g.out_channels + o) * g.out_h + oh) * g.out_w + ow;
                                f(yi, xi, wi);
                            }
}

struct results {
    std::vector<float> y, dx, dw;
    /// y as the forward's epilogue saw each run, and how many runs covered each element.
    std::vector<float> y_seen;
    std::vector<int> covered;
};

results run(const conv2d_geometry& g, const std::vector<float>& x, const std::vector<float>& w,
            const std::vector<float>& b, const std::vector<float>& dy) {
    results r;
    r.y.assign(dy.size(), -99.0f);
    r.dx.assign(x.size(), -99.0f);
    r.dw.assign(w.size(), -99.0f);
    r.y_seen.assign(dy.size(), -99.0f);
    r.covered.assign(dy.size(), 0);
    staticpy::kernels::conv2d_forward(
        g, x.data(), w.data(), b.data(), r.y.data(),
        [&](std::int64_t n, std::int64_t o, std::int64_t q0, std::int64_t q1) {
            const auto at = static_cast<std::size_t>((n * g.out_channels + o) * g.positions());
            for (auto q = static_cast<std::size_t>(q0); q < static_cast<std::size_t>(q1); ++q) {
                r.y_seen[at + q] = r.y[at + q];
                ++r.covered[at + q];
            }
        });
    staticpy::kernels::conv2d_input_grad(g, dy.data(), w.data(), r.dx.data());
    staticpy::kernels::conv2d_weight_grad(g, dy.data(), x.data(), r.dw.data());
    return r;
}

void check_geometry(const conv2d_geometry& g) {
    CAPTURE(g.batch, g.in_channels, g.height, g.out_channels, g.kernel_h, g.kernel_w, g.stride_h,
            g.pad_h, g.pad_w, g.pad_h_extra, g.pad_w_extra, g.dilation_h, g.groups);
    const std::int64_t ny = g.batch * g.out_channels * g.out_h * g.out_w;
    const auto x = pattern(g.batch * g.image_size(), 1);
    const auto w = pattern(g.out_channels * g.patch(), 2);
    const auto b = pattern(g.out_channels, 3);
    const auto dy = pattern(ny, 4);

    std::vector<double> y(static_cast<std::size_t>(ny)), dx(x.size()), dw(w.size());
    for (std::int64_t i = 0; i < ny; ++i)
        y[static_cast<std::size_t>(i)] =
            b[static_cast<std::size_t>(i / (g.out_h * g.out_w) % g.out_channels)];
    for_each_term(g, [&](std::int64_t yi, std::int64_t xi, std::int64_t wi) {
        const auto [yu, xu, wu] =
            std::tuple{static_cast<std::size_t>(yi), static_cast<std::size_t>(xi),
                       static_cast<std::size_t>(wi)};
        y[yu] += double(x[xu]) * w[wu];
        dx[xu] += double(dy[yu]) * w[wu];
        dw[wu] += double(dy[yu]) * x[xu];
    });

    const int before = staticpy::get_num_threads();
    staticpy::set_num_threads(1);
    const results one = run(g, x, w, b, dy);
    staticpy::set_num_threads(2);
    const results two = run(g, x, w, b, dy);
    staticpy::set_num_threads(before);

    const auto mismatches = [](const std::vector<float>& got, const std::vector<double>& want) {
        std::int64_t wrong = 0;
        for (std::size_t i = 0; i < want.size(); ++i)
            wrong += double(got[i]) != want[i];
        return wrong;
    };
    CHECK(mismatches(one.y, y) == 0);
    // the epilogue saw every run of y once, final
    for (const results* r : {&one, &two}) {
        CHECK(r->y_seen == r->y);
        CHECK(std::count(r->covered.begin(), r->covered.end(), 1) == ny);
    }
    CHECK(mismatches(one.dx, dx) == 0);
    CHECK(mismatches(one.dw, dw) == 0);
    CHECK(two.y == one.y);
    CHECK(two.dx == one.dx);
    CHECK(two.dw == one.dw);
}

} // namespace

TEST_CASE("conv2d kernels against the definition: LeNet's layers at a full batch",
          "[conv][kernels]") {
    // Many tasks of a few images each, run on the threads; more tasks than partial sums. The
    // first layer reads its windows in place (the implicit GEMM), the second from im2col.
    using staticpy::kernels::conv_detail::implicit_gemm;
    using staticpy::kernels::conv_detail::split_batch;
    const auto conv1 = make_geometry(64, 1, 28, 6, 5, 1, 2, 1, 1);
    const auto conv2 = make_geometry(64, 6, 14, 16, 5, 1, 0, 1, 1);
    CHECK(implicit_gemm(conv1, split_batch<float>(conv1)));
    CHECK(!implicit_gemm(conv2, split_batch<float>(conv2)));
    check_geometry(conv1);
    check_geometry(conv2);
    // implicit, with more output channels than are read in place (its B panels packed from the
    // padded planes), and 1 x 1 windows (no dropped columns)
    const auto pointwise = make_geometry(16, 2, 6, 24, 1, 1, 0, 1, 1);
    CHECK(implicit_gemm(pointwise, split_batch<float>(pointwise)));
    check_geometry(pointwise);
}

TEST_CASE("conv2d kernels against the definition: stride, padding, dilation, groups",
          "[conv][kernels]") {
    check_geometry(make_geometry(9, 4, 11, 6, 3, 2, 1, 1, 2));
    check_geometry(make_geometry(5, 3, 9, 3, 3, 1, 2, 2, 3));  // depthwise, dilated
    check_geometry(make_geometry(33, 2, 6, 4, 1, 1, 0, 1, 1)); // pointwise, 33 images
    check_geometry(make_geometry(3, 3, 40, 8, 5, 3, 0, 1, 1)); // large images: one per task
    check_geometry(make_geometry(1, 2, 5, 3, 3, 1, 1, 1, 1));  // one image
}

TEST_CASE("conv2d kernels against the definition: padding 'same' of even kernels (one more "
          "below and right)",
          "[conv][kernels]") {
    // a kernel of 4 x 2 taps, padded as PyTorch's padding='same' pads it: the output is as
    // large as the input
    const auto check_same = [](std::int64_t dilation_h, std::int64_t dilation_w) {
        conv2d_geometry g = make_geometry(7, 3, 9, 4, 4, 1, 0, 1, 1);
        g.kernel_w = 2;
        g.dilation_h = dilation_h;
        g.dilation_w = dilation_w;
        const std::int64_t total_h = dilation_h * 3, total_w = dilation_w * 1;
        g.pad_h = total_h / 2;
        g.pad_w = total_w / 2;
        g.pad_h_extra = total_h % 2;
        g.pad_w_extra = total_w % 2;
        set_output_size(g);
        REQUIRE(g.out_h == g.height);
        REQUIRE(g.out_w == g.width);
        check_geometry(g);
    };
    check_same(1, 1); // 1 row above, 2 below; none left, 1 right
    check_same(3, 2); // 4 rows above, 5 below; 1 column each side
}
