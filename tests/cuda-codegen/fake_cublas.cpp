// A stand-in for cuBLAS (libcublas.so) over the stand-in driver's "device" memory, which is host
// memory: what the emulated-device tests load through STATICPY_CUBLAS_LIBRARY, so that matmul on a GPU
// (backend/cuda/cublas.hpp) runs here. Its GEMMs are column-major, with cuBLAS's argument checks
// (an ld below the rows of the matrix it describes is CUBLAS_STATUS_INVALID_VALUE, as cuBLAS
// answers), so that a wrong translation of row-major strides fails here as it would on a GPU.
//
// Besides cuBLAS's entry points: fake_cublas_calls(name) counts the calls of one entry point, and
// fake_cublas_fail_next(status) makes the next GEMM fail with that status, for the tests.
//
// Each entry point has cuBLAS's ABI and, for UBSan's check of calls through function pointers,
// the very types staticpy declares (opaque handle structs in the global namespace, int for enums).
#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>

struct cublasContext {
    int device = 0;
};
struct CUstream_st;

namespace {
constexpr int success = 0, invalid_value = 7;
std::mutex mutex;
std::map<std::string, long> calls;
int fail_next = 0;

/// op(M)(i, j) of a column-major matrix with leading dimension ld.
template <class T>
T element(const T* p, int op, long long ld, long long i, long long j) {
    return op == 0 ? p[i + j * ld] : p[j + i * ld];
}

/// C (m x n) = alpha op(A) (m x k) op(B) (k x n) + beta C, as cuBLAS's gemm; beta == 0 does not
/// read C.
template <class T>
int gemm(const char* name, int transa, int transb, int m, int n, int k, const T* alpha, const T* a,
         int lda, const T* b, int ldb, const T* beta, T* c, int ldc) {
    {
        std::lock_guard lock(mutex);
        ++calls[name];
        if (fail_next != 0)
            return std::exchange(fail_next, 0);
    }
    if (m < 0 || n < 0 || k < 0 || (transa != 0 && transa != 1) || (transb != 0 && transb != 1))
        return invalid_value;
    if (lda < std::max(1, transa == 0 ? m : k) || ldb < std::max(1, transb == 0 ? k : n) ||
        ldc < std::max(1, m))
        return invalid_value;
    for (long long j = 0; j < n; ++j)
        for (long long i = 0; i < m; ++i) {
            T sum = 0;
            for (long long l = 0; l < k; ++l)
                sum += element(a, transa, lda, i, l) * element(b, transb, ldb, l, j);
            T& out = c[i + j * ldc];
            out = *alpha * sum + (*beta == T(0) ? T(0) : *beta * out);
        }
    return success;
}

template <class T>
int gemm_strided_batched(const char* name, int transa, int transb, int m, int n, int k,
                         const T* alpha, const T* a, int lda, long long stride_a, const T* b,
                         int ldb, long long stride_b, const T* beta, T* c, int ldc,
                         long long stride_c, int batches) {
    if (batches < 0)
        return invalid_value;
    {
        std::lock_guard lock(mutex);
        ++calls[name];
    }
    for (int i = 0; i < batches; ++i)
        if (const int r = gemm("batch member", transa, transb, m, n, k, alpha, a + i * stride_a,
                               lda, b + i * stride_b, ldb, beta, c + i * stride_c, ldc);
            r != success)
            return r;
    return success;
}
} // namespace

extern "C" {

int cublasCreate_v2(cublasContext** handle) {
    static cublasContext the_handle; // staticpy keeps its handles for the process
    *handle = &the_handle;
    return success;
}

int cublasSetStream_v2(cublasContext*, CUstream_st*) {
    return success;
}

int cublasGetVersion_v2(cublasContext*, int* version) {
    *version = 130100;
    return success;
}

const char* cublasGetStatusName(int status) {
    switch (status) {
    case 0:
        return "CUBLAS_STATUS_SUCCESS";
    case 7:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case 13:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    default:
        return "CUBLAS_STATUS_UNKNOWN";
    }
}

const char* cublasGetStatusString(int status) {
    switch (status) {
    case 0:
        return "success";
    case 7:
        return "an invalid numeric value was used as an argument";
    case 13:
        return "the GPU program failed to execute";
    default:
        return "unknown error";
    }
}

int cublasSgemm_v2(cublasContext*, int transa, int transb, int m, int n, int k, const float* alpha,
                   const float* a, int lda, const float* b, int ldb, const float* beta, float* c,
                   int ldc) {
    return gemm("cublasSgemm_v2", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int cublasDgemm_v2(cublasContext*, int transa, int transb, int m, int n, int k, const double* alpha,
                   const double* a, int lda, const double* b, int ldb, const double* beta,
                   double* c, int ldc) {
    return gemm("cublasDgemm_v2", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

int cublasSgemmStridedBatched(cublasContext*, int transa, int transb, int m, int n, int k,
                              const float* alpha, const float* a, int lda, long long stride_a,
                              const float* b, int ldb, long long stride_b, const float* beta,
                              float* c, int ldc, long long stride_c, int batches) {
    return gemm_strided_batched("cublasSgemmStridedBatched", transa, transb, m, n, k, alpha, a, lda,
                                stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batches);
}

int cublasDgemmStridedBatched(cublasContext*, int transa, int transb, int m, int n, int k,
                              const double* alpha, const double* a, int lda, long long stride_a,
                              const double* b, int ldb, long long stride_b, const double* beta,
                              double* c, int ldc, long long stride_c, int batches) {
    return gemm_strided_batched("cublasDgemmStridedBatched", transa, transb, m, n, k, alpha, a, lda,
                                stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batches);
}

long fake_cublas_calls(const char* name) {
    std::lock_guard lock(mutex);
    const auto it = calls.find(name);
    return it == calls.end() ? 0 : it->second;
}

void fake_cublas_fail_next(int status) {
    std::lock_guard lock(mutex);
    fail_next = status;
}

} // extern "C"
