// expect: staticpy: RuntimeError: Storage size calculation overflowed: the product of the static extents exceeds 2^63 - 1
#include <staticpy/tensor/creation.hpp>

int main() {
    auto fits = staticpy::zeros<float>(staticpy::static_shape<0, 1L << 31, 1L << 31>{});
    (void)fits;
#if STATICPY_EXPECT_FAIL
    auto bad = staticpy::zeros<float>(staticpy::static_shape<0, 1L << 32, 1L << 32>{});
    (void)bad;
#endif
}
