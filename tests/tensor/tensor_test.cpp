#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <catch2/catch.hpp>

#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"

using namespace staticpy::literals;
using staticpy::int_;
using staticpy::shape;
using staticpy::Tensor;

TEST_CASE("Tensor metadata", "[tensor]") {
    auto t = staticpy::zeros(2_c, 3_c);
    STATIC_REQUIRE(std::is_same_v<decltype(t), Tensor<float, staticpy::static_shape<2, 3>>>);
    STATIC_REQUIRE(decltype(t)::rank == 2);
    STATIC_REQUIRE(decltype(t)::dim() == 2);
    STATIC_REQUIRE(std::is_same_v<decltype(t.size(1_c)), int_<3>>);
    REQUIRE(t.size(-1) == 3);
    REQUIRE(t.size(0) == 2);
    REQUIRE(t.stride(0) == 3);
    REQUIRE(t.stride(-1) == 1);
    REQUIRE(t.numel() == 6);
    REQUIRE(t.is_contiguous());
    REQUIRE(t.dtype() == staticpy::float32);
    REQUIRE(t.defined());
    REQUIRE_FALSE(Tensor<float>().defined());
    REQUIRE(staticpy::repr(t.shape()) == "Size([2, 3])");
    REQUIRE_THROWS_AS(t.size(2), staticpy::IndexError);
    REQUIRE_THROWS_WITH(t.size(2),
                        "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    REQUIRE_THROWS_WITH(t.stride(-3),
                        "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
}

TEST_CASE("storage is 64-byte aligned and shared", "[tensor][storage]") {
    for (int n : {1, 3, 17, 1000}) {
        auto t = staticpy::empty<double>(n);
        REQUIRE(reinterpret_cast<std::uintptr_t>(t.data()) % 64 == 0);
        REQUIRE(t.storage().is_owning());
    }
    auto b = staticpy::zeros<std::uint8_t>(0);
    REQUIRE(reinterpret_cast<std::uintptr_t>(b.data()) % staticpy::storage_alignment == 0);
    auto t = staticpy::zeros(4);
    auto v = t[1];
    REQUIRE(v.storage().is_same(t.storage()));
    REQUIRE(t.storage().use_count() == 2);
    // bools from empty are valid bools
    auto e = staticpy::empty<bool>(3);
    REQUIRE_FALSE(e(0));
}

TEST_CASE("element access, item, errors", "[tensor]") {
    auto t = staticpy::tensor<float>({{1, 2, 3}, {4, 5, 6}});
    REQUIRE(t(1, 2) == 6);
    REQUIRE(t.at(0, 1) == 2);
    REQUIRE(t(-1, -1) == 6);
    t(0, 0) = 10;
    REQUIRE(t.data()[0] == 10);
    REQUIRE_THROWS_AS(t(5, 0), staticpy::IndexError);
    REQUIRE_THROWS_WITH(t(0, 5), "index 5 is out of bounds for dimension 1 with size 3");
    REQUIRE_THROWS_WITH(t[5], "index 5 is out of bounds for dimension 0 with size 2");
    REQUIRE_THROWS_AS(t.item(), staticpy::RuntimeError);
    REQUIRE_THROWS_WITH(t.item(), "a Tensor with 6 elements cannot be converted to Scalar");
    REQUIRE(t[1][1].item() == 5);
    REQUIRE(staticpy::ones(1_c, 1_c).item() == 1);
    const auto& c = t;
    REQUIRE(c(1, 0) == 4);
    STATIC_REQUIRE(std::is_same_v<decltype(c(1, 0)), const float&>);
}

TEST_CASE("clone, contiguous, fill_, copy_", "[tensor]") {
    auto t = staticpy::arange<float>(0, 6).view(2_c, 3_c);
    auto c = t.clone();
    REQUIRE_FALSE(c.storage().is_same(t.storage()));
    c(0, 0) = 100;
    REQUIRE(t(0, 0) == 0);
    auto same = t.contiguous();
    REQUIRE(same.storage().is_same(t.storage())); // no copy when already contiguous
    auto tt = t.t();
    REQUIRE_FALSE(tt.is_contiguous());
    auto ct = tt.contiguous();
    REQUIRE(ct.is_contiguous());
    REQUIRE_FALSE(ct.storage().is_same(t.storage()));
    REQUIRE(ct.strides() == std::array<std::int64_t, 2>{2, 1});
    REQUIRE(ct(2, 1) == 5);
    REQUIRE(ct(1, 0) == 1);

    t[0].fill_(7);
    REQUIRE(t(0, 2) == 7);
    REQUIRE(t(1, 0) == 3);
    auto z = staticpy::zeros(3_c, 2_c);
    z.copy_(tt);
    REQUIRE(z(2, 1) == 5);
    REQUIRE(z(0, 0) == 7);
    auto zi = staticpy::zeros<int>(3, 2);
    zi.copy_(tt); // converts
    REQUIRE(zi(2, 1) == 5);
    REQUIRE_THROWS_AS(zi.copy_(t), staticpy::RuntimeError);
    // an overlapping copy reads a snapshot
    auto r = staticpy::arange<float>(0, 4);
    r.slice(0, 1, 4).copy_(r.slice(0, 0, 3));
    REQUIRE(r(3) == 2);
    REQUIRE(r(1) == 0);
}

TEST_CASE("casts follow PyTorch", "[tensor]") {
    auto f = staticpy::tensor<float>({-1.7f, -0.5f, 0.f, 0.5f, 2.9f});
    auto i = f.to<std::int32_t>();
    STATIC_REQUIRE(std::is_same_v<decltype(i)::value_type, std::int32_t>);
    REQUIRE(i(0) == -1);
    REQUIRE(i(1) == 0);
    REQUIRE(i(4) == 2);
    auto b = f.to<bool>();
    REQUIRE(b(0));
    REQUIRE_FALSE(b(2));
    REQUIRE(b(3));
    auto back = b.to<double>();
    REQUIRE(back(0) == 1.0);
    REQUIRE(back(2) == 0.0);
    auto same = f.to<float>();
    REQUIRE(same.storage().is_same(f.storage()));
    auto u = staticpy::tensor<std::int64_t>({300, -1}).to<std::uint8_t>();
    REQUIRE(u(0) == 44);
    REQUIRE(u(1) == 255);
    // NaN to an integer is defined (no UB), PyTorch-on-x86's lowest value
    auto n = staticpy::tensor<double>({std::nan("")}).to<std::int64_t>();
    REQUIRE(n(0) == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("allclose", "[tensor]") {
    auto a = staticpy::tensor<double>({1.0, 2.0, INFINITY});
    auto b = staticpy::tensor<double>({1.0 + 1e-9, 2.0, INFINITY});
    REQUIRE(staticpy::allclose(a, b));
    REQUIRE(a.allclose(b));
    auto c = staticpy::tensor<double>({1.1, 2.0, INFINITY});
    REQUIRE_FALSE(staticpy::allclose(a, c));
    REQUIRE(staticpy::allclose(a, c, 0.2));
    REQUIRE(staticpy::allclose(a, c, 0.0, 0.11));
    auto nan = staticpy::tensor<double>({NAN});
    REQUIRE_FALSE(staticpy::allclose(nan, nan));
    REQUIRE_THROWS_WITH(staticpy::allclose(staticpy::zeros(3), staticpy::zeros(4)),
                        "The size of tensor a (3) must match the size of tensor b (4) at "
                        "non-singleton dimension 0");
    // the formula is asymmetric: |a - b| <= atol + rtol * |b|
    auto x = staticpy::tensor<double>({1.0});
    auto y = staticpy::tensor<double>({1.0 + 1.5e-5});
    REQUIRE(staticpy::allclose(x, y, 1e-5, 0.0) == (1.5e-5 <= 1e-5 * (1.0 + 1.5e-5)));
}

TEST_CASE("shape-type conversions of tensors", "[tensor]") {
    auto s = staticpy::zeros(2_c, 3_c);
    Tensor<float, staticpy::dynamic_shape<2>> d = s; // static -> dynamic: implicit, shares storage
    REQUIRE(d.storage().is_same(s.storage()));
    auto back = Tensor<float, staticpy::static_shape<2, 3>>(d); // explicit, checked
    REQUIRE(back.numel() == 6);
    STATIC_REQUIRE(!std::is_convertible_v<Tensor<float, staticpy::dynamic_shape<2>>,
                                          Tensor<float, staticpy::static_shape<2, 3>>>);
    REQUIRE_THROWS_AS((Tensor<float, staticpy::static_shape<3, 2>>(d)), staticpy::RuntimeError);
}

TEST_CASE("devices are torch.device's names, and a program without the CUDA backend says so",
          "[tensor][device]") {
    using staticpy::Device;
    using staticpy::DeviceType;
    CHECK(Device().is_cpu());
    CHECK(Device("cpu") == Device());
    const Device cuda1("cuda:1");
    CHECK(cuda1.type() == DeviceType::CUDA);
    CHECK(cuda1.index() == 1);
    CHECK(cuda1.str() == "cuda:1");
    CHECK(staticpy::repr(cuda1) == "device(type='cuda', index=1)");
    CHECK(staticpy::repr(Device("cuda")) == "device(type='cuda')");
    CHECK_FALSE(Device("cuda").has_index());
    CHECK(Device(staticpy::kCUDA, 0) == Device("cuda:0"));
    CHECK(Device("cuda:0") != Device("cuda"));
    for (const char* bad : {"gpu", "CUDA", "", ":0", "cuda0"})
        CHECK(test_errors::error_of<staticpy::RuntimeError>([&] { (void)Device(bad); }) ==
              std::string("Expected one of cpu, cuda device type at start of device string: ") +
                  bad);
    for (const char* bad : {"cuda:", "cuda:x", "cuda:-1", "cuda:01", "cuda:1:2", "cuda:1234567890"})
        CHECK(test_errors::error_of<staticpy::RuntimeError>([&] { (void)Device(bad); }) ==
              std::string("Invalid device string: '") + bad + "'");

    // Tensors are on the CPU; one goes nowhere else without <staticpy/cuda.hpp> in the program.
    const auto x = staticpy::ones(2_c, 3_c);
    CHECK(x.device() == Device("cpu"));
    CHECK(x.is_cpu());
    CHECK_FALSE(x.is_cuda());
    CHECK(x.to("cpu").data_ptr() == x.data_ptr()); // already there: no copy
    CHECK(x.cpu().data_ptr() == x.data_ptr());
    const std::string not_linked = "staticpy: CUDA is not available: this program does not "
                                   "include <staticpy/cuda.hpp>, the CUDA backend";
    CHECK(test_errors::error_of<staticpy::RuntimeError>([&] { (void)x.cuda(); }) == not_linked);
    CHECK(test_errors::error_of<staticpy::RuntimeError>([&] { (void)x.to("cuda:1"); }) ==
          not_linked);
    CHECK(test_errors::error_of<staticpy::RuntimeError>([] {
              (void)Tensor<float, staticpy::dynamic_shape<1>>(staticpy::dynamic_shape<1>(4),
                                                              Device("cuda"));
          }) == not_linked);
    // arange, linspace, eye and the random functions take a device last too.
    CHECK(staticpy::arange<float>(2, 7, 2, staticpy::kCPU).sizes()[0] == 3);
    CHECK(staticpy::linspace(0.0, 1.0, 5, Device("cpu")).is_cpu());
    CHECK(staticpy::eye(3_c, staticpy::kCPU).size(1) == 3);
    staticpy::Generator g(7), h(7);
    const auto drawn = staticpy::randn(4_c, g, staticpy::kCPU);
    const auto same_draw = staticpy::randn(4_c, h);
    CHECK(std::equal(drawn.data(), drawn.data() + 4, same_draw.data()));
    CHECK(test_errors::error_of<staticpy::RuntimeError>(
              [] { (void)staticpy::arange(5, staticpy::kCUDA); }) == not_linked);
    CHECK(test_errors::error_of<staticpy::RuntimeError>(
              [] { (void)staticpy::rand(2_c, staticpy::kCUDA); }) == not_linked);
    CHECK_FALSE(x.is_pinned());
    CHECK(test_errors::error_of<staticpy::RuntimeError>([&] { (void)x.pin_memory(); }) ==
          not_linked);
    CHECK(test_errors::error_of<staticpy::RuntimeError>(
              [&] { (void)x.to(staticpy::kCUDA, true); }) == not_linked);
}
