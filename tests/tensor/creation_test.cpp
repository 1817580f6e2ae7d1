#include <cmath>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;
using staticpy::int_;
using staticpy::shape;
using staticpy::Tensor;

TEST_CASE("zeros, ones, full, empty, eye", "[tensor][creation]") {
    const int n = 4;
    auto z = staticpy::zeros<double>(2_c, n);
    STATIC_REQUIRE(std::is_same_v<decltype(z), Tensor<double, shape<int_<2>, std::int64_t>>>);
    REQUIRE(z(1, 3) == 0.0);
    auto o = staticpy::ones<std::int32_t>(shape(3_c));
    REQUIRE(o(2) == 1);
    auto f = staticpy::full<float>(2_c, 2, 7.5);
    REQUIRE(f(1, 1) == 7.5f);
    auto fs = staticpy::full(shape(2_c), 3.f);
    REQUIRE(fs(1) == 3.f);
    auto e = staticpy::empty(3_c);
    REQUIRE(e.numel() == 3);
    auto i = staticpy::eye(3_c);
    REQUIRE(i(1, 1) == 1.f);
    REQUIRE(i(1, 2) == 0.f);
    auto r = staticpy::eye<int>(2, 3);
    REQUIRE(r(1, 1) == 1);
    REQUIRE(staticpy::zeros_like(z).shape() == z.shape());
    REQUIRE(staticpy::ones_like(z)(1, 1) == 1.0);
    REQUIRE(staticpy::full_like(z, 2.0)(0, 0) == 2.0);
    REQUIRE(staticpy::empty_like(z).numel() == 8);
}

TEST_CASE("arange and linspace", "[tensor][creation]") {
    auto a = staticpy::arange(5);
    STATIC_REQUIRE(std::is_same_v<decltype(a)::value_type, std::int64_t>);
    REQUIRE(a.numel() == 5);
    REQUIRE(a(4) == 4);
    auto b = staticpy::arange(1.0, 2.0, 0.25);
    STATIC_REQUIRE(std::is_same_v<decltype(b)::value_type, float>);
    REQUIRE(b.numel() == 4);
    REQUIRE(b(3) == 1.75f);
    auto c = staticpy::arange(10, 0, -3);
    REQUIRE(c.numel() == 4);
    REQUIRE(c(3) == 1);
    REQUIRE(staticpy::arange<double>(0, 3)(2) == 2.0);
    REQUIRE_THROWS_AS(staticpy::arange(0, 5, 0), staticpy::RuntimeError);
    auto l = staticpy::linspace(0, 1, 5);
    REQUIRE(l.numel() == 5);
    REQUIRE(l(0) == 0.f);
    REQUIRE(l(2) == 0.5f);
    REQUIRE(l(4) == 1.f);
    REQUIRE(staticpy::linspace<double>(3, 3, 1)(0) == 3.0);
}

TEST_CASE("from data: vectors, pointers, nested braces", "[tensor][creation]") {
    std::vector<float> v{1, 2, 3, 4, 5, 6};
    auto t = staticpy::tensor(v, 2_c, 3_c);
    STATIC_REQUIRE(std::is_same_v<decltype(t), Tensor<float, staticpy::static_shape<2, 3>>>);
    REQUIRE(t(1, 0) == 4);
    v[0] = 100; // a copy
    REQUIRE(t(0, 0) == 1);
    REQUIRE_THROWS_WITH(staticpy::tensor(v, 2, 4), "shape '[2, 4]' is invalid for input of size 6");
    auto fv = staticpy::from_vector(v);
    REQUIRE(fv.numel() == 6);

    float buf[6] = {0, 1, 2, 3, 4, 5};
    auto blob = staticpy::from_blob(buf, 3_c, 2);
    REQUIRE_FALSE(blob.storage().is_owning());
    REQUIRE(blob(2, 1) == 5);
    blob(0, 0) = 42; // non-owning: writes the caller's memory
    REQUIRE(buf[0] == 42);
    REQUIRE(blob.data() == buf);

    auto one = staticpy::tensor<float>({1, 2, 3});
    REQUIRE(one.numel() == 3);
    auto two = staticpy::tensor<float>({{1, 2}, {3, 4}});
    STATIC_REQUIRE(decltype(two)::rank == 2);
    REQUIRE(two(1, 0) == 3);
    auto three = staticpy::tensor<int>({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}});
    REQUIRE(three(1, 1, 0) == 7);
    REQUIRE_THROWS_AS(staticpy::tensor<float>({{1, 2}, {3, 4, 5}}), staticpy::ValueError);
    REQUIRE_THROWS_WITH(staticpy::tensor<float>({{1, 2}, {3, 4, 5}}),
                        "expected sequence of length 2 at dim 1 (got 3)");
    REQUIRE_THROWS_WITH(staticpy::tensor<float>({{{1, 2}}, {{3}}}),
                        "expected sequence of length 2 at dim 2 (got 1)");
}

TEST_CASE("Generator: same seed, same numbers", "[tensor][random]") {
    staticpy::Generator g1(42), g2(42);
    auto a = staticpy::rand(3_c, 4_c, g1);
    auto b = staticpy::rand(3_c, 4_c, g2);
    REQUIRE(staticpy::allclose(a, b, 0.0, 0.0));
    for (std::int64_t i = 0; i < a.numel(); ++i) {
        REQUIRE(a.data()[i] >= 0.f);
        REQUIRE(a.data()[i] < 1.f);
    }
    g1.manual_seed(42);
    auto c = staticpy::rand(3_c, 4_c, g1);
    REQUIRE(staticpy::allclose(a, c, 0.0, 0.0));
    REQUIRE(g1.initial_seed() == 42);
    auto d = staticpy::rand(3_c, 4_c, g1);
    REQUIRE_FALSE(staticpy::allclose(a, d));

    // The engine is std::mt19937_64, fixed by the standard: the numbers are the same everywhere.
    staticpy::Generator g(5489);
    REQUIRE(g.next_u64() == 14514284786278117030ULL);
    g.manual_seed(0);
    const double u = g.uniform();
    staticpy::Generator h(0);
    REQUIRE(u == static_cast<double>(h.next_u64() >> 11) * 0x1.0p-53);

    staticpy::manual_seed(7);
    auto n1 = staticpy::randn<double>(1000);
    staticpy::manual_seed(7);
    auto n2 = staticpy::randn<double>(1000);
    REQUIRE(staticpy::allclose(n1, n2, 0.0, 0.0));
    double sum = 0, sq = 0;
    for (std::int64_t i = 0; i < 1000; ++i) {
        sum += n1(i);
        sq += n1(i) * n1(i);
    }
    REQUIRE(std::abs(sum / 1000) < 0.15);
    REQUIRE(std::abs(sq / 1000 - 1.0) < 0.15);

    staticpy::Generator gi(1);
    auto ri = staticpy::randint(-2, 3, 200, gi);
    STATIC_REQUIRE(std::is_same_v<decltype(ri)::value_type, std::int64_t>);
    bool seen_low = false, seen_high = false;
    for (std::int64_t i = 0; i < 200; ++i) {
        REQUIRE(ri(i) >= -2);
        REQUIRE(ri(i) < 3);
        seen_low = seen_low || ri(i) == -2;
        seen_high = seen_high || ri(i) == 2;
    }
    REQUIRE(seen_low);
    REQUIRE(seen_high);
    REQUIRE_THROWS_AS(staticpy::randint(3, 3, 2), staticpy::RuntimeError);
    auto rl = staticpy::rand_like(staticpy::zeros<double>(2_c), gi);
    REQUIRE(rl.numel() == 2);
}

TEST_CASE("the default generator from two threads: each tensor one unbroken run of the sequence",
          "[tensor][random]") {
    // Each rand() holds the default generator's mutex for its whole fill, as PyTorch holds its
    // generator's: the two tensors are the sequence's first and second halves, in either order.
    constexpr std::int64_t n = 20000;
    staticpy::manual_seed(11);
    const auto expected = staticpy::rand<double>(2 * n);
    for (int round = 0; round < 20; ++round) {
        staticpy::manual_seed(11);
        staticpy::Tensor<double, staticpy::dynamic_shape<1>> a, b;
        std::thread ta([&] { a = staticpy::rand<double>(n); });
        std::thread tb([&] { b = staticpy::rand_like(staticpy::zeros<double>(n)); });
        ta.join();
        tb.join();
        const auto half = [&](const auto& t, std::int64_t start) {
            for (std::int64_t i = 0; i < n; ++i)
                if (t(i) != expected(start + i))
                    return false;
            return true;
        };
        REQUIRE(((half(a, 0) && half(b, n)) || (half(a, n) && half(b, 0))));
    }
}
