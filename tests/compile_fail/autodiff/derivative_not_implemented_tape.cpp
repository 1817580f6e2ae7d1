// expect: staticpy: RuntimeError: the derivative for 'cube' is not implemented.
#include <cstddef>
#include <tuple>

#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

// An op object whose derivative is not implemented: it runs on tensors, but the tape records a
// derivative with every op on a Var, so applying it to one is the error.
struct cube_op {
    static constexpr const char* name = "cube";
    std::tuple<> args;
    template <class X>
    auto operator()(const X& x) const {
        return x * x * x;
    }
    STATICPY_DERIVATIVE_NOT_IMPLEMENTED("cube")
};

int main() {
    (void)detail::apply_op(cube_op{}, ones<float>(3_c));
    auto x = autograd::leaf(ones<float>(3_c));
    (void)x;
#if STATICPY_EXPECT_FAIL
    (void)detail::apply_op(cube_op{}, x);
#endif
}
