// max_pool2d, avg_pool2d and adaptive_avg_pool2d (tensor/ops_pool.hpp) and the pooling modules
// (nn/pooling.hpp): values and input gradients against PyTorch 1.13's
// (tests/nn/reference/pooling_reference.txt, make_pooling_reference.py), eagerly, traced by jit and
// on the autodiff tape; the output shapes as types; PyTorch's error texts; the large-input
// (threaded) kernels against plain loops; the modules; and jit(value_and_grad) through relu and
// pooling. The gradients through grad in both modes, finite differences and second derivatives
// are tests/autodiff/pooling_test.cpp's (apart, as each grad costs the compiler seconds and
// memory).

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <staticpy/staticpy.hpp>

#include "../autodiff/autodiff_test_support.hpp"
#include "../test_errors.hpp"
#include "reference/pooling_reference.hpp"

using namespace autodiff_test;
using namespace pooling_reference;
using test_errors::error_of;

namespace {

/// A case's pool(x) against PyTorch's eagerly and traced by jit, and the gradient of
/// sum(pool(x) * c) on the tape.
struct check_values_and_tape_gradient {
    template <class Pool, class X>
    void operator()(const pool_case<Pool, X>& c) const {
        INFO(c.call);
        const std::string call = c.call;
        const auto pool = c.pool;
        check_value(call, pool(c.input));
        const auto y = jit([pool](const auto& v) { return pool(v); })(c.input);
        check_value(call, y);
        const auto w = cotangent_like(call, y);
        require_matches(
            values(tape_gradient([&](const auto& v) { return (pool(v) * w).sum(); }, c.input)),
            record(call + "/grad"));
    }
};

} // namespace

TEST_CASE("max_pool2d against PyTorch: padding, stride, dilation, ceil_mode, ties, NaN, "
          "unbatched") {
    for_each_max_case(check_values_and_tape_gradient{});
}

TEST_CASE("avg_pool2d against PyTorch: padding, ceil_mode, count_include_pad, divisor_override, "
          "unbatched, int64") {
    for_each_avg_case(check_values_and_tape_gradient{});
    // int64: PyTorch's integer division, truncated towards zero; no gradient.
    const auto XI = input<std::int64_t>("XI", 1_c, 2_c, 4_c, 4_c);
    check_value("avg_pool2d(XI,3,1,1)", avg_pool2d(XI, 3_c, 1_c, 1_c));
    check_value("avg_pool2d(XI,2,2,0,False,True,-3)",
                avg_pool2d(XI, 2_c, 2_c, 0_c, False, true, -3));
    check_value("avg_pool2d(XI,3,1,1)",
                jit([](const auto& x) { return avg_pool2d(x, 3_c, 1_c, 1_c); })(XI));
}

TEST_CASE("adaptive_avg_pool2d against PyTorch: overlapping windows, 1 x 1 (the mean), None, "
          "larger than the input, unbatched") {
    for_each_adaptive_case(check_values_and_tape_gradient{});
}

TEST_CASE("the output's H and W are compile-time when the input's and the window's are") {
    const auto lenet1 = zeros<float>(shape(std::int64_t{64}, 6_c, 28_c, 28_c));
    const auto lenet2 = zeros<float>(shape(std::int64_t{64}, 16_c, 10_c, 10_c));
    STATIC_REQUIRE(std::is_same_v<decltype(max_pool2d(lenet1, 2_c))::shape_type,
                                  shape<std::int64_t, int_<6>, int_<14>, int_<14>>>);
    STATIC_REQUIRE(std::is_same_v<decltype(nn::MaxPool2d<2>{}(lenet2))::shape_type,
                                  shape<std::int64_t, int_<16>, int_<5>, int_<5>>>);
    STATIC_REQUIRE(std::is_same_v<decltype(max_pool2d(X, 3_c, 2_c, 1_c))::shape_type,
                                  static_shape<2, 3, 3, 4>>);
    STATIC_REQUIRE(std::is_same_v<decltype(max_pool2d(X, 3_c, 4_c, 1_c, 1_c, True))::shape_type,
                                  static_shape<2, 3, 2, 2>>);
    STATIC_REQUIRE(std::is_same_v<decltype(avg_pool2d(X, 3_c, 2_c, 1_c, True))::shape_type,
                                  static_shape<2, 3, 4, 4>>);
    STATIC_REQUIRE(
        std::is_same_v<decltype(adaptive_avg_pool2d(X3, std::tuple{None, 2_c}))::shape_type,
                       static_shape<3, 5, 2>>);
    // a run-time number, or a run-time ceil_mode, makes H and W run-time sizes
    STATIC_REQUIRE(std::is_same_v<decltype(max_pool2d(X, 2))::shape_type,
                                  shape<int_<2>, int_<3>, std::int64_t, std::int64_t>>);
    STATIC_REQUIRE(std::is_same_v<decltype(max_pool2d(X, 2_c, 2_c, 0_c, 1_c, false))::shape_type,
                                  shape<int_<2>, int_<3>, std::int64_t, std::int64_t>>);
    STATIC_REQUIRE(std::is_same_v<decltype(max_pool2d(X, std::tuple{2_c, 3}))::shape_type,
                                  shape<int_<2>, int_<3>, int_<3>, std::int64_t>>);
    const auto dynamic = max_pool2d(X, 3, 2, 1);
    CHECK(values(dynamic) == values(max_pool2d(X, 3_c, 2_c, 1_c)));
    CHECK(dynamic.sizes() == std::array<std::int64_t, 4>{2, 3, 3, 4});
    CHECK(max_pool2d(lenet1, 2_c).sizes() == std::array<std::int64_t, 4>{64, 6, 14, 14});
}

TEST_CASE("PyTorch's errors, with its texts and in its order") {
    const auto x = zeros<double>(1, 2, 2); // run-time sizes: the checks run when the op does
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 3); }) ==
          "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
    CHECK(error_of<RuntimeError>([&] { avg_pool2d(x, 3); }) ==
          "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 3, 1, 2); }) ==
          "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 2, 0); }) == "stride should not be zero");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 2, 1, -1); }) ==
          "pad must be non-negative, but got pad: -1");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 0, 1); }) ==
          "kernel size should be greater than zero, but got kH: 0 kW: 0");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 2, -1); }) ==
          "stride should be greater than zero, but got dH: -1 dW: -1");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(x, 2, 1, 0, 0); }) ==
          "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
    CHECK(error_of<RuntimeError>([&] { max_pool2d(zeros<double>(0, 2, 2), 1); }) ==
          "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
          "got:[0, 2, 2]");
    CHECK(error_of<RuntimeError>([&] { avg_pool2d(zeros<double>(1, 1, 0, 2), 1); }) ==
          "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
          "got:[1, 1, 0, 2]");
    CHECK(error_of<RuntimeError>([&] { avg_pool2d(x, 3, 1, 2, false, true, 0); }) ==
          "divisor must be not zero"); // before the window's checks, as PyTorch's
    CHECK(error_of<RuntimeError>([&] {
              adaptive_avg_pool2d(x, std::tuple{2, -2});
          }) ==
          "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
          "received {2, -2}");
    CHECK(error_of<RuntimeError>([&] { adaptive_avg_pool2d(zeros<double>(1, 0, 4), 2); }) ==
          "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
          "but input has sizes [1, 0, 4] with dimension 1 being empty");
    // traced, the same checks run when the graph does
    CHECK(error_of<RuntimeError>([&] { jit([](auto v) { return max_pool2d(v, 3); })(x); }) ==
          "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
    // what PyTorch accepts: an empty batch, and a 1 x 1 adaptive output of an empty plane (its
    // mean: NaN)
    CHECK(max_pool2d(zeros<double>(0, 1, 2, 2), 2).sizes() ==
          std::array<std::int64_t, 4>{0, 1, 1, 1});
    CHECK(std::isnan(adaptive_avg_pool2d(zeros<double>(1, 0, 4), 1).item()));
}

namespace {
/// A plain loop for max_pool2d (dilation 1) or avg_pool2d (count_include_pad) of a contiguous
/// [P, H, W] view: what the kernels must give, bit for bit.
template <bool Max>
std::vector<float> naive_pool(const std::vector<float>& in, std::int64_t planes, std::int64_t h,
                              std::int64_t w, std::int64_t k, std::int64_t s, std::int64_t p) {
    const std::int64_t oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
    std::vector<float> out;
    for (std::int64_t c = 0; c < planes; ++c)
        for (std::int64_t i = 0; i < oh; ++i)
            for (std::int64_t j = 0; j < ow; ++j) {
                float m = -std::numeric_limits<float>::infinity(), sum = 0;
                for (std::int64_t a = i * s - p; a < i * s - p + k; ++a)
                    for (std::int64_t b = j * s - p; b < j * s - p + k; ++b)
                        if (a >= 0 && a < h && b >= 0 && b < w) {
                            const float v = in[static_cast<std::size_t>((c * h + a) * w + b)];
                            m = v > m ? v : m;
                            sum += v;
                        }
                out.push_back(Max ? m : sum / static_cast<float>(k * k));
            }
    return out;
}
} // namespace

TEST_CASE("large inputs (threaded, vectorised rows) agree with plain loops bit for bit") {
    Generator gen(5);
    const auto x = rand<float>(std::int64_t{64}, 6_c, 28_c, 28_c, gen);
    const std::vector<float> xs(x.data(), x.data() + x.numel());
    auto as_floats = [](const auto& t) {
        return std::vector<float>(t.data(), t.data() + t.numel());
    };
    CHECK(as_floats(max_pool2d(x, 2_c)) == naive_pool<true>(xs, 64 * 6, 28, 28, 2, 2, 0));
    CHECK(as_floats(max_pool2d(x, 3_c, 1_c, 1_c)) == naive_pool<true>(xs, 64 * 6, 28, 28, 3, 1, 1));
    CHECK(as_floats(avg_pool2d(x, 2_c)) == naive_pool<false>(xs, 64 * 6, 28, 28, 2, 2, 0));
    CHECK(as_floats(avg_pool2d(x, 3_c, 2_c, 1_c)) ==
          naive_pool<false>(xs, 64 * 6, 28, 28, 3, 2, 1));
    // a non-contiguous input: the same numbers
    const auto xt = x.transpose(2_c, 3_c);
    CHECK(flat(max_pool2d(xt, 2_c)) == flat(max_pool2d(xt.contiguous(), 2_c)));
}

TEST_CASE("pooling modules: nn::MaxPool2d, nn::AvgPool2d, nn::AdaptiveAvgPool2d, "
          "nn::functional") {
    nn::Sequential model(nn::MaxPool2d<3, 1, 1>{}, nn::AvgPool2d<3, 2, 1, true, false>{},
                         nn::AdaptiveAvgPool2d<2, 1>{});
    STATIC_REQUIRE(decltype(model.parameters())::size() == 0); // no parameters
    const auto y = model(X);
    STATIC_REQUIRE(std::is_same_v<decltype(y)::shape_type, static_shape<2, 3, 2, 1>>);
    const auto want = adaptive_avg_pool2d(
        avg_pool2d(max_pool2d(X, 3_c, 1_c, 1_c), 3_c, 2_c, 1_c, True, false), std::tuple{2_c, 1_c});
    CHECK(flat(y) == flat(want));
    CHECK(flat(jit([&](auto v) { return model(v); })(X)) == flat(want));
    CHECK(flat(nn::AvgPool2d<2, 1, 0, false, true, 3>{}(X)) ==
          flat(nn::functional::avg_pool2d(X, 2_c, 1_c, 0_c, False, true, 3)));
    CHECK(flat(nn::functional::max_pool2d(X, 2_c)) == flat(max_pool2d(X, 2_c)));
    CHECK(flat(nn::functional::adaptive_avg_pool2d(X, 2_c)) == flat(adaptive_avg_pool2d(X, 2_c)));
}

TEST_CASE("jit(value_and_grad(loss)) through relu, max_pool2d and avg_pool2d agrees with the "
          "tape") {
    const auto x = random_tensor(12, -1, 1, 4_c, 2_c, 8_c, 8_c);
    const auto w = random_tensor(13, -1, 1, 4_c, 2_c, 2_c, 2_c);
    auto loss = [w](auto in) { return (avg_pool2d(max_pool2d(relu(in), 2_c), 2_c) * w).sum(); };
    auto step = jit(value_and_grad(loss));
    const auto [value, dx] = step(x);
    CHECK(value.item() == Approx(loss(x).item()).epsilon(1e-12));
    require_matches(flat(dx), flat(tape_gradient(loss, x)));
    require_close(dx, numeric_gradient<0>(loss, x));
    const std::string ir = dump(step, x);
    INFO(ir);
    // relu fuses into the loop that materialises max_pool2d's operand; the pooling ops are nodes
    // with their windows
    CHECK(ir.find("max_pool2d(") != std::string::npos);
    CHECK(ir.find("kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1], "
                  "ceil_mode=False") != std::string::npos);
    CHECK(ir.find("count_include_pad=True, divisor_override=None") != std::string::npos);
    CHECK(ir.find("max_pool2d_backward(") != std::string::npos);
    CHECK(ir.find("avg_pool2d_backward(") != std::string::npos);
}
