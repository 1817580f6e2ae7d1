#pragma once
// conv2d, as torch.nn.functional.conv2d: a 2-D cross-correlation of an input [N, C, H, W] (or an
// unbatched [C, H, W]) with a weight [O, C / groups, kH, kW], plus a bias [O], with stride,
// padding, dilation and groups.
//
//   auto y = conv2d(x, w);                                   // stride 1, no padding, no bias
//   auto y = conv2d(x, w, b, 2_c, 1_c);                      // stride 2, padding 1
//   auto y = conv2d(x, w, None, 1_c, std::tuple{2_c, 1_c}, 1_c, 2);   // padding (2, 1), groups 2
//   auto y = conv2d(x, w, b, 1_c, "same"_s);                 // output as large as the input
//
// Stride, padding and dilation are one number for both dims or a std::tuple of two, each a
// compile-time int (1_c) or a run-time one; padding may also be PyTorch's strings, "valid"_s (none)
// or "same"_s (stride 1 only; an even kernel pads one more below and right, as PyTorch does). When
// the input's height and width and the window's numbers are compile-time, so are the output's
// height and width (the batch may stay a run-time size): y is Tensor<float, shape<std::int64_t,
// int_<6>, int_<28>, int_<28>>> for LeNet's first layer. Sizes that cannot fit are a compile error
// where they are compile-time, PyTorch's RuntimeError otherwise ("Given groups=1, weight of size
// [6, 1, 5, 5], expected input[2, 3, 8, 8] to have 1 channels, but got 3 channels instead").
//
// conv2d is an op object (op_objects.hpp): eager on tensors, a graph node when traced, recorded on
// the autodiff tape. Its derivatives are op objects too, conv2d_input_backward (a transposed
// convolution of the gradient) and conv2d_weight_backward, and theirs are convolutions again, so
// grad(grad(f)) works through a convolution. The loops are kernels/conv.hpp's (im2col and the
// GEMM, bias fused into the GEMM's epilogue); on a GPU's tensors, the CUDA backend's
// (tensor/conv_pool_device.hpp: im2col kernels and cuBLAS), in eager and graph mode alike.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/conv.hpp"
#include "staticpy/tensor/conv_pool_device.hpp"
#include "staticpy/tensor/op_objects.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace raise {
/// A convolution's input with InputChannels channels given a weight for WeightChannels (its
/// in_channels / groups times groups): PyTorch's "expected input[...] to have 1 channels, but
/// got 3 channels instead".
template <std::int64_t InputChannels, std::int64_t WeightChannels>
inline constexpr bool conv2d_input_channels = false;
/// A compile-time output size below 1: the padded input (PaddedH x PaddedW) is smaller than the
/// dilated kernel (KernelH x KernelW).
template <std::int64_t PaddedH, std::int64_t PaddedW, std::int64_t KernelH, std::int64_t KernelW>
inline constexpr bool conv2d_kernel_size = false;
/// A padding string other than "valid" and "same": PyTorch's "Invalid padding string 'foo'".
template <fixed_string Padding>
inline constexpr bool conv2d_padding_string = false;
/// padding="same" with a compile-time stride other than 1 (StrideH x StrideW).
template <std::int64_t StrideH, std::int64_t StrideW>
inline constexpr bool conv2d_same_padding_stride = false;
} // namespace raise

namespace detail {

/// A stride, padding or dilation argument as its (height, width) extents: one number stands for
/// both, a std::tuple or std::pair of two for each; int_<N> stays compile-time.
template <class A>
struct conv_pair {
    using h = extent_of_t<A>;
    using w = extent_of_t<A>;
    static std::pair<h, w> get(const A& a) {
        if constexpr (is_int_constant_v<A>)
            return {h{}, w{}};
        else
            return {static_cast<std::int64_t>(a), static_cast<std::int64_t>(a)};
    }
};
/// padding="valid" ("valid"_s) is no padding; padding="same" ("same"_s) stays a marker that
/// conv2d_geometry_of turns into the padding that keeps the input's size (stride 1 only), as
/// PyTorch's: dilation * (kernel - 1) in all, half of it above and left, one more below and right
/// when it is odd.
template <fixed_string S>
struct conv_pair<str<S>> {
    static_assert(S.view() == "valid" || S.view() == "same" || raise::conv2d_padding_string<S>,
                  "staticpy: RuntimeError: Invalid padding string: {padding}, where {padding} is "
                  "raise::conv2d_padding_string's argument (conv2d's padding is a number, a pair, "
                  "\"valid\"_s or \"same\"_s)");
    using h = std::conditional_t<S.view() == "same", str<S>, int_<0>>;
    using w = h;
    static std::pair<h, w> get(const str<S>&) { return {}; }
};
template <template <class...> class P, class A, class B>
requires(std::is_same_v<P<A, B>, std::tuple<A, B>> ||
         std::is_same_v<P<A, B>, std::pair<A, B>>) struct conv_pair<P<A, B>> {
    using h = extent_of_t<A>;
    using w = extent_of_t<B>;
    static std::pair<h, w> get(const P<A, B>& a) {
        return {conv_pair<A>::get(std::get<0>(a)).first, conv_pair<B>::get(std::get<1>(a)).first};
    }
};

/// The output extent of a convolution or pooling window along one dim: compile-time when all of
/// In, Kernel, Stride, Padding and Dilation are, else a run-time size.
template <class In, class Kernel, class Stride, class Padding, class Dilation>
struct conv_out_extent {
    using type = std::int64_t;
};
template <long long In, long long Kernel, long long Stride, long long Padding, long long Dilation>
struct conv_out_extent<int_<In>, int_<Kernel>, int_<Stride>, int_<Padding>, int_<Dilation>> {
    static constexpr long long padded = In + 2 * Padding;
    static constexpr long long span = Dilation * (Kernel - 1) + 1;
    using type = int_<(Stride > 0 && padded >= span) ? (padded - span) / Stride + 1 : 0>;
};

/// padding="same": the output is as large as the input (the stride is checked to be 1).
template <class In, class Kernel, class Stride, class Dilation>
struct conv_out_extent<In, Kernel, Stride, str<"same">, Dilation> {
    using type = In;
};

/// The numbers of a conv2d: stride, padding, dilation and groups, each an extent (int_<N> or
/// std::int64_t). The op's args, compared when a graph merges nodes. When all are compile-time
/// (as nn::Conv2d's are) the op is an empty type: its nodes carry no payload, so a graph that
/// names a convolution twice (the forward and the backward graph do) numbers it once without
/// comparing anything at run time.
template <class SH, class SW, class PH, class PW, class DH, class DW, class G>
using conv2d_args = std::tuple<SH, SW, PH, PW, DH, DW, G>;

/// The geometry of conv2d(x, w) with these args, checked as PyTorch checks it (RuntimeError).
/// x is [N, C, H, W] or [C, H, W].
template <class Args, std::size_t RX>
kernels::conv2d_geometry conv2d_geometry_of(const Args& args,
                                            const std::array<std::int64_t, RX>& x_sizes,
                                            const std::array<std::int64_t, 4>& w_sizes) {
    const auto value = [](const auto& e) { return extent_value(e); };
    kernels::conv2d_geometry geo;
    constexpr std::size_t b = RX == 4 ? 1 : 0;
    geo.batch = RX == 4 ? x_sizes[0] : 1;
    geo.in_channels = x_sizes[b];
    geo.height = x_sizes[b + 1];
    geo.width = x_sizes[b + 2];
    geo.out_channels = w_sizes[0];
    geo.kernel_h = w_sizes[2];
    geo.kernel_w = w_sizes[3];
    geo.stride_h = value(std::get<0>(args));
    geo.stride_w = value(std::get<1>(args));
    geo.dilation_h = value(std::get<4>(args));
    geo.dilation_w = value(std::get<5>(args));
    geo.groups = extent_value(std::get<6>(args));
    if (geo.stride_h <= 0 || geo.stride_w <= 0)
        throw RuntimeError("non-positive stride is not supported");
    if (geo.dilation_h <= 0 || geo.dilation_w <= 0)
        throw RuntimeError("non-positive dilation is not supported");
    if constexpr (std::is_same_v<std::tuple_element_t<2, Args>, str<"same">>) {
        if (geo.stride_h != 1 || geo.stride_w != 1)
            throw RuntimeError("padding='same' is not supported for strided convolutions");
        const std::int64_t total_h = geo.dilation_h * (geo.kernel_h - 1);
        const std::int64_t total_w = geo.dilation_w * (geo.kernel_w - 1);
        geo.pad_h = total_h / 2;
        geo.pad_w = total_w / 2;
        geo.pad_h_extra = total_h - 2 * geo.pad_h;
        geo.pad_w_extra = total_w - 2 * geo.pad_w;
    } else {
        geo.pad_h = value(std::get<2>(args));
        geo.pad_w = value(std::get<3>(args));
    }
    if (geo.pad_h < 0 || geo.pad_w < 0)
        throw RuntimeError("negative padding is not supported");
    if (geo.groups <= 0)
        throw RuntimeError("non-positive groups is not supported");
    if (geo.out_channels % geo.groups != 0)
        throw RuntimeError("Given groups=" + std::to_string(geo.groups) +
                           ", expected weight to be divisible by " + std::to_string(geo.groups) +
                           " at dimension 0, but got weight of size [" + sizes_text(w_sizes) +
                           "] instead");
    if (geo.in_channels != w_sizes[1] * geo.groups)
        throw RuntimeError("Given groups=" + std::to_string(geo.groups) + ", weight of size " +
                           sizes_text(w_sizes) + ", expected input" + sizes_text(x_sizes) +
                           " to have " + std::to_string(w_sizes[1] * geo.groups) +
                           " channels, but got " + std::to_string(geo.in_channels) +
                           " channels instead");
    const std::int64_t padded_h = kernels::conv_detail::padded_height(geo);
    const std::int64_t padded_w = kernels::conv_detail::padded_width(geo);
    const std::int64_t span_h = geo.dilation_h * (geo.kernel_h - 1) + 1;
    const std::int64_t span_w = geo.dilation_w * (geo.kernel_w - 1) + 1;
    if (padded_h < span_h || padded_w < span_w)
        throw RuntimeError(
            "Calculated padded input size per channel: (" + std::to_string(padded_h) + " x " +
            std::to_string(padded_w) + "). Kernel size: (" + std::to_string(span_h) + " x " +
            std::to_string(span_w) + "). Kernel size can't be greater than actual input size");
    geo.out_h = (padded_h - span_h) / geo.stride_h + 1;
    geo.out_w = (padded_w - span_w) / geo.stride_w + 1;
    return geo;
}

/// The checks that types can make at compile time: ranks, element types, channel counts and
/// output sizes.
template <class T, class U, class SX, class SW, class Args>
constexpr void check_conv2d_static() {
    static_assert(std::is_same_v<T, U>,
                  "staticpy: RuntimeError: Input type and weight type should be the same "
                  "(conv2d's input and weight have one element type)");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: RuntimeError: conv2d is implemented for floating-point tensors");
    static_assert(SX::rank == 3 || SX::rank == 4,
                  "staticpy: RuntimeError: Expected 3D (unbatched) or 4D (batched) input to "
                  "conv2d");
    static_assert(SW::rank == 4, "staticpy: RuntimeError: conv2d's weight must be 4D "
                                 "[out_channels, in_channels / groups, kH, kW]");
    if constexpr ((SX::rank == 3 || SX::rank == 4) && SW::rank == 4) {
        constexpr std::size_t b = SX::rank == 4 ? 1 : 0;
        constexpr std::int64_t c = SX::static_extents[b];
        constexpr std::int64_t wc = SW::static_extents[1];
        // Without groups' value (a run-time number) the mismatch that is certain is an input
        // whose channels are no multiple of the weight's per-group count.
        if constexpr (c >= 0 && wc >= 0)
            static_assert(wc == 0 ? c == 0 : (c >= wc && c % wc == 0),
                          "staticpy: RuntimeError: expected input to have in_channels channels "
                          "(a multiple of the weight's size(1), in_channels / groups)");
    }
}

/// The result shape of conv2d(x, w) with args Args: [N, O, OH, OW] or [O, OH, OW].
template <class SX, class SW, class Args>
struct conv2d_result {
    static constexpr std::size_t b = SX::rank == 4 ? 1 : 0;
    using oh =
        typename conv_out_extent<shape_extent_t<SX, b + 1>, shape_extent_t<SW, 2>,
                                 std::tuple_element_t<0, Args>, std::tuple_element_t<2, Args>,
                                 std::tuple_element_t<4, Args>>::type;
    using ow =
        typename conv_out_extent<shape_extent_t<SX, b + 2>, shape_extent_t<SW, 3>,
                                 std::tuple_element_t<1, Args>, std::tuple_element_t<3, Args>,
                                 std::tuple_element_t<5, Args>>::type;
    using type = std::conditional_t<SX::rank == 4,
                                    shape<shape_extent_t<SX, 0>, shape_extent_t<SW, 0>, oh, ow>,
                                    shape<shape_extent_t<SW, 0>, oh, ow>>;
};

/// Sizes [N, ...] of an unbatched or batched tensor as the kernels take them: with N.
template <std::size_t R>
std::array<std::int64_t, 4> batched_sizes(const std::array<std::int64_t, R>& s) {
    if constexpr (R == 4)
        return s;
    else
        return {1, s[0], s[1], s[2]};
}

template <class Args>
struct conv2d_input_backward_op;
template <class Args>
struct conv2d_weight_backward_op;

/// One of a convolution's kernels on the GPU (conv_pool_device.hpp), its tensors flat; out is
/// contiguous (a new result), so its flat view is itself.
template <class T, class SA, class SB, class SO, class... Bias>
void conv2d_on_device(conv_device_call::result what, const kernels::conv2d_geometry& geo,
                      const Tensor<T, SA>& a, const Tensor<T, SB>& b, const Tensor<T, SO>& out,
                      const Bias&... bias) {
    Tensor<T, dynamic_shape<1>> flat_bias;
    ((flat_bias = flat_elements(bias)), ...);
    conv2d_on_cuda(conv_pool_device_tag{}, conv_device_call{what, geo}, flat_elements(a),
                   flat_elements(b), flat_bias, flat_elements(out));
}

/// conv2d(x, w[, b]) with its stride, padding, dilation and groups (Args: conv2d_args).
template <class Args>
struct conv2d_op {
    static constexpr const char* name = "conv2d";
    /// Its eager form runs on GPU tensors too, so a device graph runs it as it is.
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] Args args;

    template <class T, class SX, class U, class SW>
    auto operator()(const Tensor<T, SX>& x, const Tensor<U, SW>& w) const {
        return run(x, w);
    }
    template <class T, class SX, class U, class SW, class V, class SB>
    auto operator()(const Tensor<T, SX>& x, const Tensor<U, SW>& w, const Tensor<V, SB>& b) const {
        static_assert(std::is_same_v<T, V>,
                      "staticpy: RuntimeError: conv2d's bias has the input's element type");
        static_assert(SB::rank == 1,
                      "staticpy: RuntimeError: expected bias to be 1-dimensional [out_channels]");
        if constexpr (SW::rank == 4) {
            constexpr std::int64_t o = SW::static_extents[0], n = SB::static_extents[0];
            static_assert(o < 0 || n < 0 || o == n,
                          "staticpy: RuntimeError: expected bias to be 1-dimensional with "
                          "out_channels elements");
        }
        return run(x, w, b);
    }

    /// x: conv2d_input_backward(g, w); w: conv2d_weight_backward(g, x); b: g summed over all
    /// but its channel dim.
    template <std::size_t I, class G, class Y, class X, class W, class... B>
    auto vjp(const G& g, const Y&, const X& x, const W& w, const B&...) const {
        if constexpr (I == 0)
            return apply_op(conv2d_input_backward_op<Args>{args}, g, w, x);
        else if constexpr (I == 1)
            return apply_op(conv2d_weight_backward_op<Args>{args}, g, x, w);
        else if constexpr (X::shape_type::rank == 4)
            return sum(g, std::tuple<int_<0>, int_<2>, int_<3>>{});
        else
            return sum(g, std::tuple<int_<1>, int_<2>>{});
    }

    /// A graph's fused kernel that reads only this convolution (and small operands) runs in its
    /// epilogue: over each run of the result as soon as it is written (backend/cpu/evaluate.hpp).
    static constexpr bool runs_epilogue = true;

    /// The kernel's geometry for operands of shapes xs, ws (and a bias of shape bs), and the
    /// result's shape: checked as PyTorch checks them (RuntimeError), before any work.
    template <class SX, class SW, class... SB>
    auto plan(const SX& xs, const SW& ws, const SB&... bs) const {
        using result = typename conv2d_result<SX, SW, Args>::type;
        const kernels::conv2d_geometry geo = conv2d_geometry_of(args, xs.sizes(), ws.sizes());
        [[maybe_unused]] const auto check_bias = [&](const auto& b) {
            if (b.sizes()[0] != geo.out_channels)
                throw RuntimeError(
                    "Given weight of size " + sizes_text(ws.sizes()) +
                    ", expected bias to be 1-dimensional with " + std::to_string(geo.out_channels) +
                    " elements, but got bias of size " + sizes_text(b.sizes()) + " instead");
        };
        (check_bias(bs), ...);
        typename result::sizes_type sizes{};
        if constexpr (SX::rank == 4)
            sizes = {geo.batch, geo.out_channels, geo.out_h, geo.out_w};
        else
            sizes = {geo.out_channels, geo.out_h, geo.out_w};
        return std::pair{geo, result(sizes)};
    }

    /// conv2d(x, w[, b]) with geometry geo (plan's) into y (contiguous, of plan's shape),
    /// calling epilogue(image, channel, q0, q1) over each finished run of y
    /// (kernels::conv2d_forward).
    template <class T, class SX, class SW, class RunEpilogue, class... B>
    void forward_into(const kernels::conv2d_geometry& geo, T* y, const RunEpilogue& epilogue,
                      const Tensor<T, SX>& x, const Tensor<T, SW>& w, const B&... b) const {
        const auto xc = x.contiguous();
        const auto wc = w.contiguous();
        if constexpr (sizeof...(B) == 1)
            kernels::conv2d_forward<T>(geo, xc.data(), wc.data(), b.contiguous().data()..., y,
                                       epilogue);
        else
            kernels::conv2d_forward<T>(geo, xc.data(), wc.data(), static_cast<const T*>(nullptr), y,
                                       epilogue);
    }

private:
    template <class T, class SX, class SW, class... B>
    auto run(const Tensor<T, SX>& x, const Tensor<T, SW>& w, const B&... b) const {
        check_conv2d_static<T, T, SX, SW, Args>();
        const Device device = check_same_device(x, w, b...);
        const auto [geo, result_shape] = plan(x.shape(), w.shape(), b.shape()...);
        Tensor<T, typename conv2d_result<SX, SW, Args>::type> y{result_shape, device};
        if (device.is_cuda())
            conv2d_on_device(conv_device_call::result::output, geo, x, w, y, b...);
        else
            forward_into(geo, y.data(), kernels::no_run_epilogue{}, x, w, b...);
        return y;
    }
};

/// The gradient of conv2d(x, w) with respect to x: operands g (the result's gradient), w, and x,
/// of which only the shape is read. Linear in g and in w, so its derivatives are convolutions:
/// for g, conv2d(gg, w); for w, conv2d_weight_backward(g, gg).
template <class Args>
struct conv2d_input_backward_op {
    static constexpr const char* name = "conv2d_input_backward";
    static constexpr std::array<bool, 3> reads{true, true, false};
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] Args args;

    template <class T, class SG, class SW, class L>
    auto operator()(const Tensor<T, SG>& g, const Tensor<T, SW>& w, const L& like) const {
        using S = like_shape_t<L>;
        const S& xs = shape_of_like(like);
        const auto geo = conv2d_geometry_of(args, xs.sizes(), w.sizes());
        const Device device = check_same_device(g, w, like);
        Tensor<T, S> dx{xs, device};
        if (device.is_cuda()) {
            conv2d_on_device(conv_device_call::result::input_gradient, geo, g, w, dx);
            return dx;
        }
        const auto gc = g.contiguous();
        const auto wc = w.contiguous();
        kernels::conv2d_input_grad<T>(geo, gc.data(), wc.data(), dx.data());
        return dx;
    }

    template <std::size_t I, class GG, class Y, class G, class W, class L>
    auto vjp(const GG& gg, const Y&, const G& g, const W& w, const L&) const {
        if constexpr (I == 0)
            return apply_op(conv2d_op<Args>{args}, gg, w);
        else if constexpr (I == 1)
            return apply_op(conv2d_weight_backward_op<Args>{args}, g, gg, w);
        else
            return fn::no_grad{};
    }
};

/// The gradient of conv2d(x, w) with respect to w: operands g, x, and w, of which only the shape
/// is read. Linear in g and in x: for g, conv2d(x, gw); for x, conv2d_input_backward(g, gw).
template <class Args>
struct conv2d_weight_backward_op {
    static constexpr const char* name = "conv2d_weight_backward";
    static constexpr std::array<bool, 3> reads{true, true, false};
    static constexpr bool eager_on_cuda = true;
    [[no_unique_address]] Args args;

    template <class T, class SG, class SX, class L>
    auto operator()(const Tensor<T, SG>& g, const Tensor<T, SX>& x, const L& like) const {
        using S = like_shape_t<L>;
        const S& ws = shape_of_like(like);
        const auto geo = conv2d_geometry_of(args, x.sizes(), ws.sizes());
        const Device device = check_same_device(g, x, like);
        Tensor<T, S> dw{ws, device};
        if (device.is_cuda()) {
            conv2d_on_device(conv_device_call::result::weight_gradient, geo, g, x, dw);
            return dw;
        }
        const auto gc = g.contiguous();
        const auto xc = x.contiguous();
        kernels::conv2d_weight_grad<T>(geo, gc.data(), xc.data(), dw.data());
        return dw;
    }

    template <std::size_t I, class GW, class Y, class G, class X, class L>
    auto vjp(const GW& gw, const Y&, const G& g, const X& x, const L&) const {
        if constexpr (I == 0)
            return apply_op(conv2d_op<Args>{args}, x, gw);
        else if constexpr (I == 1)
            return apply_op(conv2d_input_backward_op<Args>{args}, g, gw, x);
        else
            return fn::no_grad{};
    }
};

} // namespace detail

/// torch.nn.functional.conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1,
/// groups=1) on tensors, traced values or recorded ones; bias `None` for no bias.
///   auto y = conv2d(x, w, b, 1_c, 2_c);              // LeNet's first layer: padding 2
template <class X, class W, class B = none_t, class Stride = int_<1>, class Padding = int_<0>,
          class Dilation = int_<1>, class Groups = int_<1>>
auto conv2d(const X& x, const W& w, const B& bias = {}, const Stride& stride = {},
            const Padding& padding = {}, const Dilation& dilation = {}, const Groups& groups = {}) {
    using S = detail::conv_pair<Stride>;
    using P = detail::conv_pair<Padding>;
    using D = detail::conv_pair<Dilation>;
    using G = detail::conv_pair<Groups>;
    using args_type =
        detail::conv2d_args<typename S::h, typename S::w, typename P::h, typename P::w,
                            typename D::h, typename D::w, typename G::h>;
    if constexpr (std::is_same_v<typename P::h, str<"same">> && is_int_constant_v<typename S::h> &&
                  is_int_constant_v<typename S::w>) {
        constexpr std::int64_t stride_h = S::h::value, stride_w = S::w::value;
        static_assert((stride_h == 1 && stride_w == 1) ||
                          raise::conv2d_same_padding_stride<stride_h, stride_w>,
                      "staticpy: RuntimeError: padding='same' is not supported for strided "
                      "convolutions");
    }
    const auto [sh, sw] = S::get(stride);
    const auto [ph, pw] = P::get(padding);
    const auto [dh, dw] = D::get(dilation);
    const auto g = G::get(groups).first;
    const detail::conv2d_op<args_type> op{args_type{sh, sw, ph, pw, dh, dw, g}};
    if constexpr (std::is_same_v<B, none_t>)
        return detail::apply_op(op, x, w);
    else
        return detail::apply_op(op, x, w, bias);
}

} // namespace staticpy
