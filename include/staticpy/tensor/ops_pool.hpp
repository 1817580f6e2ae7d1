#pragma once
// 2-D pooling as torch.nn.functional's, PyTorch 1.13's semantics and error texts, on an input
// [N, C, H, W] or an unbatched [C, H, W]:
//
//   auto y = max_pool2d(x, 2_c);                          // kernel 2, stride 2: [N, C, H/2, W/2]
//   auto y = max_pool2d(x, 3_c, 2_c, 1_c);                // kernel 3, stride 2, padding 1
//   auto y = max_pool2d(x, 3_c, 1_c, 2_c, 2_c, True);     // dilation 2, ceil_mode
//   auto y = avg_pool2d(x, 2_c, None, 1_c, False, false); // count_include_pad=False
//   auto y = avg_pool2d(x, 3_c, 1_c, 0_c, False, true, 4);// divisor_override=4
//   auto y = adaptive_avg_pool2d(x, std::tuple{5_c, 7_c});
//
// The arguments come in PyTorch's order:
//   max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)
//   avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
//              count_include_pad=True, divisor_override=None)
//   adaptive_avg_pool2d(input, output_size)
// kernel_size, stride, padding, dilation and output_size are one number for both dims or a
// std::tuple (std::pair) of two, each a compile-time int (2_c) or a run-time one; stride None is
// the kernel size, an output_size element None the input's size; ceil_mode is True/False or a
// bool. When the input's H and W and the window's numbers (ceil_mode too) are compile-time, so are
// the output's H and W: max_pool2d(x, 2_c) of x [N, 6, 28, 28] is [N, 6, 14, 14] as a type (N may
// stay a run-time size). A compile-time output size below 1, and any other error the types
// show, is a compile error with PyTorch's text ("staticpy: RuntimeError: ... Output size is too
// small"); with run-time sizes the same checks throw PyTorch's RuntimeError, in its order ("pad
// should be at most half of kernel size, but got pad=2 and kernel_size=3", "Given input size:
// (1x2x2). Calculated output size: (1x0x0). Output size is too small").
//
// Output sizes are PyTorch's: floor((n + 2 pad - dilation (k - 1) - 1) / stride) + 1, or with
// ceil_mode rounded up, less one when that last window would start at or past n + pad (it must
// start inside the input or its left padding). max_pool2d keeps the first of equal values and
// propagates NaN (its gradient goes to the last NaN); avg_pool2d divides by divisor_override, or
// the window's size within the padded input (count_include_pad) or within the input;
// adaptive_avg_pool2d's windows are [floor(i H / OH), ceil((i + 1) H / OH)), and a 1 x 1 output
// is the mean over H and W (PyTorch's special case: NaN for an empty plane). max_pool2d and
// adaptive_avg_pool2d take floating-point inputs, avg_pool2d int64 too (an integer division), as
// PyTorch's CPU kernels.
//
// Each is an op object (op_objects.hpp): eager on tensors, a graph node when traced, recorded on
// the autodiff tape. Its derivative is an op object too (max_pool2d_backward: the gradient added
// at each window's argmax, recomputed from the input; avg_pool2d_backward and
// adaptive_avg_pool2d_backward: spread over each window), and so are theirs (the backward ops are
// linear in the gradient: avg's derivative is avg_pool2d again, max's picks the values at each
// window's argmax), so grad(grad(f)) works through pooling. The loops are kernels/pool.hpp's; on a
// GPU's tensors, the CUDA backend's (tensor/conv_pool_device.hpp), with the same rules, in eager
// and graph mode alike.
// return_indices=True (max_pool2d's indices) is not provided.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/pool.hpp"
#include "staticpy/tensor/conv_pool_device.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/op_objects.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace raise {
/// A pooling whose compile-time output size is below 1: the input's InH x InW gives
/// OutH x OutW (PyTorch's "Given input size: (Cx2x2). Calculated output size: (Cx0x0). Output size
/// is too small").
template <std::int64_t InH, std::int64_t InW, std::int64_t OutH, std::int64_t OutW>
inline constexpr bool pool2d_output_size = false;
} // namespace raise

namespace detail {

// ---- arguments --------------------------------------------------------------------------------

/// Whether A is a pooling size number: an int, run-time or compile-time (not a bool).
template <class A>
inline constexpr bool is_pool_number_v = is_int_constant_v<A> ||
                                         (std::is_integral_v<A> && !std::is_same_v<A, bool>);

/// One element of a pooling size: its extent type (int_<N>, std::int64_t, or none_t: None) and
/// its value (-1 for None).
template <class A>
struct pool_element {
    static_assert(is_pool_number_v<A> || std::is_same_v<A, none_t>,
                  "staticpy: TypeError: a pooling size is an int (2_c or a run-time int) or a "
                  "std::tuple of two");
    using type = std::conditional_t<std::is_same_v<A, none_t>, none_t, extent_of_t<A>>;
    static constexpr std::int64_t value(const A& a) {
        if constexpr (std::is_same_v<A, none_t>)
            return -1;
        else
            return extent_value(a);
    }
};

/// A kernel_size, stride, padding, dilation or output_size argument as its (height, width)
/// elements: one number stands for both, a std::tuple or std::pair of two for each.
template <class A>
struct pool_pair {
    using h = typename pool_element<A>::type;
    using w = h;
    static constexpr std::array<std::int64_t, 2> values(const A& a) {
        return {pool_element<A>::value(a), pool_element<A>::value(a)};
    }
};
template <template <class...> class P, class A, class B>
requires(std::is_same_v<P<A, B>, std::tuple<A, B>> ||
         std::is_same_v<P<A, B>, std::pair<A, B>>) struct pool_pair<P<A, B>> {
    using h = typename pool_element<A>::type;
    using w = typename pool_element<B>::type;
    static constexpr std::array<std::int64_t, 2> values(const P<A, B>& a) {
        return {pool_element<A>::value(std::get<0>(a)), pool_element<B>::value(std::get<1>(a))};
    }
};

/// Whether an element type is known at compile time, and its value then.
template <class E>
inline constexpr bool pool_known_v = is_int_constant_v<E>;
template <class E>
constexpr std::int64_t pool_known_value() {
    if constexpr (pool_known_v<E>)
        return static_cast<std::int64_t>(E::value);
    else
        return 0;
}

/// ceil_mode as a compile-time bool (True, False) or a run-time one.
template <class C>
inline constexpr bool ceil_known_v = is_bool_constant_v<C>;

/// PyTorch's pooling_output_shape along one dim (pad checked by the caller): floor division, and
/// with ceil_mode the last window starting inside the input or its left padding.
constexpr std::int64_t pooled_size(std::int64_t in, std::int64_t kernel, std::int64_t pad,
                                   std::int64_t stride, std::int64_t dilation, bool ceil_mode) {
    if (stride == 0)
        return 0;
    const std::int64_t numerator =
        in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
    std::int64_t quotient = numerator / stride;
    if ((numerator % stride != 0) && ((numerator < 0) != (stride < 0)))
        --quotient; // round towards -infinity (div_rtn)
    std::int64_t out = quotient + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad)
        --out;
    return out;
}

/// The output extent along one dim: int_<N> when every number is compile-time (N at least 0:
/// below 1 is a compile error elsewhere), else a run-time size.
template <class In, class K, class P, class S, class D, class C>
struct pooled_extent {
    using type = std::int64_t;
};
template <class In, class K, class P, class S, class D, class C>
requires(pool_known_v<In>&& pool_known_v<K>&& pool_known_v<P>&& pool_known_v<S>&& pool_known_v<D>&&
             ceil_known_v<C>) struct pooled_extent<In, K, P, S, D, C> {
    static constexpr std::int64_t size =
        pooled_size(pool_known_value<In>(), pool_known_value<K>(), pool_known_value<P>(),
                    pool_known_value<S>(), pool_known_value<D>(), C::value);
    using type = int_<(size > 0 ? size : 0)>;
};

/// Shape S ([N, C, H, W] or [C, H, W]) with H and W replaced by OH and OW.
template <class S, class OH, class OW>
using pooled_shape_t = shape_replace_t<shape_replace_t<S, S::rank - 2, OH>, S::rank - 1, OW>;

/// The static checks of a max or avg pooling (window types KH ... DW, input shape S, output
/// extents OH, OW), in PyTorch's order: what the types show, as compile errors.
template <class S, class KH, class KW, class SH, class SW, class PH, class PW, class DH, class DW,
          class OH, class OW>
constexpr void check_pool2d_static() {
    // (pool_known_value is 0 for a run-time number, which none of the conditions holds for.)
    static_assert(S::rank == 3 || S::rank == 4,
                  "staticpy: RuntimeError: non-empty 3D or 4D (batch mode) tensor expected for "
                  "input");
    if constexpr (S::rank == 3 || S::rank == 4) {
        constexpr std::int64_t kh = pool_known_value<KH>(), kw = pool_known_value<KW>();
        constexpr std::int64_t sh = pool_known_value<SH>(), sw = pool_known_value<SW>();
        constexpr std::int64_t ph = pool_known_value<PH>(), pw = pool_known_value<PW>();
        constexpr std::int64_t dh = pool_known_value<DH>(), dw = pool_known_value<DW>();
        static_assert(!(pool_known_v<SH> && sh == 0) && !(pool_known_v<SW> && sw == 0),
                      "staticpy: RuntimeError: stride should not be zero");
        static_assert(ph >= 0 && pw >= 0, "staticpy: RuntimeError: pad must be non-negative");
        static_assert(!(pool_known_v<KH> && ph > kh / 2) && !(pool_known_v<KW> && pw > kw / 2),
                      "staticpy: RuntimeError: pad should be at most half of kernel size");
        static_assert(!(pool_known_v<KH> && kh <= 0) && !(pool_known_v<KW> && kw <= 0),
                      "staticpy: RuntimeError: kernel size should be greater than zero");
        static_assert(sh >= 0 && sw >= 0,
                      "staticpy: RuntimeError: stride should be greater than zero");
        static_assert(!(pool_known_v<DH> && dh <= 0) && !(pool_known_v<DW> && dw <= 0),
                      "staticpy: RuntimeError: dilation should be greater than zero");
        constexpr std::size_t b = S::rank - 3;
        constexpr bool empty = S::static_extents[b] == 0 || S::static_extents[b + 1] == 0 ||
                               S::static_extents[b + 2] == 0;
        static_assert(!empty, "staticpy: RuntimeError: Expected 3D or 4D (batch mode) tensor "
                              "with optional 0 dim batch size for input (C, H and W are not 0)");
        if constexpr (!empty && (is_int_constant_v<OH> || is_int_constant_v<OW>)) {
            constexpr std::int64_t oh = is_int_constant_v<OH> ? pool_known_value<OH>() : 1;
            constexpr std::int64_t ow = is_int_constant_v<OW> ? pool_known_value<OW>() : 1;
            if constexpr (oh < 1 || ow < 1)
                static_assert(raise::pool2d_output_size<S::static_extents[b + 1],
                                                        S::static_extents[b + 2], oh, ow>,
                              "staticpy: RuntimeError: Given input size and window: Calculated "
                              "output size is below 1 (the sizes are in the failing "
                              "requirement). Output size is too small");
        }
    }
}

// ---- the ops' arguments -------------------------------------------------------------------------

/// "[2, 3]".
inline std::string pair_text(const std::array<std::int64_t, 2>& v) {
    return "[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]";
}

/// A max or avg pooling's window (avg_pool2d's dilation is 1): an argument of the ops, compared
/// when a graph merges nodes.
struct pool2d_window {
    std::array<std::int64_t, 2> kernel_size{};
    std::array<std::int64_t, 2> stride{};
    std::array<std::int64_t, 2> padding{};
    std::array<std::int64_t, 2> dilation{1, 1};
    bool ceil_mode = false;

    friend bool operator==(const pool2d_window&, const pool2d_window&) = default;

    /// The output's H or W (dim 0 or 1) for an input's, and its PyTorch's checks
    /// (pooling_output_shape).
    [[nodiscard]] std::int64_t output_size(std::size_t dim, std::int64_t in) const {
        const std::int64_t k = kernel_size[dim], s = stride[dim], p = padding[dim];
        if (s == 0)
            throw RuntimeError("stride should not be zero");
        if (p < 0)
            throw RuntimeError("pad must be non-negative, but got pad: " + std::to_string(p));
        if (p > k / 2)
            throw RuntimeError("pad should be at most half of kernel size, but got pad=" +
                               std::to_string(p) + " and kernel_size=" + std::to_string(k));
        return pooled_size(in, k, p, s, dilation[dim], ceil_mode);
    }

    /// The loops' geometry for an input of these sizes ([N, C, H, W] or [C, H, W]), checked in
    /// PyTorch's order (max_pool2d_with_indices' and avg_pool2d's checks, pool2d_shape_check).
    template <std::size_t R>
    [[nodiscard]] kernels::pool2d_geometry
    geometry(const std::array<std::int64_t, R>& sizes) const {
        constexpr std::size_t b = R - 3;
        kernels::pool2d_geometry g;
        g.planes = R == 4 ? sizes[0] * sizes[1] : sizes[0];
        g.in_h = sizes[b + 1];
        g.in_w = sizes[b + 2];
        g.out_h = output_size(0, g.in_h);
        g.out_w = output_size(1, g.in_w);
        g.kernel_h = kernel_size[0];
        g.kernel_w = kernel_size[1];
        g.stride_h = stride[0];
        g.stride_w = stride[1];
        g.pad_h = padding[0];
        g.pad_w = padding[1];
        g.dilation_h = dilation[0];
        g.dilation_w = dilation[1];
        if (g.kernel_h <= 0 || g.kernel_w <= 0)
            throw RuntimeError("kernel size should be greater than zero, but got kH: " +
                               std::to_string(g.kernel_h) + " kW: " + std::to_string(g.kernel_w));
        if (g.stride_h <= 0 || g.stride_w <= 0)
            throw RuntimeError("stride should be greater than zero, but got dH: " +
                               std::to_string(g.stride_h) + " dW: " + std::to_string(g.stride_w));
        if (g.dilation_h <= 0 || g.dilation_w <= 0)
            throw RuntimeError("dilation should be greater than zero, but got dilationH: " +
                               std::to_string(g.dilation_h) +
                               " dilationW: " + std::to_string(g.dilation_w));
        if (sizes[b] == 0 || g.in_h == 0 || g.in_w == 0)
            throw RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                               "size for input, but got:" +
                               sizes_text(sizes));
        if (g.out_h < 1 || g.out_w < 1) {
            const std::string planes = std::to_string(sizes[b]);
            throw RuntimeError("Given input size: (" + planes + "x" + std::to_string(g.in_h) + "x" +
                               std::to_string(g.in_w) + "). Calculated output size: (" + planes +
                               "x" + std::to_string(g.out_h) + "x" + std::to_string(g.out_w) +
                               "). Output size is too small");
        }
        return g;
    }

    void window_repr_into(std::string& out, bool dilated) const {
        out += "kernel_size=" + pair_text(kernel_size) + ", stride=" + pair_text(stride) +
               ", padding=" + pair_text(padding);
        if (dilated)
            out += ", dilation=" + pair_text(dilation);
        out += ceil_mode ? ", ceil_mode=True" : ", ceil_mode=False";
    }
};

/// max_pool2d's arguments; as the IR dump shows them: "kernel_size=[2, 2], stride=[2, 2],
/// padding=[0, 0], dilation=[1, 1], ceil_mode=False".
struct max_pool2d_args : pool2d_window {
    friend bool operator==(const max_pool2d_args&, const max_pool2d_args&) = default;
    void repr_into(std::string& out) const { window_repr_into(out, true); }
};

/// avg_pool2d's arguments: the window, count_include_pad and divisor_override (0: None).
struct avg_pool2d_args : pool2d_window {
    kernels::avg_pool2d_divisor divisor{};

    friend bool operator==(const avg_pool2d_args& a, const avg_pool2d_args& b) {
        return static_cast<const pool2d_window&>(a) == static_cast<const pool2d_window&>(b) &&
               a.divisor.count_include_pad == b.divisor.count_include_pad &&
               a.divisor.divisor_override == b.divisor.divisor_override;
    }
    void repr_into(std::string& out) const {
        window_repr_into(out, false);
        out += divisor.count_include_pad ? ", count_include_pad=True" : ", count_include_pad=False";
        out += ", divisor_override=" + (divisor.divisor_override == 0
                                            ? std::string("None")
                                            : std::to_string(divisor.divisor_override));
    }
};

/// adaptive_avg_pool2d's output_size; an element None is the input's size.
struct adaptive_pool2d_args {
    static constexpr std::int64_t none = std::numeric_limits<std::int64_t>::min();
    std::array<std::int64_t, 2> output_size{};

    friend bool operator==(const adaptive_pool2d_args&, const adaptive_pool2d_args&) = default;
    void repr_into(std::string& out) const {
        auto text = [](std::int64_t v) {
            return v == none ? std::string("None") : std::to_string(v);
        };
        out += "output_size=[" + text(output_size[0]) + ", " + text(output_size[1]) + "]";
    }

    /// The geometry for an input of these sizes ([N, C, H, W] or [C, H, W]), checked as PyTorch
    /// checks it (adaptive_avg_pool2d, then its CPU kernel's checks).
    template <std::size_t R>
    [[nodiscard]] kernels::pool2d_geometry
    geometry(const std::array<std::int64_t, R>& sizes) const {
        constexpr std::size_t b = R - 3;
        kernels::pool2d_geometry g;
        g.planes = R == 4 ? sizes[0] * sizes[1] : sizes[0];
        g.in_h = sizes[b + 1];
        g.in_w = sizes[b + 2];
        g.out_h = output_size[0] == none ? g.in_h : output_size[0];
        g.out_w = output_size[1] == none ? g.in_w : output_size[1];
        if (g.out_h < 0 || g.out_w < 0)
            throw RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                               "or equal to 0 but received {" +
                               std::to_string(g.out_h) + ", " + std::to_string(g.out_w) + "}");
        // A 1 x 1 output is PyTorch's mean over H and W, which accepts an empty plane.
        if (!(g.out_h == 1 && g.out_w == 1)) {
            for (std::size_t d = R - 2; d < R; ++d)
                if (sizes[d] <= 0)
                    throw RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero "
                                       "size for non-batch dimensions, but input has sizes " +
                                       sizes_text(sizes) + " with dimension " + std::to_string(d) +
                                       " being empty");
        }
        return g;
    }
};

/// The sizes of a pooled output: the input's with H and W replaced.
template <class S>
typename S::sizes_type pooled_sizes(const typename S::sizes_type& in, std::int64_t oh,
                                    std::int64_t ow) {
    typename S::sizes_type sizes = in;
    sizes[S::rank - 2] = oh;
    sizes[S::rank - 1] = ow;
    return sizes;
}

/// A pooling kernel's result over x's planes (x's sizes xs, shape type S) with OH x OW each, on
/// `device`: the geometry from the op's window, then fill(geometry, the result) on the CPU, or
/// on_device(geometry, the result) on a GPU.
template <class T, class OH, class OW, class S, class Window, class Fill, class OnDevice>
Tensor<T, pooled_shape_t<S, OH, OW>> pooled(const Window& window, const S& xs, const Device& device,
                                            Fill&& fill, OnDevice&& on_device) {
    using result = pooled_shape_t<S, OH, OW>;
    const auto geo = window.geometry(xs.sizes());
    Tensor<T, result> y{result(pooled_sizes<S>(xs.sizes(), geo.out_h, geo.out_w)), device};
    if (device.is_cuda())
        on_device(geo, y);
    else
        fill(geo, y.data());
    return y;
}

/// A pooling op's gradient for its input, of the shape of `like` (the input or its shape), on
/// `device`: as pooled.
template <class T, class L, class Window, class Fill, class OnDevice>
Tensor<T, like_shape_t<L>> unpooled(const Window& window, const L& like, const Device& device,
                                    Fill&& fill, OnDevice&& on_device) {
    const auto& xs = shape_of_like(like);
    Tensor<T, like_shape_t<L>> dx{xs, device};
    const auto geo = window.geometry(xs.sizes());
    if (device.is_cuda())
        on_device(geo, dx);
    else
        fill(geo, dx.data());
    return dx;
}

/// A pooling kernel on the GPU (conv_pool_device.hpp): call's kind and result with geometry geo,
/// the tensors flat (b undefined where the kernel has no second operand); out is contiguous (a
/// new result), so its flat view is itself.
template <class T, class SO, class... Operands>
void pool_on_device(pool_device_call call, const kernels::pool2d_geometry& geo,
                    const Tensor<T, SO>& out, const Operands&... operands) {
    call.geometry = geo;
    Tensor<T, dynamic_shape<1>> flat[2];
    std::size_t i = 0;
    ((flat[i++] = flat_elements(operands)), ...);
    pool2d_on_cuda(conv_pool_device_tag{}, call, flat[0], flat[1], flat_elements(out));
}

/// The static checks of the element type: PyTorch's CPU kernels' dtypes.
template <class T, bool IntegersToo>
constexpr void check_pool_dtype() {
    if constexpr (IntegersToo)
        static_assert(std::is_floating_point_v<T> || std::is_same_v<T, std::int64_t>,
                      "staticpy: RuntimeError: \"avg_pool2d\" not implemented for this dtype "
                      "(float, double and int64 only; PyTorch: not implemented for 'Int')");
    else
        static_assert(std::is_floating_point_v<T>,
                      "staticpy: RuntimeError: pooling is implemented for floating-point tensors "
                      "only (PyTorch: \"max_pool2d\" not implemented for 'Long')");
}

// ---- the op objects -----------------------------------------------------------------------------

template <class Forward>
struct max_pool2d_backward_op;
template <class Forward>
struct max_pool2d_at_argmax_op;

/// max_pool2d(x) with its window; OH and OW are the output's H and W extents (int_<N> or
/// std::int64_t).
template <class OH, class OW, class Args = std::tuple<max_pool2d_args>>
struct max_pool2d_op {
    static constexpr const char* name = "max_pool2d";
    /// Its eager form runs on GPU tensors too, so a device graph runs it as it is (and so do
    /// the derivatives' below).
    static constexpr bool eager_on_cuda = true;
    using out_h = OH;
    using out_w = OW;
    [[no_unique_address]] Args args;

    template <class T, class S>
    auto operator()(const Tensor<T, S>& x) const {
        check_pool_dtype<T, false>();
        const auto xc = x.contiguous();
        return pooled<T, OH, OW>(
            fixed_value(std::get<0>(args)), x.shape(), x.device(),
            [&](const auto& geo, T* y) { kernels::max_pool2d_forward(xc.data(), y, geo); },
            [&](const auto& geo, const auto& y) {
                pool_on_device({pool_device_call::pool::max, pool_device_call::result::output}, geo,
                               y, xc);
            });
    }

    template <std::size_t I, class G, class Y, class X>
    auto vjp(const G& g, const Y&, const X& x) const {
        return apply_op(max_pool2d_backward_op<max_pool2d_op>{args}, g, x);
    }
};

/// max_pool2d's gradient: operands g (the result's gradient) and x; g added at each of x's
/// windows' argmax. Linear in g, whose derivative picks gg at the argmaxes
/// (max_pool2d_at_argmax); none for x (zero almost everywhere, as PyTorch's).
template <class Forward>
struct max_pool2d_backward_op {
    static constexpr const char* name = "max_pool2d_backward";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] decltype(Forward::args) args;

    template <class T, class SG, class SX>
    Tensor<T, SX> operator()(const Tensor<T, SG>& g, const Tensor<T, SX>& x) const {
        const auto gc = g.contiguous();
        const auto xc = x.contiguous();
        return unpooled<T>(
            fixed_value(std::get<0>(args)), x, check_same_device(g, x),
            [&](const auto& geo, T* dx) {
                kernels::max_pool2d_backward(gc.data(), xc.data(), dx, geo);
            },
            [&](const auto& geo, const auto& dx) {
                pool_on_device(
                    {pool_device_call::pool::max, pool_device_call::result::input_gradient}, geo,
                    dx, gc, xc);
            });
    }

    template <std::size_t I, class GG, class Y, class G, class X>
    auto vjp(const GG& gg, const Y&, const G&, const X& x) const {
        if constexpr (I == 0)
            return apply_op(max_pool2d_at_argmax_op<Forward>{args}, gg, x);
        else
            return fn::no_grad{};
    }
};

/// The values of v (x's shape) at the argmax of each of x's windows, a result of max_pool2d(x)'s
/// shape: max_pool2d_backward's derivative (PyTorch's max_pool_double_backward). Its own is
/// max_pool2d_backward for v, none for x.
template <class Forward>
struct max_pool2d_at_argmax_op {
    static constexpr const char* name = "max_pool2d_at_argmax";
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] decltype(Forward::args) args;

    template <class T, class SV, class SX>
    auto operator()(const Tensor<T, SV>& v, const Tensor<T, SX>& x) const {
        const auto vc = v.contiguous();
        const auto xc = x.contiguous();
        return pooled<T, typename Forward::out_h, typename Forward::out_w>(
            fixed_value(std::get<0>(args)), x.shape(), check_same_device(v, x),
            [&](const auto& geo, T* y) {
                kernels::max_pool2d_at_argmax(vc.data(), xc.data(), y, geo);
            },
            [&](const auto& geo, const auto& y) {
                pool_on_device({pool_device_call::pool::max, pool_device_call::result::at_argmax},
                               geo, y, vc, xc);
            });
    }

    template <std::size_t I, class G, class Y, class V, class X>
    auto vjp(const G& g, const Y&, const V&, const X& x) const {
        if constexpr (I == 0)
            return apply_op(max_pool2d_backward_op<Forward>{args}, g, x);
        else
            return fn::no_grad{};
    }
};

/// The pools linear in their input, avg_pool2d and adaptive_avg_pool2d: one op pair serves
/// both, each pool a kind that names its ops and calls its kernels.
struct avg_pool2d_kind {
    static constexpr const char* name = "avg_pool2d";
    static constexpr const char* backward_name = "avg_pool2d_backward";
    static constexpr bool integers_too = true; // PyTorch's CPU kernel takes int64
    /// The device kernels' call: the pool and its divisor.
    static pool_device_call device_call(const avg_pool2d_args& a, pool_device_call::result what) {
        pool_device_call call{pool_device_call::pool::avg, what};
        call.divisor = a.divisor;
        return call;
    }
    template <class T, class G>
    static void forward(const avg_pool2d_args& a, const T* x, T* y, const G& geo) {
        kernels::avg_pool2d_forward(x, y, geo, a.divisor);
    }
    template <class T, class G>
    static void backward(const avg_pool2d_args& a, const T* g, T* dx, const G& geo) {
        kernels::avg_pool2d_backward(g, dx, geo, a.divisor);
    }
};
struct adaptive_avg_pool2d_kind {
    static constexpr const char* name = "adaptive_avg_pool2d";
    static constexpr const char* backward_name = "adaptive_avg_pool2d_backward";
    static constexpr bool integers_too = false;
    static pool_device_call device_call(const adaptive_pool2d_args&,
                                        pool_device_call::result what) {
        return {pool_device_call::pool::adaptive_avg, what};
    }
    template <class T, class G>
    static void forward(const adaptive_pool2d_args&, const T* x, T* y, const G& geo) {
        kernels::adaptive_avg_pool2d_forward(x, y, geo);
    }
    template <class T, class G>
    static void backward(const adaptive_pool2d_args&, const T* g, T* dx, const G& geo) {
        kernels::adaptive_avg_pool2d_backward(g, dx, geo);
    }
};

template <class Forward>
struct linear_pool2d_backward_op;

/// A linear pool of x (Kind: avg_pool2d_kind, adaptive_avg_pool2d_kind) with its arguments.
template <class Kind, class OH, class OW, class Args>
struct linear_pool2d_op {
    static constexpr const char* name = Kind::name;
    static constexpr bool eager_on_cuda = true;
    using kind = Kind;
    using out_h = OH;
    using out_w = OW;
    [[no_unique_address]] Args args;

    template <class T, class S>
    auto operator()(const Tensor<T, S>& x) const {
        check_pool_dtype<T, Kind::integers_too>();
        const auto& a = fixed_value(std::get<0>(args));
        const auto xc = x.contiguous();
        return pooled<T, OH, OW>(
            a, x.shape(), x.device(),
            [&](const auto& geo, T* y) { Kind::forward(a, xc.data(), y, geo); },
            [&](const auto& geo, const auto& y) {
                pool_on_device(Kind::device_call(a, pool_device_call::result::output), geo, y, xc);
            });
    }

    template <std::size_t I, class G, class Y, class X>
    auto vjp(const G& g, const Y&, const X& x) const {
        return apply_op(linear_pool2d_backward_op<linear_pool2d_op>{args}, g, x);
    }
};

/// avg_pool2d(x) with its window, count_include_pad and divisor_override.
template <class OH, class OW, class Args = std::tuple<avg_pool2d_args>>
using avg_pool2d_op = linear_pool2d_op<avg_pool2d_kind, OH, OW, Args>;
/// adaptive_avg_pool2d(x) to OH x OW.
template <class OH, class OW, class Args = std::tuple<adaptive_pool2d_args>>
using adaptive_avg_pool2d_op = linear_pool2d_op<adaptive_avg_pool2d_kind, OH, OW, Args>;

/// A linear pool's gradient: operands g and x, of which only the shape is read; g spread over
/// each window as the pool weighs it. Linear in g: its derivative is the pool again.
template <class Forward>
struct linear_pool2d_backward_op {
    static constexpr const char* name = Forward::kind::backward_name;
    static constexpr std::array<bool, 2> reads{true, false};
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] decltype(Forward::args) args;

    template <class T, class SG, class L>
    auto operator()(const Tensor<T, SG>& g, const L& like) const {
        const auto& a = fixed_value(std::get<0>(args));
        const auto gc = g.contiguous();
        return unpooled<T>(
            a, like, check_same_device(g, like),
            [&](const auto& geo, T* dx) { Forward::kind::backward(a, gc.data(), dx, geo); },
            [&](const auto& geo, const auto& dx) {
                pool_on_device(
                    Forward::kind::device_call(a, pool_device_call::result::input_gradient), geo,
                    dx, gc);
            });
    }

    template <std::size_t I, class GG, class Y, class G, class L>
    auto vjp(const GG& gg, const Y&, const G&, const L&) const {
        if constexpr (I == 0)
            return apply_op(Forward{args}, gg);
        else
            return fn::no_grad{};
    }
};

/// What the pooling functions take as input: a tensor, a traced value or a recorded one.
template <class X>
concept pool_operand = requires {
    typename X::value_type;
    typename X::shape_type;
};

/// The window's numbers as run-time values, stride None standing for the kernel size.
template <class K, class St, class P, class D>
constexpr pool2d_window pool_window_of(const K& kernel_size, const St& stride, const P& padding,
                                       const D& dilation, bool ceil_mode) {
    pool2d_window w;
    w.kernel_size = pool_pair<K>::values(kernel_size);
    if constexpr (std::is_same_v<St, none_t>)
        w.stride = w.kernel_size;
    else
        w.stride = pool_pair<St>::values(stride);
    w.padding = pool_pair<P>::values(padding);
    w.dilation = pool_pair<D>::values(dilation);
    w.ceil_mode = ceil_mode;
    return w;
}

/// Whether a pooling size element is known at compile time (int_<N> or None).
template <class E>
inline constexpr bool pool_element_fixed = pool_known_v<E> || std::is_same_v<E, none_t>;
/// Whether a pooling window is known at compile time (then its op is an empty type: fixed).
template <class K, class St, class P, class D, class C>
inline constexpr bool pool_window_fixed = [] {
    using SP = pool_pair<std::conditional_t<std::is_same_v<St, none_t>, K, St>>;
    return pool_known_v<typename pool_pair<K>::h> && pool_known_v<typename pool_pair<K>::w> &&
           pool_known_v<typename SP::h> && pool_known_v<typename SP::w> &&
           pool_known_v<typename pool_pair<P>::h> && pool_known_v<typename pool_pair<P>::w> &&
           pool_known_v<typename pool_pair<D>::h> && pool_known_v<typename pool_pair<D>::w> &&
           ceil_known_v<C>;
}();

/// A max or avg pooling's op for input X: the output extents from the types, the static checks.
template <template <class, class, class> class Op, class Args, class X, class K, class St, class P,
          class D, class C>
auto pool2d_op_type() {
    using S = typename X::shape_type;
    using KP = pool_pair<K>;
    using SP = pool_pair<std::conditional_t<std::is_same_v<St, none_t>, K, St>>;
    using PP = pool_pair<P>;
    using DP = pool_pair<D>;
    static_assert(
        !std::is_same_v<typename KP::h, none_t> && !std::is_same_v<typename KP::w, none_t> &&
            !std::is_same_v<typename SP::h, none_t> && !std::is_same_v<typename SP::w, none_t> &&
            !std::is_same_v<typename PP::h, none_t> && !std::is_same_v<typename PP::w, none_t> &&
            !std::is_same_v<typename DP::h, none_t> && !std::is_same_v<typename DP::w, none_t>,
        "staticpy: TypeError: only stride may be None");
    static_assert(is_bool_constant_v<C> || std::is_same_v<C, bool>,
                  "staticpy: TypeError: ceil_mode is a bool (True, False or a run-time bool)");
    if constexpr (S::rank == 3 || S::rank == 4) {
        using IH = shape_extent_t<S, S::rank - 2>;
        using IW = shape_extent_t<S, S::rank - 1>;
        using OH = typename pooled_extent<IH, typename KP::h, typename PP::h, typename SP::h,
                                          typename DP::h, C>::type;
        using OW = typename pooled_extent<IW, typename KP::w, typename PP::w, typename SP::w,
                                          typename DP::w, C>::type;
        check_pool2d_static<S, typename KP::h, typename KP::w, typename SP::h, typename SP::w,
                            typename PP::h, typename PP::w, typename DP::h, typename DP::w, OH,
                            OW>();
        return Op<OH, OW, Args>{};
    } else {
        check_pool2d_static<S, int_<1>, int_<1>, int_<1>, int_<1>, int_<0>, int_<0>, int_<1>,
                            int_<1>, std::int64_t, std::int64_t>();
        return Op<std::int64_t, std::int64_t, Args>{};
    }
}

/// adaptive_avg_pool2d's output extent along a dim of extent In: None is In.
template <class E, class In>
using adaptive_extent_t = std::conditional_t<std::is_same_v<E, none_t>, In, E>;

} // namespace detail

// ---- the functions ------------------------------------------------------------------------------

/// torch.nn.functional.max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,
/// ceil_mode=False): the max over each window of an input [N, C, H, W] or [C, H, W].
///   auto y = max_pool2d(x, 2_c);               // [N, C, H/2, W/2], static when H and W are
///   auto y = max_pool2d(x, 3_c, 2_c, 1_c);     // kernel 3, stride 2, padding 1
template <detail::pool_operand X, class K, class St = none_t, class P = int_<0>, class D = int_<1>,
          class C = std::false_type>
auto max_pool2d(const X& input, const K& kernel_size, const St& stride = {}, const P& padding = {},
                const D& dilation = {}, const C& ceil_mode = {}) {
    detail::check_pool_dtype<typename X::value_type, false>();
    if constexpr (detail::pool_window_fixed<K, St, P, D, C>) {
        using args = std::tuple<detail::fixed<detail::max_pool2d_args{
            detail::pool_window_of(K{}, St{}, P{}, D{}, C::value)}>>;
        using op_type =
            decltype(detail::pool2d_op_type<detail::max_pool2d_op, args, X, K, St, P, D, C>());
        return detail::apply_op(op_type{}, input);
    } else {
        using args = std::tuple<detail::max_pool2d_args>;
        using op_type =
            decltype(detail::pool2d_op_type<detail::max_pool2d_op, args, X, K, St, P, D, C>());
        const detail::pool2d_window window = detail::pool_window_of(
            kernel_size, stride, padding, dilation, static_cast<bool>(ceil_mode));
        return detail::apply_op(op_type{{detail::max_pool2d_args{window}}}, input);
    }
}

/// torch.nn.functional.avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None): the mean over each window.
///   auto y = avg_pool2d(x, 2_c);                           // [N, C, H/2, W/2]
///   auto y = avg_pool2d(x, 3_c, 1_c, 1_c, False, false);   // padding not counted
template <detail::pool_operand X, class K, class St = none_t, class P = int_<0>,
          class C = std::false_type, class I = std::true_type, class V = none_t>
auto avg_pool2d(const X& input, const K& kernel_size, const St& stride = {}, const P& padding = {},
                const C& ceil_mode = {}, const I& count_include_pad = {},
                const V& divisor_override = {}) {
    static_assert(std::is_same_v<V, none_t> || detail::is_pool_number_v<V>,
                  "staticpy: TypeError: divisor_override is an int or None");
    static_assert(is_bool_constant_v<I> || std::is_same_v<I, bool>,
                  "staticpy: TypeError: count_include_pad is a bool (True, False or a run-time "
                  "bool)");
    if constexpr (is_int_constant_v<V>)
        static_assert(V::value != 0, "staticpy: RuntimeError: divisor must be not zero");
    detail::check_pool_dtype<typename X::value_type, true>();
    constexpr bool fixed = detail::pool_window_fixed<K, St, P, int_<1>, C> &&
                           is_bool_constant_v<I> &&
                           (std::is_same_v<V, none_t> || is_int_constant_v<V>);
    const auto args_of = [](const auto& k, const auto& st, const auto& p, bool ceil, bool include,
                            const V& divisor) {
        detail::avg_pool2d_args a{detail::pool_window_of(k, st, p, int_<1>{}, ceil), {include, 0}};
        if constexpr (!std::is_same_v<V, none_t>)
            a.divisor.divisor_override = detail::extent_value(divisor);
        return a;
    };
    if constexpr (fixed) {
        using args = std::tuple<detail::fixed<args_of(K{}, St{}, P{}, C::value, I::value, V{})>>;
        using op_type = decltype(detail::pool2d_op_type<detail::avg_pool2d_op, args, X, K, St, P,
                                                        int_<1>, C>());
        return detail::apply_op(op_type{}, input);
    } else {
        using args = std::tuple<detail::avg_pool2d_args>;
        using op_type = decltype(detail::pool2d_op_type<detail::avg_pool2d_op, args, X, K, St, P,
                                                        int_<1>, C>());
        const auto a = args_of(kernel_size, stride, padding, static_cast<bool>(ceil_mode),
                               static_cast<bool>(count_include_pad), divisor_override);
        if (a.divisor.divisor_override == 0 && !std::is_same_v<V, none_t>)
            throw RuntimeError("divisor must be not zero");
        return detail::apply_op(op_type{{a}}, input);
    }
}

/// torch.nn.functional.adaptive_avg_pool2d(input, output_size): the mean over OH x OW windows
/// that cover the input ([floor(i H / OH), ceil((i + 1) H / OH)) along H, likewise W).
///   auto y = adaptive_avg_pool2d(x, 1_c);                  // global average pooling
///   auto y = adaptive_avg_pool2d(x, std::tuple{None, 7_c}); // H kept, W to 7
template <detail::pool_operand X, class O>
auto adaptive_avg_pool2d(const X& input, const O& output_size) {
    using S = typename X::shape_type;
    using OP = detail::pool_pair<O>;
    detail::check_pool_dtype<typename X::value_type, false>();
    static_assert(S::rank == 3 || S::rank == 4,
                  "staticpy: RuntimeError: adaptive_avg_pool2d(): Expected 3D or 4D tensor");
    constexpr bool negative =
        (detail::pool_known_v<typename OP::h> && detail::pool_known_value<typename OP::h>() < 0) ||
        (detail::pool_known_v<typename OP::w> && detail::pool_known_value<typename OP::w>() < 0);
    static_assert(!negative, "staticpy: RuntimeError: adaptive_avg_pool2d: elements of "
                             "output_size must be greater than or equal to 0");
    const auto args_of = [](const O& size) {
        detail::adaptive_pool2d_args a{OP::values(size)};
        if constexpr (std::is_same_v<typename OP::h, none_t>)
            a.output_size[0] = detail::adaptive_pool2d_args::none;
        if constexpr (std::is_same_v<typename OP::w, none_t>)
            a.output_size[1] = detail::adaptive_pool2d_args::none;
        return a;
    };
    if constexpr (S::rank == 3 || S::rank == 4) {
        using OH = detail::adaptive_extent_t<typename OP::h, shape_extent_t<S, S::rank - 2>>;
        using OW = detail::adaptive_extent_t<typename OP::w, shape_extent_t<S, S::rank - 1>>;
        constexpr bool fixed = detail::pool_element_fixed<typename OP::h> &&
                               detail::pool_element_fixed<typename OP::w>;
        if constexpr (negative) {
            return; // the static_assert above is the error
        } else if constexpr (fixed) {
            using args = std::tuple<detail::fixed<args_of(O{})>>;
            return detail::apply_op(detail::adaptive_avg_pool2d_op<OH, OW, args>{}, input);
        } else {
            return detail::apply_op(detail::adaptive_avg_pool2d_op<OH, OW>{{args_of(output_size)}},
                                    input);
        }
    }
}

} // namespace staticpy
