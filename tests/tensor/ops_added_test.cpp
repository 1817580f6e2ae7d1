// The ops added as one description each (tensor/functors.hpp): log1p, expm1, erf, softplus,
// leaky_relu, silu, clamp/clip, sign, floor, ceil, round, square, reciprocal. Values against
// <cmath> references and PyTorch's documented results (sign(NaN) == 0, round half to even,
// softplus's threshold, clamp with min > max), dtypes as PyTorch promotes them, and lengths that
// run both the SIMD batches and the scalar tail of the shared elementwise loop.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/containers/list.hpp>
#include <staticpy/tensor/creation.hpp>
#include <staticpy/tensor/ops.hpp>

#include "test_support.hpp"

using namespace staticpy;
using namespace staticpy::literals;

namespace {

using tensor_test::values;

const float inf = std::numeric_limits<float>::infinity();
const float k_nan = std::numeric_limits<float>::quiet_NaN();

/// 37 values from -4.5 in steps of 0.25 (37: several SIMD batches and a tail), then the
/// special values.
std::vector<float> inputs() {
    std::vector<float> v;
    for (int i = 0; i < 37; ++i)
        v.push_back(-4.5f + 0.25f * static_cast<float>(i));
    for (float s : {0.0f, -0.0f, inf, -inf, k_nan, 1e-30f, -1e-30f, 80.0f, -80.0f})
        v.push_back(s);
    return v;
}

/// got[i] is want(x[i]) computed in double and rounded to float, within a few float ulps
/// (the SIMD forms are not correctly rounded); NaN where want is NaN, infinities exact.
template <class F>
void check_against(const std::vector<float>& x, const std::vector<float>& got, F want,
                   double ulps = 4) {
    REQUIRE(got.size() == x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const auto w = static_cast<float>(want(static_cast<double>(x[i])));
        INFO("x = " << x[i] << ", got " << got[i] << ", want " << w);
        if (std::isnan(w)) {
            CHECK(std::isnan(got[i]));
        } else if (std::isinf(w) || w == 0) {
            CHECK(got[i] == w);
        } else {
            const double tol = ulps * std::numeric_limits<float>::epsilon() * std::fabs(w);
            CHECK(std::fabs(static_cast<double>(got[i]) - static_cast<double>(w)) <= tol);
        }
    }
}

/// The same floats, NaN equal to NaN.
bool same_values(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k]))))
            return false;
    return true;
}

} // namespace

TEST_CASE("added ops: log1p, expm1, erf against <cmath>") {
    const auto x = inputs();
    const auto t = from_vector(x);
    check_against(x, values(log1p(t)), [](double v) { return std::log1p(v); });
    check_against(x, values(expm1(t)), [](double v) { return std::expm1(v); });
    check_against(x, values(erf(t)), [](double v) { return std::erf(v); });
    CHECK(same_values(values(t.log1p()), values(log1p(t))));
    // Small arguments keep their precision: the reason these functions exist.
    CHECK(values(log1p(from_vector(std::vector<float>{1e-10f})))[0] == Approx(1e-10f));
    CHECK(values(expm1(from_vector(std::vector<float>{1e-10f})))[0] == Approx(1e-10f));
    // Integer tensors compute in float32, as PyTorch's.
    STATIC_REQUIRE(std::is_same_v<decltype(erf(arange(3)))::value_type, float>);
    CHECK(values(log1p(arange(3)))[1] == Approx(std::log1p(1.0)));
}

TEST_CASE("added ops: silu, softplus and leaky_relu as torch.nn.functional's") {
    const auto x = inputs();
    const auto t = from_vector(x);
    check_against(x, values(silu(t)), [](double v) { return v / (1 + std::exp(-v)); });
    check_against(x, values(softplus(t)),
                  [](double v) { return v > 20 ? v : std::log1p(std::exp(v)); });
    check_against(x, values(softplus(t, 2.0, 10.0)),
                  [](double v) { return 2 * v > 10 ? v : std::log1p(std::exp(2 * v)) / 2; });
    // Above the threshold softplus is x itself (no overflow in exp).
    CHECK(values(softplus(from_vector(std::vector<float>{30.0f, 100.0f}))) ==
          std::vector<float>{30.0f, 100.0f});
    CHECK(values(softplus(from_vector(std::vector<float>{0.0f})))[0] ==
          Approx(std::log(2.0)).epsilon(1e-6));
    check_against(x, values(leaky_relu(t)),
                  [](double v) { return v > 0 ? v : v * static_cast<double>(0.01f); });
    check_against(x, values(leaky_relu(t, 0.2)),
                  [](double v) { return v > 0 ? v : v * static_cast<double>(0.2f); });
    // The parameters are converted to the tensor's type: a float64 tensor stays float64.
    auto d = from_vector(std::vector<double>{-1.0, 2.0});
    STATIC_REQUIRE(std::is_same_v<decltype(leaky_relu(d, 0.5f))::value_type, double>);
    STATIC_REQUIRE(std::is_same_v<decltype(softplus(t, 2, 10))::value_type, float>);
    CHECK(values(leaky_relu(d, 0.5f)) == std::vector<double>{-0.5, 2.0});
}

TEST_CASE("added ops: sign, floor, ceil, round (half to even), square, reciprocal") {
    auto t = from_vector(std::vector<float>{-2.5f, -1.5f, -0.5f, -0.0f, 0.0f, 0.5f, 1.5f, 2.5f,
                                            2.4f, -inf, inf, k_nan});
    const auto s = values(sign(t));
    const std::vector<float> want_sign{-1, -1, -1, 0, 0, 1, 1, 1, 1, -1, 1};
    CHECK(std::vector<float>(s.begin(), s.end() - 1) == want_sign);
    CHECK(s.back() == 0.0f); // sign(NaN) is 0 in PyTorch
    const auto r = values(round(t));
    const std::vector<float> want_round{-2, -2, -0.0f, -0.0f, 0, 0, 2, 2, 2, -inf, inf};
    CHECK(std::vector<float>(r.begin(), r.end() - 1) == want_round);
    CHECK(std::signbit(r[2])); // round(-0.5) is -0.0
    CHECK(std::isnan(r.back()));
    const auto f = values(floor(t));
    const std::vector<float> want_floor{-3, -2, -1, -0.0f, 0, 0, 1, 2, 2, -inf, inf};
    CHECK(std::vector<float>(f.begin(), f.end() - 1) == want_floor);
    const auto c = values(ceil(t));
    const std::vector<float> want_ceil{-2, -1, -0.0f, -0.0f, 0, 1, 2, 3, 3, -inf, inf};
    CHECK(std::vector<float>(c.begin(), c.end() - 1) == want_ceil);
    CHECK(values(square(t))[0] == 6.25f);
    CHECK(values(reciprocal(t))[4] == inf);
    CHECK(values(reciprocal(t))[3] == -inf);

    // Integers: sign, floor, ceil, round and square keep the dtype; reciprocal goes to float32.
    auto i = from_vector(std::vector<std::int64_t>{-3, 0, 5});
    STATIC_REQUIRE(std::is_same_v<decltype(sign(i))::value_type, std::int64_t>);
    CHECK(values(sign(i)) == std::vector<std::int64_t>{-1, 0, 1});
    CHECK(values(floor(i)) == std::vector<std::int64_t>{-3, 0, 5});
    CHECK(values(round(i)) == std::vector<std::int64_t>{-3, 0, 5});
    CHECK(values(square(i)) == std::vector<std::int64_t>{9, 0, 25});
    STATIC_REQUIRE(std::is_same_v<decltype(reciprocal(i))::value_type, float>);
    CHECK(values(reciprocal(i)) == std::vector<float>{-1.0f / 3, inf, 0.2f});
    auto u = from_vector(std::vector<std::uint8_t>{0, 7});
    CHECK(values(sign(u)) == std::vector<std::uint8_t>{0, 1});
}

TEST_CASE("added ops: clamp and clip, one or both bounds, promotion, NaN") {
    const auto x = inputs();
    const auto t = from_vector(x);
    check_against(x, values(clamp(t, -1.0, 2.0)),
                  [](double v) { return std::isnan(v) ? v : std::min(std::max(v, -1.0), 2.0); });
    check_against(x, values(clamp(t, -1.0)),
                  [](double v) { return std::isnan(v) ? v : std::max(v, -1.0); });
    check_against(x, values(clamp(t, None, 2.0)),
                  [](double v) { return std::isnan(v) ? v : std::min(v, 2.0); });
    CHECK(same_values(values(clip(t, -1.0, 2.0)), values(t.clamp(-1.0, 2.0))));
    CHECK(same_values(values(t.clip(None, 2.0)), values(clamp(t, None, 2.0))));
    // min > max: every element is max, as PyTorch documents.
    CHECK(values(clamp(from_vector(std::vector<float>{-5, 0, 5}), 2.0, 1.0)) ==
          std::vector<float>{1, 1, 1});
    // A NaN bound gives NaN (bounds propagate NaN as torch.maximum/minimum do).
    CHECK(std::isnan(values(clamp(from_vector(std::vector<float>{1}), k_nan, 2.0))[0]));
    // Promotion over all three, as torch.clamp: an int tensor clamped by a float is float32.
    auto i = arange(5);
    STATIC_REQUIRE(std::is_same_v<decltype(clamp(i, 1, 3))::value_type, std::int64_t>);
    CHECK(values(clamp(i, 1, 3)) == std::vector<std::int64_t>{1, 1, 2, 3, 3});
    STATIC_REQUIRE(std::is_same_v<decltype(clamp(i, 0.5, 3))::value_type, float>);
    CHECK(values(clamp(i, 0.5, 3)) == std::vector<float>{0.5f, 1, 2, 3, 3});
    // Tensor bounds broadcast.
    auto lo = from_vector(std::vector<float>{0, 1, 2});
    auto m = clamp(zeros(2_c, 3_c), lo, 1.5f);
    CHECK(values(m) == std::vector<float>{0, 1, 1.5f, 0, 1, 1.5f});
}

TEST_CASE("added ops: strided and broadcast operands take the general path of the loop") {
    auto x = arange(24).to<float>().reshape(4_c, 6_c) - 12.0f;
    auto xt = x.t(); // strided: no SIMD loads
    const auto want = values(clamp(xt.contiguous(), -3.0, 4.0));
    CHECK(values(clamp(xt, -3.0, 4.0)) == want);
    CHECK(values(leaky_relu(xt, 0.5)) == values(leaky_relu(xt.contiguous(), 0.5)));
    CHECK(values(sign(xt)) == values(sign(xt.contiguous())));
}
