// Readers against damaged and hostile input: gzip streams cut short, without their trailer or
// followed by garbage; size fields that claim far more than the file holds; empty shapes with huge
// extents; and input that cannot seek (a pipe). Each case here once read wrong data, allocated
// what a header claimed, overflowed, or dropped bytes.

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

#include "test_files.hpp"
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace staticpy;
using namespace staticpy::data;
using test_files::bytes;
using test_files::contains;
using test_files::error_of;
using test_files::values;

namespace {

bytes text_bytes(const std::string& s) {
    return bytes(s.begin(), s.end());
}

/// `content` behind a pipe, named /proc/self/fd/N so that a reader opens it by path as it would
/// /dev/stdin: nothing can seek or tell its size. A thread writes it; the pipe is closed when
/// the object goes, and a reader that stopped early makes the writer's write fail (EPIPE, with
/// SIGPIPE ignored) rather than block.
class pipe_input {
public:
    explicit pipe_input(bytes content) : content_(std::move(content)) {
        std::signal(SIGPIPE, SIG_IGN);
        int fds[2];
        if (::pipe(fds) != 0)
            throw std::runtime_error("pipe failed");
        read_fd_ = fds[0];
        writer_ = std::thread([this, fd = fds[1]] {
            std::size_t done = 0;
            while (done < content_.size()) {
                const ssize_t n = ::write(fd, content_.data() + done, content_.size() - done);
                if (n <= 0)
                    break;
                done += static_cast<std::size_t>(n);
            }
            ::close(fd);
        });
    }
    pipe_input(const pipe_input&) = delete;
    pipe_input& operator=(const pipe_input&) = delete;
    ~pipe_input() {
        close_read_end();
        writer_.join();
    }
    [[nodiscard]] std::filesystem::path path() const {
        return "/proc/self/fd/" + std::to_string(read_fd_);
    }
    /// Once the reader has its own descriptor: without ours, it is the pipe's last reader.
    void close_read_end() {
        if (read_fd_ >= 0)
            ::close(std::exchange(read_fd_, -1));
    }

private:
    bytes content_;
    int read_fd_ = -1;
    std::thread writer_;
};

/// Runs f in a child process whose address space may grow by at most `extra` bytes, and
/// returns how it ended: "ok", "<python name>: <what>" for a staticpy error, or a note for
/// anything else (another exception, a crash). A reader that allocates what a header claims
/// runs out of that room and shows up here as a MemoryError or a crash instead of its error.
std::string run_limited(std::size_t extra, const std::function<void()>& f) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        std::string outcome;
#ifndef STATICPY_TEST_SANITIZED
        std::ifstream statm("/proc/self/statm");
        std::size_t pages = 0;
        statm >> pages;
        const std::size_t now = pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        rlimit limit{now + extra, now + extra};
        ::setrlimit(RLIMIT_AS, &limit);
#else
        (void)extra;
#endif
        try {
            f();
            outcome = "ok";
        } catch (const staticpy::Error& e) {
            outcome = std::string(e.python_name()) + ": " + e.what();
        } catch (const std::exception& e) {
            outcome = std::string("<another exception: ") + e.what() + ">";
        }
        (void)!::write(fds[1], outcome.data(), outcome.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string outcome;
    char buf[512];
    ssize_t n = 0;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0)
        outcome.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        return "<crashed: signal " + std::to_string(WTERMSIG(status)) + ">";
    return outcome;
}

} // namespace

// ---- item: damaged gzip streams are errors ------------------------------------------------------

#ifdef STATICPY_HAS_ZLIB

TEST_CASE("readers: a gzip file cut short is an error, never a shorter table") {
    test_files::temp_dir dir("faults_cut");
    // Stored (level 0) deflate blocks hold the text as is, so the cut falls at a known place:
    // after "1\n345" of "1\n3456789\n" (a 10-byte gzip header, a 5-byte block header).
    const auto gz = test_files::gzip_bytes(text_bytes("1\n3456789\n"), 0);
    const auto p = dir / "cut.csv.gz";
    test_files::write_file(p, bytes(gz.begin(), gz.begin() + 10 + 5 + 5));
    const auto msg = error_of<ValueError>([&] { (void)read_csv<std::int64_t>(p); });
    CHECK(msg == "CSV file '" + p.string() +
                     "': truncated gzip stream: the file ends inside compressed data, after 5 "
                     "bytes of decompressed data (zlib: unexpected end of file)");

    // The same cut in compressed data, for each reader.
    bytes idx = test_files::idx_bytes(0x08, {4000}, bytes(4000, 0));
    for (std::size_t i = 0; i < 4000; ++i)
        idx[8 + i] = static_cast<unsigned char>((i * 7919) % 251);
    const auto idx_gz = test_files::gzip_bytes(idx, 9);
    const auto q = dir / "cut.idx.gz";
    test_files::write_file(q, bytes(idx_gz.begin(), idx_gz.begin() + idx_gz.size() / 2));
    CHECK(contains(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(q); }),
                   "IDX file '" + q.string() + "': truncated gzip stream"));
}

TEST_CASE("readers: a gzip stream without its CRC and size trailer is an error") {
    test_files::temp_dir dir("faults_trailer");
    const auto cut_trailer = [&](const bytes& content, const std::string& name) {
        auto gz = test_files::gzip_bytes(content);
        gz.resize(gz.size() - 8); // the CRC-32 and the size, 4 bytes each
        const auto p = dir / name;
        test_files::write_file(p, gz);
        return p;
    };
    const auto idx = cut_trailer(test_files::idx_bytes(0x08, {3}, bytes{1, 2, 3}), "a.idx.gz");
    CHECK(contains(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(idx); }),
                   "IDX file '" + idx.string() + "': truncated gzip stream"));
    const auto csv = cut_trailer(text_bytes("1,2\n3,4\n"), "a.csv.gz");
    CHECK(contains(error_of<ValueError>([&] { (void)read_csv<float>(csv); }),
                   "CSV file '" + csv.string() + "': truncated gzip stream"));
    const auto npy_plain = dir / "x.npy";
    save_npy(npy_plain, tensor<float>({1.0F, 2.0F}));
    const auto npy = cut_trailer(test_files::read_file(npy_plain), "x.npy.gz");
    CHECK(contains(error_of<ValueError>([&] { (void)load_npy<float, 1>(npy); }),
                   "npy file '" + npy.string() + "': truncated gzip stream"));

    // A wrong CRC is zlib's "incorrect data check".
    auto gz = test_files::gzip_bytes(test_files::read_file(npy_plain));
    gz[gz.size() - 8] ^= 0xFF;
    const auto crc = dir / "crc.npy.gz";
    test_files::write_file(crc, gz);
    CHECK(contains(error_of<ValueError>([&] { (void)load_npy<float, 1>(crc); }),
                   "corrupt gzip data after 136 bytes of decompressed data (zlib: incorrect data "
                   "check)"));
}

TEST_CASE("readers: garbage after a gzip member is an error, another member is read on") {
    test_files::temp_dir dir("faults_members");
    const bytes idx = test_files::idx_bytes(0x08, {6}, bytes{1, 2, 3, 4, 5, 6});
    SECTION("garbage, and zero padding, after the member") {
        for (const bytes& tail : {bytes{'j', 'u', 'n', 'k'}, bytes(16, 0), bytes{0x1f}}) {
            auto gz = test_files::gzip_bytes(idx);
            const std::size_t member = gz.size();
            gz.insert(gz.end(), tail.begin(), tail.end());
            const auto p = dir / "tail.idx.gz";
            test_files::write_file(p, gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(p); }) ==
                  "IDX file '" + p.string() +
                      "': unexpected data after the end of the gzip stream, at byte " +
                      std::to_string(member) +
                      " of the file: not another gzip member (corrupt, or not one gzip stream)");
        }
    }
    SECTION("concatenated members read as one stream, as gzip -d and Python's gzip do") {
        bytes gz = test_files::gzip_bytes(bytes(idx.begin(), idx.begin() + 5));
        const bytes second = test_files::gzip_bytes(bytes(idx.begin() + 5, idx.begin() + 11));
        const bytes empty = test_files::gzip_bytes(bytes{});
        const bytes third = test_files::gzip_bytes(bytes(idx.begin() + 11, idx.end()));
        for (const bytes* m : {&second, &empty, &third})
            gz.insert(gz.end(), m->begin(), m->end());
        const auto p = dir / "members.idx.gz";
        test_files::write_file(p, gz);
        CHECK(values(read_idx<std::uint8_t, 1>(p)) == std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6});
        const auto csv = dir / "members.csv.gz";
        bytes two = test_files::gzip_bytes(text_bytes("12"));
        const bytes rest = test_files::gzip_bytes(text_bytes("34,5\n6,7\n"));
        two.insert(two.end(), rest.begin(), rest.end());
        test_files::write_file(csv, two);
        CHECK(values(read_csv<std::int32_t>(csv)) == std::vector<std::int32_t>{1234, 5, 6, 7});
    }
}

// ---- item: what a header claims never reaches the allocator -------------------------------------

TEST_CASE("readers: a small file claiming a huge size fails without allocating it") {
    test_files::temp_dir dir("faults_claims");
    // 1 MiB of incompressible data under a header claiming 1 GiB: within deflate's 1032:1 bound,
    // so only reading shows the claim false. Allowed 256 MiB, the reader must fail as truncated.
    bytes noise(1U << 20);
    std::uint32_t state = 12345;
    for (auto& b : noise) {
        state = state * 1664525U + 1013904223U;
        b = static_cast<unsigned char>(state >> 24);
    }
    const auto big_idx = dir / "claims.idx.gz";
    test_files::write_file(
        big_idx, test_files::gzip_bytes(test_files::idx_bytes(0x08, {1U << 30}, noise), 1));
    CHECK(run_limited(256U << 20, [&] { (void)read_idx<std::uint8_t, 1>(big_idx); }) ==
          "ValueError: IDX file '" + big_idx.string() +
              "': truncated: expected 1073741824 bytes of data, got 1048576");
    // int8 widens into int32: the 4 GiB int32 tensor is not made before the data is there.
    const auto int8_idx = dir / "claims8.idx.gz";
    test_files::write_file(
        int8_idx, test_files::gzip_bytes(test_files::idx_bytes(0x09, {1U << 30}, noise), 1));
    CHECK(run_limited(256U << 20, [&] { (void)read_idx<std::int32_t, 1>(int8_idx); }) ==
          "ValueError: IDX file '" + int8_idx.string() +
              "': truncated: expected 1073741824 bytes of data, got 1048576");

    // An npy header length near 1 GiB: refused as numpy refuses any header over 10000 bytes.
    bytes npy{0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0x00, 0x00, 0x00, 0x3F};
    npy.insert(npy.end(), noise.begin(), noise.end());
    const auto big_npy = dir / "claims.npy.gz";
    test_files::write_file(big_npy, test_files::gzip_bytes(npy, 1));
    CHECK(run_limited(256U << 20, [&] { (void)load_npy<float, 1>(big_npy); }) ==
          "ValueError: npy file '" + big_npy.string() +
              "': Header info length (1056964608) is large and may not be safe to load securely "
              "(numpy's max_header_size is 10000)");
}

TEST_CASE("read_csv: memory follows the numbers, not the text") {
    test_files::temp_dir dir("faults_csv");
    // 64 MiB of blank lines in a gzip file of about 64 KiB, read with 32 MiB to spare: nothing
    // of them is kept.
    const auto blank = dir / "blank.csv.gz";
    {
        gzFile f = gzopen(blank.c_str(), "wb1");
        REQUIRE(f != nullptr);
        const std::string chunk(1U << 20, '\n');
        for (int i = 0; i < 64; ++i)
            gzwrite(f, chunk.data(), static_cast<unsigned>(chunk.size()));
        gzwrite(f, "1,2\n", 4);
        gzclose(f);
    }
    CHECK(run_limited(32U << 20, [&] {
              const auto t = read_csv<float>(blank);
              if (t.sizes() != std::array<std::int64_t, 2>{1, 2})
                  throw std::runtime_error("wrong table");
          }) == "ok");
}

#endif // STATICPY_HAS_ZLIB

TEST_CASE("read_csv: /dev/zero fails at its first field instead of filling memory") {
    CHECK(run_limited(128U << 20, [] { (void)read_csv<float>("/dev/zero"); }) ==
          "ValueError: CSV file '/dev/zero': line 1, column 1: could not convert string '" +
              [] {
                  std::string z;
                  for (int i = 0; i < 60; ++i)
                      z += "\\x00";
                  return z;
              }() +
              "...' to float32 (a field longer than 4096 characters)");
    CHECK(run_limited(128U << 20, [] { (void)read_csv<float>("/dev/zero", {.header = true}); }) ==
          "ValueError: CSV file '/dev/zero': line 1: a header line longer than 1048576 characters "
          "(is it a CSV file?)");
}

// ---- item: empty shapes with huge extents -------------------------------------------------------

TEST_CASE("readers: a zero next to huge dimensions is an error, not an overflow") {
    test_files::temp_dir dir("faults_empty");
    const auto idx = dir / "empty.idx";
    test_files::write_file(idx, test_files::idx_bytes(0x08, {0, 0xFFFFFFFFU, 0xFFFFFFFFU}, {}));
    CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(idx); }) ==
          "IDX file '" + idx.string() +
              "': Storage size calculation overflowed with sizes=[0, 4294967295, 4294967295] "
              "(the product of the sizes, zeros counted as 1, exceeds 2^63 - 1)");
    // Ordinary empty files still read.
    test_files::write_file(idx, test_files::idx_bytes(0x08, {0, 28, 28}, {}));
    CHECK(read_idx<std::uint8_t, 3>(idx).sizes() == std::array<std::int64_t, 3>{0, 28, 28});

    const auto npy = dir / "empty.npy";
    test_files::write_file(
        npy,
        test_files::npy_file(
            1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3037000500, 3037000500, 0), }",
            {}));
    CHECK(error_of<ValueError>([&] { (void)load_npy<float, 3>(npy); }) ==
          "npy file '" + npy.string() +
              "': Storage size calculation overflowed with sizes=[3037000500, 3037000500, 0] "
              "(the product of the sizes, zeros counted as 1, exceeds 2^63 - 1)");
}

// ---- item: input that cannot seek ---------------------------------------------------------------

TEST_CASE("readers: a directory is Python's IsADirectoryError text, not a read error") {
    test_files::temp_dir dir("faults_dir");
    CHECK(error_of<RuntimeError>([&] { (void)read_csv<float>(dir.path()); }) ==
          "[Errno 21] Is a directory: '" + dir.path().string() + "'");
}

TEST_CASE("readers: a pipe reads every byte, plain and gzip") {
    SECTION("CSV: the first two bytes are data, not only gzip's magic") {
        pipe_input in(text_bytes("123,4\n5,6\n"));
        const auto t = read_csv<std::int32_t>(in.path());
        CHECK(values(t) == std::vector<std::int32_t>{123, 4, 5, 6});
    }
    SECTION("IDX, more than a pipe buffer, with no size to check against") {
        bytes data(300000);
        for (std::size_t i = 0; i < data.size(); ++i)
            data[i] = static_cast<unsigned char>(i % 253);
        const bytes idx = test_files::idx_bytes(0x08, {300, 1000}, data);
        for (const bool gz : {false, true}) {
            if (gz && !staticpy::data::detail::has_zlib)
                continue;
            CAPTURE(gz);
#ifdef STATICPY_HAS_ZLIB
            pipe_input in(gz ? test_files::gzip_bytes(idx) : idx);
#else
            pipe_input in(idx);
#endif
            const auto t = read_idx<std::uint8_t, 2>(in.path());
            CHECK(t.sizes() == std::array<std::int64_t, 2>{300, 1000});
            CHECK(values(t) == std::vector<std::uint8_t>(data.begin(), data.end()));
        }
    }
    SECTION("npy") {
        test_files::temp_dir dir("faults_pipe");
        save_npy(dir / "x.npy", tensor<double>({{1.5, -2.0}, {3.0, 4.0}}));
        pipe_input in(test_files::read_file(dir / "x.npy"));
        CHECK(values(load_npy<double, 2>(in.path())) == std::vector<double>{1.5, -2.0, 3.0, 4.0});
    }
    SECTION("a claimed size the pipe does not deliver is 'truncated', found as data runs out") {
        pipe_input in(test_files::idx_bytes(0x08, {0xFFFFFFFFU}, bytes(1000, 1)));
        // (Not in run_limited: a forked child would hold the pipe's write end open too.)
        CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(in.path()); }) ==
              "IDX file '" + in.path().string() +
                  "': truncated: expected 4294967295 bytes of data, got 1000");
    }
}
