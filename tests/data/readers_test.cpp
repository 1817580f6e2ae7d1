// Readers: IDX (every type, plain and gzip), .npy and CSV, round trips and every error the docs
// promise. The files are written at test time into a temporary directory.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/data.hpp>
#include <staticpy/staticpy.hpp>

#include "test_files.hpp"

using namespace staticpy;
using namespace staticpy::data;
using namespace staticpy::literals;
using test_files::bytes;
using test_files::contains;
using test_files::error_of;
using test_files::values;

namespace {

/// Writes an IDX file plain (gz false) or gzip-compressed.
std::filesystem::path write_idx(const test_files::temp_dir& dir, const std::string& name,
                                const bytes& content, bool gz) {
    const auto p = dir / (gz ? name + ".gz" : name);
#ifdef STATICPY_HAS_ZLIB
    if (gz) {
        test_files::write_gz(p, content);
        return p;
    }
#endif
    test_files::write_file(p, content);
    return p;
}

std::vector<bool> gz_modes() {
    return staticpy::data::detail::has_zlib ? std::vector<bool>{false, true}
                                            : std::vector<bool>{false};
}

} // namespace

// ---- IDX --------------------------------------------------------------------------------------

TEST_CASE("read_idx: every IDX type round-trips, plain and gzip") {
    test_files::temp_dir dir("idx_types");
    std::vector<std::int64_t> ints;
    std::vector<double> reals;
    for (int i = 0; i < 24; ++i) {
        ints.push_back(i * 10 - 115);
        reals.push_back(i * 0.75 - 3.25);
    }
    const std::vector<std::uint32_t> dims{2, 3, 4};
    for (const bool gz : gz_modes()) {
        CAPTURE(gz);
        {
            std::vector<std::int64_t> u8;
            for (int i = 0; i < 24; ++i)
                u8.push_back(i * 10 + 5);
            const auto p = write_idx(
                dir, "u8", test_files::idx_bytes(0x08, dims, test_files::be_data<std::uint8_t>(u8)),
                gz);
            const auto t = read_idx<std::uint8_t, 3>(p);
            STATIC_REQUIRE(
                std::is_same_v<decltype(t), const Tensor<std::uint8_t, dynamic_shape<3>>>);
            CHECK(t.sizes() == std::array<std::int64_t, 3>{2, 3, 4});
            CHECK(t(1, 2, 3) == 235);
            CHECK(values(t.to<std::int64_t>()) == u8);
            const auto info = read_idx_info(p);
            CHECK(info.type_code == 0x08);
            CHECK(info.type_name == "uint8");
            CHECK(info.dims == std::vector<std::int64_t>{2, 3, 4});
            CHECK(info.gzip == gz);
        }
        { // int8 and int16 have no staticpy dtype: they widen into int32
            const auto p8 = write_idx(
                dir, "i8",
                test_files::idx_bytes(0x09, dims, test_files::be_data<std::int8_t>(ints)), gz);
            CHECK(read_idx_info(p8).dtype == int32);
            CHECK(values(read_idx<std::int32_t, 3>(p8).to<std::int64_t>()) == ints);
            std::vector<std::int64_t> big;
            for (auto v : ints)
                big.push_back(v * 250);
            const auto p16 = write_idx(
                dir, "i16",
                test_files::idx_bytes(0x0B, dims, test_files::be_data<std::int16_t>(big)), gz);
            CHECK(values(read_idx<std::int32_t, 3>(p16).to<std::int64_t>()) == big);
        }
        {
            std::vector<std::int64_t> huge;
            for (auto v : ints)
                huge.push_back(v * 17000000);
            const auto p = write_idx(
                dir, "i32",
                test_files::idx_bytes(0x0C, dims, test_files::be_data<std::int32_t>(huge)), gz);
            CHECK(values(read_idx<std::int32_t, 3>(p).to<std::int64_t>()) == huge);
        }
        {
            const auto p =
                write_idx(dir, "f32",
                          test_files::idx_bytes(0x0D, dims, test_files::be_data<float>(reals)), gz);
            CHECK(values(read_idx<float, 3>(p).to<double>()) == reals); // exact in float
            const auto p64 = write_idx(
                dir, "f64", test_files::idx_bytes(0x0E, dims, test_files::be_data<double>(reals)),
                gz);
            CHECK(values(read_idx<double, 3>(p64)) == reals);
        }
        { // rank 1 (labels) and empty data
            const auto p = write_idx(
                dir, "labels",
                test_files::idx_bytes(
                    0x08, {5}, test_files::be_data<std::uint8_t>(std::vector<int>{9, 0, 3, 7, 1})),
                gz);
            CHECK(values(read_idx<std::uint8_t, 1>(p)) == std::vector<std::uint8_t>{9, 0, 3, 7, 1});
            const auto e = write_idx(dir, "empty", test_files::idx_bytes(0x0D, {0, 28}, {}), gz);
            CHECK(read_idx<float, 2>(e).sizes() == std::array<std::int64_t, 2>{0, 28});
        }
    }
}

TEST_CASE("read_idx: corrupt, truncated and mismatched files are errors naming the file") {
    test_files::temp_dir dir("idx_errors");
    const bytes pixels(2 * 3 * 4, 7);
    for (const bool gz : gz_modes()) {
        CAPTURE(gz);
        const std::string ext = gz ? ".gz" : "";
        SECTION("bad magic number") {
            auto content = test_files::idx_bytes(0x08, {2, 3, 4}, pixels);
            content[0] = 0x12;
            content[1] = 0x34;
            const auto p = write_idx(dir, "magic", content, gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(p); }) ==
                  "IDX file '" + p.string() +
                      "': bad magic number 0x12340803: an IDX file starts with two zero bytes, a "
                      "type byte and the number of dimensions (is it an IDX file?)");
        }
        SECTION("bad type byte") {
            const auto p =
                write_idx(dir, "type", test_files::idx_bytes(0x0A, {2, 3, 4}, pixels), gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(p); }) ==
                  "IDX file '" + p.string() +
                      "': unknown data type 0x0A in the magic number (IDX types: 0x08 uint8, 0x09 "
                      "int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)");
            CHECK_THROWS_AS(read_idx_info(p), ValueError);
        }
        SECTION("zero dimensions") {
            const auto p = write_idx(dir, "zero", bytes{0, 0, 8, 0}, gz);
            CHECK(contains(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(p); }),
                           "the magic number gives 0 dimensions"));
        }
        SECTION("truncated data") {
            const auto p = write_idx(
                dir, "short", test_files::idx_bytes(0x08, {100, 28, 28}, bytes(1000, 1)), gz);
            const auto msg = error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(p); });
            CHECK(contains(msg, "IDX file '" + p.string() +
                                    "': truncated: expected 78400 bytes of data, got 1000"));
        }
        SECTION("truncated multi-byte data: a partial last element") {
            const auto p =
                write_idx(dir, "short32", test_files::idx_bytes(0x0D, {2, 2}, bytes(15, 0)), gz);
            CHECK(contains(error_of<ValueError>([&] { (void)read_idx<float, 2>(p); }),
                           "truncated: expected 16 bytes of data, got 15"));
        }
        SECTION("truncated header") {
            const auto p = write_idx(dir, "tiny", bytes{0, 0}, gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(p); }) ==
                  "IDX file '" + p.string() +
                      "': truncated header: expected 4 bytes of magic number, got 2");
            const auto q = write_idx(dir, "dims", bytes{0, 0, 8, 3, 0, 0, 0, 2}, gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(q); }) ==
                  "IDX file '" + q.string() +
                      "': truncated header: expected 12 bytes of 3 dimension sizes, got 4");
            const auto e = write_idx(dir, "nothing", bytes{}, gz);
            CHECK(contains(error_of<ValueError>([&] { (void)read_idx_info(e); }),
                           "truncated header: expected 4 bytes of magic number, got 0"));
        }
        SECTION("wrong dimensions: fewer elements than the file holds") {
            const auto p =
                write_idx(dir, "long", test_files::idx_bytes(0x08, {2, 3, 3}, pixels), gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 3>(p); }) ==
                  "IDX file '" + p.string() +
                      "': more data than the dimensions [2, 3, 3] describe (18 bytes of uint8): "
                      "wrong dimensions?");
        }
        SECTION("a size field beyond what the file can hold fails before allocating") {
            const auto p = write_idx(
                dir, "huge", test_files::idx_bytes(0x08, {0xFFFFFFFFU, 0xFFFFU}, pixels), gz);
            const auto msg = error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 2>(p); });
            CHECK(contains(msg, "IDX file '" + p.string() + "': "));
            CHECK(contains(msg, gz ? "more than a gzip file of" : "truncated: expected"));
            const auto q = write_idx(
                dir, "overflow",
                test_files::idx_bytes(0x0E, {0xFFFFFFFFU, 0xFFFFFFFFU, 0xFFFFFFFFU}, pixels), gz);
            CHECK(contains(error_of<ValueError>([&] { (void)read_idx<double, 3>(q); }),
                           "describe more data than memory can address"));
        }
        SECTION("the rank and the element type are checked") {
            const auto p = write_idx(dir, "u8", test_files::idx_bytes(0x08, {2, 3, 4}, pixels), gz);
            CHECK(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(p); }) ==
                  "IDX file '" + p.string() +
                      "': holds 3-D data [2, 3, 4], read as 1-D (read_idx<T, 3>)");
            CHECK(error_of<TypeError>([&] { (void)read_idx<float, 3>(p); }) ==
                  "IDX file '" + p.string() +
                      "': holds uint8 data, read as float32 (read it as uint8, then convert with "
                      ".to<T>())");
        }
    }
}

TEST_CASE("read_idx: a missing file, and a corrupt gzip stream") {
    test_files::temp_dir dir("idx_files");
    const auto missing = dir / "no-such-file";
    CHECK(error_of<RuntimeError>([&] { (void)read_idx<std::uint8_t, 1>(missing); }) ==
          "[Errno 2] No such file or directory: '" + missing.string() + "'");
#ifdef STATICPY_HAS_ZLIB
    // A gzip stream cut short: zlib's reason follows the count.
    const auto full = dir / "full.gz";
    test_files::write_gz(full, test_files::idx_bytes(0x08, {1000}, bytes(1000, 3)));
    auto gz = test_files::read_file(full);
    const auto cut = dir / "cut.gz";
    test_files::write_file(cut, bytes(gz.begin(), gz.begin() + static_cast<long>(gz.size() / 2)));
    const auto msg = error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(cut); });
    CHECK(contains(msg, "IDX file '" + cut.string() + "': "));
    CHECK((contains(msg, "truncated") || contains(msg, "corrupt gzip data")));
    // Garbage after a valid gzip magic.
    const auto junk = dir / "junk.gz";
    test_files::write_file(junk, bytes{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xde, 0xad, 0xbe, 0xef});
    CHECK(contains(error_of<ValueError>([&] { (void)read_idx<std::uint8_t, 1>(junk); }),
                   "IDX file '" + junk.string() + "': "));
#else
    WARN("zlib not found at configure time: the gzip cases are not run (apt-get install "
         "zlib1g-dev)");
#endif
}

// ---- .npy -------------------------------------------------------------------------------------

TEST_CASE("save_npy / load_npy: every dtype round-trips, in numpy's format") {
    test_files::temp_dir dir("npy");
    SECTION("float32, 2-D, the exact header numpy writes") {
        const auto x = arange<float>(0, 6).reshape(2, 3);
        const auto p = dir / "x.npy";
        save_npy(p, x);
        const auto raw = test_files::read_file(p);
        REQUIRE(raw.size() == 128 + 24);
        const std::string head(raw.begin(), raw.begin() + 128);
        CHECK(head.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
        CHECK(raw[8] == 118);
        CHECK(raw[9] == 0);
        CHECK(head.substr(10) == "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                                     std::string(58, ' ') + "\n");
        const auto y = load_npy<float, 2>(p);
        CHECK(y.sizes() == std::array<std::int64_t, 2>{2, 3});
        CHECK(values(y) == values(x));
        const auto info = read_npy_info(p);
        CHECK(info.descr == "<f4");
        CHECK(info.shape == std::vector<std::int64_t>{2, 3});
        CHECK(info.header_bytes == 128);
    }
    SECTION("every dtype, ranks 0 to 3, and strided tensors") {
        const auto p = dir / "t.npy";
        save_npy(p, tensor<double>({{1.5, -2.0}, {3.25, 1e300}}).t());
        CHECK(values(load_npy<double, 2>(p)) == std::vector<double>{1.5, 3.25, -2.0, 1e300});
        save_npy(p, arange<std::int32_t>(-5, 19).reshape(2, 3, 4));
        CHECK(values(load_npy<std::int32_t, 3>(p)) == values(arange<std::int32_t>(-5, 19)));
        save_npy(p, from_vector(std::vector<std::int64_t>{-1, 1LL << 40}));
        CHECK(values(load_npy<std::int64_t, 1>(p)) == std::vector<std::int64_t>{-1, 1LL << 40});
        CHECK(read_npy_info(p).shape == std::vector<std::int64_t>{2});
        save_npy(p, from_vector(std::vector<std::uint8_t>{0, 255, 7}));
        CHECK(read_npy_info(p).descr == "|u1");
        CHECK(values(load_npy<std::uint8_t, 1>(p)) == std::vector<std::uint8_t>{0, 255, 7});
        save_npy(p, from_vector(std::vector<bool>{true, false, true}));
        CHECK(read_npy_info(p).descr == "|b1");
        const auto b = load_npy<bool, 1>(p);
        CHECK(b(0));
        CHECK_FALSE(b(1));
        save_npy(p, full<float>(shape<>(), 2.5F));
        CHECK(read_npy_info(p).shape.empty());
        CHECK(load_npy<float, 0>(p).item() == 2.5F);
    }
}

namespace {
bytes le_floats(std::vector<float> v) {
    bytes out(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}
} // namespace

TEST_CASE("load_npy: version 2.0, any key order, and numpy's other spellings") {
    test_files::temp_dir dir("npy_v2");
    const auto p = dir / "v2.npy";
    test_files::write_file(
        p, test_files::npy_file(2, "{'shape': (3L,), \"fortran_order\": False,'descr':'<f4'}",
                                le_floats({1, 2, 3})));
    const auto t = load_npy<float, 1>(p);
    CHECK(values(t) == std::vector<float>{1, 2, 3});
    CHECK(read_npy_info(p).major_version == 2);
}

TEST_CASE("load_npy: bad headers, Fortran order, big-endian and mismatches are errors") {
    test_files::temp_dir dir("npy_errors");
    const auto p = dir / "e.npy";
    const std::string label = "npy file '" + p.string() + "': ";
    const auto load = [&] { (void)load_npy<float, 1>(p); };

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }",
                                le_floats({1, 2, 3})));
    CHECK(error_of<ValueError>(load) ==
          label + "fortran_order is True: staticpy reads C-ordered arrays (numpy: "
                  "np.save(path, np.ascontiguousarray(a)))");

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }",
                                le_floats({1, 2, 3})));
    CHECK(error_of<ValueError>(load) ==
          label + "big-endian data ('>f4') is not supported: staticpy reads little-endian .npy "
                  "files (numpy: a.astype(a.dtype.newbyteorder('<')))");

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }",
                                bytes(6, 0)));
    CHECK(error_of<ValueError>(load) ==
          label + "unsupported dtype '<i2' (staticpy reads '<f4', '<f8', '<i4', '<i8', '|u1' and "
                  "'|b1')");

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<f4', 'shape': (3,), }", le_floats({1, 2, 3})));
    CHECK(contains(error_of<ValueError>(load), label + "bad header: missing key 'fortran_order'"));

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}",
                                le_floats({1, 2, 3})));
    CHECK(contains(error_of<ValueError>(load), label + "bad header: expected True or False"));

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1)}",
                                le_floats({1, 2, 3})));
    CHECK(contains(error_of<ValueError>(load),
                   label + "bad header: expected a non-negative integer in 'shape'"));

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                le_floats({1, 2})));
    CHECK(error_of<ValueError>(load) == label + "truncated: expected 12 bytes of data, got 8");

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                le_floats({1, 2, 3})));
    CHECK(error_of<TypeError>([&] { (void)load_npy<double, 1>(p); }) ==
          label + "holds float32 data ('<f4'), read as float64");
    CHECK(error_of<ValueError>([&] { (void)load_npy<float, 2>(p); }) ==
          label + "holds 1-D data [3], read as 2-D (load_npy<T, 1>)");

    test_files::write_file(p, bytes{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0});
    CHECK(contains(error_of<ValueError>(load), label + "bad magic string"));
    test_files::write_file(p, bytes{0x93, 'N', 'U', 'M'});
    CHECK(error_of<ValueError>(load) ==
          label + "truncated header: expected 8 bytes of magic string and version, got 4");
    auto big =
        test_files::npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", {});
    big.resize(40);
    test_files::write_file(p, big);
    CHECK(contains(error_of<ValueError>(load), label + "truncated header: expected 118 bytes"));

    test_files::write_file(
        p, test_files::npy_file(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                                bytes{1, 2}));
    CHECK(error_of<ValueError>([&] { (void)load_npy<bool, 1>(p); }) ==
          label + "bool data holds the byte 2 at element 1 (only 0 and 1 are bools)");
}

// ---- CSV ----------------------------------------------------------------------------------------

TEST_CASE("read_csv: numbers in rows and columns") {
    test_files::temp_dir dir("csv");
    const auto p = dir / "a.csv";
    test_files::write_text(p, "x,y,z\r\n1, 2.5 ,-3e2\r\n\r\n+4,nan,inf\r\n");
    const auto t = read_csv<double>(p, {.header = true});
    REQUIRE(t.sizes() == std::array<std::int64_t, 2>{2, 3});
    CHECK(t(0, 0) == 1.0);
    CHECK(t(0, 1) == 2.5);
    CHECK(t(0, 2) == -300.0);
    CHECK(t(1, 0) == 4.0);
    CHECK(std::isnan(t(1, 1)));
    CHECK(std::isinf(t(1, 2)));

    test_files::write_text(p, "1;2\n3;4");
    const auto i = read_csv<std::int32_t>(p, {.delimiter = ';'});
    CHECK(values(i) == std::vector<std::int32_t>{1, 2, 3, 4});
    const auto f = read_csv<float>(p, {.delimiter = ';'});
    CHECK(f.dtype() == float32);
    test_files::write_text(p, "1\t0\n0\t1\n");
    CHECK(values(read_csv<std::uint8_t>(p, {.delimiter = '\t'})) ==
          std::vector<std::uint8_t>{1, 0, 0, 1});
    test_files::write_text(p, "");
    CHECK(read_csv<float>(p).sizes() == std::array<std::int64_t, 2>{0, 0});
    test_files::write_text(p, "a,b\n");
    CHECK(read_csv<float>(p, {.header = true}).sizes() == std::array<std::int64_t, 2>{0, 0});
}

TEST_CASE("read_csv: ragged rows and non-numbers name the file, line and column") {
    test_files::temp_dir dir("csv_errors");
    const auto p = dir / "bad.csv";
    const std::string label = "CSV file '" + p.string() + "': ";
    test_files::write_text(p, "a,b,c\n1,2,3\n4,5,6\n7,8\n");
    CHECK(error_of<ValueError>([&] { (void)read_csv<float>(p, {.header = true}); }) ==
          label + "line 4: the number of columns changed from 3 (line 2) to 2");
    test_files::write_text(p, "1,2,3\n4,abc,6\n");
    CHECK(error_of<ValueError>([&] { (void)read_csv<float>(p); }) ==
          label + "line 2, column 2: could not convert string 'abc' to float32");
    test_files::write_text(p, "1,,3\n");
    CHECK(error_of<ValueError>([&] { (void)read_csv<double>(p); }) ==
          label + "line 1, column 2: could not convert string '' to float64");
    test_files::write_text(p, "1,2.5\n");
    CHECK(error_of<ValueError>([&] { (void)read_csv<std::int64_t>(p); }) ==
          label + "line 1, column 2: could not convert string '2.5' to int64");
    test_files::write_text(p, "1,300\n");
    CHECK(error_of<ValueError>([&] { (void)read_csv<std::uint8_t>(p); }) ==
          label + "line 1, column 2: 300 is out of range for uint8");
    test_files::write_text(p, "a,b\n1,2\n");
    CHECK(error_of<ValueError>([&] { (void)read_csv<float>(p); }) ==
          label + "line 1, column 1: could not convert string 'a' to float32");
    const auto missing = dir / "missing.csv";
    CHECK(contains(error_of<RuntimeError>([&] { (void)read_csv<float>(missing); }),
                   "No such file or directory"));
}
