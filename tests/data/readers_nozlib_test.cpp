// The readers as a build without zlib sees them: CMake defines STATICPY_HAS_ZLIB when it finds
// zlib, so this file undefines it before including staticpy, and checks that plain files still
// read and that a gzip file is a clear RuntimeError, not garbage or a crash.

#undef STATICPY_HAS_ZLIB

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

#include "test_files.hpp"

using namespace staticpy;
using namespace staticpy::data;

TEST_CASE("without zlib: plain files read, a gzip file is a RuntimeError saying why") {
    STATIC_REQUIRE(!staticpy::data::detail::has_zlib);
    test_files::temp_dir dir("nozlib");
    const auto plain = dir / "labels-idx1-ubyte";
    test_files::write_file(plain, test_files::idx_bytes(0x08, {3}, {1, 2, 3}));
    CHECK(read_idx<std::uint8_t, 1>(plain)(2) == 3);

    // Any file that starts with gzip's magic bytes is taken for gzip, whatever its name.
    const auto gz = dir / "labels-idx1-ubyte.gz";
    test_files::write_file(gz, {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3});
    const std::string expected =
        "IDX file '" + gz.string() +
        "': the file is gzip-compressed, but staticpy was built without zlib (install "
        "zlib1g-dev and reconfigure, or define STATICPY_HAS_ZLIB and link -lz; or decompress it "
        "with gunzip)";
    const auto read_gz = [&] { return read_idx<std::uint8_t, 1>(gz); };
    CHECK_THROWS_AS(read_gz(), RuntimeError);
    CHECK_THROWS_WITH(read_gz(), expected);
    const auto load_gz = [&] { return load_npy<float, 1>(gz); };
    CHECK_THROWS_AS(load_gz(), RuntimeError);
    CHECK_THROWS_AS(read_csv<float>(gz), RuntimeError);
}
