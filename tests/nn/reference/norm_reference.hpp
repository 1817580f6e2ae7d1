#pragma once
// The records of norm_reference.txt (make_norm_reference.py: PyTorch 1.13's batch_norm,
// layer_norm, embedding and modules in float64) and its inputs as tensors: what
// tests/nn/normalization_test.cpp, dropout_embedding_test.cpp and train_eval_test.cpp share.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <staticpy/tensor.hpp>

#include "tensor_records.hpp"

namespace norm_reference {

/// The records of norm_reference.txt.
inline const reference::tensor_records& records() {
    static const reference::tensor_records r("norm_reference.txt");
    return r;
}
inline const std::vector<double>& record(const std::string& name) {
    return records().record(name);
}

/// The words of the record keys/<model>: a state_dict's keys in PyTorch's order.
inline std::vector<std::string> keys(const std::string& model) {
    const std::string path = std::string(STATICPY_TESTS_DIR) + "/nn/reference/norm_reference.txt";
    std::ifstream in(path);
    const std::string name = "keys/" + model;
    for (std::string line; std::getline(in, line);) {
        std::istringstream fields(line);
        std::string first;
        fields >> first;
        if (first != name)
            continue;
        std::vector<std::string> words;
        for (std::string w; fields >> w;)
            words.push_back(w);
        return words;
    }
    throw std::runtime_error("no reference record " + name);
}

using reference::values;

template <class T = double, class... E>
auto input(const std::string& name, E... extents) {
    return records().input<T>(name, extents...);
}

/// The largest difference of `got` from record `name`, relative to 1 + |expected| (infinity when
/// the sizes differ).
template <class T, class S>
double difference(const std::string& name, const staticpy::Tensor<T, S>& got) {
    const auto& want = record(name);
    const auto v = values(got);
    if (v.size() != want.size())
        return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
        worst = std::max(worst, std::abs(v[i] - want[i]) / (1 + std::abs(want[i])));
    return worst;
}

} // namespace norm_reference
