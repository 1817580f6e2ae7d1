#pragma once
// Eager tensor ops, all of them:   #include <staticpy/tensor/ops.hpp>
//   functors.hpp         the scalar functors (value + emitted C++), shared with graph mode
//   promote.hpp          PyTorch's type promotion
//   broadcast.hpp        NumPy broadcasting of shapes
//   ops_elementwise.hpp  + - * / pow exp ... where, comparisons: one generic strided loop
//   ops_reduce.hpp       sum mean prod var max min argmax ... softmax log_softmax
//   ops_matmul.hpp       matmul, linear

#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/ops_matmul.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/promote.hpp"

namespace staticpy::detail {

/// Tensor's methods (x.sum(1_c), x.relu(), ...) call the free functions: one implementation.
template <class Self>
struct tensor_methods {
#define STATICPY_TENSOR_FORWARD(name)                                                              \
    template <class... Args>                                                                       \
    static auto name(const Self& self, const Args&... args) {                                      \
        return staticpy::name(self, args...);                                                      \
    }
    STATICPY_TENSOR_FORWARD(sum)
    STATICPY_TENSOR_FORWARD(prod)
    STATICPY_TENSOR_FORWARD(mean)
    STATICPY_TENSOR_FORWARD(var)
    STATICPY_TENSOR_FORWARD(amax)
    STATICPY_TENSOR_FORWARD(amin)
    STATICPY_TENSOR_FORWARD(argmax)
    STATICPY_TENSOR_FORWARD(argmin)
    STATICPY_TENSOR_FORWARD(max)
    STATICPY_TENSOR_FORWARD(min)
    STATICPY_TENSOR_FORWARD(softmax)
    STATICPY_TENSOR_FORWARD(log_softmax)
    STATICPY_TENSOR_FORWARD(matmul)
    STATICPY_TENSOR_FORWARD(abs)
    STATICPY_TENSOR_FORWARD(exp)
    STATICPY_TENSOR_FORWARD(log)
    STATICPY_TENSOR_FORWARD(sqrt)
    STATICPY_TENSOR_FORWARD(rsqrt)
    STATICPY_TENSOR_FORWARD(sin)
    STATICPY_TENSOR_FORWARD(cos)
    STATICPY_TENSOR_FORWARD(tanh)
    STATICPY_TENSOR_FORWARD(sigmoid)
    STATICPY_TENSOR_FORWARD(relu)
    STATICPY_TENSOR_FORWARD(gelu)
    STATICPY_TENSOR_FORWARD(pow)
    STATICPY_TENSOR_FORWARD(maximum)
    STATICPY_TENSOR_FORWARD(minimum)
    STATICPY_TENSOR_FORWARD(neg)
#undef STATICPY_TENSOR_FORWARD
};

} // namespace staticpy::detail
