#pragma once
// Tensors, as PyTorch's: dtype and promotion, shapes, storage, Tensor and its views, creation
// (zeros, arange, rand, ...), the eager ops and printing.   #include <staticpy/tensor.hpp>

#include "staticpy/tensor/autograd.hpp"
#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/op_objects_index.hpp"
#include "staticpy/tensor/ops_conv.hpp"
#include "staticpy/tensor/ops.hpp"
#include "staticpy/tensor/ops_pool.hpp"
#include "staticpy/tensor/print.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/storage.hpp"
#include "staticpy/tensor/tensor.hpp"
