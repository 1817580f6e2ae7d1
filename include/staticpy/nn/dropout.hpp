#pragma once
// Dropout, PyTorch 1.13's: nn::functional::dropout and the module nn::Dropout.
//
//   nn::Sequential model(nn::Linear<784, 128>{}, nn::ReLU{}, nn::Dropout(0.2), ...);
//   model.eval();                                   // dropout is the identity from now on
//   auto y = nn::functional::dropout(x, 0.5, true, gen);   // seeded by a Generator
//
// In training each element is kept with probability 1 - p and scaled by 1 / (1 - p), or zeroed
// (x * 0: a NaN or infinity dropped is NaN, as PyTorch's x * mask); p = 1 gives x * 0; in
// evaluation, or with p = 0, the result is x itself. The derivative is g * mask / (1 - p).
//
// The mask is a function of a key and of each element's row-major index: a call of dropout draws
// one 64-bit key from its Generator (none in evaluation), and element i is kept when its 32 bits
// of splitmix64(key, i / 2) fall below (1 - p) 2^32. So the op object that carries the key is the
// mask: its derivative is the same op applied to the cotangent, and any evaluation of a node of it
// (a graph whose numbering duplicates a node computes the same mask twice, the tape's backward
// pass, a backward graph beside the forward) gives the same mask; two calls of dropout with the
// same p are different ops (different keys), which a traced graph does not merge. The same seed
// gives the same masks on every platform, thread count and mode (eager, traced, on the tape). The
// numbers are not PyTorch's (another generator), their distribution is.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/kernels/parallel.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/tensor.hpp"
#include "staticpy/tensor/dropout_device.hpp"

namespace staticpy {

namespace nn::functional {

namespace detail {

/// The 64 random bits of elements 2 index and 2 index + 1 (32 each) of the mask keyed `key`:
/// SplitMix64's output for the state key + (index + 1) * golden ratio (Steele, Lea and Flood
/// 2014), a counter-based stream.
constexpr std::uint64_t dropout_bits(std::uint64_t key, std::uint64_t index) {
    std::uint64_t z = key + (index + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// dropout(x, p, training) with the mask keyed `key` (run-time arguments p, training, key): see
/// the header comment. Applied to a cotangent it is its own derivative.
struct dropout_op {
    static constexpr const char* name = "dropout";
    /// Its eager form runs on GPU tensors too (backend/cuda/dropout.hpp), so a device graph runs
    /// it as it is.
    static constexpr bool eager_on_cuda = true;
    std::tuple<double, bool, std::uint64_t> args;

    template <class T, class S>
    Tensor<T, S> operator()(const Tensor<T, S>& input) const {
        const double p = std::get<0>(args);
        if (!std::get<1>(args) || p == 0.0 || input.numel() == 0)
            return input;
        // PyTorch's noise.div_(1 - p): the scale in the tensor's type.
        const T scale = p == 1.0 ? T(0) : T(1) / static_cast<T>(1.0 - p);
        const std::uint64_t key = std::get<2>(args);
        // An element is kept when its 32 bits are below (1 - p) 2^32 (p in (0, 1) here).
        const auto keep_below =
            p == 1.0 ? std::uint64_t{0} : static_cast<std::uint64_t>(std::ldexp(1.0 - p, 32));
        if (input.is_cuda()) {
            Tensor<T, S> out(input.shape(), input.device());
            dropout_on_cuda(staticpy::detail::dropout_device_tag{},
                            staticpy::detail::dropout_device_call{key, keep_below, p == 1.0},
                            staticpy::detail::flat_elements(input),
                            staticpy::detail::flat_elements(out), scale);
            return out;
        }
        const auto x = input.contiguous();
        Tensor<T, S> out{input.shape()};
        const T* in = x.data();
        T* q = out.data();
        const std::int64_t n = x.numel();
        if (p == 1.0) {
            for (std::int64_t i = 0; i < n; ++i)
                q[i] = in[i] * T(0);
            return out;
        }
        const std::int64_t pairs = (n + 1) / 2;
        const int chunks = kernels::chunk_count(pairs, kernels::threads_for(n, 4),
                                                kernels::parallel_threshold / 8);
        kernels::parallel_chunks(pairs, chunks, [&](std::int64_t b, std::int64_t e, int) {
            for (std::int64_t k = b; k < e; ++k) {
                const std::uint64_t bits = dropout_bits(key, static_cast<std::uint64_t>(k));
                const std::int64_t i = 2 * k;
                q[i] = in[i] * ((bits >> 32) < keep_below ? scale : T(0));
                if (i + 1 < n)
                    q[i + 1] = in[i + 1] * ((bits & 0xFFFFFFFFULL) < keep_below ? scale : T(0));
            }
        });
        return out;
    }

    /// g * mask / (1 - p): this op, the same key, on the cotangent.
    template <std::size_t I, class G, class Y, class X>
    auto vjp(const G& g, const Y&, const X&) const {
        return staticpy::detail::apply_op(*this, g);
    }
};

/// PyTorch's check of p (F.dropout and nn.Dropout).
inline void check_dropout_probability(double p) {
    if (!(p >= 0.0 && p <= 1.0)) {
        std::string text = "dropout probability has to be between 0 and 1, but got ";
        staticpy::repr_into(text, p);
        throw ValueError(text);
    }
}

} // namespace detail

/// torch.nn.functional.dropout(input, p=0.5, training=True), the mask drawn from `generator`
/// (the default generator unless given): one 64-bit draw per call in training with 0 < p < 1,
/// none otherwise. p outside [0, 1] is ValueError("dropout probability has to be between 0 and
/// 1, but got 1.5").
///   auto y = nn::functional::dropout(x, 0.2);                 // the default generator
///   auto z = nn::functional::dropout(x, 0.2, true, gen);      // reproducible from gen's seed
template <class X>
requires requires {
    typename X::value_type;
    typename X::shape_type;
}
auto dropout(const X& input, double p = 0.5, bool training = true,
             Generator& generator = default_generator()) {
    static_assert(std::is_floating_point_v<typename X::value_type>,
                  "staticpy: RuntimeError: dropout takes a floating-point input (PyTorch: "
                  "\"bernoulli_tensor_cpu_self_\" not implemented for 'Long')");
    detail::check_dropout_probability(p);
    std::uint64_t key = 0;
    if (training && p > 0.0 && p < 1.0) {
        const auto lock = staticpy::detail::lock_if_default(generator);
        key = generator.next_u64();
    }
    return staticpy::detail::apply_op(detail::dropout_op{{p, training, key}}, input);
}

} // namespace nn::functional

namespace nn {

/// nn.Dropout(p=0.5): functional::dropout with the module's mode (training until eval()), its
/// masks drawn from a Generator given to it, or from the default generator. p outside [0, 1] is
/// PyTorch's ValueError, when the module is made.
///   nn::Dropout drop;  nn::Dropout light(0.1);  nn::Dropout seeded(0.1, gen);
class Dropout : public Module<Dropout> {
public:
    double p = 0.5;
    /// Where the masks come from: null for the default generator.
    Generator* generator = nullptr;

    Dropout() = default;
    explicit Dropout(double probability) : p(probability) {
        functional::detail::check_dropout_probability(p);
    }
    Dropout(double probability, Generator& gen) : p(probability), generator(&gen) {
        functional::detail::check_dropout_probability(p);
    }

    template <class Self, class X>
    auto forward(const Self& self, const X& x) const {
        return functional::dropout(x, p, self.module().training,
                                   generator != nullptr ? *generator : default_generator());
    }
};

} // namespace nn

} // namespace staticpy
