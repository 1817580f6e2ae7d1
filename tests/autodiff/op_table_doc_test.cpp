// docs/autodiff.md's "Derivative status" table is generated from the op table (op_table.hpp), so
// it cannot drift: this test fails when the docs' table is not the generated one (run it with
// STATICPY_UPDATE_DOCS=1 to rewrite the docs), and when a header defines an op (a functor's or an
// op object's name) that the table neither lists nor names as internal.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "op_table.hpp"

namespace {

const std::string begin_marker =
    "<!-- generated from tests/autodiff/op_table.hpp by tests/autodiff/op_table_doc_test.cpp: "
    "edit the table there, then run the test with STATICPY_UPDATE_DOCS=1 -->\n";
const std::string end_marker = "<!-- end of the generated table -->\n";

std::string status_text(op_table::derivative d) {
    switch (d) {
    case op_table::derivative::implemented:
        return "yes";
    case op_table::derivative::zero:
        return "zero (where it exists), as PyTorch's";
    case op_table::derivative::not_differentiable:
        return "none: an integer or bool result";
    }
    return "";
}

/// What op_table_check.hpp compares between the modes for an entry.
template <class Entry>
std::string checked_text() {
    if constexpr (Entry::status == op_table::derivative::not_differentiable)
        return "value";
    else if constexpr (Entry::status == op_table::derivative::implemented &&
                       !std::is_void_v<typename Entry::functor>)
        return "value, first and second derivatives";
    else
        return "value, first derivatives";
}

/// The table's Markdown: one row per op, family by family.
std::string generated_table() {
    std::string out = begin_marker;
    out += "| op | family | derivative | graph = eager in float64 | note |\n"
           "|---|---|---|---|---|\n";
    op_table::for_each_family([&](std::string_view family, auto ops) {
        ops([&](const auto& op) {
            using entry_t = std::remove_cvref_t<decltype(op)>;
            out += "| `" + std::string(op.name) + "` | " + std::string(family) + " | " +
                   status_text(entry_t::status) + " | " + checked_text<entry_t>() + " | " +
                   std::string(op.note) + " |\n";
        });
    });
    out += "\nInternal ops (graph nodes that only derivative rules create, each differentiated "
           "by the second derivatives of the op it serves): ";
    bool first = true;
    for (const auto& [name, role] : op_table::internal_ops) {
        out += (first ? "" : "; ") + std::string("`") + std::string(name) + "` (" +
               std::string(role) + ")";
        first = false;
    }
    return out + ".\n" + end_marker;
}

std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::filesystem::path source_root() {
    return std::filesystem::path(STATICPY_TESTS_DIR).parent_path();
}

} // namespace

TEST_CASE("docs/autodiff.md's derivative table is the op table's") {
    const auto docs = source_root() / "docs" / "autodiff.md";
    std::string text = read_file(docs);
    const auto b = text.find(begin_marker);
    const auto e = text.find(end_marker);
    REQUIRE(b != std::string::npos);
    REQUIRE(e != std::string::npos);
    const std::string current = text.substr(b, e + end_marker.size() - b);
    const std::string wanted = generated_table();
    if (current != wanted && std::getenv("STATICPY_UPDATE_DOCS") != nullptr) {
        text.replace(b, current.size(), wanted);
        std::ofstream(docs, std::ios::binary) << text;
        WARN("rewrote " << docs.string());
        return;
    }
    INFO(
        "docs/autodiff.md's table differs from the op table's; rerun with STATICPY_UPDATE_DOCS=1:\n"
        << wanted);
    CHECK(current == wanted);
}

TEST_CASE("every op a header defines is in the op table") {
    std::set<std::string> listed;
    op_table::for_each_family([&](std::string_view, auto ops) {
        ops([&](const auto& op) {
            const std::string name(op.name);
            listed.insert(name.substr(0, name.find(' ')));
        });
    });
    for (const auto& [name, role] : op_table::internal_ops)
        listed.insert(std::string(name));
    // An op's name: an op struct's `name = "..."` (functors, op objects, reductions) or the first
    // argument of the macros that define several (comparisons, rounding, math functions).
    const std::regex named(R"re(^\s*static constexpr const char\* name = "([a-z0-9_]+)")re");
    const std::regex by_macro(R"re(^STATICPY_(COMPARISON|ROUNDING|MATH)_OP\(([a-z0-9_]+),)re");
    std::size_t seen = 0;
    for (const char* dir : {"tensor", "nn", "graph"}) {
        for (const auto& f : std::filesystem::recursive_directory_iterator(
                 source_root() / "include" / "staticpy" / dir)) {
            if (f.path().extension() != ".hpp")
                continue;
            std::istringstream lines(read_file(f.path()));
            std::string line;
            while (std::getline(lines, line)) {
                std::smatch m;
                std::string name;
                if (std::regex_search(line, m, named))
                    name = m[1];
                else if (std::regex_search(line, m, by_macro))
                    name = m[2];
                else
                    continue;
                ++seen;
                INFO(f.path().string()
                     << " defines the op '" << name << "': add it to tests/autodiff/op_table.hpp");
                CHECK(listed.count(name) == 1);
            }
        }
    }
    CHECK(seen > 50); // the scan found the ops (a moved header would find none)
}
