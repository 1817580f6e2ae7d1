// Matmul on the emulated device (emulated_device.hpp): cuBLAS's stand-in (fake_cublas.cpp) runs the
// GEMMs that backend/cuda/cublas.hpp translates from the eager matmul, linear and graphs with a
// matmul node; every result is compared with the CPU backend's.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include <staticpy/cuda.hpp>
#include <staticpy/staticpy.hpp>

#include "../test_errors.hpp"
#include "emulated_device.hpp"

using namespace staticpy;
using namespace staticpy::literals;
using emulated_device::fake_driver_selected;
using emulated_device::host_values;
using emulated_device::require_close;
using emulated_device::same;

namespace {
/// How many times the stand-in cuBLAS's entry point `name` was called.
long cublas_calls(const char* name) {
    const auto count =
        cuda::detail::cublas().library.symbol<long(const char*)>("fake_cublas_calls");
    REQUIRE(count != nullptr);
    return count(name);
}
} // namespace

TEST_CASE("emulated device: eager matmul on cuBLAS, every operand layout, against the CPU's") {
    REQUIRE(fake_driver_selected);
    Generator g(11);
    const auto a = randn(5, 7, g), b = randn(7, 3, g);
    require_close(matmul(a.cuda(), b.cuda()), matmul(a, b), 1e-5);
    // Stored by columns (op T), both and either.
    const auto at = randn(7, 5, g), bt = randn(3, 7, g);
    require_close(matmul(at.cuda().t(), bt.cuda().t()), matmul(at.t(), bt.t()), 1e-5);
    require_close(matmul(a.cuda(), bt.cuda().t()), matmul(a, bt.t()), 1e-5);
    // Strided both ways (every other column) and broadcast within a matrix: copied first.
    const auto wide = randn(5, 14, g);
    const auto every_other = wide.slice(1, 0, 14, 2);
    require_close(matmul(wide.cuda().slice(1, 0, 14, 2), b.cuda()), matmul(every_other, b), 1e-5);
    const auto row = randn(1, 3, g);
    require_close(matmul(a.cuda(), row.cuda().expand(7, 3)), matmul(a, row.expand(7, 3)), 1e-5);
    // A view at an offset into its storage.
    const auto big = randn(6, 7, g);
    require_close(matmul(big.cuda().slice(0, 1, 6), b.cuda()), matmul(big.slice(0, 1, 6), b), 1e-5);
    // Vectors: a dot product (zero-dim), a matrix times a vector, a vector times a matrix.
    const auto u = randn(7, g), v = randn(7, g);
    require_close(matmul(u.cuda(), v.cuda()), matmul(u, v), 1e-5);
    require_close(matmul(a.cuda(), u.cuda()), matmul(a, u), 1e-5);
    require_close(matmul(u.cuda(), b.cuda()), matmul(u, b), 1e-5);
    // double
    const auto ad = a.to<double>(), bd = b.to<double>();
    require_close(matmul(ad.cuda(), bd.cuda()), matmul(ad, bd), 1e-12);
    CHECK(matmul(ad.cuda(), bd.cuda()).is_cuda());
}

TEST_CASE("emulated device: batched matmul, one strided-batched call where the batch allows") {
    Generator g(12);
    const auto x = randn(4, 5, 7, g);
    const auto w = randn(7, 3, g);
    const long batched = cublas_calls("cublasSgemmStridedBatched");
    const long single = cublas_calls("cublasSgemm_v2");
    require_close(matmul(x.cuda(), w.cuda()), matmul(x, w), 1e-5); // w broadcast: spacing 0
    CHECK(cublas_calls("cublasSgemmStridedBatched") == batched + 1);
    CHECK(cublas_calls("cublasSgemm_v2") == single);
    // [2, 1] x [3] batch dims broadcast to [2, 3]: x's matrices repeat, not equally spaced.
    const auto p = randn(2, 1, 5, 7, g);
    const auto q = randn(3, 7, 2, g);
    require_close(matmul(p.cuda(), q.cuda()), matmul(p, q), 1e-5);
    CHECK(cublas_calls("cublasSgemm_v2") == single + 6);
    // A batch of transposed matrices.
    const auto r = randn(4, 7, 5, g);
    require_close(matmul(r.cuda().transpose(1, 2), w.cuda()), matmul(r.transpose(1, 2), w), 1e-5);
}

TEST_CASE("emulated device: matmul's edge cases and errors on the GPU") {
    // No products to sum: zeros, without cuBLAS; no elements: nothing to do.
    const auto empty_k = matmul(zeros<float>(3, 0).cuda(), zeros<float>(0, 4).cuda());
    CHECK(empty_k.is_cuda());
    CHECK(same(empty_k.cpu(), zeros<float>(3, 4)));
    CHECK(matmul(zeros<float>(0, 2).cuda(), zeros<float>(2, 4).cuda()).sizes() ==
          std::array<std::int64_t, 2>{0, 4});
    // PyTorch's messages: integers, and sizes that do not match.
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)matmul(ones<std::int32_t>(2, 3).cuda(), ones<std::int32_t>(3, 2).cuda());
          }) == "\"addmm_cuda\" not implemented for 'Int'");
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)matmul(ones<float>(2, 3).cuda(), ones<float>(4, 5).cuda());
          }) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    // A failing cuBLAS call, in cuBLAS's words.
    const auto fail_next =
        cuda::detail::cublas().library.symbol<void(int)>("fake_cublas_fail_next");
    REQUIRE(fail_next != nullptr);
    fail_next(13);
    CHECK(test_errors::error_of<RuntimeError>([] {
              (void)matmul(ones<float>(2, 3).cuda(), ones<float>(3, 2).cuda());
          }) == "staticpy: cuBLAS error: cublasSgemm failed: CUBLAS_STATUS_EXECUTION_FAILED (the "
                "GPU program failed to execute)");
    CHECK(cuda::cublas_version() == 130100);
}

TEST_CASE("emulated device: cuBLAS not found, or lacking an entry point, is said so") {
    const auto missing = cuda::detail::load_cublas({"/nonexistent/libcublas.so.13"});
    CHECK(missing.api == nullptr);
    CHECK_THAT(missing.unavailable,
               Catch::StartsWith("cuBLAS could not be loaded (/nonexistent/libcublas.so.13: "));
    CHECK_THAT(missing.unavailable,
               Catch::EndsWith("install the CUDA toolkit's cuBLAS or set STATICPY_CUBLAS_LIBRARY "
                               "to its libcublas.so"));
    // The stand-in NVRTC is a library without cuBLAS's entry points.
    const auto wrong = cuda::detail::load_cublas({STATICPY_TEST_FAKE_NVRTC});
    CHECK(wrong.api == nullptr);
    CHECK_THAT(wrong.unavailable, Catch::Contains("lacks cublasCreate_v2, cublasSetStream_v2"));
}

TEST_CASE("emulated device: linear on the GPU, with and without a bias, against the CPU's") {
    Generator g(13);
    const auto x = randn(2, 3, 4, g);
    const auto w = randn(5, 4, g);
    const auto bias = randn(5, g);
    require_close(linear(x.cuda(), w.cuda(), bias.cuda()), linear(x, w, bias), 1e-5);
    require_close(linear(x.cuda(), w.cuda()), linear(x, w), 1e-5);
    const auto v = randn(4, g);
    require_close(linear(v.cuda(), w.cuda(), bias.cuda()), linear(v, w, bias), 1e-5);
}

TEST_CASE("emulated device: graphs with matmul and views run there, the epilogue fused after") {
    Generator g(14);
    const auto x = randn(6, 4, g), w = randn(4, 5, g);
    const auto b = randn(5, g);
    const auto dx = x.cuda(), dw = w.cuda();
    const auto db = b.cuda();
    auto dense = jit([](auto p, auto q, auto r) { return relu(matmul(p, q) + r); });
    require_close(dense(dx, dw, db), dense(x, w, b), 1e-5);
    CHECK(dense(dx, dw, db).is_cuda());
    // linear's transposed weight, a transpose and a reshape taken inside the traced function.
    const auto wt = randn(5, 4, g);
    auto through_views = jit([](auto p, auto q) {
        auto y = matmul(p, q.t()); // [6, 5]
        return (y.transpose(0, 1) * 2.0f).reshape(30);
    });
    require_close(through_views(dx, wt.cuda()), through_views(x, wt), 1e-5);
    // A batched matmul under a reduction.
    const auto p = randn(3, 6, 4, g);
    auto batched = jit([](auto a, auto q) { return sum(matmul(a, q) * 0.5f, 1); });
    require_close(batched(p.cuda(), dw), batched(p, w), 1e-5);
}
