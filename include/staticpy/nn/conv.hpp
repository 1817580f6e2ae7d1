#pragma once
// nn.Conv2d and nn.Flatten: the layers a convolutional network adds to modules.hpp's.
//
//   nn::Sequential lenet(nn::Conv2d<1, 6, 5, 1, 2>{}, nn::ReLU{}, nn::MaxPool2d<2>{},
//                        nn::Conv2d<6, 16, 5>{}, nn::ReLU{}, nn::MaxPool2d<2>{},
//                        nn::Flatten{}, nn::Linear<400, 120>{}, ...);
//
// Conv2d<InChannels, OutChannels, KernelSize, Stride, Padding, Dilation, Groups, Bias, T> spells
// PyTorch's nn.Conv2d(in, out, kernel_size, stride, padding, dilation, groups, bias) in its order,
// with square kernels, strides, paddings and dilations (one number each, as most networks use).
// Its sizes are compile-time, so an input [N, 1, 28, 28] gives [N, 6, 28, 28] as a type, and the
// next layer's sizes are checked against it when the model is compiled: an input whose channels
// are not InChannels is a compile error naming both counts
// (raise::conv2d_input_channels<input's, layer's>).

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "staticpy/containers/dict.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/nn/init.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/tensor.hpp"
#include "staticpy/tensor/ops_conv.hpp"

namespace staticpy::nn {

namespace functional {
using staticpy::conv2d;
} // namespace functional

/// nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
/// bias=True): weight [Out, In / Groups, K, K], bias [Out], initialised as PyTorch's
/// (kaiming_uniform_ with a = sqrt(5), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = In /
/// Groups * K * K) from the default generator or a given one.
///   nn::Conv2d<1, 6, 5, 1, 2> conv1;              // LeNet's first layer: 5x5, padding 2
template <std::int64_t InChannels, std::int64_t OutChannels, std::int64_t KernelSize,
          std::int64_t Stride = 1, std::int64_t Padding = 0, std::int64_t Dilation = 1,
          std::int64_t Groups = 1, bool Bias = true, class T = float>
class Conv2d
    : public Module<
          Conv2d<InChannels, OutChannels, KernelSize, Stride, Padding, Dilation, Groups, Bias, T>>,
      public detail::weight_and_bias<Bias, T, OutChannels, InChannels / Groups, KernelSize,
                                     KernelSize> {
    static_assert(Groups > 0, "staticpy: ValueError: groups must be a positive integer");
    static_assert(InChannels % Groups == 0,
                  "staticpy: ValueError: in_channels must be divisible by groups");
    static_assert(OutChannels % Groups == 0,
                  "staticpy: ValueError: out_channels must be divisible by groups");
    static_assert(KernelSize > 0 && Stride > 0 && Dilation > 0 && Padding >= 0,
                  "staticpy: RuntimeError: a convolution's kernel size, stride and dilation are "
                  "positive and its padding is not negative");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: nn.Conv2d's parameters need a floating-point dtype");

public:
    static constexpr std::int64_t in_channels = InChannels;
    static constexpr std::int64_t out_channels = OutChannels;
    static constexpr std::int64_t kernel_size = KernelSize;
    static constexpr std::int64_t stride = Stride;
    static constexpr std::int64_t padding = Padding;
    static constexpr std::int64_t dilation = Dilation;
    static constexpr std::int64_t groups = Groups;
    using parameters_type =
        detail::weight_and_bias<Bias, T, OutChannels, InChannels / Groups, KernelSize, KernelSize>;

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
        } else if constexpr (Bias) {
            return conv2d(x, self[str<"weight">{}], self[str<"bias">{}], int_<Stride>{},
                          int_<Padding>{}, int_<Dilation>{}, int_<Groups>{});
        } else {
            return conv2d(x, self[str<"weight">{}], None, int_<Stride>{}, int_<Padding>{},
                          int_<Dilation>{}, int_<Groups>{});
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
