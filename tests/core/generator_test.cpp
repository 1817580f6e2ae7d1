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
