// expect: staticpy: RuntimeError: the derivative for an op object without a vjp is not implemented
#include <tuple>

#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

// An op object with no vjp at all: on a Var (the tape records its derivative) the error says so,
// rather than an overload failure inside the tape.
struct cube_op {
    static constexpr const char* name = "cube";
    std::tuple<> args;
    template <class X>
    auto operator()(const X& x) const {
        return x * x * x;
    }
};

int main() {
    (void)detail::apply_op(cube_op{}, ones<float>(3_c));
    auto x = autograd::leaf(ones<float>(3_c));
    (void)x;
#if STATICPY_EXPECT_FAIL
    (void)detail::apply_op(cube_op{}, x);
#endif
}
