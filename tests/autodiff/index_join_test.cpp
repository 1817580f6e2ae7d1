// Derivatives of scatter_add, index_add, cat, stack and one_hot (an integer constant)
// (tensor/op_objects_index.hpp), against finite differences in both modes: src larger than its
// index, a broadcast source, a tuple and a list of tensors, negative and run-time dims.

#include <cstdint>
#include <tuple>

#include <staticpy/staticpy.hpp>

#include "autodiff_test_support.hpp"

using namespace autodiff_test;

namespace {
using i64 = std::int64_t;
const auto x = random_tensor(41, -1, 1, 3_c, 4_c);
const auto u = random_tensor(43, -1, 1, 3_c, 4_c);
const auto u5 = random_tensor(44, -1, 1, 5_c);
const auto w12 = random_tensor(47, -1, 1, 12_c);
const auto w34 = random_tensor(49, -1, 1, 3_c, 4_c);
const auto w343 = random_tensor(51, -1, 1, 3_c, 4_c, 3_c);
const auto src33 = random_tensor(52, -1, 1, 3_c, 3_c);
const auto src31 = random_tensor(53, -1, 1, 3_c, 1_c);
/// scatter_add's index, smaller than its src ([2, 2] against [3, 3]) and duplicated.
const auto scatter_index = tensor<i64>({{0, 0}, {3, 1}});
/// Classes of three rows.
const auto classes = tensor<i64>({3, 0, 3});
} // namespace

TEST_CASE("d/dself and d/dsrc of scatter_add, src larger than its index") {
    check_gradients<0, 1>(
        [](auto self, auto src) {
            return (scatter_add(self.square(), 1_c, scatter_index.slice(1_c, 0, 2), src.t()) * w34)
                .sum();
        },
        x, src33);
}

TEST_CASE("d/dself and d/dsource of index_add: alpha, a broadcast source") {
    check_gradients<0, 1>(
        [](auto self, auto source) {
            auto a = index_add(self, 0_c, tensor<i64>({2, 0, 2}), source, 2.5);
            auto b = index_add(self.t(), -2, tensor<i64>({1, 1, 0}), source.expand(3_c, 3_c));
            return (a * w34).sum() + b.square().sum();
        },
        x, src31);
}

TEST_CASE("d/dx of cat: a tuple, a list along a run-time dim") {
    check_gradients<0, 1>(
        [](auto v, auto w) {
            auto joined = cat(std::tuple{v[0], w, v.select(1_c, 2)}, 0_c); // [4 + 5 + 3]
            auto wide = cat(list(v.t(), v.t().t().t()), -1);               // [4, 6]
            return (joined * w12).sum() + (wide * wide).sum();
        },
        x, u5);
}

TEST_CASE("d/dx of stack along a negative dim") {
    check_gradients<0, 1>(
        [](auto v, auto w) {
            return (stack(std::tuple{v, w, v * 2.0}, -1_c) * w343).sum();
        },
        x, u);
}

TEST_CASE("one_hot of a traced or captured index is a constant") {
    check_gradients<0>(
        [](auto v, auto c) {
            auto mask = one_hot(c, 4_c).template to<double>() - one_hot(classes, 4_c);
            auto mixed = cat(std::tuple{v, one_hot(c, 4)}, 0_c); // int64 promoted to float64
            return (mask * v * v).sum() + (mixed * mixed).sum();
        },
        x, classes);
}
