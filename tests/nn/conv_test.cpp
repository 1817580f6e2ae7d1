// conv2d and nn::Conv2d against PyTorch 1.13 (reference/conv_reference.txt, written by
// reference/make_conv_reference.py in float64): values, the gradients of x, w and b in both modes,
// a second derivative through the backward convolution, PyTorch's errors, and the layers.

#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/grad.hpp>
#include <staticpy/jit.hpp>
#include <staticpy/nn.hpp>
#include <staticpy/nn/conv.hpp>
#include <staticpy/staticpy.hpp>

#include "../autodiff/autodiff_test_support.hpp"
#include "../test_errors.hpp"
#include "reference/reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using autodiff_test::mode_guard;
using autodiff_test::require_close;
using test_errors::error_of;

namespace {

const std::vector<double>& record(const std::string& name) {
    static const auto records = reference::read("conv_reference.txt");
    const auto found = records.find(name);
    if (found == records.end())
        throw std::runtime_error("no reference record " + name);
    return found->second;
}

/// The reference record `name` as a double tensor of the given extents.
template <class... E>
auto tensor_of(const std::string& name, E... extents) {
    auto t = zeros<double>(extents...);
    const auto& values = record(name);
    REQUIRE(static_cast<std::int64_t>(values.size()) == t.numel());
    for (std::int64_t i = 0; i < t.numel(); ++i)
        t.data()[i] = values[static_cast<std::size_t>(i)];
    return t;
}

/// conv2d with the case's arguments a... agrees with PyTorch: the value eagerly, the gradients of
/// sum(y * g) for x, w and b in both modes, and, with SecondOrder, the gradient for w of
/// sum(dx * dx) on the tape.
template <bool SecondOrder = false, class X, class W, class B, class... A>
void check_case(const std::string& name, const X& x, const W& w, const B& b, const A&... a) {
    INFO("case " << name);
    const auto y = conv2d(x, w, b, a...);
    require_close(y, record(name + "/y"), 1e-12);
    const auto g = tensor_of(name + "/g", y.shape());
    const auto f = [&](const auto& xv, const auto& wv, const auto& bv) {
        return (conv2d(xv, wv, bv, a...) * g).sum();
    };
    const mode_guard restore;
    for (int mode : {GRAPH_MODE, PYNATIVE_MODE}) {
        INFO((mode == GRAPH_MODE ? "GRAPH_MODE" : "PYNATIVE_MODE"));
        set_context(mode);
        const auto [dx, dw, db] = grad(f, std::tuple{0_c, 1_c, 2_c})(x, w, b);
        require_close(dx, record(name + "/dx"), 1e-10);
        require_close(dw, record(name + "/dw"), 1e-10);
        require_close(db, record(name + "/db"), 1e-10);
    }
    if constexpr (SecondOrder) {
        // on the tape (the loop above left PYNATIVE_MODE on)
        const auto ddw = grad(
            [&](const auto& xv, const auto& wv) {
                const auto dx = grad(f)(xv, wv, b);
                return (dx * dx).sum();
            },
            1_c)(x, w);
        require_close(ddw, record(name + "/ddw"), 1e-10);
    }
}

} // namespace

TEST_CASE("conv2d agrees with PyTorch: values, gradients, a second derivative", "[nn][conv]") {
    {
        // compile-time sizes: the result's are compile-time too
        const auto x = tensor_of("plain/x", 2_c, 3_c, 7_c, 6_c);
        const auto w = tensor_of("plain/w", 4_c, 3_c, 3_c, 3_c);
        const auto b = tensor_of("plain/b", 4_c);
        static_assert(std::is_same_v<typename decltype(conv2d(x, w, b))::shape_type,
                                     shape<int_<2>, int_<4>, int_<5>, int_<4>>>);
        check_case<true>("plain", x, w, b);
    }
    {
        const auto x = tensor_of("stride2_pad1/x", 2_c, 3_c, 7_c, 6_c);
        const auto w = tensor_of("stride2_pad1/w", 4_c, 3_c, 3_c, 3_c);
        const auto b = tensor_of("stride2_pad1/b", 4_c);
        static_assert(std::is_same_v<typename decltype(conv2d(x, w, b, 2_c, 1_c))::shape_type,
                                     shape<int_<2>, int_<4>, int_<4>, int_<3>>>);
        check_case("stride2_pad1", x, w, b, 2_c, 1_c);
    }
    {
        // run-time sizes and numbers, a different stride, padding and dilation per dim
        const auto x = tensor_of("mixed/x", 2, 3, 9, 8);
        const auto w = tensor_of("mixed/w", 4, 3, 3, 2);
        const auto b = tensor_of("mixed/b", 4);
        check_case("mixed", x, w, b, std::tuple{2, 1}, std::pair{1, 2}, std::tuple{2, 1});
    }
    {
        const auto x = tensor_of("groups/x", 2, 4, 6, 5);
        const auto w = tensor_of("groups/w", 6, 2, 3, 3);
        const auto b = tensor_of("groups/b", 6);
        check_case("groups", x, w, b, 1, 1, 1, 2);
    }
    {
        const auto x = tensor_of("depthwise/x", 1, 3, 5, 5);
        const auto w = tensor_of("depthwise/w", 3, 1, 3, 3);
        const auto b = tensor_of("depthwise/b", 3);
        check_case("depthwise", x, w, b, 1, 1, 1, 3);
    }
    {
        const auto x = tensor_of("pointwise/x", 3, 5, 4, 4);
        const auto w = tensor_of("pointwise/w", 2, 5, 1, 1);
        const auto b = tensor_of("pointwise/b", 2);
        check_case("pointwise", x, w, b, 1, 0, 1, 1); // the groups case's types
    }
    {
        const auto x = tensor_of("unbatched/x", 3_c, 6_c, 6_c);
        const auto w = tensor_of("unbatched/w", 2_c, 3_c, 5_c, 5_c);
        const auto b = tensor_of("unbatched/b", 2_c);
        static_assert(std::is_same_v<typename decltype(conv2d(x, w, b, 1_c, 2_c))::shape_type,
                                     shape<int_<2>, int_<6>, int_<6>>>);
        check_case("unbatched", x, w, b, 1_c, 2_c);
    }
    {
        // padding="same": the output is as large as the input; the kernel's 4 rows pad 1 above
        // and 2 below (PyTorch's asymmetric padding), its 3 columns dilated by 2 pad 2 each side
        const auto x = tensor_of("same_even/x", 2_c, 3_c, 7_c, 6_c);
        const auto w = tensor_of("same_even/w", 4_c, 3_c, 4_c, 3_c);
        const auto b = tensor_of("same_even/b", 4_c);
        static_assert(std::is_same_v<typename decltype(conv2d(x, w, b, 1_c, "same"_s,
                                                              std::tuple{1_c, 2_c}))::shape_type,
                                     shape<int_<2>, int_<4>, int_<7>, int_<6>>>);
        check_case<true>("same_even", x, w, b, 1_c, "same"_s, std::tuple{1_c, 2_c});
    }
    {
        const auto x = tensor_of("same_odd/x", 1, 2, 5, 4);
        const auto w = tensor_of("same_odd/w", 3, 2, 3, 3);
        const auto b = tensor_of("same_odd/b", 3);
        check_case("same_odd", x, w, b, 1, "same"_s);
    }
    {
        const auto x = tensor_of("valid/x", 1_c, 2_c, 5_c, 6_c);
        const auto w = tensor_of("valid/w", 3_c, 2_c, 2_c, 3_c);
        const auto b = tensor_of("valid/b", 3_c);
        static_assert(std::is_same_v<typename decltype(conv2d(x, w, b, 1_c, "valid"_s))::shape_type,
                                     shape<int_<1>, int_<3>, int_<4>, int_<4>>>);
        check_case("valid", x, w, b, 1_c, "valid"_s);
    }
}

TEST_CASE("conv2d without a bias, on a transposed input, in float", "[nn][conv]") {
    const auto x = tensor_of("plain/x", 2, 3, 7, 6);
    const auto w = tensor_of("plain/w", 4, 3, 3, 3);
    const auto b = tensor_of("plain/b", 4);
    const auto want = conv2d(x, w, b);
    // no bias: the same less b
    const auto no_bias = conv2d(x, w);
    require_close(no_bias + b.reshape(1, 4, 1, 1), autodiff_test::flat(want), 1e-12);
    // a non-contiguous input gives the same numbers
    const auto xt = x.transpose(2_c, 3_c).contiguous().transpose(2_c, 3_c);
    REQUIRE(!xt.is_contiguous());
    require_close(conv2d(xt, w, b), autodiff_test::flat(want), 1e-12);
    // float: the same within float's precision
    const auto yf = conv2d(x.to<float>(), w.to<float>(), b.to<float>());
    require_close(yf, autodiff_test::flat(want), 1e-5);
}

TEST_CASE("conv2d's run-time errors are PyTorch's", "[nn][conv]") {
    const auto x = zeros<float>(2, 3, 8, 8);
    CHECK(error_of<RuntimeError>([&] { conv2d(x, zeros<float>(6, 1, 5, 5)); }) ==
          "Given groups=1, weight of size [6, 1, 5, 5], expected input[2, 3, 8, 8] to have 1 "
          "channels, but got 3 channels instead");
    CHECK(error_of<RuntimeError>([&] { conv2d(x, zeros<float>(5, 1, 5, 5), None, 1, 0, 1, 3); }) ==
          "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got "
          "weight of size [[5, 1, 5, 5]] instead");
    CHECK(error_of<RuntimeError>([&] { conv2d(x, zeros<float>(6, 3, 5, 5), zeros<float>(5)); }) ==
          "Given weight of size [6, 3, 5, 5], expected bias to be 1-dimensional with 6 elements, "
          "but got bias of size [5] instead");
    CHECK(error_of<RuntimeError>([&] { conv2d(x, zeros<float>(6, 3, 9, 9)); }) ==
          "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel size "
          "can't be greater than actual input size");
    const auto w = zeros<float>(6, 3, 5, 5);
    CHECK(error_of<RuntimeError>([&] { conv2d(x, w, None, 0); }) ==
          "non-positive stride is not supported");
    CHECK(error_of<RuntimeError>([&] { conv2d(x, w, None, 1, -1); }) ==
          "negative padding is not supported");
    CHECK(error_of<RuntimeError>([&] { conv2d(x, w, None, 1, 0, 0); }) ==
          "non-positive dilation is not supported");
    CHECK(error_of<RuntimeError>([&] { conv2d(x, w, None, 1, 0, 1, 0); }) ==
          "non-positive groups is not supported");
    CHECK(error_of<RuntimeError>([&] {
              conv2d(x, w, None, std::tuple{1, 2}, "same"_s);
          }) == "padding='same' is not supported for strided convolutions");
    // the same checks in graph mode
    CHECK(error_of<RuntimeError>([&] {
              jit([](auto v, auto k) { return conv2d(v, k); })(x, zeros<float>(6, 1, 5, 5));
          }) == "Given groups=1, weight of size [6, 1, 5, 5], expected input[2, 3, 8, 8] to have "
                "1 channels, but got 3 channels instead");
    // an empty batch is no error
    CHECK(conv2d(zeros<float>(0, 3, 8, 8), w).numel() == 0);
}

TEST_CASE("conv2d in graph mode: the elementwise work on its result runs in its epilogue",
          "[nn][conv]") {
    const mode_guard restore;
    set_context(GRAPH_MODE);
    Generator gen(11);
    // Both paths of the forward: stride 1 with one input channel reads the padded input in place
    // (runs of one output row), stride 2 goes through im2col (runs of whole planes).
    const auto x = randn(std::int64_t{3}, 1_c, 12_c, 12_c, gen);
    const auto w = randn(4_c, 1_c, 3_c, 3_c, gen);
    const auto b = randn(4_c, gen);
    const auto x3 = randn(std::int64_t{2}, 3_c, 11_c, 11_c, gen);
    const auto w3 = randn(5_c, 3_c, 3_c, 3_c, gen);
    const auto b3 = randn(5_c, gen);

    // relu(conv2d(x, w, b)): one pass, the same values as eagerly, bit for bit
    const auto act = jit([](auto v, auto k, auto c) { return relu(conv2d(v, k, c, 1_c, 1_c)); });
    CHECK(dump(act, x, w, b).find("(epilogue of conv2d %3)") != std::string::npos);
    require_close(act(x, w, b), autodiff_test::flat(relu(conv2d(x, w, b, 1_c, 1_c))), 0.0);
    const auto act2 =
        jit([](auto v, auto k, auto c) { return sigmoid(conv2d(v, k, c, 2_c) * 2.0f + 1.0f); });
    CHECK(dump(act2, x3, w3, b3).find("(epilogue of conv2d") != std::string::npos);
    require_close(act2(x3, w3, b3),
                  autodiff_test::flat(sigmoid(conv2d(x3, w3, b3, 2_c) * 2.0f + 1.0f)), 0.0);

    // operands that step differently through a plane's rows: along the width only, along the
    // height only, and a residual of the result's size (to an ulp: the runs are cut elsewhere
    // than eagerly, and a run's tail takes tanh's scalar path)
    const auto along_w = randn(12_c, gen);
    const auto along_h = randn(12_c, 1_c, gen);
    const auto residual = randn(std::int64_t{3}, 4_c, 12_c, 12_c, gen);
    const auto mixed = jit([](auto v, auto k, auto rw, auto rh, auto z) {
        return tanh(conv2d(v, k, None, 1_c, 1_c) + rw) * rh + z;
    });
    CHECK(dump(mixed, x, w, along_w, along_h, residual).find("(epilogue of conv2d") !=
          std::string::npos);
    require_close(
        mixed(x, w, along_w, along_h, residual),
        autodiff_test::flat(tanh(conv2d(x, w, None, 1_c, 1_c) + along_w) * along_h + residual),
        1e-6);

    // unbatched, and a batch of one broadcast to three by another operand (no epilogue: the
    // output is larger than the convolution's result)
    const auto unbatched = jit([](auto v, auto k, auto c) { return relu(conv2d(v, k, c)); });
    const auto x1 = x3[0];
    require_close(unbatched(x1, w3, b3), autodiff_test::flat(relu(conv2d(x1, w3, b3))), 0.0);
    const auto one = randn(std::int64_t{1}, 1_c, 12_c, 12_c, gen);
    require_close(
        mixed(one, w, along_w, along_h, residual),
        autodiff_test::flat(tanh(conv2d(one, w, None, 1_c, 1_c) + along_w) * along_h + residual),
        1e-6);

    // read by two kernels: computed on its own
    const auto twice = jit([](auto v, auto k) {
        const auto c = conv2d(v, k);
        return std::tuple(relu(c), c * 2.0f);
    });
    CHECK(dump(twice, x, w).find("epilogue") == std::string::npos);
    const auto [r, d] = twice(x, w);
    require_close(r, autodiff_test::flat(relu(conv2d(x, w))), 0.0);
    require_close(d, autodiff_test::flat(conv2d(x, w) * 2.0f), 0.0);

    // relu(conv2d) read by max_pool2d and by another kernel (a training step's mask): the ReLU's
    // result is stored once and the mask reads it, so the convolution keeps its one reader and
    // runs the ReLU in its epilogue
    const auto pooled_and_mask = jit([](auto v, auto k, auto c) {
        const auto a = relu(conv2d(v, k, c, 1_c, 1_c));
        return std::tuple(max_pool2d(a, 2_c), where(a <= 0_c, 0_c, a * 3.0f));
    });
    const std::string ir = dump(pooled_and_mask, x, w, b);
    CHECK(ir.find("# kernel 0: fused %4 -> %4 (epilogue of conv2d %3)") != std::string::npos);
    CHECK(ir.find("# kernel 1: fused %6 %7 %8 %9 %10 -> %10") != std::string::npos);
    CHECK(ir.find("# kernel 2") == std::string::npos);
    const auto [pooled, mask] = pooled_and_mask(x, w, b);
    const auto a = relu(conv2d(x, w, b, 1_c, 1_c));
    require_close(pooled, autodiff_test::flat(max_pool2d(a, 2_c)), 0.0);
    require_close(mask, autodiff_test::flat(where(a <= 0_c, 0_c, a * 3.0f)), 0.0);

    // into(): a transposed output (the convolution writes a buffer of its own first), and an
    // operand's own memory (z = conv2d(x, w) + z, the same view)
    auto wide = zeros<float>(4_c, std::int64_t{3}, 12_c, 12_c);
    auto out = wide.transpose(0_c, 1_c);
    act.into(out, x, w, b);
    require_close(out, autodiff_test::flat(relu(conv2d(x, w, b, 1_c, 1_c))), 0.0);
    auto z = residual.clone();
    jit([](auto v, auto k, auto acc) {
        return conv2d(v, k, None, 1_c, 1_c) + acc;
    }).into(z, x, w, z);
    require_close(z, autodiff_test::flat(conv2d(x, w, None, 1_c, 1_c) + residual), 0.0);

    // the convolution's checks come first, as eagerly
    CHECK(error_of<RuntimeError>([&] { act(x, w, randn(std::int64_t{5}, gen)); }) ==
          "Given weight of size [4, 1, 3, 3], expected bias to be 1-dimensional with 4 elements, "
          "but got bias of size [5] instead");
}

TEST_CASE("nn::Conv2d: PyTorch's parameters and initialisation, and a LeNet-5 eagerly and traced",
          "[nn][conv]") {
    Generator gen(7);
    nn::Conv2d<4, 6, 3, 1, 1, 1, 2> conv(gen);
    static_assert(std::is_same_v<typename decltype(conv.weight)::shape_type,
                                 shape<int_<6>, int_<2>, int_<3>, int_<3>>>);
    const auto params = conv.parameters();
    CHECK(repr(params.keys()) == "['weight', 'bias']");
    const double bound = 1.0 / std::sqrt(2.0 * 3 * 3); // fan_in = in / groups * k * k
    for (double v : autodiff_test::flat(conv.weight))
        CHECK(std::abs(v) <= bound);
    for (double v : autodiff_test::flat(conv.bias))
        CHECK(std::abs(v) <= bound);

    nn::Sequential lenet(nn::Conv2d<1, 6, 5, 1, 2>{gen}, nn::ReLU{}, nn::Conv2d<6, 16, 5, 2>{gen},
                         nn::ReLU{}, nn::Flatten{}, nn::Linear<16 * 12 * 12, 10>{gen});
    CHECK(repr(lenet.parameters().keys()) ==
          "['0.weight', '0.bias', '2.weight', '2.bias', '5.weight', '5.bias']");
    auto x = zeros<float>(std::int64_t{3}, 1_c, 28_c, 28_c);
    for (std::int64_t i = 0; i < x.numel(); ++i)
        x.data()[i] = static_cast<float>(std::sin(0.37 * static_cast<double>(i)));
    const auto eager = lenet(x);
    static_assert(
        std::is_same_v<typename decltype(eager)::shape_type, shape<std::int64_t, int_<10>>>);
    const auto traced = jit([&](const auto& v) { return lenet(v); })(x);
    require_close(traced, autodiff_test::flat(eager), 1e-6);

    // Non-square kernels, strides and paddings as std::array{h, w}; padding "same"
    nn::Conv2d<2, 3, std::array{3, 5}, 1, "same"_s, std::array{2, 1}> same(gen);
    static_assert(std::is_same_v<typename decltype(same.weight)::shape_type,
                                 shape<int_<3>, int_<2>, int_<3>, int_<5>>>);
    static_assert(decltype(same)::kernel_size == std::array<std::int64_t, 2>{3, 5} &&
                  decltype(same)::dilation == std::array<std::int64_t, 2>{2, 1});
    nn::Conv2d<2, 3, std::array{3, 5}, std::array{2, 1}, std::array{1, 2}, 1, 1, false> wide(gen);
    static_assert(decltype(wide)::stride == std::array<std::int64_t, 2>{2, 1});
    auto small = zeros<float>(std::int64_t{3}, 2_c, 14_c, 56_c);
    for (std::int64_t i = 0; i < small.numel(); ++i)
        small.data()[i] = static_cast<float>(std::cos(0.21 * static_cast<double>(i)));
    const auto y_same = same(small);
    static_assert(std::is_same_v<typename decltype(y_same)::shape_type,
                                 shape<std::int64_t, int_<3>, int_<14>, int_<56>>>);
    require_close(
        y_same,
        autodiff_test::flat(conv2d(small, same.weight, same.bias, 1, "same"_s, std::tuple{2, 1})),
        1e-6);
    const auto y_wide = wide(small);
    static_assert(std::is_same_v<typename decltype(y_wide)::shape_type,
                                 shape<std::int64_t, int_<3>, int_<7>, int_<56>>>);
    require_close(
        y_wide,
        autodiff_test::flat(conv2d(small, wide.weight, None, std::tuple{2, 1}, std::tuple{1, 2})),
        1e-6);

    // the pooling layers' non-square windows: (2, 1) halves H only, (1, 2) W only
    const auto pooled = nn::MaxPool2d<std::array{2, 1}>{}(y_same);
    static_assert(std::is_same_v<typename decltype(pooled)::shape_type,
                                 shape<std::int64_t, int_<3>, int_<7>, int_<56>>>);
    require_close(pooled, autodiff_test::flat(max_pool2d(y_same, std::tuple{2, 1})), 0.0);
    const auto averaged = nn::AvgPool2d<std::array{1, 2}>{}(y_same);
    static_assert(std::is_same_v<typename decltype(averaged)::shape_type,
                                 shape<std::int64_t, int_<3>, int_<14>, int_<28>>>);
    require_close(averaged, autodiff_test::flat(avg_pool2d(y_same, std::tuple{1, 2})), 0.0);

    // (A LeNet's graph-mode gradient costs the compiler gigabytes today: the training example
    // compiles it; this test keeps to single convolutions' gradients, above.)
}

TEST_CASE("Tensor.flatten(start_dim, end_dim) as torch.flatten", "[nn][conv]") {
    const auto x = arange(0.0F, 120.0F).reshape(2, 3_c, 4_c, 5_c);
    const auto y = x.flatten(1_c);
    static_assert(std::is_same_v<typename decltype(y)::shape_type, shape<std::int64_t, int_<60>>>);
    CHECK(y.sizes() == std::array<std::int64_t, 2>{2, 60});
    const auto z = x.flatten(1_c, 2_c);
    static_assert(
        std::is_same_v<typename decltype(z)::shape_type, shape<std::int64_t, int_<12>, int_<5>>>);
    CHECK(z[1][11][4].item() == x[1][2][3][4].item());
    const auto all = x.flatten(0_c);
    CHECK(all.sizes() == std::array<std::int64_t, 1>{120});
}
