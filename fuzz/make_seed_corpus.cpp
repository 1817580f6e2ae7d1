// Writes the fuzz targets' seed corpora, or the regression inputs of issue 8, as files:
//
//   make_seed_corpus <dir>                  <dir>/<target>/<name> for every seed (scripts/fuzz.sh)
//   make_seed_corpus --regressions <dir>    <dir>/<target>/<name> as committed in fuzz/regressions
//
// The inputs themselves are built by corpus.hpp, which the replay test also uses.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "corpus.hpp"

namespace {

int write_all(const std::filesystem::path& dir, const std::vector<staticpy_fuzz::input>& inputs) {
    for (const auto& in : inputs) {
        const auto path = dir / in.target / in.name;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(in.data.data()),
                  static_cast<std::streamsize>(in.data.size()));
        if (!out) {
            std::fprintf(stderr, "make_seed_corpus: cannot write %s\n", path.c_str());
            return 1;
        }
    }
    std::printf("make_seed_corpus: %zu inputs in %s\n", inputs.size(), dir.c_str());
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string_view(argv[1]).substr(0, 1) != "-")
        return write_all(argv[1], staticpy_fuzz::seeds());
#ifdef STATICPY_HAS_ZLIB
    if (argc == 3 && std::string_view(argv[1]) == "--regressions")
        return write_all(argv[2], staticpy_fuzz::regressions());
#endif
    std::fprintf(stderr, "usage: %s <dir> | --regressions <dir>\n", argv[0]);
    return 2;
}
