// Sizes whose products leave int64: every place that builds a shape (the shape itself, creation,
// reshape and view, expand and broadcasting) refuses them with PyTorch's RuntimeError, including
// a zero next to huge extents, whose element count is 0 but whose contiguous strides are not.
// Memory that cannot be had is a MemoryError, not std::bad_alloc.

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"

using namespace staticpy;
using namespace staticpy::literals;

namespace {

using test_errors::error_of;

constexpr std::int64_t big = 4294967295; // 2^32 - 1: its square leaves int64
const std::string why = " (the product of the sizes, zeros counted as 1, exceeds 2^63 - 1)";

} // namespace

TEST_CASE("shapes whose sizes multiply past int64 are a RuntimeError", "[tensor][shape]") {
    CHECK(error_of<RuntimeError>([] { (void)dynamic_shape<3>(0, big, big); }) ==
          "Storage size calculation overflowed with sizes=[0, 4294967295, 4294967295]" + why);
    CHECK(error_of<RuntimeError>([] { (void)dynamic_shape<2>(big, big); }) ==
          "Storage size calculation overflowed with sizes=[4294967295, 4294967295]" + why);
    CHECK(error_of<RuntimeError>([] { (void)zeros<float>(big, 0, big); }) ==
          "Storage size calculation overflowed with sizes=[4294967295, 0, 4294967295]" + why);
    CHECK(error_of<RuntimeError>([] { (void)empty<std::uint8_t>(shape(3_c, big, big)); }) ==
          "Storage size calculation overflowed with sizes=[3, 4294967295, 4294967295]" + why);
    // At the edge: 2^62 elements of zeros' shape is a valid shape; its strides fit.
    const dynamic_shape<3> edge(0, std::int64_t{1} << 31, std::int64_t{1} << 31);
    CHECK(edge.numel() == 0);
    CHECK(zeros<float>(0, std::int64_t{1} << 31, std::int64_t{1} << 31).strides() ==
          std::array<std::int64_t, 3>{std::int64_t{1} << 62, std::int64_t{1} << 31, 1});
}

TEST_CASE("reshape and view: huge sizes are refused, not wrapped", "[tensor][view]") {
    const auto x = arange<float>(0, 6);
    // The product 2^62 * 2^62 wraps to 0 in int64: once taken for "0 elements".
    CHECK(error_of<RuntimeError>([&] {
              (void)x.reshape(std::int64_t{1} << 62, std::int64_t{1} << 62, -1);
          }) == "shape '[4611686018427387904, 4611686018427387904, -1]' is invalid for input of "
                "size 6");
    CHECK(error_of<RuntimeError>([&] { (void)x.view(big, big, 6); }) ==
          "shape '[4294967295, 4294967295, 6]' is invalid for input of size 6");
    const auto e = zeros<float>(0);
    CHECK(error_of<RuntimeError>([&] { (void)e.reshape(0, big, big); }) ==
          "Storage size calculation overflowed with sizes=[0, 4294967295, 4294967295]" + why);
    CHECK(e.reshape(0, 5, 7).sizes() == std::array<std::int64_t, 3>{0, 5, 7});
}

TEST_CASE("expand and broadcasting: a result shape past int64 is refused", "[tensor][view]") {
    const auto one = zeros<float>(1, 1);
    const auto tall = one.expand(big, 1);
    const auto wide = one.expand(1, big);
    CHECK(tall.sizes() == std::array<std::int64_t, 2>{big, 1});
    CHECK(error_of<RuntimeError>([&] { (void)one.expand(big, big); }) ==
          "Storage size calculation overflowed with sizes=[4294967295, 4294967295]" + why);
    CHECK(error_of<RuntimeError>([&] { (void)(tall + wide); }) ==
          "Storage size calculation overflowed with sizes=[4294967295, 4294967295]" + why);
}

#ifndef STATICPY_TEST_SANITIZED
// (Under ASan an allocation this large is a sanitizer report, not a failed operator new.)
TEST_CASE("memory that cannot be had is a MemoryError", "[tensor][storage]") {
    const std::int64_t n = std::int64_t{1} << 52; // 16 PiB of floats
    CHECK(error_of<MemoryError>([&] { (void)empty<float>(n); }) ==
          "DefaultCPUAllocator: can't allocate memory: you tried to allocate 18014398509481984 "
          "bytes.");
    CHECK(std::string(MemoryError("x").python_name()) == "MemoryError");
}
#endif
