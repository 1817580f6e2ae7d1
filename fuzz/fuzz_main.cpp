// libFuzzer's entry point for every target: compiled once (the targets' templates are what takes
// time to build), linked into each fuzz_<target> executable beside a one-line fuzz_select.cpp
// that names its target.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_targets.hpp"

extern "C" const char staticpy_fuzz_target[]; // fuzz_select.cpp

namespace {

staticpy_fuzz::outcome (*selected())(const std::uint8_t*, std::size_t) {
    for (const auto& t : staticpy_fuzz::targets)
        if (t.name == std::string_view(staticpy_fuzz_target))
            return t.run;
    std::fprintf(stderr, "staticpy fuzz: no target '%s' in fuzz_targets.hpp\n",
                 staticpy_fuzz_target);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto run = selected();
    return staticpy_fuzz::run_libfuzzer(run, data, size);
}
