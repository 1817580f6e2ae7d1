#pragma once
// The graph layer: nodes, tracing, the compile-time passes, programs and dumps, without a backend
// to run them (staticpy/jit.hpp adds the CPU backend and staticpy::jit).
//   #include <staticpy/graph.hpp>

#include "staticpy/graph/autodiff.hpp"
#include "staticpy/graph/dump.hpp"
#include "staticpy/graph/node.hpp"
#include "staticpy/graph/passes.hpp"
#include "staticpy/graph/program.hpp"
#include "staticpy/graph/trace.hpp"
#include "staticpy/graph/tracer.hpp"
