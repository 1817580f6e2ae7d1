#pragma once
// Helpers shared by the tensor tests.

#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/tensor/tensor.hpp>

namespace tensor_test {

/// The elements of a contiguous result, flat: every op returns a new contiguous tensor.
template <class T, class S>
std::vector<T> values(const staticpy::Tensor<T, S>& t) {
    REQUIRE(t.is_contiguous());
    return std::vector<T>(t.data(), t.data() + t.numel());
}

} // namespace tensor_test
