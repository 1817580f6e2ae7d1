// expect: staticpy: RuntimeError: the derivative for 'cube' is not implemented.
#include <cstddef>
#include <tuple>

#include <staticpy/staticpy.hpp>

using namespace staticpy;
using namespace staticpy::literals;

// An op object whose derivative is not implemented: traced it runs (jit), differentiated in
// graph mode (jit(grad(f)) differentiates the trace) it is the error.
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
    auto f = [](auto v) { return detail::apply_op(cube_op{}, v).sum(); };
    (void)jit(f)(ones<float>(3_c));
#if STATICPY_EXPECT_FAIL
    (void)jit(grad(f))(ones<float>(3_c));
#endif
}
