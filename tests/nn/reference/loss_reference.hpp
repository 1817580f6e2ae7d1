#pragma once
// The records of loss_reference.txt (make_loss_reference.py: PyTorch 1.13's losses in float64)
// and its inputs as tensors: what tests/nn/functional_test.cpp and tests/autodiff/loss_test.cpp
// share.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <staticpy/tensor.hpp>

#include "reference.hpp"

namespace loss_reference {

/// The record `name` (std::runtime_error when there is none: the two sides disagree).
inline const std::vector<double>& record(const std::string& name) {
    static const auto records = reference::read("loss_reference.txt");
    const auto found = records.find(name);
    if (found == records.end())
        throw std::runtime_error("no reference record " + name);
    return found->second;
}

/// make_loss_reference.py's input NAME as a tensor of element type T and the given extents.
template <class T = double, class... E>
auto input(const std::string& name, E... extents) {
    auto t = staticpy::zeros<T>(extents...);
    const auto& values = record("input/" + name);
    if (static_cast<std::int64_t>(values.size()) != t.numel())
        throw std::runtime_error("input " + name + " has another size");
    for (std::int64_t i = 0; i < t.numel(); ++i)
        t.data()[i] = static_cast<T>(values[static_cast<std::size_t>(i)]);
    return t;
}

/// A tensor's elements as doubles, row-major.
template <class T, class S>
std::vector<double> values(const staticpy::Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

} // namespace loss_reference
