#pragma once
// Embedding, PyTorch 1.13's: nn::functional::embedding and the module nn::Embedding.
//
//   nn::Embedding<10000, 64> words(gen);                 // weight [10000, 64], N(0, 1)
//   auto vectors = words(token_ids);                      // ids [B, L] (int64) -> [B, L, 64]
//   auto y = nn::functional::embedding(ids, weight, 0);  // padding_idx 0
//
// embedding(indices, weight) is weight's rows at the indices: index_select along dim 0 of the
// flattened indices, the result shaped as the indices with the embedding dim after them (an index
// outside [0, num_embeddings) is index_select's IndexError "index out of range in self", which is
// PyTorch's). Its derivative for the weight is index_select's, index_add of the cotangent's rows
// onto zeros of the weight's shape (tensor/op_objects_index.hpp, the same kernel), with the rows
// of padding_idx left out, so that the padding row's gradient is zero. One op object each, as the
// other ops: eager, traced, and on the tape alike.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "staticpy/containers/dict.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/nn/init.hpp"
#include "staticpy/nn/modules.hpp"
#include "staticpy/tensor.hpp"

namespace staticpy {

namespace nn::functional {

namespace detail {

/// embedding's padding_idx, a run-time argument of its ops: none, or PyTorch's index (negative
/// counts from the end).
struct padding_index {
    std::optional<std::int64_t> value;

    friend bool operator==(const padding_index&, const padding_index&) = default;
    void repr_into(std::string& out) const {
        out += "padding_idx=";
        out += value ? std::to_string(*value) : std::string("None");
    }

    /// The row padding_idx names in a weight of `rows` rows, -1 for none; PyTorch's assertion
    /// when it names none (F.embedding's "Padding_idx must be within num_embeddings", a Python
    /// AssertionError: here a ValueError).
    [[nodiscard]] std::int64_t row(std::int64_t rows) const {
        if (!value)
            return -1;
        if (*value >= rows || *value < -rows)
            throw ValueError("Padding_idx must be within num_embeddings");
        return *value < 0 ? *value + rows : *value;
    }
};

/// The indices as a contiguous 1-D tensor (a view when they are contiguous).
template <class I, class SI>
Tensor<I, dynamic_shape<1>> flat_indices(const Tensor<I, SI>& indices) {
    const auto c = indices.contiguous();
    return Tensor<I, dynamic_shape<1>>(c.storage(), c.storage_offset(), dynamic_shape<1>(c.numel()),
                                       {1});
}

/// embedding's result shape type: the indices' with the weight's dim 1 after them.
template <class SI, class SW>
using embedding_shape_t =
    typename staticpy::detail::shape_cat<SI, shape<shape_extent_t<SW, 1>>>::type;

/// embedding's derivative for the weight: operands g (the cotangent, [*, D]), the indices, and
/// the weight (only its shape read).
struct embedding_backward_op {
    static constexpr const char* name = "embedding_backward";
    static constexpr bool eager_on_cuda = true;
    static constexpr std::array<bool, 3> reads{true, true, false};
    std::tuple<padding_index> args;

    template <class T, class SG, class I, class SI, class L>
    auto operator()(const Tensor<T, SG>& g, const Tensor<I, SI>& indices, const L& weight) const {
        const auto& target = staticpy::detail::shape_of_like(weight);
        const auto index = flat_indices(indices);
        const std::int64_t n = index.numel();
        const std::int64_t dim = target.sizes()[1];
        auto rows = g.contiguous();
        Tensor<T, dynamic_shape<2>> source(rows.storage(), rows.storage_offset(),
                                           dynamic_shape<2>(n, dim), {dim, 1});
        const std::int64_t padding = std::get<0>(args).row(target.sizes()[0]);
        // The padding row collects nothing: the rows that name it are zeroed, in a copy (on a
        // GPU by where(), elementwise there; on the CPU only where a row names it).
        if (padding >= 0 && g.is_cuda()) {
            const auto keep = (index != padding).unsqueeze(1);
            source = Tensor<T, dynamic_shape<2>>(where(keep, source, T(0)));
        } else if (padding >= 0) {
            bool copied = false;
            for (std::int64_t i = 0; i < n; ++i) {
                if (static_cast<std::int64_t>(index.data()[i]) != padding)
                    continue;
                if (!copied) {
                    source = source.clone();
                    copied = true;
                }
                T* row = source.data() + i * dim;
                for (std::int64_t j = 0; j < dim; ++j)
                    row[j] = T(0);
            }
        }
        return staticpy::detail::index_ops::index_add_onto(zeros<T>(target, g.device()), int_<0>{},
                                                           index, source, int_<1>{});
    }

    /// First-order only, as grad is (docs/autodiff.md).
    template <std::size_t K, class... A>
    auto vjp(const A&...) const {
        return fn::no_grad{};
    }
};

/// embedding(indices, weight) (operands 0, 1) with padding_idx (a run-time argument).
struct embedding_op {
    static constexpr const char* name = "embedding";
    static constexpr bool eager_on_cuda = true;
    std::tuple<padding_index> args;

    template <class I, class SI, class T, class SW>
    auto operator()(const Tensor<I, SI>& indices, const Tensor<T, SW>& weight) const {
        (void)std::get<0>(args).row(weight.sizes()[0]);
        const auto rows = staticpy::index_select(weight, int_<0>{}, flat_indices(indices));
        using S = embedding_shape_t<SI, SW>;
        std::array<std::int64_t, S::rank> sizes{};
        for (std::size_t d = 0; d < SI::rank; ++d)
            sizes[d] = indices.sizes()[d];
        sizes[SI::rank] = weight.sizes()[1];
        return Tensor<T, S>(rows.storage(), rows.storage_offset(), S(sizes),
                            staticpy::detail::contiguous_strides(sizes));
    }

    template <std::size_t K, class G, class Y, class I, class W>
    auto vjp(const G& g, const Y&, const I& indices, const W& weight) const {
        if constexpr (K == 1)
            return staticpy::detail::apply_op(embedding_backward_op{args}, g, indices, weight);
        else
            return fn::no_grad{};
    }
};

/// padding_idx= as an argument: None, an integer, or a std::optional of one.
template <class P>
padding_index padding_of(const P& padding_idx) {
    if constexpr (std::is_same_v<P, none_t>)
        return {};
    else if constexpr (std::is_same_v<P, std::optional<std::int64_t>>)
        return {padding_idx};
    else {
        static_assert(std::is_integral_v<P> || is_int_constant_v<P>,
                      "staticpy: TypeError: padding_idx is an int or None");
        return {static_cast<std::int64_t>(padding_idx)};
    }
}

} // namespace detail

/// torch.nn.functional.embedding(input, weight, padding_idx=None): weight's rows (a 2-D weight
/// [num_embeddings, embedding_dim]) at the int64 or int32 indices `input`, a tensor of any shape
/// [*] giving [*, embedding_dim]. padding_idx's row gets no gradient (negative counts from the
/// end; outside [-num_embeddings, num_embeddings) is ValueError "Padding_idx must be within
/// num_embeddings"). max_norm, scale_grad_by_freq and sparse are not supported.
///   auto y = nn::functional::embedding(tensor<std::int64_t>({{1, 2}, {0, 1}}), weight);
template <class I, class W, class P = none_t>
requires requires {
    typename I::value_type;
    typename W::value_type;
}
auto embedding(const I& input, const W& weight, const P& padding_idx = {}) {
    using index_type = typename I::value_type;
    static_assert(
        std::is_same_v<index_type, std::int64_t> || std::is_same_v<index_type, std::int32_t>,
        "staticpy: RuntimeError: Expected tensor for argument #1 'indices' to have one of "
        "the following scalar types: Long, Int (while checking arguments for "
        "embedding)");
    static_assert(W::shape_type::rank == 2, "staticpy: RuntimeError: 'weight' must be 2-D");
    return staticpy::detail::apply_op(detail::embedding_op{{detail::padding_of(padding_idx)}},
                                      input, weight);
}

} // namespace nn::functional

namespace nn {

/// nn.Embedding's keyword arguments other than its sizes: padding_idx (max_norm,
/// scale_grad_by_freq and sparse are not supported).
struct EmbeddingOptions {
    std::optional<std::int64_t> padding_idx;
};

/// nn.Embedding(num_embeddings, embedding_dim, padding_idx=None): a weight
/// [NumEmbeddings, EmbeddingDim] initialised N(0, 1) from a Generator (the default one unless
/// given), padding_idx's row zeros; forward(indices) is functional::embedding.
///   nn::Embedding<10, 3> emb;                     nn::Embedding<10, 3> seeded(gen);
///   nn::Embedding<10, 3> padded({.padding_idx = 0}, gen);
template <std::int64_t NumEmbeddings, std::int64_t EmbeddingDim, class T = default_float_t>
class Embedding : public Module<Embedding<NumEmbeddings, EmbeddingDim, T>> {
    static_assert(NumEmbeddings >= 0 && EmbeddingDim >= 0,
                  "staticpy: RuntimeError: Trying to create tensor with negative dimension");
    static_assert(std::is_floating_point_v<T>,
                  "staticpy: TypeError: nn::Embedding's weight needs a floating-point dtype");

public:
    static constexpr std::int64_t num_embeddings = NumEmbeddings;
    static constexpr std::int64_t embedding_dim = EmbeddingDim;
    using weight_type = decltype(empty<T>(int_<NumEmbeddings>{}, int_<EmbeddingDim>{}));

    weight_type weight;
    /// The row that gets no gradient (normalised: negative indices counted from the end).
    std::optional<std::int64_t> padding_idx;

    Embedding() : Embedding(EmbeddingOptions{}, default_generator()) {}
    explicit Embedding(Generator& gen) : Embedding(EmbeddingOptions{}, gen) {}
    explicit Embedding(const EmbeddingOptions& options, Generator& gen = default_generator())
        : weight(empty<T>(int_<NumEmbeddings>{}, int_<EmbeddingDim>{})) {
        if (options.padding_idx) {
            const std::int64_t p = *options.padding_idx;
            if (p >= NumEmbeddings || p < -NumEmbeddings)
                throw ValueError("Padding_idx must be within num_embeddings");
            padding_idx = p < 0 ? p + NumEmbeddings : p;
        }
        reset_parameters(gen);
    }

    /// PyTorch's reset_parameters: normal_(weight), then padding_idx's row zeros.
    void reset_parameters(Generator& gen = default_generator()) {
        init::normal_(weight, 0.0, 1.0, gen);
        if (padding_idx)
            init::zeros_(weight.select(0, *padding_idx));
    }

    auto own_parameters() const { return dict(str<"weight">{} = &weight); }

    template <class Self, class I>
    auto forward(const Self& self, const I& indices) const {
        return functional::embedding(indices, self[str<"weight">{}], padding_idx);
    }
};

} // namespace nn

} // namespace staticpy
