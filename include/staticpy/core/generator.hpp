#pragma once
// staticpy::Generator: seeded pseudo-random numbers that are the same on every platform and
// compiler, for tensors (rand/randn/randint) and data loading (shuffling samplers).
//
// The engine is mt19937_64, whose output sequence the C++ standard fixes (std::mt19937_64's 10000th
// value from the default seed is 9981545732273789042). It is written out here (detail::mt19937_64,
// the same numbers as std::mt19937_64: tests/core/generator_test.cpp compares them) because
// <random> alone costs more to compile than list and dict. The standard's distributions
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
#include <string>
#include <vector>

#if __has_include(<sys/random.h>)
#include <sys/random.h> // getentropy (glibc 2.25+, macOS, the BSDs)
#define STATICPY_HAS_GETENTROPY 1
#else
#include <random> // std::random_device
#define STATICPY_HAS_GETENTROPY 0
#endif

#include "staticpy/core/error.hpp"

namespace staticpy {

namespace detail {
/// The 64-bit Mersenne Twister of the C++ standard ([rand.predef]: std::mt19937_64), the same
/// sequence for the same seed: w = 64, n = 312, m = 156, r = 31, a = 0xb5026f5aa96619e9,
/// (u, d) = (29, 0x5555555555555555), (s, b) = (17, 0x71d67fffeda60000),
/// (t, c) = (37, 0xfff7eee000000000), l = 43, seeded with f = 6364136223846793005.
class mt19937_64 {
public:
    static constexpr std::uint64_t default_seed = 5489U;

    explicit mt19937_64(std::uint64_t value = default_seed) noexcept { seed(value); }

    void seed(std::uint64_t value) noexcept {
        x_[0] = value;
        for (std::uint64_t i = 1; i < n; ++i)
            x_[i] = 6364136223846793005ULL * (x_[i - 1] ^ (x_[i - 1] >> 62)) + i;
        i_ = n;
    }

    std::uint64_t operator()() noexcept {
        if (i_ >= n)
            twist();
        std::uint64_t z = x_[i_++];
        z ^= (z >> 29) & 0x5555555555555555ULL;
        z ^= (z << 17) & 0x71d67fffeda60000ULL;
        z ^= (z << 37) & 0xfff7eee000000000ULL;
        z ^= z >> 43;
        return z;
    }

private:
    static constexpr std::uint64_t n = 312;
    static constexpr std::uint64_t m = 156;
    static constexpr std::uint64_t upper = ~std::uint64_t{0} << 31;
    static constexpr std::uint64_t lower = ~upper;
    static constexpr std::uint64_t a = 0xb5026f5aa96619e9ULL;

    void twist() noexcept {
        for (std::uint64_t k = 0; k < n; ++k) {
            const std::uint64_t y = (x_[k] & upper) | (x_[(k + 1) % n] & lower);
            x_[k] = x_[(k + m) % n] ^ (y >> 1) ^ ((y & 1U) != 0 ? a : 0U);
        }
        i_ = 0;
    }

    std::uint64_t x_[n]{};
    std::uint64_t i_ = n;
};

/// 64 bits from the system's entropy source, for Generator::seed (std::random_device's job).
inline std::uint64_t entropy_u64() {
#if STATICPY_HAS_GETENTROPY
    std::uint64_t s = 0;
    if (::getentropy(&s, sizeof s) != 0)
        throw RuntimeError("seed: the system's entropy source (getentropy) failed");
    return s;
#else
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
#endif
}
class generator_draws;
/// The log of the innermost trace running on this thread (null when none).
inline thread_local generator_draws* active_generator_draws = nullptr;
} // namespace detail

class Generator {
public:
    /// PyTorch's default seed (torch.initial_seed() of a fresh process).
    static constexpr std::uint64_t default_seed = 67280421310721ULL;

    explicit Generator(std::uint64_t seed = default_seed) { restart(seed); }
    Generator(const Generator&) = default;
    Generator& operator=(const Generator&) = default;
    /// Leaves the log of a trace running now (a Generator local to a traced function).
    ~Generator();

    /// Restarts the sequence from `seed` (torch.Generator.manual_seed).
    Generator& manual_seed(std::uint64_t seed) {
        before_change();
        restart(seed);
        return *this;
    }
    /// Reseeds from a non-deterministic source and returns the new seed (torch.Generator.seed).
    std::uint64_t seed() {
        const std::uint64_t s = detail::entropy_u64();
        manual_seed(s);
        return s;
    }
    /// The seed the sequence started from (torch.Generator.initial_seed).
    [[nodiscard]] std::uint64_t initial_seed() const noexcept { return seed_; }

    /// The next raw 64-bit draw.
    std::uint64_t next_u64() {
        before_change();
        return engine_();
    }
    /// Uniform in [0, 1), 53 random bits.
    double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }
    /// Uniform in [0, 1) as a float, 24 random bits.
    float uniform_float() { return static_cast<float>(next_u64() >> 40) * 0x1.0p-24F; }
    /// Standard normal (mean 0, standard deviation 1), Box-Muller.
    double normal() {
        before_change();
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
    friend class detail::generator_draws;

    void restart(std::uint64_t seed) {
        seed_ = seed;
        engine_.seed(seed);
        has_cached_normal_ = false;
    }
    /// Every change of the state comes here first: a trace running on this thread logs the
    /// state before its first change.
    void before_change();

    detail::mt19937_64 engine_;
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

/// The Generators a trace changed (graph/trace.hpp), each with its state before the first
/// change. A traced function draws as it runs (dropout's mask key, a randn it calls); a jit call
/// that then runs the function op by op instead of evaluating the graph restores them first, so
/// that it draws what an eager call would. Logs nest: a change is logged by every trace running
/// on the thread, and a Generator destroyed while one runs (a local of the traced function) is
/// forgotten.
class generator_draws {
public:
    generator_draws() : parent_(active_generator_draws) { active_generator_draws = this; }
    ~generator_draws() { stop(); }
    generator_draws(const generator_draws&) = delete;
    generator_draws& operator=(const generator_draws&) = delete;

    /// Ends the logging (the log keeps what it has).
    void stop() {
        if (active_generator_draws == this)
            active_generator_draws = parent_;
    }
    void keep(Generator& g) {
        for (const auto& b : before_)
            if (b.generator == &g)
                return;
        before_.push_back({&g, g.engine_, g.seed_, g.cached_normal_, g.has_cached_normal_});
        if (parent_ != nullptr)
            parent_->keep(g);
    }
    void forget(const Generator& g) {
        std::erase_if(before_, [&](const saved& b) { return b.generator == &g; });
        if (parent_ != nullptr)
            parent_->forget(g);
    }
    /// Puts every logged Generator back in its state before the trace.
    void restore() const {
        for (const auto& b : before_) {
            const auto lock = lock_if_default(*b.generator);
            b.generator->engine_ = b.engine;
            b.generator->seed_ = b.seed;
            b.generator->cached_normal_ = b.cached_normal;
            b.generator->has_cached_normal_ = b.has_cached_normal;
        }
    }

private:
    struct saved {
        Generator* generator;
        mt19937_64 engine;
        std::uint64_t seed;
        double cached_normal;
        bool has_cached_normal;
    };
    generator_draws* parent_;
    std::vector<saved> before_;
};
} // namespace detail

inline void Generator::before_change() {
    if (detail::active_generator_draws != nullptr)
        detail::active_generator_draws->keep(*this);
}
inline Generator::~Generator() {
    if (detail::active_generator_draws != nullptr)
        detail::active_generator_draws->forget(*this);
}

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
