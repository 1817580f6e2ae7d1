#pragma once
// Matmul on a GPU: cuBLAS, loaded with dlopen at the first matmul of tensors on a GPU (library.hpp;
// $STATICPY_CUBLAS_LIBRARY overrides where from), as the driver and NVRTC are. Including
// <staticpy/cuda.hpp> registers cublas_gemm as the core's device GEMM (tensor/ops_matmul.hpp),
// which hands it each matmul as row-major matrices a BLAS can read (one unit stride each).
//
// cuBLAS is column-major. A row-major n x m product C = A . B is, read by columns, the m x n
// product Cᵀ = Bᵀ . Aᵀ, and a row-major matrix is its transpose read by columns, so B and A go in
// that order, each with op N where it is stored by rows and op T where by columns; C is written
// contiguous (ld = m). A batch whose matrices are equally spaced in A, in B (0 for one broadcast
// over the batch) and in C is one strided-batched call; any other, one call per matrix.
//
// Work goes to the legacy default stream, as staticpy's kernels and copies do, in the device's
// primary context (the one the CUDA runtime inside cuBLAS uses too). Math mode is cuBLAS's
// default: float products in full float precision, no TF32 (PyTorch's default since 1.12).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/library.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/tensor/ops_matmul.hpp"

// cuBLAS's opaque handle type, declared where cublas_api.h declares it (the global namespace).
struct cublasContext;

namespace staticpy::cuda::detail {

using cublasStatus_t = int;
using cublasHandle_t = ::cublasContext*;
inline constexpr cublasStatus_t CUBLAS_STATUS_SUCCESS = 0;
inline constexpr int CUBLAS_OP_N = 0;
inline constexpr int CUBLAS_OP_T = 1;

/// The entry points staticpy calls, by their ABI names.
struct cublas_api {
    shared_library library;
    cublasStatus_t (*cublasCreate_v2)(cublasHandle_t*) = nullptr;
    cublasStatus_t (*cublasSetStream_v2)(cublasHandle_t, CUstream) = nullptr;
    cublasStatus_t (*cublasGetVersion_v2)(cublasHandle_t, int*) = nullptr;
    const char* (*cublasGetStatusName)(cublasStatus_t) = nullptr;
    const char* (*cublasGetStatusString)(cublasStatus_t) = nullptr;
    cublasStatus_t (*cublasSgemm_v2)(cublasHandle_t, int, int, int, int, int, const float*,
                                     const float*, int, const float*, int, const float*, float*,
                                     int) = nullptr;
    cublasStatus_t (*cublasDgemm_v2)(cublasHandle_t, int, int, int, int, int, const double*,
                                     const double*, int, const double*, int, const double*, double*,
                                     int) = nullptr;
    cublasStatus_t (*cublasSgemmStridedBatched)(cublasHandle_t, int, int, int, int, int,
                                                const float*, const float*, int, long long,
                                                const float*, int, long long, const float*, float*,
                                                int, long long, int) = nullptr;
    cublasStatus_t (*cublasDgemmStridedBatched)(cublasHandle_t, int, int, int, int, int,
                                                const double*, const double*, int, long long,
                                                const double*, int, long long, const double*,
                                                double*, int, long long, int) = nullptr;
};

/// A loaded cuBLAS, or why there is none.
struct cublas_state {
    std::unique_ptr<cublas_api> api;
    std::string unavailable;
};

/// Loads cuBLAS from the first of `candidates` that opens and has every entry point. Not cached:
/// cublas() keeps the process's one; tests call this with their own candidates.
inline cublas_state load_cublas(const std::vector<std::string>& candidates) {
    cublas_state st;
    std::string why;
    shared_library lib = shared_library::open_first(candidates, why);
    if (!lib) {
        st.unavailable = "cuBLAS could not be loaded (" + why +
                         "); install the CUDA toolkit's cuBLAS or set STATICPY_CUBLAS_LIBRARY to "
                         "its libcublas.so";
        return st;
    }
    auto api = std::make_unique<cublas_api>();
    std::string missing;
    const shared_library& l = lib;
    load_symbol(l, "cublasCreate_v2", api->cublasCreate_v2, missing);
    load_symbol(l, "cublasSetStream_v2", api->cublasSetStream_v2, missing);
    load_symbol(l, "cublasGetVersion_v2", api->cublasGetVersion_v2, missing);
    load_symbol(l, "cublasGetStatusName", api->cublasGetStatusName, missing);
    load_symbol(l, "cublasGetStatusString", api->cublasGetStatusString, missing);
    load_symbol(l, "cublasSgemm_v2", api->cublasSgemm_v2, missing);
    load_symbol(l, "cublasDgemm_v2", api->cublasDgemm_v2, missing);
    load_symbol(l, "cublasSgemmStridedBatched", api->cublasSgemmStridedBatched, missing);
    load_symbol(l, "cublasDgemmStridedBatched", api->cublasDgemmStridedBatched, missing);
    if (!missing.empty()) {
        st.unavailable = lib.path() + " lacks " + missing + " (cuBLAS 11.4 or later is needed)";
        return st;
    }
    api->library = std::move(lib);
    st.api = std::move(api);
    return st;
}

/// Where cuBLAS is looked for: $STATICPY_CUBLAS_LIBRARY where set, else the sonames of CUDA 13
/// and 12 on the loader's path, then in the toolkit's lib64.
inline std::vector<std::string> cublas_candidates() {
    return library_candidates("STATICPY_CUBLAS_LIBRARY",
                              {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, true);
}

/// The process's cuBLAS, loaded once at the first call and kept loaded (as the driver is).
inline const cublas_state& process_cublas() {
    static const cublas_state* const state = new cublas_state(load_cublas(cublas_candidates()));
    return *state;
}

/// cuBLAS's API, or RuntimeError "staticpy: cuBLAS is not available: <why>".
inline const cublas_api& cublas() {
    const cublas_state& st = process_cublas();
    if (!st.api)
        throw RuntimeError("staticpy: cuBLAS is not available: " + st.unavailable);
    return *st.api;
}

/// Throws RuntimeError "staticpy: cuBLAS error: <call> failed: <name> (<meaning>)" unless s is
/// CUBLAS_STATUS_SUCCESS.
inline void check_cublas(cublasStatus_t s, const char* call) {
    if (s == CUBLAS_STATUS_SUCCESS)
        return;
    const cublas_api& api = cublas();
    throw RuntimeError(std::string("staticpy: cuBLAS error: ") + call + " failed: " +
                       api.cublasGetStatusName(s) + " (" + api.cublasGetStatusString(s) + ")");
}

/// Device `ordinal`'s cuBLAS handle, made once in its primary context and kept for the process;
/// with the lock that serialises its calls (a handle is not for two threads at once).
struct cublas_handle {
    cublasHandle_t handle = nullptr;
    std::mutex mutex;
};
inline cublas_handle& handle_of_device(int ordinal) {
    static std::mutex mutex;
    static std::vector<std::unique_ptr<cublas_handle>> handles;
    std::lock_guard lock(mutex);
    handles.resize(static_cast<std::size_t>(process_driver().device_count));
    auto& slot = handles.at(static_cast<std::size_t>(ordinal));
    if (!slot) {
        const cublas_api& api = cublas();
        make_current(ordinal);
        auto h = std::make_unique<cublas_handle>();
        check_cublas(api.cublasCreate_v2(&h->handle), "cublasCreate");
        check_cublas(api.cublasSetStream_v2(h->handle, nullptr), "cublasSetStream");
        slot = std::move(h);
    }
    return *slot;
}

/// A row-major rows x cols matrix with strides (s_row, s_col), as cuBLAS takes its transpose:
/// op N with ld s_row where it is stored by rows (the column-major matrix at its address is its
/// transpose), op T with ld s_col where by columns. Per blas_readable; the ld of a dim of extent 1
/// is any value cuBLAS accepts.
struct cublas_operand {
    int op = CUBLAS_OP_N;
    std::int64_t ld = 1;
};
inline cublas_operand transposed_operand(std::int64_t rows, std::int64_t cols, std::int64_t s_row,
                                         std::int64_t s_col) {
    if ((cols == 1 || s_col == 1) && (rows == 1 || s_row >= cols))
        return {CUBLAS_OP_N, rows == 1 ? std::max<std::int64_t>(cols, 1) : s_row};
    return {CUBLAS_OP_T, cols == 1 ? std::max<std::int64_t>(rows, 1) : s_col};
}

/// The spacing of `offsets` where it is constant (one strided-batched call), or -1.
inline std::int64_t constant_spacing(const std::vector<std::int64_t>& offsets) {
    if (offsets.size() < 2)
        return 0;
    const std::int64_t step = offsets[1] - offsets[0];
    for (std::size_t i = 2; i < offsets.size(); ++i)
        if (offsets[i] - offsets[i - 1] != step)
            return -1;
    return step < 0 ? -1 : step;
}

/// cuBLAS takes sizes as int: a larger one is an error, not a wrapped size.
inline int cublas_int(std::int64_t v, const char* what) {
    if (v > std::numeric_limits<int>::max())
        throw RuntimeError(std::string("staticpy: matmul on the GPU: ") + what + " " +
                           std::to_string(v) + " is over cuBLAS's limit of 2^31 - 1");
    return static_cast<int>(v);
}

/// The core's device GEMM (staticpy::detail::batched_gemm, from tensor/ops_matmul.hpp) on cuBLAS.
template <class T>
void cublas_gemm_as(const staticpy::detail::batched_gemm& g) {
    const cublas_api& api = cublas();
    cublas_handle& h = handle_of_device(g.device);
    // Cᵀ (m x n) = Bᵀ (m x k) . Aᵀ (k x n), column-major.
    const cublas_operand b = transposed_operand(g.k, g.m, g.bs0, g.bs1);
    const cublas_operand a = transposed_operand(g.n, g.k, g.as0, g.as1);
    const int m = cublas_int(g.m, "a size"), n = cublas_int(g.n, "a size"),
              k = cublas_int(g.k, "a size");
    const int ldb = cublas_int(b.ld, "a stride"), lda = cublas_int(a.ld, "a stride"),
              ldc = std::max(m, 1);
    const T one = 1, zero = 0;
    const T* beta = g.accumulate ? &one : &zero;
    const T* pa = static_cast<const T*>(g.a);
    const T* pb = static_cast<const T*>(g.b);
    T* pc = static_cast<T*>(g.c);
    const std::int64_t step_a = constant_spacing(g.a_offsets);
    const std::int64_t step_b = constant_spacing(g.b_offsets);
    const std::int64_t batches = static_cast<std::int64_t>(g.a_offsets.size());
    std::lock_guard lock(h.mutex);
    make_current(g.device);
    if (batches > 1 && step_a >= 0 && step_b >= 0) {
        const auto call = [&](auto gemm, const char* name) {
            check_cublas(gemm(h.handle, b.op, a.op, m, n, k, &one, pb + g.b_offsets[0], ldb, step_b,
                              pa + g.a_offsets[0], lda, step_a, beta, pc, ldc,
                              static_cast<long long>(g.n) * g.m, cublas_int(batches, "a batch of")),
                         name);
        };
        if constexpr (std::is_same_v<T, float>)
            call(api.cublasSgemmStridedBatched, "cublasSgemmStridedBatched");
        else
            call(api.cublasDgemmStridedBatched, "cublasDgemmStridedBatched");
        return;
    }
    for (std::int64_t i = 0; i < batches; ++i) {
        const auto call = [&](auto gemm, const char* name) {
            check_cublas(gemm(h.handle, b.op, a.op, m, n, k, &one, pb + g.b_offsets[i], ldb,
                              pa + g.a_offsets[i], lda, beta, pc + i * g.n * g.m, ldc),
                         name);
        };
        if constexpr (std::is_same_v<T, float>)
            call(api.cublasSgemm_v2, "cublasSgemm");
        else
            call(api.cublasDgemm_v2, "cublasDgemm");
    }
}

inline void cublas_gemm(const staticpy::detail::batched_gemm& g) {
    if (g.type == dtype::float64)
        cublas_gemm_as<double>(g);
    else
        cublas_gemm_as<float>(g);
}

/// Registered at static initialisation by every translation unit that includes this header.
inline const bool cublas_gemm_registered =
    (staticpy::detail::cuda_gemm_hook() = &cublas_gemm, true);

} // namespace staticpy::cuda::detail

namespace staticpy::cuda {

/// cuBLAS's version as 10000 * major + 100 * minor + patch (13.1.0: 130100), for reports; loads
/// cuBLAS and makes device 0's handle.
inline int cublas_version() {
    int v = 0;
    detail::check_cublas(
        detail::cublas().cublasGetVersion_v2(detail::handle_of_device(0).handle, &v),
        "cublasGetVersion");
    return v;
}

} // namespace staticpy::cuda
