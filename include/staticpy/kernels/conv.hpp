#pragma once
// The CPU backend's 2-D convolution (PyTorch's conv2d: cross-correlation, NCHW, groups), forward
// and both backward products, as im2col + the own GEMM (kernels/gemm.hpp):
//
//   forward        y[n, o, p]  = sum_r W[o, r] col[r, (n, p)] + b[o]
//   input grad     dcol[r, (n, p)] = sum_o W[o, r] g[n, o, p], then col2im sums dcol into dx
//   weight grad    dW[o, r]    = sum_(n, p) g[n, o, p] col[r, (n, p)]
//
// where r runs over one group's (input channel, kernel row, kernel column) and p over the output
// positions. The batch is cut into tasks of a few images; a task's column matrix holds its images
// side by side ([patch, images x positions]), so one GEMM covers the task (LeNet's first layer:
// 6 x 25 x (3 x 784) rather than three products of 6 x 25 x 784), and is small enough
// (col_budget_bytes) to be still in L2 when the GEMM reads what im2col wrote. The tasks run on
// the threads; where there are fewer tasks than that (large images), they run one after the
// other and the GEMM inside each is threaded instead. A stride-1 forward with few output channels
// skips im2col: its GEMM reads the windows straight from the padded input (an implicit GEMM,
// below).
//
// The forward GEMM's epilogue moves each finished block of the product from the column order
// (o, (n, p)) to NCHW while it is still in cache, adding the bias on the way, and hands each
// finished run of y to the caller's epilogue (a graph's fused kernel over the convolution:
// relu(conv2d(x, w, b)) costs no pass of its own).
//
//   conv2d_geometry geo = ...;                       // sizes, stride, padding, dilation, groups
//   conv2d_forward(geo, x, w, bias_or_null, y);      // x, w, y contiguous
//   conv2d_forward(geo, x, w, bias_or_null, y,       // then epilogue(n, o, q0, q1) over each
//                  epilogue);                        // finished y[n, o, q0:q1] (flat positions)
//   conv2d_input_grad(geo, g, w, dx);                // dx overwritten
//   conv2d_weight_grad(geo, g, x, dw);               // dw overwritten

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "staticpy/kernels/gemm.hpp"
#include "staticpy/kernels/parallel.hpp"

namespace staticpy::kernels {

/// Everything a 2-D convolution's loops need: the input [batch, in_channels, height, width], the
/// weight [out_channels, in_channels / groups, kernel_h, kernel_w], the output [batch,
/// out_channels, out_h, out_w] and the window's stride, padding and dilation.
struct conv2d_geometry {
    std::int64_t batch = 0, in_channels = 0, height = 0, width = 0;
    std::int64_t out_channels = 0, kernel_h = 0, kernel_w = 0, out_h = 0, out_w = 0;
    std::int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
    std::int64_t groups = 1;
    /// Padding below and right of the input beyond pad_h and pad_w (0 or 1): PyTorch's
    /// padding='same' with an even dilated kernel span pads one more there than above and left.
    std::int64_t pad_h_extra = 0, pad_w_extra = 0;

    [[nodiscard]] std::int64_t group_in() const { return in_channels / groups; }
    [[nodiscard]] std::int64_t group_out() const { return out_channels / groups; }
    /// Rows of a column matrix: one group's (input channel, kernel row, kernel column).
    [[nodiscard]] std::int64_t patch() const { return group_in() * kernel_h * kernel_w; }
    [[nodiscard]] std::int64_t positions() const { return out_h * out_w; }
    [[nodiscard]] std::int64_t image_size() const { return in_channels * height * width; }
};

namespace conv_detail {

/// A task's column matrix stays below this size, so that it is still in L2 (1 MB a core here)
/// when the GEMM reads it: a few images of LeNet's size, one of a large one.
inline constexpr std::int64_t col_budget_bytes = std::int64_t{256} << 10;
/// The weight gradient sums the tasks' products in at most this many partial sums (each a run of
/// consecutive tasks), added in order at the end: the same sums whatever the number of threads.
inline constexpr int weight_partials = 8;

/// The convolution's working matrices (column matrix, product, gathered gradient, a padded
/// plane): per thread, reused from call to call and never cleared, since every element is
/// written before it is read. A std::vector would allocate and zero them at every call.
template <class T>
T* work_buffer(int which, std::int64_t count) {
    thread_local gemm_detail::scratch buffers[6];
    return static_cast<T*>(buffers[which].get(static_cast<std::size_t>(count) * sizeof(T)));
}

/// How the batch is cut into tasks and run: `tasks` tasks of `images` images (the last one
/// fewer), on `threads` threads.
struct batch_split {
    std::int64_t images = 1;
    int tasks = 0;
    int threads = 1;
    int available = 1; // the threads the convolution may use

    [[nodiscard]] std::int64_t first(int task) const { return task * images; }
    [[nodiscard]] std::int64_t count(int task, std::int64_t batch) const {
        return std::min(images, batch - first(task));
    }
};

template <class T>
batch_split split_batch(const conv2d_geometry& geo) {
    batch_split s;
    const std::int64_t per_image =
        std::max<std::int64_t>(1, geo.patch() * geo.positions() * std::int64_t{sizeof(T)});
    constexpr std::int64_t max_tasks = std::int64_t{1} << 30;
    s.images = std::clamp<std::int64_t>(col_budget_bytes / per_image, 1,
                                        std::max<std::int64_t>(1, geo.batch));
    s.images = std::max(s.images, (geo.batch + max_tasks - 1) / max_tasks);
    s.tasks = static_cast<int>((geo.batch + s.images - 1) / s.images);
    s.available =
        threads_for(geo.batch * geo.groups * geo.patch() * geo.positions() * geo.group_out());
    // Too few tasks to share evenly: one after the other, each GEMM threaded.
    s.threads = s.tasks >= 2 * s.available ? s.available : 1;
    return s;
}

/// out[0, n) = in[0, n), or zeros where in is null, inline: the runs are parts of an output row
/// (LeNet's second layer: 10 values; the padding: 2), for which a call to memmove or memset
/// (what std::copy and std::fill become) costs more than the copy. Whole SIMD batches, the last
/// one overlapping the one before; 256- or 128-bit ones for runs shorter than a batch.
template <class T>
inline void write_run(const T* __restrict in, std::int64_t n, T* __restrict out) {
#if STATICPY_HAS_XSIMD
    if constexpr (simd_type_v<T>) {
        const auto batches = [&]<class V>(std::type_identity<V>) {
            constexpr std::int64_t W = V::size;
            const auto at = [&](std::int64_t i) {
                (in != nullptr ? V::load_unaligned(in + i) : V(T(0))).store_unaligned(out + i);
            };
            std::int64_t i = 0;
            for (; i + W <= n; i += W)
                at(i);
            if (i < n)
                at(n - W);
        };
        using Full = xsimd::batch<T>;
        using Half = xsimd::make_sized_batch_t<T, 32 / sizeof(T)>;    // 256 bits
        using Quarter = xsimd::make_sized_batch_t<T, 16 / sizeof(T)>; // 128 bits
        if (n >= std::int64_t{Full::size})
            return batches(std::type_identity<Full>{});
        if constexpr (!std::is_void_v<Half>)
            if (n >= std::int64_t{Half::size})
                return batches(std::type_identity<Half>{});
        if constexpr (!std::is_void_v<Quarter>)
            if (n >= std::int64_t{Quarter::size})
                return batches(std::type_identity<Quarter>{});
    }
#endif
    for (std::int64_t i = 0; i < n; ++i)
        out[i] = in != nullptr ? in[i] : T(0);
}

/// out[0, n) += in[0, n).
template <class T>
inline void add_run(const T* __restrict in, std::int64_t n, T* __restrict out) {
    for (std::int64_t i = 0; i < n; ++i)
        out[i] += in[i];
}

/// The extents of a plane with its padding: (height + 2 pad_h + pad_h_extra) x (width + 2 pad_w +
/// pad_w_extra). Every window position lies inside it, so the loops over windows need no bounds
/// tests.
inline std::int64_t padded_height(const conv2d_geometry& geo) {
    return geo.height + 2 * geo.pad_h + geo.pad_h_extra;
}
inline std::int64_t padded_width(const conv2d_geometry& geo) {
    return geo.width + 2 * geo.pad_w + geo.pad_w_extra;
}
inline bool padded(const conv2d_geometry& geo) {
    return padded_height(geo) != geo.height || padded_width(geo) != geo.width;
}

/// Writes a plane of x with its zero border to `out` (padded_height x padded_width).
template <class T>
void write_padded_plane(const conv2d_geometry& geo, const T* plane, T* scratch) {
    if (!padded(geo))
        return write_run(plane, geo.height * geo.width, scratch);
    const std::int64_t pw = padded_width(geo);
    write_run<T>(nullptr, geo.pad_h * pw + geo.pad_w, scratch);
    T* row = scratch + geo.pad_h * pw + geo.pad_w;
    const std::int64_t right = pw - geo.width - geo.pad_w;
    for (std::int64_t ih = 0; ih < geo.height; ++ih, row += pw) {
        write_run(plane + ih * geo.width, geo.width, row);
        // The right border of this row and the left of the next are contiguous.
        write_run<T>(nullptr, ih + 1 < geo.height ? right + geo.pad_w : right, row + geo.width);
    }
    write_run<T>(nullptr, (padded_height(geo) - geo.pad_h - geo.height) * pw, row - geo.pad_w);
}

/// A plane of x as the windows read it: `plane` itself without padding, else a copy with its
/// zero border in `scratch`.
template <class T>
const T* padded_plane(const conv2d_geometry& geo, const T* plane, T* scratch) {
    if (!padded(geo))
        return plane;
    write_padded_plane(geo, plane, scratch);
    return scratch;
}

/// Runs body(i, cg, scratch) for every (image i, channel cg of group) plane of a task's `count`
/// images, split across threads; scratch is the thread's buffer for a padded plane (null when
/// the convolution has no padding).
template <class T, class Body>
void for_each_plane(const conv2d_geometry& geo, std::int64_t count, Body body) {
    const std::int64_t gi = geo.group_in(), planes = count * gi;
    const int chunks = chunk_count(planes, threads_for(geo.patch() * count * geo.positions()), 1);
    parallel_chunks(planes, chunks, [&](std::int64_t q0, std::int64_t q1, int) {
        T* scratch =
            padded(geo) ? work_buffer<T>(4, padded_height(geo) * padded_width(geo)) : nullptr;
        for (std::int64_t q = q0; q < q1; ++q)
            body(q / gi, q % gi, scratch);
    });
}

/// Calls row(window, col_row) for each of a plane's kernel_h x kernel_w x out_h window rows:
/// window points into the (padded) plane, leading dimension ld, at the row's first window
/// position (the next ones stride_w apart); col_row at its out_w entries in the plane's
/// kernel_h x kernel_w rows of the column matrix, which start at col and are cols apart.
template <class P, class C, class Row>
void for_each_window_row(const conv2d_geometry& geo, P* plane, std::int64_t ld, C* col,
                         std::int64_t cols, Row row) {
    for (std::int64_t ki = 0; ki < geo.kernel_h; ++ki)
        for (std::int64_t kj = 0; kj < geo.kernel_w; ++kj, col += cols) {
            P* window = plane + ki * geo.dilation_h * ld + kj * geo.dilation_w;
            for (std::int64_t oh = 0; oh < geo.out_h; ++oh)
                row(window + oh * geo.stride_h * ld, col + oh * geo.out_w);
        }
}

/// col[r, (i, p)] for images [n0, n0 + count) of group `group` of x (contiguous NCHW), with the
/// zeros of the padding; col has count * positions columns. Each (image, channel) plane is
/// padded once (padded_plane); its kernel_h x kernel_w rows of col are then copies of runs of
/// it, with no bounds tests.
template <class T>
void im2col(const conv2d_geometry& geo, const T* x, std::int64_t n0, std::int64_t count,
            std::int64_t group, T* col) {
    const std::int64_t kk = geo.kernel_h * geo.kernel_w, gi = geo.group_in();
    const std::int64_t cols = count * geo.positions();
    const std::int64_t ld = padded(geo) ? padded_width(geo) : geo.width;
    for_each_plane<T>(geo, count, [&](std::int64_t i, std::int64_t cg, T* scratch) {
        const T* src = padded_plane(
            geo, x + (n0 + i) * geo.image_size() + (group * gi + cg) * geo.height * geo.width,
            scratch);
        for_each_window_row(geo, src, ld, col + cg * kk * cols + i * geo.positions(), cols,
                            [&](const T* in, T* out) {
                                if (geo.stride_w == 1)
                                    write_run(in, geo.out_w, out);
                                else
                                    for (std::int64_t ow = 0; ow < geo.out_w; ++ow)
                                        out[ow] = in[ow * geo.stride_w];
                            });
    });
}

/// dx[n, c, ...] = the sums of the column matrix's entries for images [n0, n0 + count) of group
/// `group` (im2col's transpose): each (image, channel) plane of dx is written once, by one thread,
/// from sums made in place or, with padding, in a padded plane (no bounds tests) whose inside is
/// then copied out.
template <class T>
void col2im(const conv2d_geometry& geo, const T* col, std::int64_t n0, std::int64_t count,
            std::int64_t group, T* dx) {
    const std::int64_t kk = geo.kernel_h * geo.kernel_w, gi = geo.group_in();
    const std::int64_t cols = count * geo.positions();
    const std::int64_t ld = padded(geo) ? padded_width(geo) : geo.width;
    for_each_plane<T>(geo, count, [&](std::int64_t i, std::int64_t cg, T* scratch) {
        T* plane = dx + (n0 + i) * geo.image_size() + (group * gi + cg) * geo.height * geo.width;
        T* sum = scratch != nullptr ? scratch : plane;
        write_run<T>(nullptr, (scratch != nullptr ? padded_height(geo) : geo.height) * ld, sum);
        for_each_window_row(geo, sum, ld, col + cg * kk * cols + i * geo.positions(), cols,
                            [&](T* out, const T* in) {
                                if (geo.stride_w == 1)
                                    add_run(in, geo.out_w, out);
                                else
                                    for (std::int64_t ow = 0; ow < geo.out_w; ++ow)
                                        out[ow * geo.stride_w] += in[ow];
                            });
        if (scratch != nullptr)
            for (std::int64_t ih = 0; ih < geo.height; ++ih)
                write_run(scratch + (ih + geo.pad_h) * ld + geo.pad_w, geo.width,
                          plane + ih * geo.width);
    });
}

/// How a forward product's columns map to the output: rows of `pitch` columns, of which the
/// first `width` are outputs (the rest dropped), `image_rows` rows an image. The im2col product
/// is one row per image (width = pitch = positions); the implicit GEMM's has out_h rows of the
/// padded width.
struct product_layout {
    std::int64_t cols, width, pitch, image_rows;

    /// Calls run(j, end, image, q) for each run [j, end) of kept columns within [j0, j1): they
    /// go to image `image` (counted from the product's first), output positions from q on.
    template <class Run>
    void for_each_run(std::int64_t j0, std::int64_t j1, Run run) const {
        for (std::int64_t j = j0; j < j1;) {
            const std::int64_t row = j / pitch, row_start = row * pitch;
            const std::int64_t end = std::min(j1, row_start + width);
            if (j < end)
                run(j, end, row / image_rows, (row % image_rows) * width + (j - row_start));
            j = std::min(j1, row_start + pitch);
        }
    }
};

// The implicit GEMM of the forward. With stride 1, the windows along a row of the padded plane
// (width pw) are consecutive: the column matrix's row for tap (c, ki, kj), taken at j = oh * pw +
// ow, is the padded plane of channel c read from offset ki * dilation_h * pw + kj * dilation_w
// on. So the GEMM can read its B straight from the padded planes (gemm_detail::offset_rows)
// instead of from an im2col copy, at the price of computing the pw - out_w columns of each row
// that fall past the output, and dropping them. Where the copy is the larger cost (LeNet's first
// layer: one input channel, 6 output channels, 25 taps; 1 x 1 windows), that is the better trade:
// 290 -> 245 us for LeNet's first layer at batch 64, one thread.

/// The elements of one padded plane: padded_planes puts plane (c, i) of a task at (c * count + i)
/// * plane_size, and image i's GEMM reads from i * plane_size on.
inline std::int64_t plane_size(const conv2d_geometry& geo) {
    return padded_height(geo) * padded_width(geo);
}

/// Whether the forward product reads the padded input in place: stride 1, the tasks on all the
/// threads (each task's GEMMs run on one), and the dropped columns (per image and tap: out_h x
/// (pw - out_w), times the output channels) cost less than an im2col copy (positions, times
/// about two for the write and the read).
inline bool implicit_gemm(const conv2d_geometry& geo, const batch_split& split) {
    const std::int64_t p = geo.positions();
    return geo.stride_h == 1 && geo.stride_w == 1 && split.threads == split.available &&
           geo.group_out() * geo.out_h * (padded_width(geo) - geo.out_w) <= 2 * p;
}

/// The padded planes of images [n0, n0 + count) and group `group` of x, laid out as plane_size
/// says, with the tap offsets of the column matrix's rows (relative to an image's first plane);
/// returns the B operand of image 0 (shifted(0, i * plane_size) is image i's). The reads of the
/// last image's dropped columns run span_w - 1 values past the last plane: they are zeros.
template <class T>
gemm_detail::offset_rows<T> padded_planes(const conv2d_geometry& geo, const T* x, std::int64_t n0,
                                          std::int64_t count, std::int64_t group) {
    const std::int64_t gi = geo.group_in(), size = plane_size(geo), pw = padded_width(geo);
    const std::int64_t tail = geo.dilation_w * (geo.kernel_w - 1);
    T* planes = work_buffer<T>(0, gi * count * size + tail);
    for (std::int64_t c = 0; c < gi; ++c)
        for (std::int64_t i = 0; i < count; ++i)
            write_padded_plane(
                geo, x + (n0 + i) * geo.image_size() + (group * gi + c) * geo.height * geo.width,
                planes + (c * count + i) * size);
    write_run<T>(nullptr, tail, planes + gi * count * size);
    auto* offsets = work_buffer<std::int64_t>(5, geo.patch());
    for (std::int64_t c = 0, r = 0; c < gi; ++c)
        for (std::int64_t ki = 0; ki < geo.kernel_h; ++ki)
            for (std::int64_t kj = 0; kj < geo.kernel_w; ++kj, ++r)
                offsets[r] = c * count * size + ki * geo.dilation_h * pw + kj * geo.dilation_w;
    return {planes, offsets};
}

/// The rows [o0, o0 + rows) of channel-major g (NCHW) for images [n0, n0 + count), laid side by
/// side as a [rows, count * positions] matrix.
template <class T>
void gather_channels(const conv2d_geometry& geo, const T* g, std::int64_t n0, std::int64_t count,
                     std::int64_t o0, std::int64_t rows, T* out) {
    const std::int64_t p = geo.positions();
    for (std::int64_t o = 0; o < rows; ++o)
        for (std::int64_t i = 0; i < count; ++i) {
            const T* src = g + ((n0 + i) * geo.out_channels + o0 + o) * p;
            std::copy(src, src + p, out + (o * count + i) * p);
        }
}

} // namespace conv_detail

/// The forward's epilogue when the caller has none.
struct no_run_epilogue {
    void operator()(std::int64_t, std::int64_t, std::int64_t, std::int64_t) const noexcept {}
};

namespace conv_detail {
/// A forward's epilogue behind a reference (empty: none).
using run_epilogue_ref = function_ref<void(std::int64_t, std::int64_t, std::int64_t, std::int64_t)>;

/// conv2d_forward() with its epilogue behind a reference: compiled once per element type (and, in
/// compiled mode, once for every program: kernels/config.hpp), whichever graph fuses what into
/// its epilogue. The epilogue is called once per finished plane, on a plane's worth of work.
template <class T, unsigned Build = kernel_build>
void conv2d_forward_any(const conv2d_geometry& geo, const T* x, const T* w, const T* bias, T* y,
                        run_epilogue_ref epilogue) {
    const std::int64_t p = geo.positions(), patch = geo.patch(), og = geo.group_out();
    if (geo.batch == 0 || geo.out_channels == 0 || p == 0)
        return;
    const batch_split split = split_batch<T>(geo);
    const bool implicit = patch > 0 && implicit_gemm(geo, split);
    parallel_tasks(split.tasks, split.threads, [&](int task) {
        const std::int64_t n0 = split.first(task), count = split.count(task, geo.batch);
        // The caller's epilogue takes the task's planes once they are all written: a task's
        // images fit in L2, and whole planes are long runs (handing it each finished block's
        // rows, 28 wide for LeNet's first layer, cost its training step 10 %).
        const auto hand_over = [&] {
            if (epilogue)
                for (std::int64_t image = n0; image < n0 + count; ++image)
                    for (std::int64_t channel = 0; channel < geo.out_channels; ++channel)
                        epilogue(image, channel, 0, p);
        };
        // The finished block [i0, i1) x [j0, j1) of a product goes to NCHW with the bias while
        // it is in cache.
        const auto to_output = [&](const T* product, const product_layout& layout,
                                   std::int64_t first_image, std::int64_t o0) {
            return [&, product, layout, first_image, o0](std::int64_t i0, std::int64_t i1,
                                                         std::int64_t j0, std::int64_t j1) {
                for (std::int64_t o = i0; o < i1; ++o)
                    layout.for_each_run(
                        j0, j1,
                        [&](std::int64_t j, std::int64_t end, std::int64_t image, std::int64_t q) {
                            const T b = bias != nullptr ? bias[o0 + o] : T(0);
                            const T* src = product + o * layout.cols + j;
                            T* dst =
                                y + ((first_image + image) * geo.out_channels + o0 + o) * p + q;
                            for (std::int64_t k = 0; k < end - j; ++k)
                                dst[k] = static_cast<T>(src[k] + b);
                        });
            };
        };
        if (implicit) {
            // One product per image: [og, out_h x pw], the columns past out_w in each row dropped.
            const product_layout layout{geo.out_h * padded_width(geo), geo.out_w, padded_width(geo),
                                        geo.out_h};
            T* product = work_buffer<T>(1, og * layout.cols);
            for (std::int64_t group = 0; group < geo.groups; ++group) {
                const std::int64_t o0 = group * og;
                const auto planes = padded_planes(geo, x, n0, count, group);
                for (std::int64_t i = 0; i < count; ++i) {
                    auto to_nchw = to_output(product, layout, n0 + i, o0);
                    gemm_detail::gemm_serial<T>(og, layout.cols, patch, w + o0 * patch, patch, 1,
                                                planes.shifted(0, i * plane_size(geo)), product,
                                                layout.cols, 0, 0, to_nchw);
                }
            }
            hand_over();
            return;
        }
        // One product per task: [og, count x positions].
        const product_layout layout{count * p, p, p, 1};
        T* col = work_buffer<T>(0, patch * layout.cols);
        T* product = work_buffer<T>(1, og * layout.cols);
        for (std::int64_t group = 0; group < geo.groups; ++group) {
            im2col(geo, x, n0, count, group, col);
            const std::int64_t o0 = group * og;
            auto to_nchw = to_output(product, layout, n0, o0);
            if (patch == 0) {
                std::fill(product, product + og * layout.cols, T(0));
                to_nchw(0, og, 0, layout.cols);
            } else {
                gemm<T>(og, layout.cols, patch, w + o0 * patch, patch, 1, col, layout.cols, 1,
                        product, layout.cols, to_nchw);
            }
        }
        hand_over();
    });
}
} // namespace conv_detail

/// y = conv2d(x, w) + bias (bias null: none). x, w and y are contiguous; y [batch,
/// out_channels, out_h, out_w] is overwritten. Each run y[image, channel, q0:q1] (positions
/// flattened over out_h x out_w; today whole planes, q0 = 0, q1 = out_h x out_w) is handed to
/// epilogue(image, channel, q0, q1) once the task that computes its image has written it, on
/// that thread, while it is in cache; the runs cover y once.
template <class T, class RunEpilogue = no_run_epilogue>
void conv2d_forward(const conv2d_geometry& geo, const T* x, const T* w, const T* bias, T* y,
                    const RunEpilogue& epilogue = {}) {
    if constexpr (std::is_same_v<RunEpilogue, no_run_epilogue>)
        conv_detail::conv2d_forward_any<T>(geo, x, w, bias, y, {});
    else
        conv_detail::conv2d_forward_any<T>(geo, x, w, bias, y, epilogue);
}

/// dx = the gradient of conv2d(x, w) with respect to x, given g (the gradient of its result,
/// [batch, out_channels, out_h, out_w]); dx (x's sizes, contiguous) is overwritten.
template <class T, unsigned Build = kernel_build>
void conv2d_input_grad(const conv2d_geometry& geo, const T* g, const T* w, T* dx) {
    using namespace conv_detail;
    const std::int64_t p = geo.positions(), patch = geo.patch(), og = geo.group_out();
    if (geo.batch == 0 || p == 0 || patch == 0) {
        std::fill(dx, dx + geo.batch * geo.image_size(), T(0));
        return;
    }
    const batch_split split = split_batch<T>(geo);
    parallel_tasks(split.tasks, split.threads, [&](int task) {
        const std::int64_t n0 = split.first(task), count = split.count(task, geo.batch);
        const std::int64_t cols = count * p;
        T* dcol = work_buffer<T>(0, patch * cols);
        T* gathered = work_buffer<T>(1, og * cols);
        for (std::int64_t group = 0; group < geo.groups; ++group) {
            const std::int64_t o0 = group * og;
            if (og == 0)
                std::fill(dcol, dcol + patch * cols, T(0));
            else {
                gather_channels(geo, g, n0, count, o0, og, gathered);
                // dcol [patch, cols] = W_group^T [patch, og] . g [og, cols]
                gemm<T>(patch, cols, og, w + o0 * patch, 1, patch, gathered, cols, 1, dcol, cols);
            }
            col2im(geo, dcol, n0, count, group, dx);
        }
    });
}

/// dw = the gradient of conv2d(x, w) with respect to w, given g; dw ([out_channels, in_channels /
/// groups, kernel_h, kernel_w], contiguous) is overwritten.
template <class T, unsigned Build = kernel_build>
void conv2d_weight_grad(const conv2d_geometry& geo, const T* g, const T* x, T* dw) {
    using namespace conv_detail;
    const std::int64_t p = geo.positions(), patch = geo.patch(), og = geo.group_out();
    if (geo.batch == 0 || p == 0 || patch == 0 || og == 0) {
        std::fill(dw, dw + geo.out_channels * patch, T(0));
        return;
    }
    const batch_split split = split_batch<T>(geo);
    // Partial sum s covers tasks [tasks * s / slots, tasks * (s + 1) / slots); with one, it is dw.
    const int slots = std::min(split.tasks, weight_partials);
    const std::int64_t size = geo.out_channels * patch;
    T* partials = slots == 1 ? dw : work_buffer<T>(3, slots * size);
    parallel_tasks(slots, split.threads, [&](int slot) {
        T* partial = partials + slot * size;
        const int t0 = split.tasks * slot / slots, t1 = split.tasks * (slot + 1) / slots;
        for (int task = t0; task < t1; ++task) {
            const std::int64_t n0 = split.first(task), count = split.count(task, geo.batch);
            const std::int64_t cols = count * p;
            T* col = work_buffer<T>(0, patch * cols);
            T* gathered = work_buffer<T>(1, og * cols);
            T* product = task == t0 ? nullptr : work_buffer<T>(2, og * patch);
            for (std::int64_t group = 0; group < geo.groups; ++group) {
                const std::int64_t o0 = group * og;
                im2col(geo, x, n0, count, group, col);
                gather_channels(geo, g, n0, count, o0, og, gathered);
                // dW_group [og, patch] (+)= g [og, cols] . col^T [cols, patch]. (Not an implicit
                // GEMM: its g would be spread over the padded planes' positions, and the dropped
                // ones cost more than im2col saves: LeNet's first layer, 320 -> 370 us a batch.)
                T* target = task == t0 ? partial + o0 * patch : product;
                gemm<T>(og, patch, cols, gathered, cols, 1, col, 1, cols, target, patch);
                if (task != t0)
                    for (std::int64_t k = 0; k < og * patch; ++k)
                        partial[o0 * patch + k] += product[k];
            }
        }
    });
    if (slots > 1) {
        std::copy(partials, partials + size, dw);
        for (int slot = 1; slot < slots; ++slot)
            for (std::int64_t k = 0; k < size; ++k)
                dw[k] += partials[slot * size + k];
    }
}

#define STATICPY_CONV_INSTANCES(T)                                                                 \
    STATICPY_KERNEL_INSTANCE(template void conv_detail::conv2d_forward_any<T, kernel_build>(       \
        const conv2d_geometry&, const T*, const T*, const T*, T*, conv_detail::run_epilogue_ref))  \
    STATICPY_KERNEL_INSTANCE(template void conv2d_input_grad<T, kernel_build>(                     \
        const conv2d_geometry&, const T*, const T*, T*))                                           \
    STATICPY_KERNEL_INSTANCE(template void conv2d_weight_grad<T, kernel_build>(                    \
        const conv2d_geometry&, const T*, const T*, T*))
STATICPY_CONV_INSTANCES(float)
STATICPY_CONV_INSTANCES(double)
#undef STATICPY_CONV_INSTANCES

} // namespace staticpy::kernels
