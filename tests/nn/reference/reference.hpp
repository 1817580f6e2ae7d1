#pragma once
// Reads the reference values make_reference.py wrote (PyTorch 1.13, float64) and compares to
// them: what tests/nn/optim_test.cpp, lr_scheduler_test.cpp and clip_grad_test.cpp share.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace reference {

/// The agreement the tests assert: relative difference at most 1e-6 (PyTorch's float64 results;
/// staticpy's agree much closer, see max_relative_difference).
inline constexpr double tolerance = 1e-6;

/// tests/nn/reference/<file>: each record's name and numbers.
inline std::map<std::string, std::vector<double>> read(const std::string& file) {
    const std::string path = std::string(STATICPY_TESTS_DIR) + "/nn/reference/" + file;
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::map<std::string, std::vector<double>> records;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream fields(line);
        std::string name;
        fields >> name;
        std::vector<double> values;
        for (std::string text; fields >> text;)
            values.push_back(std::strtod(text.c_str(), nullptr));
        records.emplace(name, std::move(values));
    }
    return records;
}

/// |actual - expected| relative to the larger magnitude (0 when both are equal, NaNs included;
/// infinity when the sizes differ).
inline double max_relative_difference(const std::vector<double>& expected,
                                      const std::vector<double>& actual) {
    if (expected.size() != actual.size())
        return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const double a = actual[i], e = expected[i];
        if (a == e || (std::isnan(a) && std::isnan(e)))
            continue;
        worst = std::max(worst, std::abs(a - e) / std::max(std::abs(a), std::abs(e)));
    }
    return worst;
}

} // namespace reference
