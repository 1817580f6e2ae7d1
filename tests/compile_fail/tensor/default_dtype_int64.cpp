// expect: staticpy: TypeError: only floating-point types are supported as the default type
// torch.set_default_dtype(torch.int64) is PyTorch's TypeError; staticpy's setting is
// STATICPY_DEFAULT_DTYPE, given before the first include.
#if STATICPY_EXPECT_FAIL
#define STATICPY_DEFAULT_DTYPE int64
#else
#define STATICPY_DEFAULT_DTYPE float64
#endif

#include <staticpy/tensor/dtype.hpp>

int main() {
    static_assert(staticpy::get_default_dtype() != staticpy::float32);
}
