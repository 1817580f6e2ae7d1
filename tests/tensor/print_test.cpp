#include <cmath>
#include <cstdint>
#include <sstream>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

using namespace staticpy::literals;
using staticpy::repr;

// The expected strings are what PyTorch prints for the same tensors.
TEST_CASE("printing floats as PyTorch", "[tensor][print]") {
    REQUIRE(repr(staticpy::tensor<float>({{1, 2}, {3, 4}})) ==
            "tensor([[1., 2.],\n        [3., 4.]])");
    REQUIRE(repr(staticpy::tensor<float>({1.5f, 2.25f})) == "tensor([1.5000, 2.2500])");
    REQUIRE(repr(staticpy::tensor<float>({-1.5f, 20.f})) == "tensor([-1.5000, 20.0000])");
    REQUIRE(repr(staticpy::tensor<float>({1e-5f, 1e5f})) == "tensor([1.0000e-05, 1.0000e+05])");
    REQUIRE(repr(staticpy::tensor<float>({1.f, 100000.f})) == "tensor([1.0000e+00, 1.0000e+05])");
    REQUIRE(repr(staticpy::tensor<float>({0.00001f})) == "tensor([1.0000e-05])");
    REQUIRE(repr(staticpy::tensor<float>({0.f, 0.f})) == "tensor([0., 0.])");
    REQUIRE(repr(staticpy::tensor<float>({-1.f, 10.f})) == "tensor([-1., 10.])");
    REQUIRE(repr(staticpy::tensor<float>({NAN, 1.f, INFINITY, -INFINITY})) ==
            "tensor([nan, 1., inf, -inf])");
    REQUIRE(repr(staticpy::tensor<double>({1.5, 2.25})) ==
            "tensor([1.5000, 2.2500], dtype=torch.float64)");
    REQUIRE(repr(staticpy::zeros(2_c, 2_c)[0][1]) == "tensor(0.)");
    REQUIRE(repr(staticpy::full(staticpy::shape(), 3.25f)) == "tensor(3.2500)");
    REQUIRE(repr(staticpy::arange<float>(0, 30)) ==
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
            "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
            "        28., 29.])");
    REQUIRE(repr(staticpy::ones(2_c, 2_c, 2_c)) ==
            "tensor([[[1., 1.],\n         [1., 1.]],\n\n        [[1., 1.],\n         [1., 1.]]])");
}

TEST_CASE("printing ints, bools, empties, dtypes", "[tensor][print]") {
    REQUIRE(repr(staticpy::tensor<std::int64_t>({1, 2, 3})) == "tensor([1, 2, 3])");
    REQUIRE(repr(staticpy::tensor<std::int32_t>({1, 2, 3})) ==
            "tensor([1, 2, 3], dtype=torch.int32)");
    REQUIRE(repr(staticpy::tensor<std::int64_t>({-10, 200})) == "tensor([-10, 200])");
    REQUIRE(repr(staticpy::tensor<std::uint8_t>({1, 255})) ==
            "tensor([  1, 255], dtype=torch.uint8)");
    REQUIRE(repr(staticpy::tensor<bool>({true, false})) == "tensor([ True, False])");
    REQUIRE(repr(staticpy::zeros(0)) == "tensor([])");
    REQUIRE(repr(staticpy::zeros<std::int64_t>(0)) == "tensor([], dtype=torch.int64)");
    REQUIRE(repr(staticpy::zeros(0, 3)) == "tensor([], size=(0, 3))");
    std::ostringstream os;
    os << staticpy::tensor<std::int64_t>({7});
    REQUIRE(os.str() == "tensor([7])");
}

TEST_CASE("printing summarises above 1000 elements", "[tensor][print]") {
    REQUIRE(repr(staticpy::arange(0, 2000)) ==
            "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
    REQUIRE(repr(staticpy::arange(0, 2000).reshape(2, 1000)) ==
            "tensor([[   0,    1,    2,  ...,  997,  998,  999],\n"
            "        [1000, 1001, 1002,  ..., 1997, 1998, 1999]])");
    REQUIRE(repr(staticpy::arange<float>(1000, 2100).reshape(100, 11)) ==
            "tensor([[1000., 1001., 1002.,  ..., 1008., 1009., 1010.],\n"
            "        [1011., 1012., 1013.,  ..., 1019., 1020., 1021.],\n"
            "        [1022., 1023., 1024.,  ..., 1030., 1031., 1032.],\n"
            "        ...,\n"
            "        [2067., 2068., 2069.,  ..., 2075., 2076., 2077.],\n"
            "        [2078., 2079., 2080.,  ..., 2086., 2087., 2088.],\n"
            "        [2089., 2090., 2091.,  ..., 2097., 2098., 2099.]])");
    // max / min of the shown values above 1000: scientific, and rows wrap at 80 columns
    REQUIRE(
        repr(staticpy::arange<float>(0, 1100).reshape(100, 11))
            .starts_with(
                "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 8.0000e+00, 9.0000e+00,\n"
                "         1.0000e+01],\n"
                "        [1.1000e+01, 1.2000e+01, 1.3000e+01,  ..., 1.9000e+01, 2.0000e+01,\n"));
}

TEST_CASE("a long suffix wraps to its own line", "[tensor][print]") {
    REQUIRE(repr(staticpy::arange<double>(0, 14)) ==
            "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.],\n"
            "       dtype=torch.float64)");
}
