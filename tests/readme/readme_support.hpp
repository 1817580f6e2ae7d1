#pragma once
// Checks a README or docs example's printed output against the comments it promises: in an
// example, a line that calls print(...) ends with "// <what it prints>".

#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace readme {

/// Sends std::cout to a string for as long as it lives.
class capture_stdout {
public:
    capture_stdout() : previous_(std::cout.rdbuf(buffer_.rdbuf())) {}
    ~capture_stdout() { std::cout.rdbuf(previous_); }
    capture_stdout(const capture_stdout&) = delete;
    capture_stdout& operator=(const capture_stdout&) = delete;

    [[nodiscard]] std::vector<std::string> lines() const {
        std::vector<std::string> out;
        std::istringstream in(buffer_.str());
        for (std::string line; std::getline(in, line);)
            out.push_back(line);
        return out;
    }

private:
    std::ostringstream buffer_;
    std::streambuf* previous_;
};

/// The "// ..." comments of the print lines in the n-th (1-based) ```cpp block of a markdown file.
inline std::vector<std::string> promised_output(const std::string& markdown, int n) {
    std::ifstream file(markdown);
    if (!file)
        throw std::runtime_error("cannot open " + markdown);
    std::vector<std::string> promised;
    int block = 0;
    bool inside = false;
    for (std::string line; std::getline(file, line);) {
        if (!inside && line == "```cpp") {
            inside = ++block == n;
            continue;
        }
        if (inside && line.rfind("```", 0) == 0)
            break;
        if (!inside || line.find("print(") == std::string::npos)
            continue;
        const auto comment = line.rfind("// ");
        if (comment == std::string::npos)
            throw std::runtime_error(markdown + " example " + std::to_string(n) +
                                     ": a print line without its // output: " + line);
        promised.push_back(line.substr(comment + 3));
    }
    return promised;
}

} // namespace readme
