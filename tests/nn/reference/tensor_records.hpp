#pragma once
// One reference file's records (reference.hpp's format) with what the tests read from them as
// tensors: what loss_reference.hpp, norm_reference.hpp and pooling_reference.hpp share.
//   inline const reference::tensor_records& file() { static const ... r("x_reference.txt"); }

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <staticpy/tensor.hpp>

#include "reference.hpp"

namespace reference {

class tensor_records {
public:
    explicit tensor_records(const std::string& file) : records_(read(file)) {}

    /// The record `name` (std::runtime_error when there is none: the two sides disagree).
    [[nodiscard]] const std::vector<double>& record(const std::string& name) const {
        const auto found = records_.find(name);
        if (found == records_.end())
            throw std::runtime_error("no reference record " + name);
        return found->second;
    }

    /// The script's input NAME (record input/NAME) as a tensor of element type T and the given
    /// extents. Its size is checked with an exception, not REQUIRE: inputs are read before
    /// Catch2 runs.
    template <class T = double, class... E>
    auto input(const std::string& name, E... extents) const {
        auto t = staticpy::zeros<T>(extents...);
        const auto& v = record("input/" + name);
        if (static_cast<std::int64_t>(v.size()) != t.numel())
            throw std::runtime_error("input " + name + " has another size");
        for (std::int64_t i = 0; i < t.numel(); ++i)
            t.data()[i] = static_cast<T>(v[static_cast<std::size_t>(i)]);
        return t;
    }

private:
    std::map<std::string, std::vector<double>> records_;
};

/// A tensor's elements as doubles, row-major.
template <class T, class S>
std::vector<double> values(const staticpy::Tensor<T, S>& t) {
    const auto c = t.contiguous();
    return std::vector<double>(c.data(), c.data() + c.numel());
}

} // namespace reference
