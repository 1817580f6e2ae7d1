// staticpy's own mt19937_64 (core/generator.hpp writes the engine out so that the header does not
// need <random>) gives exactly std::mt19937_64's sequence, and Generator draws from it.
#include <cstdint>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include <staticpy/core/generator.hpp>

TEST_CASE("detail::mt19937_64 is std::mt19937_64, value for value", "[generator]") {
    // The standard's check value: the 10000th draw of a default-constructed engine.
    staticpy::detail::mt19937_64 def;
    for (int i = 1; i < 10000; ++i)
        def();
    REQUIRE(def() == 9981545732273789042ULL);

    for (const std::uint64_t seed :
         {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{42}, std::uint64_t{5489},
          std::uint64_t{67280421310721ULL}, ~std::uint64_t{0}, std::uint64_t{1} << 63}) {
        staticpy::detail::mt19937_64 ours(seed);
        std::mt19937_64 theirs(seed);
        // Several twists of the 312-word state.
        for (int i = 0; i < 2000; ++i)
            REQUIRE(ours() == theirs());
        // Reseeding in the middle of a block restarts the sequence.
        ours.seed(seed ^ 0x9e3779b97f4a7c15ULL);
        theirs.seed(seed ^ 0x9e3779b97f4a7c15ULL);
        for (int i = 0; i < 700; ++i)
            REQUIRE(ours() == theirs());
        // A copy continues the same sequence.
        auto copy = ours;
        auto theirs_copy = theirs;
        for (int i = 0; i < 400; ++i) {
            REQUIRE(copy() == theirs_copy());
            REQUIRE(ours() == theirs());
        }
    }
}

TEST_CASE("Generator draws std::mt19937_64's numbers", "[generator]") {
    staticpy::Generator g(123);
    std::mt19937_64 ref(123);
    for (int i = 0; i < 1000; ++i)
        REQUIRE(g.next_u64() == ref());

    staticpy::Generator d; // PyTorch's default seed
    std::mt19937_64 ref_default(staticpy::Generator::default_seed);
    REQUIRE(d.initial_seed() == staticpy::Generator::default_seed);
    for (int i = 0; i < 700; ++i)
        REQUIRE(d.next_u64() == ref_default());

    g.manual_seed(7);
    ref.seed(7);
    REQUIRE(g.uniform() == static_cast<double>(ref() >> 11) * 0x1.0p-53);
    REQUIRE(g.uniform_float() == static_cast<float>(ref() >> 40) * 0x1.0p-24F);
}

TEST_CASE("Generator::seed draws a fresh seed from the system", "[generator]") {
    staticpy::Generator g(1);
    std::set<std::uint64_t> seeds;
    for (int i = 0; i < 4; ++i) {
        const std::uint64_t s = g.seed();
        REQUIRE(g.initial_seed() == s);
        std::mt19937_64 ref(s);
        REQUIRE(g.next_u64() == ref());
        seeds.insert(s);
    }
    REQUIRE(seeds.size() > 1); // four equal 64-bit draws: the source is broken
}

TEST_CASE("generator_draws puts back what a trace drew, nested logs too", "[generator]") {
    // What graph::trace does with it: log while the traced function runs, stop, and put every
    // Generator back before a call that runs op by op draws again.
    using staticpy::Generator;
    Generator a(1);
    Generator b(2);
    const Generator a0 = a;
    const Generator b0 = b;
    auto same = [](Generator x, Generator y) {
        for (int i = 0; i < 3; ++i)
            if (x.normal() != y.normal() || x.next_u64() != y.next_u64())
                return false;
        return x.initial_seed() == y.initial_seed();
    };
    {
        staticpy::detail::generator_draws outer;
        (void)a.normal(); // leaves a cached second value: the state includes it
        {
            staticpy::detail::generator_draws inner;
            (void)b.next_u64();
            b.manual_seed(7);
            Generator local(3); // drawn from and destroyed while logging: forgotten
            (void)local.next_u64();
            inner.stop();
            inner.restore();
            CHECK(same(b, b0));
            CHECK(!same(a, a0)); // not the inner log's
            (void)b.uniform();   // after stop: the outer log is active again, and has b
        }
        outer.stop();
        (void)a.next_u64(); // not logged: nothing is active
        outer.restore();
    }
    CHECK(same(a, a0));
    CHECK(same(b, b0));
    CHECK(staticpy::detail::active_generator_draws == nullptr);
}
