#pragma once
// Transitional: the ops' own apply() serves SIMD batches now (tensor/functors.hpp,
// kernels/simd.hpp); simd_op<F>::apply is F::apply, for the row kernels not yet moved over.

#include "staticpy/kernels/simd.hpp"
#include "staticpy/tensor/functors.hpp"

namespace staticpy::backend::cpu {

template <class F>
struct simd_op {
    static constexpr bool available = F::vectorized;
    template <class... B>
    static auto apply(const B&... b) {
        return F::apply(b...);
    }
};

} // namespace staticpy::backend::cpu
