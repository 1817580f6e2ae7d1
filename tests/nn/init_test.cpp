// nn::init (torch.nn.init, PyTorch 1.13): calculate_gain against the values PyTorch returns, the
// fan computation, the fills' exact values, each random initialiser's statistics on a large tensor
// against its formula (float and double), reproducibility from a seed (one draw per element, in
// row-major order: the same numbers as rand/randn), strided views, and every error text.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/nn/init.hpp>
#include <staticpy/tensor.hpp>

#include "../test_errors.hpp"

using namespace staticpy;
using namespace staticpy::literals;
namespace init = staticpy::nn::init;
using test_errors::error_of;

namespace {

/// The elements in row-major order, as doubles.
template <class T, class S>
std::vector<double> values(const Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

struct summary {
    double mean = 0;
    double stddev = 0; // of the population
    double min = 0;
    double max = 0;
};

template <class T, class S>
summary summarise(const Tensor<T, S>& t) {
    const auto v = values(t);
    summary s;
    for (double x : v)
        s.mean += x;
    s.mean /= static_cast<double>(v.size());
    for (double x : v)
        s.stddev += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(s.stddev / static_cast<double>(v.size()));
    s.min = *std::min_element(v.begin(), v.end());
    s.max = *std::max_element(v.begin(), v.end());
    return s;
}

/// Checks a sample of n values against a distribution of mean `mean` and standard deviation
/// `stddev`: the mean within 5 standard errors, the standard deviation within 3%.
void check_moments(const summary& s, double mean, double stddev, std::int64_t n) {
    CHECK(std::abs(s.mean - mean) <= 5 * stddev / std::sqrt(static_cast<double>(n)));
    CHECK(std::abs(s.stddev - stddev) <= 0.03 * stddev);
}

double normal_pdf(double x) {
    return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi);
}
double normal_cdf(double x) {
    return (1 + std::erf(x / std::sqrt(2.0))) / 2;
}

/// The mean and standard deviation of N(mean, stddev^2) truncated to [a, b].
std::pair<double, double> truncated_moments(double mean, double stddev, double a, double b) {
    const double alpha = (a - mean) / stddev;
    const double beta = (b - mean) / stddev;
    const double z = normal_cdf(beta) - normal_cdf(alpha);
    const double shift = (normal_pdf(alpha) - normal_pdf(beta)) / z;
    const double var =
        1 + (alpha * normal_pdf(alpha) - beta * normal_pdf(beta)) / z - shift * shift;
    return {mean + stddev * shift, stddev * std::sqrt(var)};
}

/// How many raw draws a generator has made since `seed`: the position of its next draw.
std::int64_t draws_made(Generator& gen, std::uint64_t seed) {
    const std::uint64_t next = gen.next_u64();
    Generator fresh(seed);
    for (std::int64_t k = 0; k < 1'000'000; ++k)
        if (fresh.next_u64() == next)
            return k;
    return -1;
}

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

} // namespace

TEST_CASE("calculate_gain returns PyTorch's gains", "[nn][init]") {
    for (const char* linear : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                               "conv_transpose2d", "conv_transpose3d", "sigmoid"})
        CHECK(init::calculate_gain(linear) == 1.0);
    // The values Python prints for nn.init.calculate_gain(...).
    CHECK(init::calculate_gain("tanh") == 1.6666666666666667);
    CHECK(init::calculate_gain("relu") == 1.4142135623730951);
    CHECK(init::calculate_gain("leaky_relu") == 1.4141428569978354);
    CHECK(init::calculate_gain("leaky_relu", 0.2) == 1.3867504905630728);
    CHECK(init::calculate_gain("leaky_relu", 0.2F) == Approx(1.3867504905630728).epsilon(1e-8));
    CHECK(init::calculate_gain("leaky_relu", 1) == 1.0);
    CHECK(init::calculate_gain("leaky_relu", -0.5) == 1.2649110640673518);
    CHECK(init::calculate_gain("leaky_relu", std::nullopt) == 1.4141428569978354);
    CHECK(init::calculate_gain("leaky_relu", None) == 1.4141428569978354);
    CHECK(init::calculate_gain("selu") == 0.75);
    // Every nonlinearity but leaky_relu ignores its param, a non-number too.
    CHECK(init::calculate_gain("relu", 3.0) == 1.4142135623730951);
    CHECK(init::calculate_gain("tanh", true) == 1.6666666666666667);
    CHECK(init::calculate_gain("selu", "x") == 0.75);
}

TEST_CASE("calculate_gain's errors", "[nn][init]") {
    CHECK(error_of<ValueError>([] { (void)init::calculate_gain("gelu"); }) ==
          "Unsupported nonlinearity gelu");
    CHECK(error_of<ValueError>([] { (void)init::calculate_gain("Relu"); }) ==
          "Unsupported nonlinearity Relu");
    CHECK(error_of<ValueError>([] { (void)init::calculate_gain("", 0.1); }) ==
          "Unsupported nonlinearity ");
    // bool is an int in Python, which the check refuses explicitly; a str is no number.
    CHECK(error_of<ValueError>([] { (void)init::calculate_gain("leaky_relu", true); }) ==
          "negative_slope True not a valid number");
    CHECK(error_of<ValueError>([] { (void)init::calculate_gain("leaky_relu", false); }) ==
          "negative_slope False not a valid number");
    CHECK(error_of<ValueError>([] { (void)init::calculate_gain("leaky_relu", "0.2"); }) ==
          "negative_slope 0.2 not a valid number");
    CHECK(error_of<ValueError>([] {
              (void)init::calculate_gain("leaky_relu", std::string("a"));
          }) == "negative_slope a not a valid number");
}

TEST_CASE("fan_in_and_fan_out: sizes 1 and 0 times the receptive field", "[nn][init]") {
    using init::detail::fan_in_and_fan_out;
    CHECK(fan_in_and_fan_out(empty<float>(3_c, 5_c)) ==
          std::pair<std::int64_t, std::int64_t>{5, 3});
    CHECK(fan_in_and_fan_out(empty<float>(16_c, 8_c, 3_c, 3_c)) ==
          std::pair<std::int64_t, std::int64_t>{72, 144});
    CHECK(fan_in_and_fan_out(empty<double>(4, 2, 5)) ==
          std::pair<std::int64_t, std::int64_t>{10, 20});
    CHECK(fan_in_and_fan_out(empty<std::int64_t>(4, 2, 0)) ==
          std::pair<std::int64_t, std::int64_t>{0, 0});
    // A transposed view's sizes count, not its storage's.
    CHECK(fan_in_and_fan_out(empty<float>(3_c, 5_c).t()) ==
          std::pair<std::int64_t, std::int64_t>{3, 5});

    const std::string fewer =
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions";
    CHECK(error_of<ValueError>([] { (void)fan_in_and_fan_out(empty<float>(7_c)); }) == fewer);
    CHECK(error_of<ValueError>([] { (void)fan_in_and_fan_out(empty<float>(0)); }) == fewer);
    CHECK(error_of<ValueError>([] { (void)fan_in_and_fan_out(zeros<double>()); }) == fewer);
    CHECK(error_of<ValueError>([] { init::xavier_uniform_(empty<float>(7_c)); }) == fewer);
    CHECK(error_of<ValueError>([] { init::xavier_normal_(empty<double>(7)); }) == fewer);
    CHECK(error_of<ValueError>([] { init::kaiming_uniform_(empty<float>(7_c)); }) == fewer);
    CHECK(error_of<ValueError>([] { init::kaiming_normal_(empty<float>(7_c)); }) == fewer);
}

TEST_CASE("constant_, ones_, zeros_ and eye_ write exact values", "[nn][init]") {
    auto f = empty<float>(2_c, 3_c);
    CHECK(values(init::constant_(f, 0.3)) == std::vector<double>(6, static_cast<double>(0.3F)));
    CHECK(values(f) == std::vector<double>(6, static_cast<double>(0.3F))); // f itself, in place
    CHECK(values(init::ones_(f)) == std::vector<double>(6, 1.0));
    CHECK(values(init::zeros_(f)) == std::vector<double>(6, 0.0));

    auto d = empty<double>(4);
    init::constant_(d, -2.5);
    CHECK(values(d) == std::vector<double>(4, -2.5));
    // Any element type, converted as fill_ converts: 2.7 is 2 in an integer tensor.
    auto i = empty<std::int64_t>(3_c);
    CHECK(values(init::constant_(i, 2.7)) == std::vector<double>(3, 2.0));
    CHECK(values(init::ones_(i)) == std::vector<double>(3, 1.0));

    auto wide = empty<float>(3_c, 5_c);
    init::eye_(wide);
    CHECK(values(wide) == std::vector<double>{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0});
    auto tall = full<double>(shape(4, 2), 9.0); // every element written, not only the diagonal
    init::eye_(tall);
    CHECK(values(tall) == std::vector<double>{1, 0, 0, 1, 0, 0, 0, 0});
    auto square = empty<std::int32_t>(2_c, 2_c);
    CHECK(values(init::eye_(square)) == std::vector<double>{1, 0, 0, 1});
    auto no_rows = empty<float>(0, 3);
    CHECK(init::eye_(no_rows).numel() == 0);

    const std::string only_2d = "Only tensors with 2 dimensions are supported";
    CHECK(error_of<ValueError>([] { init::eye_(empty<float>(3_c)); }) == only_2d);
    CHECK(error_of<ValueError>([] { init::eye_(empty<float>(2_c, 2_c, 2_c)); }) == only_2d);
    CHECK(error_of<ValueError>([] { init::eye_(zeros<double>()); }) == only_2d);
}

TEST_CASE("fills of strided views write the view's elements only", "[nn][init]") {
    auto w = full<float>(shape(3_c, 4_c), 5.F);
    init::eye_(w.t()); // 4 x 3 view: ones at (j, j) of the view, i.e. (j, j) of w
    CHECK(values(w) == std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0});

    auto m = zeros<double>(3, 5);
    init::constant_(m.slice(1, 1, 3), 7.0); // columns 1 and 2
    CHECK(values(m) == std::vector<double>{0, 7, 7, 0, 0, 0, 7, 7, 0, 0, 0, 7, 7, 0, 0});
    init::ones_(m[2]); // a row
    CHECK(values(m) == std::vector<double>{0, 7, 7, 0, 0, 0, 7, 7, 0, 0, 1, 1, 1, 1, 1});
}

TEST_CASE("uniform_ is U(a, b), float and double", "[nn][init]") {
    Generator gen(1);
    auto f = empty<float>(200_c, 300_c);
    init::uniform_(f, -0.5, 1.5, gen);
    auto s = summarise(f);
    check_moments(s, 0.5, 2.0 / std::sqrt(12.0), f.numel());
    CHECK(s.min >= -0.5);
    CHECK(s.max < 1.5);
    CHECK(s.min < -0.49);
    CHECK(s.max > 1.49);

    auto d = empty<double>(200, 300);
    init::uniform_(d, 3.0, 4.0, gen);
    s = summarise(d);
    check_moments(s, 3.5, 1.0 / std::sqrt(12.0), d.numel());
    CHECK(s.min >= 3.0);
    CHECK(s.max < 4.0);

    init::uniform_(d); // the defaults: U(0, 1) from the default generator
    s = summarise(d);
    check_moments(s, 0.5, 1.0 / std::sqrt(12.0), d.numel());
    CHECK(s.min >= 0.0);
    CHECK(s.max < 1.0);

    init::uniform_(d, 2.0, 2.0, gen); // a == b: every value a
    CHECK(values(d) == std::vector<double>(60000, 2.0));
}

TEST_CASE("normal_ is N(mean, std^2), float and double", "[nn][init]") {
    Generator gen(2);
    auto f = empty<float>(200_c, 300_c);
    init::normal_(f, 0.3, 2.0, gen);
    auto s = summarise(f);
    check_moments(s, 0.3, 2.0, f.numel());
    const auto v = values(f);
    const auto within_one_std =
        std::count_if(v.begin(), v.end(), [](double x) { return std::abs(x - 0.3) <= 2.0; });
    CHECK(static_cast<double>(within_one_std) / 60000.0 == Approx(0.6827).margin(0.01));

    auto d = empty<double>(300, 200);
    init::normal_(d, 0.0, 1.0, gen);
    check_moments(summarise(d), 0.0, 1.0, d.numel());
    init::normal_(d, -4.0, 0.0, gen); // std 0: every value the mean
    CHECK(values(d) == std::vector<double>(60000, -4.0));
}

TEST_CASE("trunc_normal_ is N(mean, std^2) truncated to [a, b]", "[nn][init]") {
    Generator gen(3);
    auto f = empty<float>(200_c, 300_c);
    init::trunc_normal_(f, 0.0, 1.0, -2.0, 2.0, gen); // PyTorch's defaults
    auto [mean, stddev] = truncated_moments(0.0, 1.0, -2.0, 2.0);
    auto s = summarise(f);
    check_moments(s, mean, stddev, f.numel());
    CHECK(s.min >= -2.0);
    CHECK(s.max <= 2.0);
    CHECK(s.min < -1.99);
    CHECK(s.max > 1.99);

    // Asymmetric, and the mean near a bound.
    auto d = empty<double>(200, 300);
    init::trunc_normal_(d, 0.5, 2.0, -1.0, 3.0, gen);
    std::tie(mean, stddev) = truncated_moments(0.5, 2.0, -1.0, 3.0);
    s = summarise(d);
    check_moments(s, mean, stddev, d.numel());
    CHECK(s.min >= -1.0);
    CHECK(s.max <= 3.0);

    init::trunc_normal_(d, 0.0, 0.02, -0.04, 0.04, gen); // ViT's trunc_normal_(std=.02)
    std::tie(mean, stddev) = truncated_moments(0.0, 0.02, -0.04, 0.04);
    s = summarise(d);
    check_moments(s, mean, stddev, d.numel());
    CHECK(s.min >= -0.04);
    CHECK(s.max <= 0.04);

    init::trunc_normal_(d); // the defaults, from the default generator
    s = summarise(d);
    std::tie(mean, stddev) = truncated_moments(0.0, 1.0, -2.0, 2.0);
    check_moments(s, mean, stddev, d.numel());
}

TEST_CASE("erfinv inverts erf to double precision", "[nn][init]") {
    using init::detail::erfinv;
    for (int k = -1000; k <= 1000; ++k) {
        const double y = k / 1000.0 * 0.999999;
        CHECK(std::abs(std::erf(erfinv(y)) - y) <= 2.3e-16);
    }
    for (int k = 2; k <= 52; ++k) { // the tail: 1 - erf(x) = 2^-k
        const double tail = std::ldexp(1.0, -k);
        CHECK(std::erfc(erfinv(1 - tail)) == Approx(tail).epsilon(1e-13));
        CHECK(erfinv(tail - 1) == -erfinv(1 - tail));
    }
    CHECK(erfinv(1e-300) == Approx(std::sqrt(std::numbers::pi) / 2 * 1e-300).epsilon(1e-15));
    CHECK(erfinv(0.0) == 0.0);
    CHECK(std::signbit(erfinv(-0.0)));
    CHECK(erfinv(1.0) == std::numeric_limits<double>::infinity());
    CHECK(erfinv(-1.0) == -std::numeric_limits<double>::infinity());
    CHECK(std::isnan(erfinv(1.5)));
    CHECK(std::isnan(erfinv(not_a_number)));
}

TEST_CASE("xavier_uniform_ and xavier_normal_ follow Glorot's formulas", "[nn][init]") {
    Generator gen(4);
    auto w = empty<float>(200_c, 300_c); // fan_in 300, fan_out 200
    const double gain = init::calculate_gain("relu");
    init::xavier_uniform_(w, gain, gen);
    const double bound = gain * std::sqrt(6.0 / 500.0);
    auto s = summarise(w);
    check_moments(s, 0.0, bound / std::sqrt(3.0), w.numel());
    CHECK(s.min >= -static_cast<float>(bound));
    CHECK(s.max <= static_cast<float>(bound));
    CHECK(s.max > 0.99 * bound);

    auto conv = empty<double>(64, 32, 3, 3); // fan_in 288, fan_out 576
    init::xavier_normal_(conv, 1.0, gen);
    check_moments(summarise(conv), 0.0, std::sqrt(2.0 / (288 + 576)), conv.numel());
    init::xavier_uniform_(conv); // gain 1, the default generator
    s = summarise(conv);
    check_moments(s, 0.0, std::sqrt(2.0 / (288 + 576)), conv.numel());
    CHECK(s.max <= std::sqrt(6.0 / (288 + 576)));
}

TEST_CASE("kaiming_uniform_ and kaiming_normal_ follow He's formulas", "[nn][init]") {
    Generator gen(5);
    // a = sqrt(5) on [128, 784]: gain sqrt(2 / 6), bound sqrt(3) gain / sqrt(784) = 1 / 28.
    auto w = empty<float>(128_c, 784_c);
    init::kaiming_uniform_(w, std::sqrt(5.0), "fan_in", "leaky_relu", gen);
    auto s = summarise(w);
    check_moments(s, 0.0, 1.0 / 28.0 / std::sqrt(3.0), w.numel());
    CHECK(s.min >= -1.0F / 28.0F);
    CHECK(s.max <= 1.0F / 28.0F);
    CHECK(s.max > 0.99 / 28.0);

    // The defaults: a = 0, fan_in, leaky_relu: bound sqrt(2) sqrt(3 / 300) (slope 0, not 0.01).
    auto d = empty<double>(200, 300);
    init::kaiming_uniform_(d);
    s = summarise(d);
    check_moments(s, 0.0, std::sqrt(2.0 / 300.0), d.numel());
    CHECK(s.max <= std::sqrt(6.0 / 300.0));

    // fan_out (any case), relu: std sqrt(2) / sqrt(fan_out), and [300, 200] has fan_out 300.
    auto n = empty<double>(300, 200);
    init::kaiming_normal_(n, 0.0, "FAN_OUT", "relu", gen);
    check_moments(summarise(n), 0.0, std::sqrt(2.0 / 300.0), n.numel());
    init::kaiming_normal_(n, 0.0, "Fan_In", "tanh", gen);
    check_moments(summarise(n), 0.0, 5.0 / 3.0 / std::sqrt(200.0), n.numel());
    auto conv = empty<float>(32_c, 16_c, 5_c, 5_c); // fan_in 400
    init::kaiming_normal_(conv, 0.2, "fan_in", "leaky_relu", gen);
    check_moments(summarise(conv), 0.0, 1.3867504905630728 / 20.0, conv.numel());
}

TEST_CASE("kaiming_uniform_(w, sqrt(5)) then uniform_(b, +-1/sqrt(fan_in)) is nn.Linear's reset",
          "[nn][init]") {
    Generator gen(6);
    auto weight = empty<float>(64_c, 300_c); // nn.Linear(300, 64)
    auto bias = empty<float>(64_c);
    init::kaiming_uniform_(weight, std::sqrt(5.0), "fan_in", "leaky_relu", gen);
    const auto [fan_in, fan_out] = init::detail::fan_in_and_fan_out(weight);
    CHECK(fan_in == 300);
    CHECK(fan_out == 64);
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    init::uniform_(bias, -bound, bound, gen);
    for (double x : values(weight))
        REQUIRE(std::abs(x) <= static_cast<float>(bound));
    for (double x : values(bias))
        REQUIRE(std::abs(x) <= static_cast<float>(bound));
    const auto s = summarise(weight);
    check_moments(s, 0.0, bound / std::sqrt(3.0), weight.numel());
    CHECK(s.max > 0.99 * bound);
    CHECK(s.min < -0.99 * bound);
}

TEST_CASE("one seed, one sequence: the draws of rand and randn, one per element", "[nn][init]") {
    Generator g1(42);
    Generator g2(42);
    auto a = empty<float>(30_c, 40_c);
    auto b = empty<float>(30_c, 40_c);
    init::kaiming_uniform_(a, std::sqrt(5.0), "fan_in", "leaky_relu", g1);
    init::kaiming_uniform_(b, std::sqrt(5.0), "fan_in", "leaky_relu", g2);
    CHECK(values(a) == values(b));
    Generator g3(43);
    init::kaiming_uniform_(b, std::sqrt(5.0), "fan_in", "leaky_relu", g3);
    CHECK(values(a) != values(b));

    // uniform_(t, 0, 1, gen) and normal_(t, 0, 1, gen) write what rand and randn return.
    Generator u1(7);
    Generator u2(7);
    auto uf = empty<float>(5_c, 6_c);
    CHECK(values(init::uniform_(uf, 0.0, 1.0, u1)) == values(rand<float>(5_c, 6_c, u2)));
    auto ud = empty<double>(5, 6);
    CHECK(values(init::uniform_(ud, 0.0, 1.0, u1)) == values(rand<double>(5, 6, u2)));
    CHECK(values(init::normal_(ud, 0.0, 1.0, u1)) == values(randn<double>(5, 6, u2)));
    CHECK(values(init::normal_(uf, 0.0, 1.0, u1)) == values(randn<float>(5_c, 6_c, u2)));

    // One raw draw per element (normal_: two uniforms per pair of values, Box-Muller), and none
    // for trunc_normal_'s bounds or the fan.
    Generator c(9);
    init::uniform_(empty<float>(7_c, 11_c), -1.0, 1.0, c);
    CHECK(draws_made(c, 9) == 77);
    c.manual_seed(9);
    init::xavier_uniform_(empty<double>(7, 11), 1.0, c);
    CHECK(draws_made(c, 9) == 77);
    c.manual_seed(9);
    init::trunc_normal_(empty<double>(7, 11), 0.0, 1.0, -2.0, 2.0, c);
    CHECK(draws_made(c, 9) == 77);
    c.manual_seed(9);
    init::normal_(empty<double>(5, 4), 0.0, 1.0, c);
    CHECK(draws_made(c, 9) == 20);

    // From the default generator: manual_seed makes it reproducible too.
    auto x = empty<double>(4, 5);
    auto y = empty<double>(4, 5);
    manual_seed(123);
    init::trunc_normal_(x);
    init::kaiming_normal_(y);
    const auto first = values(x);
    const auto second = values(y);
    manual_seed(123);
    init::trunc_normal_(x);
    init::kaiming_normal_(y);
    CHECK(values(x) == first);
    CHECK(values(y) == second);
    CHECK(first != second);
}

TEST_CASE("random initialisers write strided views in the view's row-major order", "[nn][init]") {
    // A transposed view: the n-th draw lands on the view's n-th element.
    auto w = zeros<float>(4_c, 6_c);
    auto view = w.t(); // 6 x 4, not contiguous
    REQUIRE_FALSE(view.is_contiguous());
    Generator g1(11);
    Generator g2(11);
    init::uniform_(view, 1.0, 2.0, g1);
    const auto expected = rand<float>(6_c, 4_c, g2);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 4; ++j) {
            CHECK(view(i, j) == 1.0F + expected(i, j));
            CHECK(w(j, i) == view(i, j));
        }

    // A slice of columns: the others keep their values.
    auto m = full<double>(shape(5, 7), -9.0);
    auto cols = m.slice(1, 2, 5); // columns 2, 3, 4
    REQUIRE_FALSE(cols.is_contiguous());
    init::normal_(cols, 3.0, 1.0, g1);
    const auto z = randn<double>(5, 3, g2);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) {
            if (j >= 2 && j < 5)
                CHECK(m(i, j) == 3.0 + z(i, j - 2));
            else
                CHECK(m(i, j) == -9.0);
        }

    // kaiming_ and xavier_ of a view take the view's fans.
    auto big = full<float>(shape(100_c, 300_c), 5.F);
    auto half = big.slice(0, 0, 50); // [50, 300]: fan_in 300
    auto half_t = half.t();          // [300, 50]: fan_in 50
    init::kaiming_uniform_(half_t, std::sqrt(5.0), "fan_in", "leaky_relu", g1);
    const auto s = summarise(half);
    CHECK(s.max <= 1.0F / std::sqrt(50.0F));
    CHECK(s.max > 0.99 / std::sqrt(50.0));
    const auto untouched = summarise(big.slice(0, 50, 100));
    CHECK(untouched.min == 5.0);
    CHECK(untouched.max == 5.0);
}

TEST_CASE("kaiming_ on a zero-element tensor does nothing", "[nn][init]") {
    Generator gen(12);
    auto empty_rows = empty<float>(0_c, 5_c);
    init::kaiming_uniform_(empty_rows, 0.0, "fan_in", "leaky_relu", gen);
    init::kaiming_normal_(empty<double>(3, 0, 2), 0.0, "fan_out", "relu", gen);
    // Before the mode, the fan or the nonlinearity is looked at, as in PyTorch.
    init::kaiming_uniform_(empty<float>(0_c), 0.0, "no_such_mode", "no_such_nonlinearity", gen);
    CHECK(draws_made(gen, 12) == 0);
    // The other initialisers have nothing to write either.
    init::uniform_(empty_rows, 0.0, 1.0, gen);
    init::normal_(empty_rows, 0.0, 1.0, gen);
    init::trunc_normal_(empty_rows, 0.0, 1.0, -2.0, 2.0, gen);
    init::xavier_uniform_(empty_rows, 1.0, gen); // fan_in + fan_out = 5
    CHECK(draws_made(gen, 12) == 1);             // (draws_made drew one)
}

TEST_CASE("the random initialisers' errors have PyTorch's texts", "[nn][init]") {
    auto f = empty<float>(3_c, 4_c);
    auto d = empty<double>(3, 4);

    // uniform_: ATen's checks (RuntimeError).
    CHECK(error_of<RuntimeError>([&] { init::uniform_(f, 2.0, 1.0); }) ==
          "uniform_ expects to return a [from, to) range, but found from=2 > to=1");
    CHECK(error_of<RuntimeError>([&] { init::uniform_(d, 0.5, -0.25); }) ==
          "uniform_ expects to return a [from, to) range, but found from=0.5 > to=-0.25");
    CHECK(error_of<RuntimeError>([&] { init::uniform_(f, -1e300, 0.0); }) ==
          "from is out of bounds for float");
    CHECK(error_of<RuntimeError>([&] { init::uniform_(f, 0.0, 1e39); }) ==
          "to is out of bounds for float");
    CHECK(error_of<RuntimeError>([&] { init::uniform_(d, not_a_number, 1.0); }) ==
          "from is out of bounds for double");
    CHECK(error_of<RuntimeError>([&] { init::uniform_(f, -3e38, 3e38); }) ==
          "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 "
          "and from=-3e+38 which result in to-from to exceed the limit");
    CHECK(error_of<RuntimeError>([&] { init::uniform_(d, -1.5e308, 1.5e308); }) ==
          "uniform_ expects to-from <= std::numeric_limits<Double>::max(), but found to=1.5e+308 "
          "and from=-1.5e+308 which result in to-from to exceed the limit");

    // normal_ (and what calls it).
    CHECK(error_of<RuntimeError>([&] { init::normal_(f, 0.0, -1.0); }) ==
          "normal expects std >= 0.0, but found std -1");
    CHECK(error_of<RuntimeError>([&] { init::normal_(d, 0.0, not_a_number); }) ==
          "normal expects std >= 0.0, but found std nan");

    // trunc_normal_: Python's division by std, then uniform_'s range.
    CHECK(error_of<ValueError>([&] { init::trunc_normal_(f, 0.0, 0.0); }) ==
          "float division by zero (trunc_normal_: std is 0)");
    CHECK(error_of<RuntimeError>([&] { init::trunc_normal_(d, 0.0, 1.0, 1.0, -1.0); }) ==
          "uniform_ expects to return a [from, to) range, but found from=0.682689 > "
          "to=-0.682689");

    // xavier_: the fans' sum divides.
    CHECK(error_of<ValueError>([] { init::xavier_uniform_(empty<float>(0_c, 0_c)); }) ==
          "float division by zero (xavier_uniform_: fan_in + fan_out is 0)");
    CHECK(error_of<ValueError>([] { init::xavier_normal_(empty<double>(0, 0, 3)); }) ==
          "float division by zero (xavier_normal_: fan_in + fan_out is 0)");

    // kaiming_: the mode (lowercased in the message), then the fan, then the nonlinearity.
    CHECK(error_of<ValueError>([&] { init::kaiming_uniform_(f, 0.0, "fan_avg"); }) ==
          "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']");
    CHECK(error_of<ValueError>([&] { init::kaiming_normal_(d, 0.0, "Fan_Avg"); }) ==
          "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']");
    CHECK(error_of<ValueError>([] { init::kaiming_uniform_(empty<float>(3_c), 0.0, "x"); }) ==
          "Mode x not supported, please use one of ['fan_in', 'fan_out']");
    CHECK(error_of<ValueError>([&] { init::kaiming_normal_(f, 0.0, "fan_in", "softplus"); }) ==
          "Unsupported nonlinearity softplus");
    // leaky_relu with a negative slope of 0 is relu's gain; kaiming's a reaches calculate_gain.
    Generator g1(1);
    Generator g2(1);
    auto r1 = empty<double>(10, 10);
    auto r2 = empty<double>(10, 10);
    init::kaiming_uniform_(r1, 0.0, "fan_in", "leaky_relu", g1);
    init::kaiming_uniform_(r2, 0.0, "fan_in", "relu", g2);
    CHECK(values(r1) == values(r2));
}
