#pragma once
// nn.MaxPool2d, nn.AvgPool2d and nn.AdaptiveAvgPool2d: the pooling layers, with their sizes as
// template arguments in PyTorch's order, so that the output's H and W are compile-time when the
// input's are:
//
//   nn::MaxPool2d<2>{}                      // kernel 2, stride 2: [N, 6, 28, 28] -> [N, 6, 14, 14]
//   nn::MaxPool2d<3, 2, 1>{}                // kernel 3, stride 2, padding 1
//   nn::AvgPool2d<3, 1, 1, false, false>{}  // count_include_pad=False
//   nn::AdaptiveAvgPool2d<1>{}              // global average pooling: [N, C, 1, 1]
//
//   nn::MaxPool2d<std::array{2, 1}>{}       // kernel (2, 1): halves H only
//
// They have no parameters; forward is torch.nn.functional's function (tensor/ops_pool.hpp), so
// they run eagerly, traced and on the autodiff tape alike. Kernel sizes, strides, paddings and
// dilations are each one integer or std::array{height, width} (nn/window_args.hpp).
// nn::functional::max_pool2d, avg_pool2d and adaptive_avg_pool2d are those functions.

#include <array>
#include <cstdint>
#include <tuple>
#include <type_traits>

#include "staticpy/core/constant.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/nn/window_args.hpp"
#include "staticpy/tensor/ops_pool.hpp"

namespace staticpy::nn {

namespace functional {
using staticpy::adaptive_avg_pool2d;
using staticpy::avg_pool2d;
using staticpy::max_pool2d;
} // namespace functional

/// nn.MaxPool2d(kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode=False).
///   nn::MaxPool2d<2> pool;                  // LeNet's: halves H and W
template <auto KernelSize, auto Stride = KernelSize, auto Padding = 0, auto Dilation = 1,
          bool CeilMode = false>
struct MaxPool2d : Module<MaxPool2d<KernelSize, Stride, Padding, Dilation, CeilMode>> {
    /// (height, width), as PyTorch's layer keeps an int or a tuple.
    static constexpr std::array<std::int64_t, 2> kernel_size = detail::hw<KernelSize>::value;
    static constexpr std::array<std::int64_t, 2> stride = detail::hw<Stride>::value;
    static constexpr std::array<std::int64_t, 2> padding = detail::hw<Padding>::value;
    static constexpr std::array<std::int64_t, 2> dilation = detail::hw<Dilation>::value;
    static constexpr bool ceil_mode = CeilMode;

    template <class Self, class X>
    auto forward(const Self&, const X& x) const {
        return max_pool2d(x, typename detail::hw<KernelSize>::arg{},
                          typename detail::hw<Stride>::arg{}, typename detail::hw<Padding>::arg{},
                          typename detail::hw<Dilation>::arg{}, std::bool_constant<CeilMode>{});
    }
};

/// nn.AvgPool2d(kernel_size, stride=kernel_size, padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None); DivisorOverride 0 is None.
///   nn::AvgPool2d<2> pool;
template <auto KernelSize, auto Stride = KernelSize, auto Padding = 0, bool CeilMode = false,
          bool CountIncludePad = true, std::int64_t DivisorOverride = 0>
struct AvgPool2d
    : Module<AvgPool2d<KernelSize, Stride, Padding, CeilMode, CountIncludePad, DivisorOverride>> {
    static constexpr std::array<std::int64_t, 2> kernel_size = detail::hw<KernelSize>::value;
    static constexpr std::array<std::int64_t, 2> stride = detail::hw<Stride>::value;
    static constexpr std::array<std::int64_t, 2> padding = detail::hw<Padding>::value;
    static constexpr bool ceil_mode = CeilMode;
    static constexpr bool count_include_pad = CountIncludePad;
    static constexpr std::int64_t divisor_override = DivisorOverride;

    template <class Self, class X>
    auto forward(const Self&, const X& x) const {
        const auto window = [&](const auto& divisor) {
            return avg_pool2d(x, typename detail::hw<KernelSize>::arg{},
                              typename detail::hw<Stride>::arg{},
                              typename detail::hw<Padding>::arg{}, std::bool_constant<CeilMode>{},
                              std::bool_constant<CountIncludePad>{}, divisor);
        };
        if constexpr (DivisorOverride == 0)
            return window(None);
        else
            return window(int_<DivisorOverride>{});
    }
};

/// nn.AdaptiveAvgPool2d(output_size): OutH x OutW (OutW = OutH by default).
///   nn::AdaptiveAvgPool2d<1> pool;          // [N, C, H, W] -> [N, C, 1, 1]
template <std::int64_t OutH, std::int64_t OutW = OutH>
struct AdaptiveAvgPool2d : Module<AdaptiveAvgPool2d<OutH, OutW>> {
    static constexpr std::int64_t output_height = OutH;
    static constexpr std::int64_t output_width = OutW;

    template <class Self, class X>
    auto forward(const Self&, const X& x) const {
        return adaptive_avg_pool2d(x, std::tuple<int_<OutH>, int_<OutW>>{});
    }
};

} // namespace staticpy::nn
