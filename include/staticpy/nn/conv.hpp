#pragma once
// nn.Conv2d and nn.Flatten: the layers a convolutional network adds to modules.hpp's.
//
//   nn::Sequential lenet(nn::Conv2d<1, 6, 5, 1, 2>{}, nn::ReLU{}, nn::MaxPool2d<2>{},
//                        nn::Conv2d<6, 16, 5>{}, nn::ReLU{}, nn::MaxPool2d<2>{},
//                        nn::Flatten{}, nn::Linear<400, 120>{}, ...);
//
// Conv2d<InChannels, OutChannels, KernelSize, Stride, Padding, Dilation, Groups, Bias, T> spells
// PyTorch's nn.Conv2d(in, out, kernel_size, stride, padding, dilation, groups, bias) in its order;
// kernel size, stride, padding and dilation are each an integer or std::array{h, w}
// (nn/window_args.hpp), and padding may be "valid"_s or "same"_s.
// Its sizes are compile-time, so an input [N, 1, 28, 28] gives [N, 6, 28, 28] as a type, and the
// next layer's sizes are checked against it when the model is compiled: an input whose channels
// are not InChannels is a compile error naming both counts
// (raise::conv2d_input_channels<input's, layer's>).

#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "staticpy/containers/dict.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/nn/init.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/nn/window_args.hpp"
#include "staticpy/tensor.hpp"
#include "staticpy/tensor/ops_conv.hpp"

namespace staticpy::nn {

namespace functional {
using staticpy::conv2d;
} // namespace functional

namespace detail {
/// Conv2d's Padding argument: an integer or std::array{h, w} (hw), or one of PyTorch's padding
/// strings, "valid"_s or "same"_s, which go to conv2d as they are.
template <class P, auto Padding>
struct conv_padding : hw<Padding> {
    static constexpr bool same = false;
};
template <fixed_string S, auto Padding>
struct conv_padding<str<S>, Padding> {
    static_assert(S.view() == "valid" || S.view() == "same" || raise::conv2d_padding_string<S>,
                  "staticpy: ValueError: Invalid padding string {padding}, should be one of "
                  "{'same', 'valid'}, where {padding} is raise::conv2d_padding_string's argument");
    static constexpr bool same = S.view() == "same";
    static constexpr std::array<std::int64_t, 2> value{0, 0};
    using arg = str<S>;
};
} // namespace detail

/// nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
/// bias=True): weight [Out, In / Groups, KH, KW], bias [Out], initialised as PyTorch's
/// (kaiming_uniform_ with a = sqrt(5), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = In /
/// Groups * KH * KW) from the default generator or a given one. KernelSize, Stride and Dilation
/// are an integer or std::array{h, w}; Padding too, or "valid"_s or "same"_s (stride 1 only).
///   nn::Conv2d<1, 6, 5, 1, 2> conv1;                       // LeNet's first layer: 5x5, padding 2
///   nn::Conv2d<16, 32, std::array{3, 5}, 1, "same"_s> c;   // 3x5, output as large as the input
template <std::int64_t InChannels, std::int64_t OutChannels, auto KernelSize, auto Stride = 1,
          auto Padding = 0, auto Dilation = 1, std::int64_t Groups = 1, bool Bias = true,
          class T = default_float_t>
class Conv2d
    : public Module<
          Conv2d<InChannels, OutChannels, KernelSize, Stride, Padding, Dilation, Groups, Bias, T>>,
      public detail::weight_and_bias<Bias, T, OutChannels, InChannels / Groups,
                                     detail::hw<KernelSize>::h, detail::hw<KernelSize>::w> {
    using kernel_hw = detail::hw<KernelSize>;
    using stride_hw = detail::hw<Stride>;
    using padding_hw = detail::conv_padding<std::remove_cvref_t<decltype(Padding)>, Padding>;
    using dilation_hw = detail::hw<Dilation>;

    static_assert(Groups > 0, "staticpy: ValueError: groups must be a positive integer");
    static_assert(InChannels % Groups == 0,
                  "staticpy: ValueError: in_channels must be divisible by groups");
    static_assert(OutChannels % Groups == 0,
                  "staticpy: ValueError: out_channels must be divisible by groups");
    static_assert(kernel_hw::h > 0 && kernel_hw::w > 0 && stride_hw::h > 0 && stride_hw::w > 0 &&
                      dilation_hw::h > 0 && dilation_hw::w > 0 && padding_hw::value[0] >= 0 &&
                      padding_hw::value[1] >= 0,
                  "staticpy: RuntimeError: a convolution's kernel size, stride and dilation are "
                  "positive and its padding is not negative");
    static_assert(!padding_hw::same || (stride_hw::h == 1 && stride_hw::w == 1) ||
                      raise::conv2d_same_padding_stride<stride_hw::h, stride_hw::w>,
                  "staticpy: ValueError: padding='same' is not supported for strided convolutions");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: nn.Conv2d's parameters need a floating-point dtype");

public:
    static constexpr std::int64_t in_channels = InChannels;
    static constexpr std::int64_t out_channels = OutChannels;
    /// (height, width), as PyTorch's layer keeps them.
    static constexpr std::array<std::int64_t, 2> kernel_size = kernel_hw::value;
    static constexpr std::array<std::int64_t, 2> stride = stride_hw::value;
    /// (height, width); (0, 0) for "valid" and "same" (PyTorch keeps the string).
    static constexpr std::array<std::int64_t, 2> padding = padding_hw::value;
    static constexpr std::array<std::int64_t, 2> dilation = dilation_hw::value;
    static constexpr std::int64_t groups = Groups;
    using parameters_type = detail::weight_and_bias<Bias, T, OutChannels, InChannels / Groups,
                                                    kernel_hw::h, kernel_hw::w>;

    /// Initialised as PyTorch's nn.Conv2d (reset_parameters), from the default generator.
    Conv2d() : Conv2d(default_generator()) {}
    /// Initialised as PyTorch's nn.Conv2d, from gen.
    explicit Conv2d(Generator& gen) : parameters_type(gen) {}

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        using S = typename X::shape_type;
        static_assert(S::rank == 3 || S::rank == 4,
                      "staticpy: RuntimeError: Expected 3D (unbatched) or 4D (batched) input to "
                      "conv2d");
        constexpr std::int64_t channels = S::static_extents[S::rank == 4 ? 1 : 0];
        if constexpr (channels >= 0 && channels != InChannels) {
            static_assert(raise::conv2d_input_channels<channels, InChannels>,
                          "staticpy: RuntimeError: expected input to have in_channels channels "
                          "(the input's channel count is not the nn::Conv2d's in_channels)");
            return x; // not conv2d(): its own error would follow this one
        } else {
            const auto conv = [&](const auto& bias) {
                return conv2d(x, self[str<"weight">{}], bias, typename stride_hw::arg{},
                              typename padding_hw::arg{}, typename dilation_hw::arg{},
                              int_<Groups>{});
            };
            if constexpr (Bias)
                return conv(self[str<"bias">{}]);
            else
                return conv(None);
        }
    }
};

/// nn.Flatten(start_dim=1, end_dim=-1): dims StartDim..EndDim as one ([N, 16, 5, 5] to [N, 400]).
template <long long StartDim = 1, long long EndDim = -1>
struct Flatten : Module<Flatten<StartDim, EndDim>> {
    template <class Self, class X>
    auto forward(const Self&, const X& x) const {
        return x.flatten(int_<StartDim>{}, int_<EndDim>{});
    }
};

} // namespace staticpy::nn
