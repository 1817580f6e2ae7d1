// nn::utils::clip_grad_norm_ and clip_grad_value_ against PyTorch 1.13 (norm types 2, 1, inf,
// -inf, 0 and others; tests/nn/reference/clip_grad_reference.txt, written by make_reference.py),
// over every kind of gradient container, strided, float and double; their errors.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers.hpp>
#include <staticpy/nn/clip_grad.hpp>
#include <staticpy/tensor.hpp>

#include "../test_errors.hpp"
#include "reference/reference.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace utils = staticpy::nn::utils;
using test_errors::error_of;

namespace {

const auto& references() {
    static const auto records = reference::read("clip_grad_reference.txt");
    return records;
}

/// make_reference.py's gradients: grad[k] = 3 sin(1.7 k + 0.25 + offset), w [3, 4] (offset 0),
/// b [4] (offset 1).
template <class T = double>
auto gradient_w() {
    auto w = zeros<T>(3_c, 4_c);
    for (int k = 0; k < 12; ++k)
        w.data()[k] = static_cast<T>(3.0 * std::sin(1.7 * k + 0.25 + 0.0));
    return w;
}
template <class T = double>
auto gradient_b() {
    auto b = zeros<T>(4);
    for (int k = 0; k < 4; ++k)
        b.data()[k] = static_cast<T>(3.0 * std::sin(1.7 * k + 0.25 + 1.0));
    return b;
}

template <class T, class S>
std::vector<double> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

constexpr double inf = std::numeric_limits<double>::infinity();

} // namespace

TEST_CASE("clip_grad_norm_ and clip_grad_value_ match PyTorch 1.13", "[nn][clip_grad]") {
    struct norm_case {
        std::string name;
        double max_norm, norm_type;
    };
    const std::vector<norm_case> cases = {
        {"clip_grad_norm_(max_norm=1.0)", 1.0, 2.0},
        {"clip_grad_norm_(max_norm=1.0,norm_type=1.0)", 1.0, 1.0},
        {"clip_grad_norm_(max_norm=1.0,norm_type=inf)", 1.0, inf},
        {"clip_grad_norm_(max_norm=100.0)", 100.0, 2.0},
        {"clip_grad_norm_(max_norm=0.5,norm_type=3.0)", 0.5, 3.0},
        {"clip_grad_norm_(max_norm=2.0,norm_type=0.5)", 2.0, 0.5},
        {"clip_grad_norm_(max_norm=0.1,norm_type=-inf)", 0.1, -inf},
        {"clip_grad_norm_(max_norm=1.0,norm_type=0.0)", 1.0, 0.0},
    };
    double worst = 0;
    for (const auto& c : cases) {
        INFO(c.name);
        auto w = gradient_w();
        auto b = gradient_b();
        const auto total =
            utils::clip_grad_norm_(dict("w"_s = w, "b"_s = b), c.max_norm, c.norm_type);
        static_assert(
            std::is_same_v<std::remove_const_t<decltype(total)>, Tensor<double, shape<>>>);
        REQUIRE(references().count(c.name + "/total_norm") == 1);
        const double d = std::max(
            {reference::max_relative_difference(references().at(c.name + "/total_norm"),
                                                {total.item()}),
             reference::max_relative_difference(references().at(c.name + "/w"), values(w)),
             reference::max_relative_difference(references().at(c.name + "/b"), values(b))});
        CHECK(d <= reference::tolerance);
        worst = std::max(worst, d);
    }
    auto w = gradient_w();
    auto b = gradient_b();
    utils::clip_grad_value_(std::tuple(w, b), 0.3);
    const double d =
        std::max(reference::max_relative_difference(
                     references().at("clip_grad_value_(clip_value=0.3)/w"), values(w)),
                 reference::max_relative_difference(
                     references().at("clip_grad_value_(clip_value=0.3)/b"), values(b)));
    CHECK(d <= reference::tolerance);
    worst = std::max(worst, d);
    CAPTURE(worst); // shown with -s: the largest relative difference from PyTorch
    CHECK(worst <= reference::tolerance);
    CHECK(references().size() == 3 * cases.size() + 2); // every record of the file is used
}

TEST_CASE("clip_grad_norm_: every container, strided, float, skipped gradients",
          "[nn][clip_grad]") {
    const auto& expected_w = references().at("clip_grad_norm_(max_norm=1.0)/w");
    const auto& expected_total = references().at("clip_grad_norm_(max_norm=1.0)/total_norm");
    SECTION("a single tensor, a list, nested, with None and undefined gradients") {
        auto w = gradient_w();
        auto b = gradient_b();
        auto alone = gradient_w();
        (void)utils::clip_grad_norm_(alone, 1.0);
        CHECK(std::abs(utils::clip_grad_norm_(alone, 1.0).item() - 1.0) < 1e-5); // now clipped
        const auto total = utils::clip_grad_norm_(
            dict("layer"_s = list(w, None), "bias"_s = std::tuple(b, Tensor<double>())), 1.0);
        CHECK(reference::max_relative_difference(expected_total, {total.item()}) <=
              reference::tolerance);
        CHECK(reference::max_relative_difference(expected_w, values(w)) <= reference::tolerance);
    }
    SECTION("a strided gradient is clipped in its own storage") {
        auto storage = gradient_w().t().contiguous(); // [4, 3]
        auto w = storage.t();                         // w's values, strided
        auto b = gradient_b();
        const auto total = utils::clip_grad_norm_(std::tuple(w, b), 1.0);
        CHECK(reference::max_relative_difference(expected_total, {total.item()}) <=
              reference::tolerance);
        CHECK(reference::max_relative_difference(expected_w, values(w)) <= reference::tolerance);
        CHECK(storage(0, 1) == w(1, 0));
    }
    SECTION("float gradients give a float norm; float and double together a double one") {
        auto wf = gradient_w<float>();
        auto bf = gradient_b<float>();
        const auto total = utils::clip_grad_norm_(std::tuple(wf, bf), 1.0);
        static_assert(std::is_same_v<std::remove_const_t<decltype(total)>, Tensor<float, shape<>>>);
        CHECK(std::abs(total.item() - expected_total[0]) <= 1e-5 * expected_total[0]);
        for (std::size_t k = 0; k < expected_w.size(); ++k)
            CHECK(std::abs(wf.data()[k] - expected_w[k]) <= 1e-5);
        const auto mixed =
            utils::clip_grad_norm_(std::tuple(gradient_w<float>(), gradient_b()), 1.0);
        static_assert(
            std::is_same_v<std::remove_const_t<decltype(mixed)>, Tensor<double, shape<>>>);
        CHECK(std::abs(mixed.item() - expected_total[0]) <= 1e-6 * expected_total[0]);
    }
    SECTION("no gradient at all: a total norm of 0, as PyTorch's torch.tensor(0.)") {
        const auto total = utils::clip_grad_norm_(std::tuple(None, Tensor<double>()), 1.0);
        CHECK(total.item() == 0.0);
        static_assert(std::is_same_v<
                      std::remove_const_t<decltype(utils::clip_grad_norm_(std::tuple(None), 1.0))>,
                      Tensor<float, shape<>>>);
    }
}

TEST_CASE("clip_grad_norm_: a non-finite total norm", "[nn][clip_grad]") {
    auto w = gradient_w();
    w(1, 1) = NAN;
    CHECK(error_of<RuntimeError>([&] { (void)utils::clip_grad_norm_(w, 1.0, 2.0, true); }) ==
          "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot "
          "be clipped. To disable this error and scale the gradients by the non-finite norm "
          "anyway, set `error_if_nonfinite=False`");
    // The inf norm of huge finite values is finite; their 2-norm overflows (1e308^2).
    auto huge = full<double>(shape(2_c), 1e308);
    CHECK(error_of<RuntimeError>([&] { (void)utils::clip_grad_norm_(huge, 1.0, inf, true); }) ==
          "<no exception>");
    auto huge_again = full<double>(shape(2_c), 1e308); // (the call above clipped huge)
    CHECK(error_of<RuntimeError>([&] {
              (void)utils::clip_grad_norm_(huge_again, 1.0, 2.0, true);
          }).starts_with("The total norm of order 2.0 for gradients"));
    CHECK(huge_again(0) == 1e308); // not clipped
    // Without error_if_nonfinite, the gradients are scaled by the NaN, as in PyTorch.
    CHECK(std::isnan(utils::clip_grad_norm_(w, 1.0).item()));
    CHECK(std::isnan(w(0, 0)));
}

TEST_CASE("clip_grad_value_: clamps in place, NaN stays NaN", "[nn][clip_grad]") {
    auto g = tensor<float>({-2.0f, -0.5f, 0.0f, 0.25f, 3.0f, NAN, INFINITY});
    auto storage = zeros<float>(14);
    auto strided = storage[slice(None, None, 2_c)];
    strided.copy_(g);
    utils::clip_grad_value_(list(g, strided), 0.5);
    const std::vector<double> expected = {-0.5, -0.5, 0.0, 0.25, 0.5, NAN, 0.5};
    CHECK(reference::max_relative_difference(expected, values(g)) == 0);
    CHECK(reference::max_relative_difference(expected, values(strided)) == 0);
    CHECK(storage(12) == 0.5f); // inf, clamped in the caller's storage
}
