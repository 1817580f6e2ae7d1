#pragma once
// The core layer: configuration and version, the error types, fixed_string and the literals
// ("a"_s, 3_c), compile-time constants and values, type traits, repr/print, the random
// Generator, the thread budget, Python index clamping, selections by mask (selection::ranks).
//   #include <staticpy/core.hpp>

#include "staticpy/core/config.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/fixed_string.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/index.hpp"
#include "staticpy/core/indexed.hpp"
#include "staticpy/core/print.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/selection.hpp"
#include "staticpy/core/threads.hpp"
#include "staticpy/core/traits.hpp"
#include "staticpy/core/value.hpp"
