// The default dtype as every program gets it unless it says otherwise: float32, PyTorch's.
// (default_dtype_float64_test.cpp runs the same checks with STATICPY_DEFAULT_DTYPE float64.)

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

namespace default_dtype_checks {
inline constexpr staticpy::dtype expected_default = staticpy::float32;
}

#include "default_dtype_checks.hpp"
