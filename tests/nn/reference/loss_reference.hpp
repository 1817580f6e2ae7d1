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

#include "tensor_records.hpp"

namespace loss_reference {

/// The records of loss_reference.txt.
inline const reference::tensor_records& records() {
    static const reference::tensor_records r("loss_reference.txt");
    return r;
}
inline const std::vector<double>& record(const std::string& name) {
    return records().record(name);
}

template <class T = double, class... E>
auto input(const std::string& name, E... extents) {
    return records().input<T>(name, extents...);
}

using reference::values;

} // namespace loss_reference
