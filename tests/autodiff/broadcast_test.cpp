// Derivatives of the binary elementwise ops with broadcasting: each operand's gradient summed back
// over the dims it was broadcast along (graph/autodiff.hpp's unbroadcast), against finite
// differences.

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
/// f(p, q)'s gradients for p [3, 4] and q broadcast along it as a row [4] and as a column [3, 1].
template <class F>
void check_broadcasts(const F& f) {
    const auto a = random_tensor(4, 0.5, 2.0, 3_c, 4_c);
    const auto row = random_tensor(5, 0.5, 2.0, 4_c);
    const auto col = random_tensor(6, 0.5, 2.0, 3_c, 1_c);
    check_gradients<0, 1>(f, a, row);
    check_gradients<0, 1>(f, a, col);
}
} // namespace

TEST_CASE("d/dp and d/dq of p + q, q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(p + q); });
}

TEST_CASE("d/dp and d/dq of p - q, q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(p - q); });
}

TEST_CASE("d/dp and d/dq of p * q, q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(p * q); });
}

TEST_CASE("d/dp and d/dq of p / q, q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(p / q); });
}

TEST_CASE("d/dp and d/dq of pow(p, q), q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(pow(p, q)); });
}

TEST_CASE("d/dp and d/dq of maximum(p, q) * p, q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(maximum(p, q) * p); });
}

TEST_CASE("d/dp and d/dq of minimum(p, q) * q, q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(minimum(p, q) * q); });
}

TEST_CASE("d/dp and d/dq of where(p > q, p * p, q), q broadcast as a row and as a column") {
    check_broadcasts([](auto p, auto q) { return sum(where(p > q, p * p, q)); });
}

TEST_CASE("a dynamic-shaped operand is summed back at run time when it broadcasts") {
    Tensor<double, dynamic_shape<2>> a = random_tensor(7, 0.5, 2.0, 3_c, 4_c);
    Tensor<double, dynamic_shape<2>> col = random_tensor(8, 0.5, 2.0, 3_c, 1_c);
    const auto [ga, gc] =
        grad([](auto p, auto q) { return sum(p * q); }, std::tuple{0_c, 1_c})(a, col);
    require_close(ga, flat(col.expand(3, 4)));
    require_close(gc, flat(sum(a, 1_c, True)));
}
