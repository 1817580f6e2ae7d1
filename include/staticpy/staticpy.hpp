#pragma once
// The whole of staticpy: every layer's umbrella.   #include <staticpy/staticpy.hpp>
// A program that needs less includes less (benchmarks/README.md lists what each header costs):
//   staticpy/containers.hpp   list, dict, slice, the builtins, repr and print
//   staticpy/core.hpp         constants, literals, errors, repr/print, Generator, threads
//   staticpy/tensor.hpp       Tensor, creation, the eager ops, printing
//   staticpy/graph.hpp        tracing, passes and dumps, without a backend
//   staticpy/jit.hpp          staticpy::jit on the CPU backend
//   staticpy/grad.hpp         grad, value_and_grad: autodiff of traced graphs, with jit
//   staticpy/nn.hpp           optimisers, learning-rate schedules, gradient clipping
//   staticpy/data.hpp         torch.utils.data

#include "staticpy/containers.hpp"
#include "staticpy/core.hpp"
#include "staticpy/data.hpp"
#include "staticpy/grad.hpp"
#include "staticpy/graph.hpp"
#include "staticpy/jit.hpp"
#include "staticpy/kernels.hpp"
#include "staticpy/nn.hpp"
#include "staticpy/tensor.hpp"
