#pragma once
// The whole of staticpy.   #include <staticpy/staticpy.hpp>

#include "staticpy/core/config.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/core/fixed_string.hpp"
#include "staticpy/core/generator.hpp"
#include "staticpy/core/print.hpp"
#include "staticpy/core/repr.hpp"
#include "staticpy/core/value.hpp"

#include "staticpy/containers/convert.hpp"
#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/iter.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/containers/slice.hpp"

#include "staticpy/tensor/creation.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/print.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/storage.hpp"
#include "staticpy/tensor/tensor.hpp"

#include "staticpy/tensor/ops.hpp"
