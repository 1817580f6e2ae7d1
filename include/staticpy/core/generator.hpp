#pragma once
// staticpy::Generator: seeded pseudo-random numbers that are the same on every platform and
// compiler, for tensors (rand/randn/randint) and data loading (shuffling samplers).
//
// The engine is std::mt19937_64, whose output sequence the C++ standard fixes (its 10000th value
// from the default seed is 9981545732273789042). The standard's distributions
// (uniform_real_distribution, normal_distribution, ...) are implementation-defined, so the
// transforms are written here:
//   uniform double in [0, 1): the top 53 bits of one draw times 2^-53;
//   uniform float in [0, 1):  the top 24 bits times 2^-24;
//   normal: Box-Muller on two uniform doubles (u1 in (0, 1]), the second value cached;
//   integers in [low, high): rejection sampling on the range, so there is no modulo bias.
//   staticpy::Generator g(42);
//   double u = g.uniform();              // the same u everywhere
// A Generator is not thread-safe; give each thread its own. The global default one is shared by
// design, so the draws staticpy makes from it on its own (an epoch's seed, a sampler's order,
// random_split, manual_seed, seed) hold default_generator_mutex(), as PyTorch's default generator
// holds its mutex; a caller drawing from it on several threads takes that mutex too.

#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <string>

#include "staticpy/core/error.hpp"

namespace staticpy {

class Generator {
public:
    /// PyTorch's default seed (torch.initial_seed() of a fresh process).
    static constexpr std::uint64_t default_seed = 67280421310721ULL;

    explicit Generator(std::uint64_t seed = default_seed) { manual_seed(seed); }

    /// Restarts the sequence from `seed` (torch.Generator.manual_seed).
    Generator& manual_seed(std::uint64_t seed) {
        seed_ = seed;
        engine_.seed(seed);
        has_cached_normal_ = false;
        return *this;
    }
    /// Reseeds from a non-deterministic source and returns the new seed (torch.Generator.seed).
    std::uint64_t seed() {
        std::random_device rd;
        const std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
        manual_seed(s);
        return s;
    }
    /// The seed the sequence started from (torch.Generator.initial_seed).
    [[nodiscard]] std::uint64_t initial_seed() const noexcept { return seed_; }

    /// The next raw 64-bit draw.
    std::uint64_t next_u64() { return engine_(); }
    /// Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
    /// Uniform in [0, 1) as a float, 24 random bits.
    float uniform_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24F; }
    /// Standard normal (mean 0, standard deviation 1), Box-Muller.
    double normal() {
        if (has_cached_normal_) {
            has_cached_normal_ = false;
            return cached_normal_;
        }
        const double u1 = 1.0 - uniform(); // (0, 1]: log(u1) is finite
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double theta = 2.0 * 3.14159265358979323846 * u2;
        cached_normal_ = r * std::sin(theta);
        has_cached_normal_ = true;
        return r * std::cos(theta);
    }
    /// Uniform integer in [low, high) (RuntimeError when the range is empty), without bias.
    std::int64_t randint(std::int64_t low, std::int64_t high) {
        if (!(low < high))
            throw RuntimeError("random_ expects 'from' to be less than 'to', but got from=" +
                               std::to_string(low) + " >= to=" + std::to_string(high));
        const std::uint64_t range =
            static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
        // Reject the last partial block of 2^64 so that every value is equally likely.
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                    std::numeric_limits<std::uint64_t>::max() % range;
        std::uint64_t x = next_u64();
        while (x >= limit)
            x = next_u64();
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + x % range);
    }

private:
    std::mt19937_64 engine_;
    std::uint64_t seed_ = default_seed;
    double cached_normal_ = 0;
    bool has_cached_normal_ = false;
};

/// The global generator that rand/randn/randint use when none is given (torch.default_generator).
inline Generator& default_generator() {
    static Generator g;
    return g;
}

/// The mutex that guards default_generator() across threads (PyTorch's CPUGeneratorImpl mutex_).
/// The Generator itself takes no lock, so that a per-sample draw from a thread's own generator
/// costs nothing; whoever shares the default generator between threads holds this while drawing.
///   std::lock_guard lock(staticpy::default_generator_mutex());
///   auto seed = staticpy::default_generator().next_u64();
inline std::mutex& default_generator_mutex() {
    static std::mutex m;
    return m;
}

namespace detail {
/// A lock on default_generator_mutex() when `gen` is the default generator, an empty one for any
/// other (a generator passed in belongs to its caller, as in PyTorch's generator= arguments).
inline std::unique_lock<std::mutex> lock_if_default(const Generator& gen) {
    if (&gen == &default_generator())
        return std::unique_lock<std::mutex>(default_generator_mutex());
    return {};
}
} // namespace detail

/// torch.manual_seed: reseeds the default generator.   staticpy::manual_seed(0);
inline Generator& manual_seed(std::uint64_t seed) {
    std::lock_guard lock(default_generator_mutex());
    return default_generator().manual_seed(seed);
}

/// torch.seed: reseeds the default generator non-deterministically and returns the seed.
inline std::uint64_t seed() {
    std::lock_guard lock(default_generator_mutex());
    return default_generator().seed();
}

} // namespace staticpy
