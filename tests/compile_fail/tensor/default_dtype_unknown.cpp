// expect: staticpy: TypeError: STATICPY_DEFAULT_DTYPE names no dtype
// A value that is no dtype of staticpy's (float16 is not one) is this error, not an undeclared
// name deep in a header.
#if STATICPY_EXPECT_FAIL
#define STATICPY_DEFAULT_DTYPE float16
#else
#define STATICPY_DEFAULT_DTYPE double
#endif

#include <staticpy/tensor/dtype.hpp>

int main() {
    static_assert(staticpy::get_default_dtype() == staticpy::float64);
}
