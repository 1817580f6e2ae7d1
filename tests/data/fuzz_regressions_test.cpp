// The fuzz targets (fuzz/fuzz_targets.hpp) as ordinary tests, with any compiler and under the
// asan pass: every committed regression input (fuzz/regressions/<target>/<name>) and every seed
// goes through the same function libFuzzer calls, and each regression's outcome is checked
// against fuzz/regressions/EXPECTED. Anything a target lets out but a staticpy::Error is a bug.
//
// Allocations are watched: this executable replaces operator new so that a request above
// `allocation_ceiling` fails at once (std::bad_alloc) and is remembered, because issue 8 asks
// that a size a file merely claims never reaches the allocator, even when the reader would then
// turn bad_alloc into a MemoryError.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "corpus.hpp"
#include "fuzz_targets.hpp"

namespace {

constexpr std::size_t allocation_ceiling = std::size_t{64} << 20;
std::atomic<std::size_t> largest_request{0};

void* allocate(std::size_t n, std::size_t align) {
    std::size_t seen = largest_request.load(std::memory_order_relaxed);
    while (n > seen && !largest_request.compare_exchange_weak(seen, n)) {}
    if (n > allocation_ceiling)
        return nullptr;
    if (n == 0)
        n = 1;
    if (align <= alignof(std::max_align_t))
        return std::malloc(n);
    return std::aligned_alloc(align, (n + align - 1) / align * align);
}

/// free() behind a call g++ does not inline: seen inlined into a replaced operator delete, free
/// on memory from operator new is g++ 12's -Wmismatched-new-delete at -O3, though here that
/// memory came from malloc.
[[gnu::noinline]] void release(void* p) noexcept {
    std::free(p);
}

} // namespace

// Every scalar new/delete goes through malloc/free (one pair, so that ASan sees matching calls);
// the array forms are left to the library, which forwards them to these.
void* operator new(std::size_t n) {
    if (void* p = allocate(n, 0))
        return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t a) {
    if (void* p = allocate(n, static_cast<std::size_t>(a)))
        return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    return allocate(n, 0);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
    return allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    release(p);
}

namespace {

using staticpy_fuzz::bytes;
using staticpy_fuzz::outcome;

const std::filesystem::path regressions_dir =
    std::filesystem::path(STATICPY_FUZZ_DIR) / "regressions";

bytes read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

auto find_target(const std::string& name) {
    const auto it = std::find_if(staticpy_fuzz::targets.begin(), staticpy_fuzz::targets.end(),
                                 [&](const auto& t) { return t.name == name; });
    return it == staticpy_fuzz::targets.end() ? nullptr : it->run;
}

std::string describe(const outcome& o) {
    return o.ok ? std::string("loaded") : o.error + ": " + o.message;
}

/// Runs one input through its target: a staticpy::Error is the outcome, anything else (another
/// exception, a broken invariant) fails the test with its message; so does an allocation above
/// the ceiling.
outcome replay(const std::string& target, const std::string& name, const bytes& data) {
    INFO(target << "/" << name);
    const auto run = find_target(target);
    REQUIRE(run != nullptr);
    largest_request = 0;
    outcome o;
    try {
        o = run(data.data(), data.size());
    } catch (const std::bad_alloc&) {
        FAIL("std::bad_alloc escaped, not a staticpy::Error (largest request "
             << largest_request.load() << " bytes)");
    } catch (const std::exception& e) {
        FAIL("not a staticpy::Error: " << e.what());
    }
    CHECK(largest_request.load() <= allocation_ceiling);
    return o;
}

/// EXPECTED's lines: "<target>/<name>  ok" or "<target>/<name>  <Error>[|<Error>...]  [text]".
struct expectation {
    std::string outcome;
    std::string text;
};

std::map<std::string, expectation> read_manifest() {
    std::ifstream in(regressions_dir / "EXPECTED");
    std::map<std::string, expectation> out;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream fields(line);
        std::string file;
        expectation e;
        fields >> file >> e.outcome >> std::ws;
        std::getline(fields, e.text);
        out[file] = e;
    }
    return out;
}

} // namespace

TEST_CASE("every committed regression input gives the outcome fuzz/regressions/EXPECTED names") {
    const auto manifest = read_manifest();
    REQUIRE(!manifest.empty());
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(regressions_dir))
        if (entry.is_regular_file() && entry.path().filename() != "EXPECTED")
            files.push_back(entry.path().lexically_relative(regressions_dir).generic_string());
    std::sort(files.begin(), files.end());
    for (const auto& [file, e] : manifest) {
        INFO(file);
        CHECK(std::binary_search(files.begin(), files.end(), file));
    }
    for (const auto& file : files) {
        const std::string target = file.substr(0, file.find('/'));
        DYNAMIC_SECTION(file) {
            const auto it = manifest.find(file);
            if (it == manifest.end())
                FAIL(file << " has no line in fuzz/regressions/EXPECTED");
            const expectation& e = it->second;
#ifndef STATICPY_HAS_ZLIB
            if (file.find("gz") != std::string::npos)
                SKIP("a gzip input: staticpy was built without zlib");
#endif
            const outcome o = replay(target, file, read_file(regressions_dir / file));
            INFO("got: " << describe(o));
            if (e.outcome == "ok") {
                CHECK(o.ok);
            } else {
                REQUIRE(!o.ok);
                CHECK(("|" + e.outcome + "|").find("|" + o.error + "|") != std::string::npos);
                CHECK(o.message.find(e.text) != std::string::npos);
                CHECK(o.message.find(o.path) != std::string::npos); // it names the file
            }
        }
    }
}

#ifdef STATICPY_HAS_ZLIB
TEST_CASE("the committed regression inputs are the ones make_seed_corpus --regressions writes") {
    for (const auto& in : staticpy_fuzz::regressions()) {
        INFO(in.target << "/" << in.name
                       << ": rerun make_seed_corpus --regressions fuzz/regressions");
        CHECK(read_file(regressions_dir / in.target / in.name) == in.data);
    }
}

TEST_CASE("a 1 MiB gzip file claiming 1 GiB fails without allocating what it claims") {
    for (const auto& in : staticpy_fuzz::large_regressions()) {
        DYNAMIC_SECTION(in.target << "/" << in.name) {
            const outcome o = replay(in.target, in.name, in.data);
            INFO("got: " << describe(o));
            CHECK(!o.ok);
            CHECK((o.error == "ValueError" || o.error == "MemoryError"));
        }
    }
}
#endif

TEST_CASE("every seed input loads through its fuzz target") {
    for (const auto& in : staticpy_fuzz::seeds()) {
        const outcome o = replay(in.target, in.name, in.data);
        INFO(in.target << "/" << in.name << ": " << describe(o));
        CHECK(o.ok == in.ok);
    }
}
