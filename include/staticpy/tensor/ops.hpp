#pragma once
// Eager tensor ops, all of them:   #include <staticpy/tensor/ops.hpp>
//   functors.hpp         the scalar functors (value + emitted C++), shared with graph mode
//   promote.hpp          PyTorch's type promotion
//   broadcast.hpp        NumPy broadcasting of shapes
//   ops_elementwise.hpp  + - * / pow exp ... where, comparisons: one generic strided loop
//   ops_reduce.hpp       sum mean prod var max min argmax ... softmax log_softmax
//   ops_matmul.hpp       matmul, linear
//   ops_sort.hpp         sort argsort topk
//   op_objects.hpp       ops as values (eager, traced or recorded), the derivatives' shape ops

#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/ops_index.hpp"
#include "staticpy/tensor/ops_matmul.hpp"
#include "staticpy/tensor/op_objects.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/ops_sort.hpp"
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
    STATICPY_TENSOR_OP_METHODS(STATICPY_TENSOR_FORWARD)
#undef STATICPY_TENSOR_FORWARD
};

} // namespace staticpy::detail
