// kernels::exp, log, tanh, sigmoid, expm1, log1p, erf (include/staticpy/kernels/vmath.hpp)
// against std:: computed in double and rounded to float32: a sweep of every k-th bit pattern
// over all 2^32 floats (k = 24593 in Debug builds so the suite stays fast under sanitizers, 61
// with NDEBUG; STATICPY_VMATH_STRIDE=1 sweeps every float), and the special values, which must
// come out exactly. STATICPY_VMATH_REPORT=1 prints the worst error per function.

#include <catch2/catch.hpp>

#include "staticpy/kernels/vmath.hpp"

#if STATICPY_HAS_XSIMD

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace k = staticpy::kernels;
using B = xsimd::batch<float>;
using D = xsimd::batch<double>;
constexpr std::size_t W = B::size;

struct function {
    const char* name;
    B (*ours)(const B&);
    double (*reference)(double);
    std::int64_t max_ulp;   // the bound vmath.hpp states
};

const std::array<function, 7> functions{{
    {"exp", [](const B& x) { return k::exp(x); }, [](double x) { return std::exp(x); }, 1},
    {"log", [](const B& x) { return k::log(x); }, [](double x) { return std::log(x); }, 1},
    {"tanh", [](const B& x) { return k::tanh(x); }, [](double x) { return std::tanh(x); }, 4},
    {"sigmoid", [](const B& x) { return k::sigmoid(x); },
     [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 2},
    {"expm1", [](const B& x) { return k::expm1(x); }, [](double x) { return std::expm1(x); }, 2},
    {"log1p", [](const B& x) { return k::log1p(x); }, [](double x) { return std::log1p(x); }, 2},
    {"erf", [](const B& x) { return k::erf(x); }, [](double x) { return std::erf(x); }, 2},
}};

/// Floats on one integer line, -0 and +0 together, so that a difference counts ulps
/// (and the largest finite float is 1 ulp from infinity).
std::int64_t ordered(float f) {
    const auto i = std::bit_cast<std::int32_t>(f);
    return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) : i;
}

/// ulps between ours and the rounded reference; NaN must meet NaN.
std::int64_t ulp_distance(float got, float want) {
    if (std::isnan(got) || std::isnan(want))
        return std::isnan(got) && std::isnan(want) ? 0 : std::numeric_limits<std::int64_t>::max();
    const std::int64_t d = ordered(got) - ordered(want);
    return d < 0 ? -d : d;
}

std::vector<float> evaluate(const function& f, const std::vector<float>& xs) {
    std::vector<float> ys(xs.size());
    alignas(64) std::array<float, W> in{}, out{};
    for (std::size_t i = 0; i < xs.size(); i += W) {
        const std::size_t m = std::min(W, xs.size() - i);
        for (std::size_t j = 0; j < W; ++j)
            in[j] = j < m ? xs[i + j] : 0.0f;
        f.ours(B::load_aligned(in.data())).store_aligned(out.data());
        for (std::size_t j = 0; j < m; ++j)
            ys[i + j] = out[j];
    }
    return ys;
}

std::uint32_t sweep_stride() {
    if (const char* s = std::getenv("STATICPY_VMATH_STRIDE"))
        return static_cast<std::uint32_t>(std::max(1L, std::strtol(s, nullptr, 10)));
#ifdef NDEBUG
    return 61;
#else
    return 24593;
#endif
}

std::vector<float> special_inputs() {
    constexpr float inf = std::numeric_limits<float>::infinity();
    constexpr float den = std::numeric_limits<float>::denorm_min();
    constexpr float fmin = std::numeric_limits<float>::min();
    constexpr float fmax = std::numeric_limits<float>::max();
    std::vector<float> v = {
        0.0f, inf, std::numeric_limits<float>::quiet_NaN(), den, 2 * den, 1e-40f, 1e-45f,
        fmin, fmin / 2, fmin - den, fmax, 1.0f, 2.0f, 0.5f, 1e-30f, 1e-8f, 1e30f,
        88.72283172607422f,   // exp: the largest finite result
        88.72283935546875f,   // exp: the first overflow
        87.33654f, 87.33655f, 103.97207f, 103.97208f, 103.97209f, 104.0f, 150.0f,
        9.01f, 9.02f, 9.1f, 10.0f, 20.0f, 3.91f, 3.92f, 3.93f, 4.0f, 17.32f, 17.33f, 17.34f,
        9.01091289f, 9.01091385f,   // tanh: the floats either side of where it rounds to 1
        0.625f, 0.875f, 0.34657359f, 0.0001f, 0.999999f, 1.000001f,
    };
    const std::size_t n = v.size();
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(-v[i]);
    return v;
}

/// ±0, ±inf, NaN, ±1 results are exact, and so is the sign of a zero result.
bool is_exact_value(float want) {
    return std::isnan(want) || std::isinf(want) || want == 0.0f || std::fabs(want) == 1.0f;
}

} // namespace

TEST_CASE("vmath: every k-th float32 within the stated ulp bound") {
    const std::uint64_t stride = sweep_stride();
    const bool report = std::getenv("STATICPY_VMATH_REPORT") != nullptr;
    for (const auto& f : functions) {
        std::int64_t worst = 0;
        float worst_x = 0;
        std::vector<float> xs;
        std::uint64_t count = 0;
        // In blocks, so that a sweep of every float needs no 16 GiB of inputs.
        for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32);) {
            xs.clear();
            for (; b < (std::uint64_t{1} << 32) && xs.size() < (1u << 20); b += stride)
                xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(b)));
            const auto ys = evaluate(f, xs);
            for (std::size_t i = 0; i < xs.size(); ++i) {
                const auto want = static_cast<float>(f.reference(static_cast<double>(xs[i])));
                const std::int64_t d = ulp_distance(ys[i], want);
                if (d > worst) {
                    worst = d;
                    worst_x = xs[i];
                }
            }
            count += xs.size();
        }
        if (report)
            std::printf("%-8s worst %lld ulp at x = %.9g (%llu inputs)\n", f.name,
                        static_cast<long long>(worst), static_cast<double>(worst_x),
                        static_cast<unsigned long long>(count));
        INFO(f.name << ": worst " << worst << " ulp at x = " << worst_x);
        CHECK(worst <= f.max_ulp);
    }
}

TEST_CASE("vmath: special values are exact") {
    const auto xs = special_inputs();
    for (const auto& f : functions) {
        const auto ys = evaluate(f, xs);
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const auto want = static_cast<float>(f.reference(static_cast<double>(xs[i])));
            INFO(f.name << "(" << xs[i] << ") = " << ys[i] << ", want " << want);
            if (is_exact_value(want)) {
                CHECK(ulp_distance(ys[i], want) == 0);
                if (!std::isnan(want)) {
                    CHECK(std::signbit(ys[i]) == std::signbit(want));
                }
            } else {
                CHECK(ulp_distance(ys[i], want) <= f.max_ulp);
            }
        }
    }
    // The thresholds the header names, spelled out.
    const auto one = [](auto fn, float x) {
        return fn(B(x)).get(0);
    };
    const auto kexp = [](const B& x) { return k::exp(x); };
    CHECK(std::isinf(one(kexp, 88.72283935546875f)));
    CHECK(std::isfinite(one(kexp, 88.72283172607422f)));
    CHECK(one(kexp, -104.0f) == 0.0f);
    CHECK(one(kexp, -103.0f) > 0.0f);   // subnormal, not flushed
    CHECK(one([](const B& x) { return k::log(x); }, -1.0f) != one([](const B& x) { return k::log(x); }, -1.0f));
    CHECK(one([](const B& x) { return k::tanh(x); }, 9.1f) == 1.0f);
    CHECK(one([](const B& x) { return k::tanh(x); }, 9.01091385f) == 1.0f);
    CHECK(one([](const B& x) { return k::tanh(x); }, -9.1f) == -1.0f);
    CHECK(one([](const B& x) { return k::sigmoid(x); }, -200.0f) == 0.0f);
    CHECK(one([](const B& x) { return k::sigmoid(x); }, 200.0f) == 1.0f);
}

TEST_CASE("vmath: float64 batches (xsimd's functions, our sigmoid)") {
    for (double x : {-800.0, -30.0, -1.5, -1e-10, 0.0, 0.25, 3.0, 40.0, 800.0}) {
        INFO("x = " << x);
        // xsimd's float64 functions, a few double ulps from std::'s.
        const auto near = [](double got, double want) {
            return got == want || std::fabs(got - want) <= 1e-14 * std::fabs(want);
        };
        CHECK(near(k::sigmoid(D(x)).get(0), 1.0 / (1.0 + std::exp(-x))));
        CHECK(near(k::tanh(D(x)).get(0), std::tanh(x)));
        CHECK(near(k::erf(D(x)).get(0), std::erf(x)));
        CHECK(near(k::expm1(D(x)).get(0), std::expm1(x)));
        if (x > -1) {
            CHECK(near(k::log1p(D(x)).get(0), std::log1p(x)));
        }
        if (std::fabs(x) < 700) {
            CHECK(near(k::exp(D(x)).get(0), std::exp(x)));
        }
        if (x > 0) {
            CHECK(near(k::log(D(x)).get(0), std::log(x)));
        }
    }
}

#else

TEST_CASE("vmath: needs xsimd") {
    SUCCEED("built without xsimd (STATICPY_NO_XSIMD or no <xsimd/xsimd.hpp>): "
            "kernels/vmath.hpp defines nothing to test");
}

#endif
