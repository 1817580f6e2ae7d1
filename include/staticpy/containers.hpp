#pragma once
// Python's list and dict, slice, the builtins that take any iterable (len, zip, sorted, ...),
// the conversions (to_list, to_array, ...), and what they are used with: the literals, repr and
// print. Nothing of tensors, kernels, threads or random numbers.   #include <staticpy/containers.hpp>

#include "staticpy/containers/builtins.hpp"
#include "staticpy/containers/convert.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/iter.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/containers/slice.hpp"
#include "staticpy/core/config.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/print.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/value.hpp"
