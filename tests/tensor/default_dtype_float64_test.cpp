// torch.set_default_dtype(torch.float64), staticpy's way: the program (here this translation
// unit, which includes staticpy itself rather than the tests' precompiled header) defines
// STATICPY_DEFAULT_DTYPE before its first staticpy include. The checks are those of the default
// build (default_dtype_test.cpp), expecting float64.

#define STATICPY_DEFAULT_DTYPE float64

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

namespace default_dtype_checks {
inline constexpr staticpy::dtype expected_default = staticpy::float64;
}

#include "default_dtype_checks.hpp"
