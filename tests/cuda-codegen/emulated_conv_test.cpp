// Convolution and pooling on the emulated device (emulated_device.hpp): conv2d, max_pool2d,
// avg_pool2d and adaptive_avg_pool2d with their derivatives run as the CUDA backend's kernels
// (backend/cuda/conv_pool.hpp) and cuBLAS, each against the CPU backend's; a small CNN trains on
// the device as on the CPU.
#include <cstdint>
#include <limits>
#include <tuple>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "emulated_device.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using emulated_device::check_on_device;
using emulated_device::fake_driver_selected;
using emulated_device::require_close;
using emulated_device::tape_gradients;

TEST_CASE(
    "emulated device: conv2d and its gradients run there, for every geometry, as on the CPU") {
    REQUIRE(fake_driver_selected);
    Generator g(11);
    SECTION("LeNet's first layer: padding 2, a bias") {
        check_on_device(
            1e-4,
            [](const auto& x, const auto& w, const auto& b) { return conv2d(x, w, b, 1_c, 2_c); },
            randn(2, 1, 12, 12, g), randn(6, 1, 5, 5, g), randn(6, g));
    }
    SECTION("stride 2, padding (1, 0), dilation (1, 2), groups 2, run-time numbers") {
        const std::int64_t groups = 2;
        check_on_device(
            1e-4,
            [&](const auto& x, const auto& w) {
                return conv2d(x, w, None, 2, std::tuple{1, 0}, std::tuple{1, 2}, groups);
            },
            randn(3, 4, 9, 11, g), randn(6, 2, 3, 3, g));
    }
    SECTION("unbatched, double, padding 'same' with an even kernel") {
        check_on_device(
            1e-10, [](const auto& x, const auto& w) { return conv2d(x, w, None, 1_c, "same"_s); },
            randn<double>(3, 7, 6, g), randn<double>(4, 3, 4, 2, g));
    }
    SECTION("a 1 x 1 kernel, stride 3 over a window larger than the input's last positions") {
        check_on_device(
            1e-4, [](const auto& x, const auto& w) { return conv2d(x, w, None, 3_c); },
            randn(1, 5, 8, 8, g), randn(2, 5, 1, 1, g));
    }
}

TEST_CASE("emulated device: conv2d's errors there are the CPU's, and mixing devices is PyTorch's") {
    Generator g(12);
    const auto x = randn(1, 3, 8, 8, g).cuda();
    const auto w = randn(2, 1, 3, 3, g).cuda();
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)conv2d(x, w); }) ==
          "Given groups=1, weight of size [2, 1, 3, 3], expected input[1, 3, 8, 8] to have 1 "
          "channels, but got 3 channels instead");
    CHECK(test_errors::error_of<RuntimeError>(
              [&] { (void)conv2d(x, w.cpu(), None, 1_c, 0_c, 1_c, 3); }) ==
          "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
          "and cpu!");
    CHECK(test_errors::error_of<RuntimeError>(
              [&] { (void)conv2d(x, w, randn(2, g), 1_c, 0_c, 1_c, 3); }) ==
          "Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
          "and cpu!");
    CHECK(test_errors::error_of<RuntimeError>([&] { (void)max_pool2d(x, 3, 1, 2); }) ==
          "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
    // An empty batch: an empty result, and a weight gradient of zeros.
    const auto [y, gx, gw] = tape_gradients(
        [](const auto& a, const auto& b) { return conv2d(a, b); }, zeros<float>(0, 2, 3, 3, kCUDA),
        zeros<float>(0, 1, 5, 5, kCUDA), ones<float>(2, 1, 3, 3, kCUDA));
    CHECK(y.sizes() == std::array<std::int64_t, 4>{0, 2, 3, 3});
    require_close(gw, zeros<float>(2, 1, 3, 3), 0.0);
}

TEST_CASE(
    "emulated device: max, avg and adaptive pooling and their gradients run there as on the CPU") {
    Generator g(13);
    SECTION("max_pool2d: 2 x 2; 3 x 3 stride 2 padding 1 (overlapping windows); dilation, ceil") {
        const auto x = randn(2, 3, 9, 8, g);
        check_on_device(
            0.0, [](const auto& a) { return max_pool2d(a, 2_c); }, x);
        check_on_device(
            0.0, [](const auto& a) { return max_pool2d(a, 3_c, 2_c, 1_c); }, x);
        check_on_device(
            0.0, [](const auto& a) { return max_pool2d(a, 3, 2, 1, 2, true); }, x);
    }
    SECTION("max_pool2d keeps the first of equal values and propagates NaN, as the CPU") {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const auto x = tensor<float>({{{1, 1, 2, 2}, {1, 1, 2, nan}, {0, 0, 0, 0}, {0, 0, -1, 0}}});
        check_on_device(
            0.0, [](const auto& a) { return max_pool2d(a, 2_c); }, x);
        check_on_device(
            0.0, [](const auto& a) { return max_pool2d(a, 3_c, 1_c, 1_c); }, x);
        // max_pool2d_backward's derivative: values at each window's argmax.
        detail::max_pool2d_args window;
        window.kernel_size = {3, 3};
        window.stride = {1, 1};
        window.padding = {1, 1};
        using forward = detail::max_pool2d_op<std::int64_t, std::int64_t>;
        const detail::max_pool2d_at_argmax_op<forward> at_argmax{std::tuple{window}};
        const auto v = randn(1, 4, 4, g);
        require_close(at_argmax(v.cuda(), x.cuda()), at_argmax(v, x), 0.0);
    }
    SECTION("avg_pool2d: padding with and without count_include_pad, divisor_override, ceil") {
        const auto x = randn(2, 2, 7, 9, g);
        check_on_device(
            1e-6, [](const auto& a) { return avg_pool2d(a, 3_c, 2_c, 1_c); }, x);
        check_on_device(
            1e-6, [](const auto& a) { return avg_pool2d(a, 3, 2, 1, true, false); }, x);
        check_on_device(
            1e-6, [](const auto& a) { return avg_pool2d(a, 2, 1, 0, false, true, 3); }, x);
    }
    SECTION("adaptive_avg_pool2d: overlapping windows, larger than the input, and 1 x 1") {
        const auto x = randn(3, 7, 5, g);
        check_on_device(
            1e-6,
            [](const auto& a) {
                return adaptive_avg_pool2d(a, std::tuple{3, 4});
            },
            x);
        check_on_device(
            1e-6,
            [](const auto& a) {
                return adaptive_avg_pool2d(a, std::tuple{9, 6});
            },
            x);
        check_on_device(
            1e-6, [](const auto& a) { return adaptive_avg_pool2d(a, 1); }, x);
    }
    SECTION("avg_pool2d of int64: an integer division, as PyTorch's CPU kernel") {
        const auto x = arange<std::int64_t>(0, 30).reshape(1, 5, 6);
        require_close(avg_pool2d(x.cuda(), 2_c), avg_pool2d(x, 2_c), 0.0);
    }
}

TEST_CASE(
    "emulated device: a small CNN trains on the GPU, forward, backward and step, as on the CPU") {
    namespace F = nn::functional;
    Generator g(15), host_init(16), device_init(16);
    const auto make = [](Generator& init) {
        return nn::Sequential(nn::Conv2d<1, 4, 3, 1, 1>(init), nn::ReLU{}, nn::MaxPool2d<2>{},
                              nn::Conv2d<4, 6, 3>(init), nn::ReLU{}, nn::AvgPool2d<2>{},
                              nn::Flatten{}, nn::Linear<6, 3>(init));
    };
    auto host = make(host_init);
    auto device = make(device_init);
    device.to(kCUDA);
    emulated_device::train_side_by_side(host, device, randn(8, 1, 8, 8, g),
                                        emulated_device::cycling_labels(8, 5, 3), 0.1, 5, 1e-4);
    require_close(device[0_c].weight, host[0_c].weight, 1e-3);
    require_close(device[3_c].bias, host[3_c].bias, 1e-3);
}
