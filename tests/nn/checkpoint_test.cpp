// Checkpoints (nn/checkpoint.hpp): the safetensors format as the reference implementation writes
// and reads it, a golden file made without staticpy (scripts/make_safetensors_golden.py),
// load_state_dict's errors as PyTorch 1.13 prints them, corrupt files, and training that resumes
// bit for bit from a saved model and optimiser.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/nn/checkpoint.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include <unistd.h>

using namespace staticpy;
using namespace staticpy::literals;
using test_errors::error_of;
using bytes = std::vector<std::uint8_t>;

namespace {

/// A folder of its own under the system's temporary folder, removed at the end.
struct temp_dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("staticpy_checkpoint_test_" + std::to_string(::getpid()));
    temp_dir() {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~temp_dir() { std::filesystem::remove_all(path); }
    [[nodiscard]] std::filesystem::path operator/(const std::string& name) const {
        return path / name;
    }
};

bytes read_all(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_all(const std::filesystem::path& p, const bytes& b) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

/// A file: the 8-byte length of `header`, `header`, then `data`.
bytes file_of(const std::string& header, const bytes& data = {}) {
    bytes out(8 + header.size() + data.size());
    const std::uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    std::memcpy(out.data() + 8, header.data(), header.size());
    if (!data.empty())
        std::memcpy(out.data() + 8 + header.size(), data.data(), data.size());
    return out;
}

/// The message of the ValueError that loading `file` from memory throws.
std::string load_error(const bytes& file) {
    return error_of<ValueError>([&] { (void)nn::load_bytes(file); });
}

/// Element i of a value as a double, whatever its dtype.
double element(const nn::optim::state_value& v, std::size_t i) {
    switch (v.dtype()) {
    case staticpy::boolean:
        return static_cast<const bool*>(v.data())[i] ? 1 : 0;
    case staticpy::uint8:
        return static_cast<const std::uint8_t*>(v.data())[i];
    case staticpy::int32:
        return static_cast<const std::int32_t*>(v.data())[i];
    case staticpy::int64:
        return static_cast<double>(static_cast<const std::int64_t*>(v.data())[i]);
    case staticpy::float32:
        return static_cast<const float*>(v.data())[i];
    case staticpy::float64:
        return static_cast<const double*>(v.data())[i];
    }
    return 0;
}

/// Whether two state_dicts hold the same names, dtypes, sizes and bytes.
bool same_state(const nn::optim::state_dict_t& a, const nn::optim::state_dict_t& b) {
    if (a.size() != b.size())
        return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j) {
        if (i->first != j->first || i->second.dtype() != j->second.dtype() ||
            i->second.sizes() != j->second.sizes() || i->second.nbytes() != j->second.nbytes() ||
            std::memcmp(i->second.data(), j->second.data(),
                        static_cast<std::size_t>(i->second.nbytes())) != 0)
            return false;
    }
    return true;
}

// The model of the training tests and of most load_state_dict tests.
auto make_model(Generator& gen) {
    return nn::Sequential(nn::Linear<8, 16>{gen}, nn::ReLU{}, nn::Linear<16, 3>{gen});
}
using Model = decltype(make_model(std::declval<Generator&>()));

/// A module of one's own with a nested Sequential, as PyTorch's
///   class Net(nn.Module): fc = nn.Linear(4, 2); body = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
struct Net : nn::Module<Net> {
    nn::Linear<4, 2> fc;
    nn::Sequential<nn::Linear<2, 2>, nn::Tanh> body{nn::Linear<2, 2>{}, nn::Tanh{}};
    auto children() const { return dict("fc"_s = &fc, "body"_s = &body); }
};

struct Renamed : nn::Module<Renamed> {
    static constexpr std::string_view class_name = "Classifier";
    nn::Linear<2, 1> head;
    auto children() const { return dict("head"_s = &head); }
};

} // namespace

// =================================================================================================
// The format
// =================================================================================================

TEST_CASE("save_bytes writes what the reference implementation writes") {
    // safetensors' own test (bindings/python/tests/test_simple.py, test_serialization):
    //   save({"test": np.zeros((2, 2), dtype=np.int32)}) ==
    //   b'@\x00\x00\x00\x00\x00\x00\x00{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}
    //   '
    //   + 16 zero bytes
    nn::optim::state_dict_t sd;
    sd.emplace("test", nn::optim::state_value(zeros<std::int32_t>(2_c, 2_c)));
    const std::string header = R"({"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}})"
                               "    ";
    CHECK(nn::save_bytes(sd) == file_of(header, bytes(16, 0)));

    // Several dtypes: laid out by descending dtype (I64, F64, F32, I32, U8, BOOL), then by name;
    // __metadata__ first; names escaped as serde_json escapes them.
    nn::optim::state_dict_t many;
    many.emplace("b", nn::optim::state_value(true));
    many.emplace("a", nn::optim::state_value(tensor<float>({1.f, 2.f})));
    many.emplace("c\"\n", nn::optim::state_value(std::int64_t{7}));
    many.emplace("d", nn::optim::state_value(tensor<std::uint8_t>({1, 2, 3})));
    many.emplace("e", nn::optim::state_value(0.5));
    many.emplace("f", nn::optim::state_value(zeros<float>(0_c, 2_c)));
    const bytes file = nn::save_bytes(many, {{"format", "pt"}});
    std::uint64_t n = 0;
    std::memcpy(&n, file.data(), 8);
    const std::string text(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n));
    CHECK(text ==
          R"({"__metadata__":{"format":"pt"},"c\"\n":{"dtype":"I64","shape":[],)"
          R"("data_offsets":[0,8]},"e":{"dtype":"F64","shape":[],"data_offsets":[8,16]},)"
          R"("a":{"dtype":"F32","shape":[2],"data_offsets":[16,24]},"f":{"dtype":"F32",)"
          R"("shape":[0,2],"data_offsets":[24,24]},"d":{"dtype":"U8","shape":[3],)"
          R"("data_offsets":[24,27]},"b":{"dtype":"BOOL","shape":[],"data_offsets":[27,28]}})"
          "      ");
    CHECK(n % 8 == 0);
    CHECK(file.size() == 8 + n + 28);
    CHECK(same_state(nn::load_bytes(file), many));
}

TEST_CASE("every dtype and rank round-trips through a file, bit for bit") {
    temp_dir dir;
    Generator gen(3);
    nn::optim::state_dict_t sd;
    sd.emplace("bool", nn::optim::state_value(tensor<bool>({{true, false}, {false, true}})));
    sd.emplace("u8", nn::optim::state_value(tensor<std::uint8_t>({0, 255, 17})));
    sd.emplace("i32", nn::optim::state_value(tensor<std::int32_t>({-2147483647 - 1, 5})));
    sd.emplace("i64", nn::optim::state_value(
                          tensor<std::int64_t>({{std::int64_t{-1}}, {std::int64_t{1} << 62}})));
    sd.emplace("f32", nn::optim::state_value(randn<float>(3_c, 4_c, 5_c, gen)));
    sd.emplace("f64", nn::optim::state_value(randn<double>(2_c, 1_c, 2_c, 1_c, 2_c, gen)));
    sd.emplace("rank8",
               nn::optim::state_value(randn<float>(1_c, 2_c, 1_c, 2_c, 1_c, 2_c, 1_c, 2_c, gen)));
    sd.emplace("number", nn::optim::state_value(0.1));
    sd.emplace("count", nn::optim::state_value(std::int64_t{12}));
    sd.emplace("flag", nn::optim::state_value(false));
    sd.emplace("empty", nn::optim::state_value(zeros<double>(3_c, 0_c)));
    sd.emplace("nan", nn::optim::state_value(tensor<float>({NAN, -INFINITY, -0.0f})));
    const auto path = dir / "all.safetensors";
    nn::save(sd, path);
    const auto loaded = nn::load(path);
    CHECK(same_state(loaded, sd));
    CHECK(loaded.at("rank8").sizes() == std::vector<std::int64_t>{1, 2, 1, 2, 1, 2, 1, 2});
    CHECK(loaded.at("number").dim() == 0);
    CHECK(loaded.at("empty").sizes() == std::vector<std::int64_t>{3, 0});
    CHECK(read_all(path) == nn::save_bytes(sd)); // the file is save_bytes' bytes
    CHECK(nn::load_metadata(path).empty());
    // what the optimisers read back
    CHECK(loaded.at("count").item<std::int64_t>() == 12);
    CHECK(loaded.at("number").item<double>() == 0.1);
    // an empty state_dict is a file of one 8-byte header, "{}" and 6 spaces
    CHECK(nn::save_bytes(nn::optim::state_dict_t{}) == file_of("{}      "));
    CHECK(nn::load_bytes(file_of("{}      ")).empty());
}

TEST_CASE("the golden file, written by numpy alone, reads value by value") {
    // scripts/make_safetensors_golden.py writes it as the reference implementation would.
    const auto path =
        std::filesystem::path(STATICPY_TESTS_DIR) / "nn" / "reference" / "golden.safetensors";
    const auto sd = nn::load(path);
    REQUIRE(sd.size() == 12);
    const auto check = [&](const std::string& name, staticpy::dtype dtype,
                           const std::vector<std::int64_t>& sizes,
                           const std::vector<double>& values) {
        INFO(name);
        const auto& v = sd.at(name);
        CHECK(v.dtype() == dtype);
        CHECK(v.sizes() == sizes);
        REQUIRE(static_cast<std::size_t>(v.numel()) == values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            INFO("element " << i);
            if (std::isnan(values[i])) {
                CHECK(std::isnan(element(v, i)));
            } else {
                CHECK(element(v, i) == values[i]);
                CHECK(std::signbit(element(v, i)) == std::signbit(values[i]));
            }
        }
    };
    const double inf = INFINITY;
    check("f64", float64, {6}, {1.0 / 3.0, -inf, NAN, -0.0, 5e-324, 1.7976931348623157e308});
    check("f32", float32, {2, 3},
          {0.0, 1.5, -2.25, 3.4028234663852886e38, -0.0, 1.401298464324817e-45});
    check("f16", float32, {3, 2}, {1.0, -2.5, 65504.0, std::ldexp(1.0, -24), inf, -0.0});
    check("bf16", float32, {4}, {1.0, -3.5, 3.3895313892515355e38, std::ldexp(1.0, -133)});
    check("i64", int64, {3}, {-9223372036854775808.0, 9223372036854775807.0, 0});
    CHECK(sd.at("i64").tensor<std::int64_t, 1>()(1) == 9223372036854775807LL);
    check("i32", int32, {2, 2}, {-2147483648.0, 2147483647.0, 0, -1});
    check("i16", int32, {3}, {-32768, 32767, -1});
    check("unicode.\xc3\xbc", int32, {4}, {-128, 127, 0, -1});
    check("u8", uint8, {2, 1, 2}, {0, 255, 7, 128});
    check("bool", boolean, {3}, {1, 0, 1});
    check("scalar", float32, {}, {42.5});
    check("empty", float32, {0, 3}, {});
    const auto metadata = nn::load_metadata(path);
    CHECK(metadata.size() == 2);
    CHECK(metadata.at("format") == "pt");
    CHECK(metadata.at("source") == "scripts/make_safetensors_golden.py");
}

TEST_CASE("a stream that is not a regular file reads as the file would") {
    // A pipe has no size to check against: it is read into memory, no further than the header says.
    nn::optim::state_dict_t sd;
    sd.emplace("w", nn::optim::state_value(tensor<float>({1.f, 2.f, 3.f})));
    for (const bytes& content : {nn::save_bytes(sd), bytes{1, 2, 3}}) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        std::thread writer([&] {
            (void)!::write(fds[1], content.data(), content.size());
            ::close(fds[1]);
        });
        const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
        if (content.size() > 3) {
            CHECK(same_state(nn::load(path), sd));
        } else {
            CHECK(error_of<ValueError>([&] { (void)nn::load(path); }) ==
                  "safetensors file '" + path +
                      "': Error while deserializing header: header too small (the file has 3 "
                      "bytes; the 8-byte header length comes first)");
        }
        writer.join();
        ::close(fds[0]);
    }
}

// =================================================================================================
// Corrupt files
// =================================================================================================

TEST_CASE("a corrupt file is a ValueError that names it and says what is wrong") {
    const std::string prefix = "safetensors data: Error while deserializing header: ";
    const auto valid = [](const std::string& dtype, const std::string& shape,
                          const std::string& offsets) {
        return "{\"a\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
               ",\"data_offsets\":" + offsets + "}}";
    };
    SECTION("lengths") {
        CHECK(load_error({}) == prefix + "header too small (the file has 0 bytes; the 8-byte "
                                         "header length comes first)");
        CHECK(load_error(bytes(7, 0)).find("header too small") != std::string::npos);
        // a header length of 1e15: refused before anything is allocated for it
        bytes huge(8 + 16, ' ');
        const std::uint64_t claim = 1'000'000'000'000'000;
        std::memcpy(huge.data(), &claim, 8);
        CHECK(load_error(huge) == prefix + "header too large (its length says "
                                           "1000000000000000 bytes; the format's limit is "
                                           "100000000)");
        bytes beyond = file_of("{}      ");
        beyond[0] = 9;
        CHECK(load_error(beyond) ==
              prefix + "invalid header length (9 bytes, but the file has 8 after the length)");
        // cut anywhere, a valid file is refused
        nn::optim::state_dict_t sd;
        sd.emplace("w", nn::optim::state_value(tensor<float>({1.f, 2.f})));
        const bytes file = nn::save_bytes(sd);
        for (std::size_t cut = 0; cut < file.size(); ++cut)
            CHECK(!load_error(bytes(file.begin(), file.begin() + static_cast<long>(cut))).empty());
        bytes longer = file;
        longer.push_back(0);
        CHECK(load_error(longer) == prefix + "incomplete metadata, file not fully covered (the "
                                             "tensors' data ends at byte 8 of a data section of "
                                             "9 bytes)");
    }
    SECTION("offsets") {
        // beyond the file: 1e15 bytes claimed by a file of a few dozen, nothing allocated
        CHECK(load_error(file_of(valid("U8", "[1000000000000000]", "[0,1000000000000000]"))) ==
              prefix + "incomplete metadata, file not fully covered (the tensors' data ends at "
                       "byte 1000000000000000 of a data section of 0 bytes)");
        // overlapping, with a hole, out of order (refused only where they do not tile the data)
        const std::string two = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})";
        CHECK(load_error(file_of(two, bytes(3, 0))) ==
              prefix + "invalid offset for tensor `b` (data_offsets [1, 3]; the tensors before "
                       "it end at 2: offsets must not overlap or leave holes)");
        const std::string hole = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                                 R"("b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}})";
        CHECK(load_error(file_of(hole, bytes(5, 0))).find("invalid offset for tensor `b`") !=
              std::string::npos);
        const std::string swapped = R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]},)"
                                    R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
        const auto sd = nn::load_bytes(file_of(swapped, {1, 2, 3}));
        CHECK(element(sd.at("a"), 1) == 2);
        CHECK(element(sd.at("b"), 0) == 3);
        CHECK(load_error(file_of(valid("U8", "[2]", "[2,0]"), bytes(2, 0)))
                  .find("invalid offset for tensor `a`") != std::string::npos);
        // shape times the element size is not what the offsets hold
        CHECK(load_error(file_of(valid("F32", "[2,3]", "[0,20]"), bytes(20, 0))) ==
              prefix + "invalid shape, data type, or offset for tensor `a` (shape [2, 3] of F32 "
                       "is 24 bytes; its data_offsets [0, 20] hold 20)");
        CHECK(load_error(file_of(valid("F64", "[4294967296,4294967296]", "[0,8]"), bytes(8, 0)))
                  .find("overflow computing buffer size from shape and/or element type (tensor "
                        "`a`") != std::string::npos);
        CHECK(load_error(file_of(valid("F4", "[3]", "[0,1]"), bytes(1, 0)))
                  .find("does not end up at a byte boundary") != std::string::npos);
        // a zero beside sizes whose product overflows int64: no data, but no staticpy tensor
        CHECK(load_error(file_of(valid("F32", "[0,4294967296,4294967296]", "[0,0]"))) ==
              prefix + "the shape [0, 4294967296, 4294967296] of tensor `a` does not fit "
                       "staticpy's int64 sizes");
    }
    SECTION("JSON") {
        const auto json_error = [&](const std::string& header) {
            return load_error(file_of(header));
        };
        CHECK(json_error("") == prefix + "invalid JSON in header: EOF while parsing a value at "
                                         "line 1 column 0");
        CHECK(json_error(" {}") == prefix + "the header does not begin with '{' (the safetensors "
                                            "format requires it)");
        CHECK(json_error("{\"a\" 1}") ==
              prefix + "invalid JSON in header: expected `:` at line 1 column 6");
        CHECK(json_error("{\"__metadata__\":{},}").find("trailing comma") != std::string::npos);
        CHECK(json_error("{\"a").find("EOF while parsing a string") != std::string::npos);
        CHECK(json_error("{} x") ==
              prefix + "invalid JSON in header: trailing characters at line 1 column 4");
        CHECK(json_error("{}\n\n  ]").find("trailing characters at line 3 column 3") !=
              std::string::npos);
        CHECK(json_error("{\"a\":{\"dtype\":\"F17\",\"shape\":[],\"data_offsets\":[0,0]}}")
                  .find("unknown variant `F17`, expected one of `BOOL`, `F4`,") !=
              std::string::npos);
        CHECK(json_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[]}}")
                  .find("missing field `data_offsets`") != std::string::npos);
        CHECK(
            json_error(R"({"a":{"dtype":"F32","dtype":"F32"}})").find("duplicate field `dtype`") !=
            std::string::npos);
        CHECK(json_error(valid("F32", "[1.5]", "[0,0]"))
                  .find("invalid type: floating point `1.5`, expected usize") != std::string::npos);
        CHECK(json_error(valid("F32", "[-1]", "[0,0]"))
                  .find("invalid value: integer `-1`, expected usize") != std::string::npos);
        CHECK(json_error(valid("F32", "[18446744073709551616]", "[0,0]"))
                  .find("number out of range") != std::string::npos);
        CHECK(json_error(valid("F32", "[0]", "[0,0,0]"))
                  .find("invalid length 3, expected a tuple of size 2") != std::string::npos);
        CHECK(json_error(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},)"
                         R"("a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})")
                  .find("duplicate tensor name `a`") != std::string::npos);
        CHECK(json_error("{\"a\x01\":1}").find("control character") != std::string::npos);
        CHECK(json_error(R"({"\ud800":1})").find("lone leading surrogate") != std::string::npos);
        CHECK(json_error(R"({"__metadata__":{"k":1}})")
                  .find("invalid type: number, expected a string") != std::string::npos);
        CHECK(json_error("[]").find("does not begin with '{'") != std::string::npos);
        // nesting deeper than serde_json's limit of 128, in a field the format does not define
        const std::string deep =
            "{\"a\":{\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}}";
        CHECK(json_error(deep).find("recursion limit exceeded") != std::string::npos);
        // what the reference accepts: unknown fields, escapes, __metadata__ null, whitespace
        const auto ok = nn::load_bytes(file_of(
            "{\n \"\\u00fc\\n\" : {\"x\": [{\"y\": null}, true, -1.5e3], \"dtype\": \"U8\", "
            "\"shape\": [1], \"data_offsets\": [0, 1]}, \"__metadata__\": null}\r\n",
            {9}));
        CHECK(element(ok.at("\xc3\xbc\n"), 0) == 9);
    }
    SECTION("UTF-8") {
        CHECK(load_error(file_of("{\"a\xff\":1}")) ==
              prefix + "invalid UTF-8 in header: invalid utf-8 sequence of 1 bytes from index 3");
        CHECK(load_error(file_of("{\"\xe2\x82\":1}"))
                  .find("invalid utf-8 sequence of 2 bytes from index 2") != std::string::npos);
        CHECK(load_error(file_of("{\"\xed\xa0\x80\":1}")) // a surrogate, encoded
                  .find("invalid utf-8 sequence of 1 bytes from index 2") != std::string::npos);
        CHECK(load_error(file_of("{}\xe2\x82")) ==
              prefix + "invalid UTF-8 in header: incomplete utf-8 byte sequence from index 2");
    }
    SECTION("data") {
        CHECK(load_error(file_of(valid("BOOL", "[3]", "[0,3]"), {1, 0, 2})) ==
              "safetensors data: tensor `a`: bool data holds the byte 2 at element 2 (only 0 "
              "and 1 are bools)");
        CHECK(error_of<TypeError>([&] {
                  (void)nn::load_bytes(file_of(valid("U32", "[1]", "[0,4]"), bytes(4, 0)));
              }) == "safetensors data: tensor `a` has dtype U32, which staticpy does not read (it "
                    "reads F64, F32, F16, BF16, I64, I32, I16, I8, U8 and BOOL)");
        CHECK(error_of<ValueError>([&] {
                  (void)nn::load_bytes(file_of("{}      "), "model.safetensors");
              }) == "<no exception>");
        CHECK(error_of<ValueError>([&] {
                  (void)nn::load_bytes(bytes{1}, "x.safetensors");
              }).starts_with("safetensors data 'x.safetensors': "));
    }
}

TEST_CASE("file errors name the file, as Python's OSError does") {
    temp_dir dir;
    const auto missing = dir / "missing.safetensors";
    CHECK(error_of<RuntimeError>([&] { (void)nn::load(missing); }) ==
          "[Errno 2] No such file or directory: '" + missing.string() + "'");
    CHECK(error_of<RuntimeError>([&] { (void)nn::load(dir.path); }) ==
          "[Errno 21] Is a directory: '" + dir.path.string() + "'");
    const auto bad = dir / "bad.safetensors";
    write_all(bad, file_of("{\"a\":1}   "));
    CHECK(error_of<ValueError>([&] { (void)nn::load(bad); }) ==
          "safetensors file '" + bad.string() +
              "': Error while deserializing header: invalid JSON in header: invalid type: "
              "number, expected struct TensorInfo at line 1 column 6");

    nn::optim::state_dict_t sd;
    sd.emplace("w", nn::optim::state_value(tensor<float>({1.f})));
    const auto nowhere = dir / "no" / "such" / "dir.safetensors";
    CHECK(error_of<RuntimeError>([&] { nn::save(sd, nowhere); }) ==
          "[Errno 2] No such file or directory: '" + nowhere.string() + "'");
    std::filesystem::create_directories(dir / "taken");
    CHECK(error_of<RuntimeError>([&] { nn::save(sd, dir / "taken"); }) ==
          "[Errno 21] Is a directory: '" + (dir / "taken").string() + "'");
    // a save replaces the file whole, and leaves no temporary file behind
    const auto path = dir / "w.safetensors";
    write_all(path, bytes(1000, 'x'));
    nn::save(sd, path);
    CHECK(read_all(path) == nn::save_bytes(sd));
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path))
        files += entry.is_regular_file() ? 1 : 0;
    CHECK(files == 2); // bad.safetensors and w.safetensors

    nn::optim::state_dict_t reserved;
    reserved.emplace("__metadata__", nn::optim::state_value(1.0));
    CHECK(error_of<ValueError>([&] { nn::save(reserved, path); }) ==
          "safetensors file '" + path.string() +
              "': Error while serializing: a tensor cannot be called `__metadata__` (the name of "
              "the header's metadata)");
    nn::optim::state_dict_t not_utf8;
    not_utf8.emplace("w\xff", nn::optim::state_value(1.0));
    CHECK(error_of<ValueError>([&] {
              (void)nn::save_bytes(not_utf8);
          }).find("is not valid UTF-8") != std::string::npos);
    CHECK(error_of<ValueError>([&] {
              (void)nn::save_bytes(dict("w"_s = Tensor<float, static_shape<2>>{}));
          }) == "safetensors data: Error while serializing: the tensor `w` is undefined");
    CHECK(read_all(path) == nn::save_bytes(sd)); // a failed save leaves the old file
}

// =================================================================================================
// Models: save, load_state_dict and its errors
// =================================================================================================

TEST_CASE("a model's state_dict saves and loads into another model") {
    temp_dir dir;
    Generator gen(1);
    Generator other(2);
    Model model = make_model(gen);
    Model fresh = make_model(other);
    const auto path = dir / "model.safetensors";
    nn::save(model.state_dict(), path, {{"format", "pt"}});
    const auto sd = nn::load(path);
    CHECK(sd.size() == 4);
    CHECK(sd.at("0.weight").sizes() == std::vector<std::int64_t>{16, 8});
    CHECK(nn::load_metadata(path).at("format") == "pt");
    CHECK(max(abs(fresh[0_c].weight - model[0_c].weight)).item() > 0);
    const nn::IncompatibleKeys keys = nn::load_state_dict(fresh, sd);
    CHECK(repr(keys) == "<All keys matched successfully>");
    CHECK(std::memcmp(fresh[0_c].weight.data(), model[0_c].weight.data(), 16 * 8 * 4) == 0);
    CHECK(std::memcmp(fresh[2_c].bias.data(), model[2_c].bias.data(), 3 * 4) == 0);
    const auto x = ones<float>(2_c, 8_c);
    CHECK(max(abs(fresh(x) - model(x))).item() == 0);
    // values of another element type are cast as copy_ casts them (PyTorch:
    // m[2].bias.copy_(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)) gives 0.1f ...)
    auto cast = sd;
    cast.insert_or_assign("0.bias", nn::optim::state_value(arange<std::int64_t>(0, 16)));
    cast.insert_or_assign("2.bias", nn::optim::state_value(tensor<double>({0.1, 0.2, 0.3})));
    CHECK(repr(fresh.load_state_dict(cast)) == "<All keys matched successfully>"); // the member
    CHECK(fresh[0_c].bias(5) == 5.0f);
    CHECK(fresh[2_c].bias(0) == 0.1f);
    CHECK(fresh[2_c].bias(2) == 0.3f);
}

TEST_CASE("load_state_dict's errors are PyTorch 1.13's, and change nothing") {
    // The texts are what PyTorch 1.13 prints for torch.nn.Sequential(Linear(8, 16), ReLU(),
    // Linear(16, 3)) given the same dict (its keys sorted, as a state_dict_t is).
    Generator gen(5);
    Model model = make_model(gen);
    const auto before = model[0_c].weight.clone();
    nn::optim::state_dict_t good;
    for (const auto& [key, value] : nn::load_bytes(nn::save_bytes(model.state_dict())))
        good.emplace(key, value);
    const auto unchanged = [&] { return max(abs(model[0_c].weight - before)).item() == 0; };
    const auto modified = [&](nn::optim::state_dict_t sd) {
        sd.insert_or_assign("0.weight", nn::optim::state_value(zeros<float>(16_c, 8_c)));
        return sd;
    };

    auto sd = modified(good);
    sd.erase("0.bias");
    sd.erase("2.weight");
    for (const char* key : {"x", "1.weight", "0.foo", "5.bias"})
        sd.emplace(key, nn::optim::state_value(zeros<float>(1_c)));
    sd.insert_or_assign("2.bias", nn::optim::state_value(zeros<float>(4_c)));
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(model, sd); }) ==
          "Error(s) in loading state_dict for Sequential:\n"
          "\tMissing key(s) in state_dict: \"0.bias\", \"2.weight\". \n"
          "\tUnexpected key(s) in state_dict: \"5.bias\", \"x\", \"0.foo\", \"1.weight\". \n"
          "\tsize mismatch for 2.bias: copying a param with shape torch.Size([4]) from "
          "checkpoint, the shape in current model is torch.Size([3]).");
    CHECK(unchanged());
    // strict=False: the keys are not errors, the size mismatch still is
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(model, sd, false); }) ==
          "Error(s) in loading state_dict for Sequential:\n"
          "\tsize mismatch for 2.bias: copying a param with shape torch.Size([4]) from "
          "checkpoint, the shape in current model is torch.Size([3]).");
    CHECK(unchanged());

    auto sizes = modified(good);
    sizes.insert_or_assign("0.weight", nn::optim::state_value(zeros<float>(16_c, 4_c)));
    sizes.insert_or_assign("2.bias", nn::optim::state_value(zeros<float>(3_c, 1_c)));
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(model, sizes); }) ==
          "Error(s) in loading state_dict for Sequential:\n"
          "\tsize mismatch for 0.weight: copying a param with shape torch.Size([16, 4]) from "
          "checkpoint, the shape in current model is torch.Size([16, 8]).\n"
          "\tsize mismatch for 2.bias: copying a param with shape torch.Size([3, 1]) from "
          "checkpoint, the shape in current model is torch.Size([3]).");
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(model, {}); }) ==
          "Error(s) in loading state_dict for Sequential:\n"
          "\tMissing key(s) in state_dict: \"0.weight\", \"0.bias\", \"2.weight\", \"2.bias\". ");
    auto extra = modified(good);
    for (const char* key : {"_extra_state", "0._extra_state", "0.a", "a"})
        extra.emplace(key, nn::optim::state_value(zeros<float>(1_c)));
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(model, extra); }) ==
          "Error(s) in loading state_dict for Sequential:\n"
          "\tUnexpected key(s) in state_dict: \"_extra_state\", \"a\", \"0._extra_state\", "
          "\"0.a\". ");
    CHECK(unchanged());

    // what PyTorch ignores: a key that names a child, a key below one of a child's tensors
    auto ignored = modified(good);
    ignored.emplace("0", nn::optim::state_value(zeros<float>(1_c)));
    ignored.emplace("0.weight.x", nn::optim::state_value(zeros<float>(1_c)));
    CHECK(repr(nn::load_state_dict(model, ignored)) == "<All keys matched successfully>");
    CHECK(model[0_c].weight(3, 3) == 0.0f); // loaded

    // strict=False returns what did not match, and loads the rest
    nn::optim::state_dict_t partial;
    partial.emplace("2.bias", nn::optim::state_value(tensor<float>({1.f, 2.f, 3.f})));
    partial.emplace("y", nn::optim::state_value(1.0));
    const auto keys = nn::load_state_dict(model, partial, false);
    CHECK(keys.missing_keys == std::vector<std::string>{"0.weight", "0.bias", "2.weight"});
    CHECK(keys.unexpected_keys == std::vector<std::string>{"y"});
    CHECK(repr(keys) == "_IncompatibleKeys(missing_keys=['0.weight', '0.bias', '2.weight'], "
                        "unexpected_keys=['y'])");
    CHECK(model[2_c].bias(2) == 3.0f);
}

TEST_CASE("load_state_dict names a module of one's own by its class, nested children included") {
    // PyTorch 1.13: class Net(nn.Module) with fc = Linear(4, 2) and body = Sequential(Linear(2,
    // 2), Tanh()), given the state_dict without body.0.bias, with body.1.weight, head.weight and
    // a fc.weight of [2, 5].
    Net net;
    nn::optim::state_dict_t sd;
    for (const auto& [key, value] : nn::load_bytes(nn::save_bytes(net.state_dict())))
        sd.emplace(key, value);
    CHECK(sd.size() == 4);
    sd.erase("body.0.bias");
    sd.emplace("body.1.weight", nn::optim::state_value(zeros<float>(1_c)));
    sd.emplace("head.weight", nn::optim::state_value(zeros<float>(1_c)));
    sd.insert_or_assign("fc.weight", nn::optim::state_value(zeros<float>(2_c, 5_c)));
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(net, sd); }) ==
          "Error(s) in loading state_dict for Net:\n"
          "\tMissing key(s) in state_dict: \"body.0.bias\". \n"
          "\tUnexpected key(s) in state_dict: \"head.weight\", \"body.1.weight\". \n"
          "\tsize mismatch for fc.weight: copying a param with shape torch.Size([2, 5]) from "
          "checkpoint, the shape in current model is torch.Size([2, 4]).");
    const Net& same_net = net; // a const model's tensors are handles too: it loads the same
    CHECK(error_of<RuntimeError>([&] {
              nn::load_state_dict(same_net, sd);
          }).starts_with("Error(s) in loading state_dict for Net:\n"));
    // a Linear alone (PyTorch: nn.Linear(3, 2).load_state_dict({'weight': torch.zeros(2, 3)}))
    nn::Linear<3, 2> linear;
    nn::optim::state_dict_t weight_only;
    weight_only.emplace("weight", nn::optim::state_value(zeros<float>(2_c, 3_c)));
    CHECK(error_of<RuntimeError>([&] { nn::load_state_dict(linear, weight_only); }) ==
          "Error(s) in loading state_dict for Linear:\n"
          "\tMissing key(s) in state_dict: \"bias\". ");
    // a class_name member names it instead
    Renamed renamed;
    CHECK(error_of<RuntimeError>([&] {
              nn::load_state_dict(renamed, {});
          }).starts_with("Error(s) in loading state_dict for Classifier:\n"));
}

// =================================================================================================
// Training resumes exactly
// =================================================================================================

namespace {

/// Synthetic data: 4 batches of 16 samples, 8 features, 3 classes.
struct batches {
    std::vector<decltype(randn<float>(16_c, 8_c))> x;
    std::vector<decltype(randint(0, 3, 16_c))> y;
};

batches make_data() {
    Generator gen(11);
    batches b;
    for (int i = 0; i < 4; ++i) {
        b.x.push_back(randn<float>(16_c, 8_c, gen));
        b.y.push_back(randint(0, 3, 16_c, gen));
    }
    return b;
}

/// The model's forward and backward as one compiled graph (one for both optimisers).
auto forward_backward(const Model& model) {
    return jit(value_and_grad([&model](const auto& params, const auto& x, const auto& y) {
        return nn::functional::cross_entropy(nn::functional_call(model, params, x), y);
    }));
}

template <class Opt>
void train_epoch(const Model& model, Opt& opt, const batches& data) {
    auto step = forward_backward(model);
    for (std::size_t i = 0; i < data.x.size(); ++i) {
        auto [loss, grads] = step(opt.params(), data.x[i], data.y[i]);
        opt.step(grads);
    }
}

bool same_parameters(const Model& a, const Model& b) {
    const auto same = [](const auto& s, const auto& t) {
        return std::memcmp(s.data(), t.data(), static_cast<std::size_t>(s.numel()) * 4) == 0;
    };
    return same(a[0_c].weight, b[0_c].weight) && same(a[0_c].bias, b[0_c].bias) &&
           same(a[2_c].weight, b[2_c].weight) && same(a[2_c].bias, b[2_c].bias);
}

/// 2 epochs, against 1 epoch + save + load into a fresh model and optimiser + 1 epoch.
template <class MakeOpt>
void check_resume(MakeOpt make_opt) {
    const int threads = get_num_threads();
    set_num_threads(1);
    temp_dir dir;
    const batches data = make_data();
    Generator gen(7);
    Model straight = make_model(gen);
    Generator gen_again(7);
    Model first = make_model(gen_again);
    REQUIRE(same_parameters(straight, first));

    auto opt_straight = make_opt(straight);
    train_epoch(straight, opt_straight, data);
    train_epoch(straight, opt_straight, data);

    {
        auto opt_first = make_opt(first);
        train_epoch(first, opt_first, data);
        nn::save(first.state_dict(), dir / "model.safetensors");
        nn::save(opt_first.state_dict(), dir / "opt.safetensors");
        // the optimiser's state reads back exactly (step counts as I64, hyperparameters as F64)
        CHECK(same_state(nn::load(dir / "opt.safetensors"), opt_first.state_dict()));
    }
    Generator other(99);
    Model resumed = make_model(other);
    auto opt_resumed = make_opt(resumed);
    nn::load_state_dict(resumed, nn::load(dir / "model.safetensors"));
    opt_resumed.load_state_dict(nn::load(dir / "opt.safetensors"));
    train_epoch(resumed, opt_resumed, data);

    CHECK(same_parameters(resumed, straight));
    CHECK(same_state(opt_resumed.state_dict(), opt_straight.state_dict()));
    set_num_threads(threads);
}

} // namespace

TEST_CASE("training resumes bit for bit from a saved model and Adam optimiser") {
    check_resume([](Model& m) { return nn::optim::Adam(m.parameters(), {.lr = 0.01}); });
}

TEST_CASE("training resumes bit for bit from a saved model and SGD with momentum") {
    check_resume([](Model& m) {
        return nn::optim::SGD(m.parameters(), {.lr = 0.1, .momentum = 0.9, .nesterov = true});
    });
}
