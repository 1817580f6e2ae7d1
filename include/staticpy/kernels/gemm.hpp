#pragma once
// The CPU backend's matrix product: C = A * B for float and double, blocked and packed as in
// GotoBLAS/BLIS, vectorised with xsimd and threaded with OpenMP when they are available.
//
//   gemm(M, N, K, a, K, 1, b, N, 1, c, N);                         // row-major C = A B
//   gemm(M, N, K, x, K, 1, w, 1, K, y, N, bias_relu_epilogue);     // y = relu(x W^T + b)
//
// How it is organised (the BLIS loop nest):
//   jc: N in blocks of NC   (a packed KC x NC block of B lives in L3)
//   pc: K in blocks of KC   (B block packed into micro-panels of NR columns)
//   ic: M in blocks of MC   (a packed MC x KC block of A lives in L2, micro-panels of MR rows)
//   jr, ir: MR x NR micro-tiles, each an MR x NR register block updated KC times by the kernel.
// Packing turns any strides (transposed views included) into the unit-stride, aligned streams the
// kernel wants, and pads edges with zeros so the kernel never needs a remainder loop. The
// exceptions, where a copy would cost more than it saves (see gemm_serial): a row-major A is read
// in place, and so is a row-major B when the product has one row of micro-tiles. Thin products
// whose operands are both unit-stride along K (A B^T) are dot products instead (gemm_dot). Inside,
// B is an operand that says where its rows are (strided_b; offset_rows, each row at its own
// offset, is a convolution's implicit GEMM: kernels/conv.hpp).
//
// Threads split C into disjoint rectangles (a few per thread, taken first come first served), each
// running the loop nest on its own rectangle with its own packing buffers; no two threads ever
// write the same element.
//
// The epilogue is called once per micro-tile on the last K block, right after the tile is stored,
// while it is still in L1: that is what makes fused bias + activation nearly free.
//
// It is in the kernels layer, below tensor/ (whose eager matmul calls it): it depends only on the
// standard library, xsimd and the other kernels headers.
// With STATICPY_HAS_CBLAS defined (and the program linked to a CBLAS), large float/double products
// with unit-stride operands go to cblas_sgemm/cblas_dgemm instead.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "staticpy/kernels/config.hpp"
#include "staticpy/kernels/function_ref.hpp"
#include "staticpy/kernels/parallel.hpp"

#if defined(STATICPY_HAS_CBLAS)
#include <cblas.h>
#endif

namespace staticpy::kernels {

/// The epilogue that does nothing: plain C = A B.
struct no_epilogue {
    void operator()(std::int64_t, std::int64_t, std::int64_t, std::int64_t) const noexcept {}
};

/// The epilogue as the loop nests take it: compiled once per element type and B operand, not
/// once per epilogue (each graph's fused epilogue is a type of its own; one nn test file held 16
/// copies of the loop nest and micro-kernel). no_epilogue is called too, as any other.
using epilogue_ref = function_ref<void(std::int64_t, std::int64_t, std::int64_t, std::int64_t)>;

namespace gemm_detail {

// The micro-kernel's loops must be unrolled completely, or its accumulators leave the registers.
#if defined(__clang__)
#define STATICPY_GEMM_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define STATICPY_GEMM_UNROLL _Pragma("GCC unroll 32")
#else
#define STATICPY_GEMM_UNROLL
#endif

template <class T>
inline constexpr bool is_simd_real = (std::is_same_v<T, float> || std::is_same_v<T, double>);

/// Elements per SIMD register for T (1 for the scalar path).
template <class T>
constexpr int simd_width() {
#if STATICPY_HAS_XSIMD
    if constexpr (xsimd_usable)
        return static_cast<int>(xsimd::batch<T>::size);
#endif
    return 1;
}

/// Blocking parameters for T. The micro-tile is MR rows x NB registers: MR * NB accumulators plus
/// NB loads of B and one broadcast of A must fit the register file: 8 x 2 (16 accumulators) in
/// AVX-512's 32 registers, 6 x 2 in the 16 of SSE/AVX2; 8 x 2 beat 12 x 2, 14 x 2 and 6 x 4 on
/// Zen 4, and KC 384 beat 256 and 192 (measured with matmul_bench). MC * KC of A is sized for L2.
template <class T>
struct blocking {
    static constexpr int W = simd_width<T>();
    static constexpr bool wide = W * static_cast<int>(sizeof(T)) >= 64;
    static constexpr int MR = W == 1 ? 4 : (wide ? 8 : 6);
    static constexpr int NB = W == 1 ? 8 : 2;
    static constexpr int NR = W * NB;
    static constexpr std::int64_t KC = sizeof(T) == 4 ? 384 : 256;
    static constexpr std::int64_t MC = MR * 24;
    static constexpr std::int64_t NC = 4096;
};

inline constexpr std::size_t buffer_alignment = 64;

/// A reusable, 64-byte-aligned scratch buffer; it only grows, so steady-state calls allocate
/// nothing. One per thread (thread_local), freed when the thread exits.
class scratch {
public:
    void* get(std::size_t bytes) {
        if (bytes > size_) {
            data_.reset();
            data_.reset(::operator new (bytes, std::align_val_t{buffer_alignment}));
            size_ = bytes;
        }
        return data_.get();
    }

private:
    struct deleter {
        void operator()(void* p) const noexcept {
            ::operator delete (p, std::align_val_t{buffer_alignment});
        }
    };
    std::unique_ptr<void, deleter> data_;
    std::size_t size_ = 0;
};

template <class T>
T* thread_buffer(int which, std::size_t count) {
    thread_local scratch buffers[2];
    return static_cast<T*>(buffers[which].get(count * sizeof(T)));
}

#if STATICPY_HAS_XSIMD
/// a * b + c in one instruction. xsimd 8.1 has no AVX-512 overload of fma and falls back to a
/// multiply and an add, which g++ fuses (-ffp-contract=fast) but clang++ does not: half the speed.
template <class T, class A>
inline xsimd::batch<T, A> madd(const xsimd::batch<T, A>& a, const xsimd::batch<T, A>& b,
                               const xsimd::batch<T, A>& c) noexcept {
#if defined(__AVX512F__)
    if constexpr (std::is_base_of_v<xsimd::avx512f, A>) {
        if constexpr (std::is_same_v<T, float>)
            return _mm512_fmadd_ps(a, b, c);
        else
            return _mm512_fmadd_pd(a, b, c);
    } else
#endif
        return xsimd::fma(a, b, c);
}
#endif

/// Packs the mc x kc block of A at a into micro-panels of MR rows: panel p holds, for each k,
/// the MR values A[p*MR + r, k] side by side. Rows past mc are zero.
template <class T, int MR>
void pack_a(std::int64_t mc, std::int64_t kc, const T* a, std::int64_t rs, std::int64_t cs,
            T* out) {
    for (std::int64_t i0 = 0; i0 < mc; i0 += MR) {
        const std::int64_t mr = std::min<std::int64_t>(MR, mc - i0);
        if (mr == MR && rs == 1) {
            // Column-major A: each k is MR consecutive values.
            for (std::int64_t k = 0; k < kc; ++k) {
                const T* src = a + i0 + k * cs;
                for (int r = 0; r < MR; ++r)
                    out[k * MR + r] = src[r];
            }
        } else {
            // Row-major (or general) A: walk each row along k so the reads are sequential.
            for (std::int64_t r = 0; r < mr; ++r) {
                const T* src = a + (i0 + r) * rs;
                for (std::int64_t k = 0; k < kc; ++k)
                    out[k * MR + r] = src[k * cs];
            }
            for (std::int64_t r = mr; r < MR; ++r)
                for (std::int64_t k = 0; k < kc; ++k)
                    out[k * MR + r] = T(0);
        }
        out += kc * MR;
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define STATICPY_GEMM_TRANSPOSE8 1
/// dst[k * ld_dst + j] = src[j * ld_src + k] for j, k in [0, 8): an 8 x 8 float transpose in
/// registers, three rounds of shuffles (GCC's and clang's vector extensions: AVX's unpack, shuffle
/// and lane permutes where the target has them, pairs of SSE registers otherwise). pack_b's
/// transposed B (W^T in a linear layer's forward) took a scalar load and store per value: 30 us
/// of the MLP forward's 90 us at 784 x 128, 8 us this way.
inline void transpose8x8(const float* src, std::int64_t ld_src, float* dst, std::int64_t ld_dst) {
    using v8 = float __attribute__((vector_size(32)));
    v8 rows[8], pairs[8], quads[8];
    STATICPY_GEMM_UNROLL
    for (int j = 0; j < 8; ++j)
        std::memcpy(&rows[j], src + j * ld_src, sizeof(v8));
    // Interleave rows 2i and 2i + 1, then pairs of those, then the 128-bit halves.
    STATICPY_GEMM_UNROLL
    for (int j = 0; j < 8; j += 2) {
        pairs[j] = __builtin_shufflevector(rows[j], rows[j + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        pairs[j + 1] = __builtin_shufflevector(rows[j], rows[j + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    STATICPY_GEMM_UNROLL
    for (int j = 0; j < 8; j += 4)
        STATICPY_GEMM_UNROLL
    for (int h = 0; h < 2; ++h) {
        quads[j + 2 * h] =
            __builtin_shufflevector(pairs[j + h], pairs[j + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        quads[j + 2 * h + 1] =
            __builtin_shufflevector(pairs[j + h], pairs[j + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    STATICPY_GEMM_UNROLL
    for (int h = 0; h < 4; ++h) {
        rows[h] = __builtin_shufflevector(quads[h], quads[h + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        rows[h + 4] = __builtin_shufflevector(quads[h], quads[h + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
    STATICPY_GEMM_UNROLL
    for (int k = 0; k < 8; ++k)
        std::memcpy(dst + k * ld_dst, &rows[k], sizeof(v8));
}
#endif

/// Packs the kc x nc block of B at b into micro-panels of NR columns: panel p holds, for each k,
/// the NR values B[k, p*NR + j] side by side. Columns past nc are zero.
template <class T, int NR>
void pack_b(std::int64_t kc, std::int64_t nc, const T* b, std::int64_t rs, std::int64_t cs,
            T* out) {
    for (std::int64_t j0 = 0; j0 < nc; j0 += NR) {
        const std::int64_t nr = std::min<std::int64_t>(NR, nc - j0);
        if (nr == NR && cs == 1) {
            for (std::int64_t k = 0; k < kc; ++k)
                std::memcpy(out + k * NR, b + k * rs + j0, NR * sizeof(T));
        } else {
            // Transposed (or general) B, e.g. W^T in linear: a transpose, in 8 x 8 blocks in
            // registers where it can, the rest in chunks of 16 k so that the lines being read
            // (one per column) and written stay in L1.
            std::int64_t k_blocked = 0;
#if defined(STATICPY_GEMM_TRANSPOSE8)
            if constexpr (std::is_same_v<T, float> && NR % 8 == 0)
                if (nr == NR && rs == 1)
                    for (; k_blocked + 8 <= kc; k_blocked += 8)
                        for (int jb = 0; jb < NR; jb += 8)
                            transpose8x8(b + k_blocked + (j0 + jb) * cs, cs,
                                         out + k_blocked * NR + jb, NR);
#endif
            constexpr std::int64_t chunk = 16;
            for (std::int64_t k0 = k_blocked; k0 < kc; k0 += chunk) {
                const std::int64_t k1 = std::min(kc, k0 + chunk);
                for (std::int64_t j = 0; j < nr; ++j) {
                    const T* src = b + (j0 + j) * cs;
                    for (std::int64_t k = k0; k < k1; ++k)
                        out[k * NR + j] = src[k * rs];
                }
                for (std::int64_t k = k0; k < k1; ++k)
                    for (std::int64_t j = nr; j < NR; ++j)
                        out[k * NR + j] = T(0);
            }
        }
        out += kc * NR;
    }
}

/// A B operand with any strides (transposed views included). Its rows are unit-stride along N
/// when cs is 1, and then the kernels can read them in place (row(k)).
template <class T>
struct strided_b {
    const T* b;
    std::int64_t rs, cs;
    [[nodiscard]] bool unit_columns() const { return cs == 1; }
    const T* row(std::int64_t k) const { return b + k * rs; }
    strided_b shifted(std::int64_t k, std::int64_t j) const {
        return {b + k * rs + j * cs, rs, cs};
    }
    /// Its kc x nc block at (0, 0) packed into micro-panels of NR columns (pack_b).
    template <int NR>
    void pack(std::int64_t kc, std::int64_t nc, T* out) const {
        pack_b<T, NR>(kc, nc, b, rs, cs, out);
    }
};

/// A B operand whose rows (unit-stride along N) each start at their own offset from a base: an
/// implicit GEMM, whose B is a convolution's column matrix read straight from the padded input
/// (row r, one kernel tap, starts where that tap's windows start; kernels/conv.hpp).
template <class T>
struct offset_rows {
    const T* base;
    const std::int64_t* offset;
    [[nodiscard]] static bool unit_columns() { return true; }
    const T* row(std::int64_t k) const { return base + offset[k]; }
    offset_rows shifted(std::int64_t k, std::int64_t j) const { return {base + j, offset + k}; }
    template <int NR>
    void pack(std::int64_t kc, std::int64_t nc, T* out) const {
        for (std::int64_t j0 = 0; j0 < nc; j0 += NR, out += kc * NR) {
            const std::int64_t nr = std::min<std::int64_t>(NR, nc - j0);
            for (std::int64_t k = 0; k < kc; ++k) {
                const T* src = row(k) + j0;
                for (std::int64_t j = 0; j < NR; ++j)
                    out[k * NR + j] = j < nr ? src[j] : T(0);
            }
        }
    }
};

/// The micro-kernel: the MR x NR tile at c (row stride ldc) is set to (accumulate: incremented by)
/// the product of an A micro-panel (Packed: MR values per k; otherwise MR rows of a row-major A,
/// lda apart) and a B micro-panel, over kc. B's NR values for each k are consecutive, at
/// b.row(k): NR apart in a packed panel, where B puts them when it is read in place.
template <class T, bool Packed, class BRows>
inline void micro_kernel(std::int64_t kc, const T* __restrict a, std::int64_t lda, BRows b, T* c,
                         std::int64_t ldc, bool accumulate) {
    using P = blocking<T>;
    constexpr int MR = P::MR;
#if STATICPY_HAS_XSIMD
    if constexpr (xsimd_usable) {
        constexpr int NB = P::NB, W = P::W;
        using V = xsimd::batch<T>;
        V acc[MR][NB];
        STATICPY_GEMM_UNROLL
        for (int r = 0; r < MR; ++r)
            STATICPY_GEMM_UNROLL
        for (int j = 0; j < NB; ++j)
            acc[r][j] = V(T(0));
        for (std::int64_t k = 0; k < kc; ++k) {
            const T* __restrict bk = b.row(k);
            V bv[NB];
            STATICPY_GEMM_UNROLL
            for (int j = 0; j < NB; ++j)
                bv[j] = V::load_unaligned(bk + j * W);
            STATICPY_GEMM_UNROLL
            for (int r = 0; r < MR; ++r) {
                const V av(Packed ? a[r] : a[r * lda]);
                STATICPY_GEMM_UNROLL
                for (int j = 0; j < NB; ++j)
                    acc[r][j] = madd(av, bv[j], acc[r][j]);
            }
            a += Packed ? MR : 1;
        }
        STATICPY_GEMM_UNROLL
        for (int r = 0; r < MR; ++r)
            STATICPY_GEMM_UNROLL
        for (int j = 0; j < NB; ++j) {
            T* p = c + r * ldc + j * W;
            if (accumulate)
                acc[r][j] += V::load_unaligned(p);
            acc[r][j].store_unaligned(p);
        }
    } else
#endif
    {
        constexpr int NR = P::NR;
        T acc[MR][NR] = {};
        for (std::int64_t k = 0; k < kc; ++k) {
            const T* bk = b.row(k);
            for (int r = 0; r < MR; ++r)
                for (int j = 0; j < NR; ++j)
                    acc[r][j] += (Packed ? a[r] : a[r * lda]) * bk[j];
            a += Packed ? MR : 1;
        }
        for (int r = 0; r < MR; ++r)
            for (int j = 0; j < NR; ++j)
                c[r * ldc + j] = accumulate ? c[r * ldc + j] + acc[r][j] : acc[r][j];
    }
}

/// Products with at most this many rows (two rows of micro-tiles) read a row-major B in place
/// rather than packing it: LeNet's second convolution, 16 x 150 x 400 a task, ran 12 % faster.
template <class T>
inline constexpr std::int64_t direct_b_rows = 2 * blocking<T>::MR;

/// The loop nest on one rectangle of C, single-threaded. Called by each thread on its own part.
/// B is a strided_b or an offset_rows.
template <class T, class BOperand>
void gemm_serial(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t ars,
                 std::int64_t acs, const BOperand& B, T* C, std::int64_t ldc, std::int64_t i_base,
                 std::int64_t j_base, epilogue_ref epilogue) {
    using P = blocking<T>;
    constexpr int MR = P::MR, NR = P::NR;
    // K in equal blocks of at most KC: 784 as 392 + 392, not 256 + 256 + 256 + 16, whose last
    // block would cost a full pass over C for little work.
    const std::int64_t k_blocks = (K + P::KC - 1) / P::KC;
    const std::int64_t kc_max = (K + k_blocks - 1) / k_blocks;
    const std::int64_t mc_max = std::min<std::int64_t>(P::MC, (M + MR - 1) / MR * MR);
    const std::int64_t nc_max = std::min<std::int64_t>(P::NC, (N + NR - 1) / NR * NR);
    T* bp = thread_buffer<T>(1, static_cast<std::size_t>(kc_max * nc_max));
    T* ap = thread_buffer<T>(0, static_cast<std::size_t>(kc_max * mc_max));
    alignas(buffer_alignment) T edge[MR * NR];
    // Row-major A is read in place: the kernel broadcasts from MR rows at once, which the
    // hardware prefetchers follow as well as a packed panel, and the copy is saved (10% at the
    // MLP shapes). Only a ragged last panel is packed, to pad it with zeros.
    const bool direct_a = acs == 1;
    // Row-major B is read in place too when each of its panels serves few micro-tile rows: a
    // packed panel pays for its copy by being reused from L1 by every row of tiles, and with
    // one or two rows (a convolution's output channels against a few images' positions: LeNet's
    // first layer is 6 x 25 x 2352 a task) the copy costs as much as the product. Only a ragged
    // last panel is packed.
    const bool direct_b = B.unit_columns() && M <= direct_b_rows<T>;

    for (std::int64_t jc = 0; jc < N; jc += P::NC) {
        const std::int64_t nc = std::min(P::NC, N - jc);
        for (std::int64_t pc = 0; pc < K; pc += kc_max) {
            const std::int64_t kc = std::min(kc_max, K - pc);
            const bool first = pc == 0, last = pc + kc == K;
            const BOperand bblock = B.shifted(pc, jc);
            if (!direct_b)
                bblock.template pack<NR>(kc, nc, bp);
            for (std::int64_t ic = 0; ic < M; ic += P::MC) {
                const std::int64_t mc = std::min(P::MC, M - ic);
                const T* ablock = A + ic * ars + pc * acs;
                const std::int64_t full = direct_a ? mc / MR * MR : 0;
                pack_a<T, MR>(mc - full, kc, ablock + full * ars, ars, acs, ap);
                for (std::int64_t jr = 0; jr < nc; jr += NR) {
                    const std::int64_t nr = std::min<std::int64_t>(NR, nc - jr);
                    const bool in_place = direct_b && nr == NR;
                    if (direct_b && !in_place)
                        bblock.shifted(0, jr).template pack<NR>(kc, nr, bp);
                    const strided_b<T> packed_panel{direct_b ? bp : bp + jr * kc, NR, 1};
                    for (std::int64_t ir = 0; ir < mc; ir += MR) {
                        const std::int64_t mr = std::min<std::int64_t>(MR, mc - ir);
                        T* ct = C + (ic + ir) * ldc + jc + jr;
                        const bool packed = ir >= full;
                        const T* apanel = packed ? ap + (ir - full) * kc : ablock + ir * ars;
                        const auto with_b = [&](const auto& bpanel, T* dst, std::int64_t ld,
                                                bool acc) {
                            if (packed)
                                micro_kernel<T, true>(kc, apanel, 0, bpanel, dst, ld, acc);
                            else
                                micro_kernel<T, false>(kc, apanel, ars, bpanel, dst, ld, acc);
                        };
                        const auto kernel = [&](T* dst, std::int64_t ld, bool acc) {
                            if (in_place)
                                with_b(bblock.shifted(0, jr), dst, ld, acc);
                            else
                                with_b(packed_panel, dst, ld, acc);
                        };
                        if (mr == MR && nr == NR) {
                            kernel(ct, ldc, !first);
                        } else {
                            // Edge tile: compute the full tile aside, keep the part inside C.
                            kernel(edge, NR, false);
                            for (std::int64_t r = 0; r < mr; ++r)
                                for (std::int64_t j = 0; j < nr; ++j)
                                    ct[r * ldc + j] = first ? edge[r * NR + j]
                                                            : ct[r * ldc + j] + edge[r * NR + j];
                        }
                        if (last)
                            epilogue(i_base + ic + ir, i_base + ic + ir + mr, j_base + jc + jr,
                                     j_base + jc + jr + nr);
                    }
                }
            }
        }
    }
}

/// Products whose smaller side is at most this, with A's rows and B's columns both unit-stride
/// along K (A B^T of two row-major matrices: a convolution's weight gradient, 16 x 150 x 2352;
/// a linear layer with few outputs), go to gemm_dot: packing B would transpose all of it, one
/// scalar at a time, for a product that reads each panel once or twice.
inline constexpr std::int64_t dot_max_side = 32;
/// ... and K at least this, so that the dot products run on whole SIMD batches.
inline constexpr std::int64_t dot_min_k = 64;

/// sum[r][c] = the dot product of a[r] and b[c] over K, DM x DN of them in registers, vectorised
/// along K (the first k_vec values in SIMD batches, one accumulator per product, then the rest).
template <int DM, int DN, class T>
void dot_tile(const T* const* a, const T* const* b, std::int64_t K, std::int64_t k_vec,
              T (&sum)[DM][DN]) {
#if STATICPY_HAS_XSIMD
    if constexpr (xsimd_usable) {
        using V = xsimd::batch<T>;
        constexpr int W = simd_width<T>();
        V acc[DM][DN];
        STATICPY_GEMM_UNROLL
        for (int r = 0; r < DM; ++r)
            STATICPY_GEMM_UNROLL
        for (int c = 0; c < DN; ++c)
            acc[r][c] = V(T(0));
        for (std::int64_t k = 0; k < k_vec; k += W) {
            V bv[DN];
            STATICPY_GEMM_UNROLL
            for (int c = 0; c < DN; ++c)
                bv[c] = V::load_unaligned(b[c] + k);
            STATICPY_GEMM_UNROLL
            for (int r = 0; r < DM; ++r) {
                const V av = V::load_unaligned(a[r] + k);
                STATICPY_GEMM_UNROLL
                for (int c = 0; c < DN; ++c)
                    acc[r][c] = madd(av, bv[c], acc[r][c]);
            }
        }
        for (int r = 0; r < DM; ++r)
            for (int c = 0; c < DN; ++c)
                sum[r][c] = xsimd::hadd(acc[r][c]);
    }
#endif
    for (std::int64_t k = k_vec; k < K; ++k)
        for (int r = 0; r < DM; ++r)
            for (int c = 0; c < DN; ++c)
                sum[r][c] += a[r][k] * b[c][k];
}

/// Calls f(int_c<m>, int_c<n>) with m and n (each 1 to Max) as compile-time values.
template <int Max, class F>
void with_tile_shape(std::int64_t m, std::int64_t n, const F& f) {
    [&]<int... I>(std::integer_sequence<int, I...>) {
        const auto with_n = [&](auto dm) {
            ((n == I + 1 ? f(dm, std::integral_constant<int, I + 1>{}) : void()), ...);
        };
        ((m == I + 1 ? with_n(std::integral_constant<int, I + 1>{}) : void()), ...);
    }
    (std::make_integer_sequence<int, Max>{});
}

/// The rectangle [i_base, i_base + M) x [j_base, j_base + N) of C = A B as dot products of A's
/// rows (lda apart) and B's columns (ldb apart), each unit-stride along K, DM x DN of them at a
/// time in registers (dot_tile), the edge tiles as small as the products they hold: at a
/// convolution's 6 x 25 weight gradient, 4 x 4 tiles throughout computed 1.49 times the products.
/// The epilogue gets each row band of DM rows once final.
template <class T>
void gemm_dot(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t lda,
              const T* B, std::int64_t ldb, T* C, std::int64_t ldc, std::int64_t i_base,
              std::int64_t j_base, epilogue_ref epilogue) {
    constexpr int DM = 4, DN = 4;
#if STATICPY_HAS_XSIMD
    const std::int64_t k_vec = xsimd_usable ? K / simd_width<T>() * simd_width<T>() : 0;
#else
    const std::int64_t k_vec = 0;
#endif
    for (std::int64_t i0 = 0; i0 < M; i0 += DM) {
        const std::int64_t mi = std::min<std::int64_t>(DM, M - i0);
        const T* a[DM];
        for (std::int64_t r = 0; r < mi; ++r)
            a[r] = A + (i0 + r) * lda;
        for (std::int64_t j0 = 0; j0 < N; j0 += DN) {
            const std::int64_t nj = std::min<std::int64_t>(DN, N - j0);
            const T* b[DN];
            for (std::int64_t c = 0; c < nj; ++c)
                b[c] = B + (j0 + c) * ldb;
            const auto tile = [&](auto dm, auto dn) {
                T sum[dm()][dn()] = {};
                dot_tile(a, b, K, k_vec, sum);
                for (int r = 0; r < dm(); ++r)
                    for (int c = 0; c < dn(); ++c)
                        C[(i0 + r) * ldc + j0 + c] = sum[r][c];
            };
            if (mi == DM && nj == DN)
                tile(std::integral_constant<int, DM>{}, std::integral_constant<int, DN>{});
            else
                with_tile_shape<DM>(mi, nj, tile);
        }
        epilogue(i_base + i0, i_base + i0 + mi, j_base, j_base + N);
    }
}

/// Products this small (M*N*K) are faster as a plain loop than packed: packing costs more than
/// it saves, and eager ops on tiny tensors are common.
inline constexpr std::int64_t small_product = 8 * 8 * 8;
/// Below this M*N*K, one thread: starting a parallel region costs about as much as the work.
inline constexpr std::int64_t parallel_product = 96 * 96 * 96;

/// Wrapping (two's complement) arithmetic for integers, so overflow is defined as in the eager
/// ops; plain arithmetic otherwise.
template <class T>
T mul_add(T acc, T a, T b) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        using U = std::make_unsigned_t<decltype(a + b)>;
        return static_cast<T>(static_cast<U>(acc) + static_cast<U>(a) * static_cast<U>(b));
    } else {
        return acc + a * b;
    }
}

/// C = A B by the i-k-j loop: the path for tiny products and for types without a kernel.
template <class T>
void gemm_naive(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t ars,
                std::int64_t acs, const T* B, std::int64_t brs, std::int64_t bcs, T* C,
                std::int64_t ldc) {
    for (std::int64_t i = 0; i < M; ++i) {
        T* crow = C + i * ldc;
        for (std::int64_t j = 0; j < N; ++j)
            crow[j] = T(0);
        for (std::int64_t k = 0; k < K; ++k) {
            const T av = A[i * ars + k * acs];
            const T* brow = B + k * brs;
            for (std::int64_t j = 0; j < N; ++j)
                crow[j] = mul_add(crow[j], av, brow[j * bcs]);
        }
    }
}

#if defined(STATICPY_HAS_CBLAS)
/// Products at least this large (M*N*K) go to the CBLAS when their layout allows.
inline constexpr std::int64_t cblas_product = 128 * 128 * 128;

/// A CBLAS operand: unit stride along one axis and a leading dimension it accepts.
inline bool cblas_layout(std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs,
                         CBLAS_TRANSPOSE& trans, std::int64_t& ld) {
    if (cs == 1 && rs >= std::max<std::int64_t>(1, cols)) {
        trans = CblasNoTrans;
        ld = rs;
        return true;
    }
    if (rs == 1 && cs >= std::max<std::int64_t>(1, rows)) {
        trans = CblasTrans;
        ld = cs;
        return true;
    }
    return false;
}

template <class T>
bool try_cblas(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t ars,
               std::int64_t acs, const T* B, std::int64_t brs, std::int64_t bcs, T* C,
               std::int64_t ldc, epilogue_ref epilogue) {
    if constexpr (!is_simd_real<T>) {
        return false;
    } else {
        CBLAS_TRANSPOSE ta{}, tb{};
        std::int64_t lda = 0, ldb = 0;
        constexpr std::int64_t int_max = std::numeric_limits<int>::max();
        if (M * N * K < cblas_product || !cblas_layout(M, K, ars, acs, ta, lda) ||
            !cblas_layout(K, N, brs, bcs, tb, ldb) || ldc < N ||
            std::max({M, N, K, lda, ldb, ldc}) > int_max)
            return false;
        // Netlib's CBLAS takes int, OpenBLAS's blasint (int, or a wider type that int converts to).
        const auto i = [](std::int64_t v) { return static_cast<int>(v); };
        if constexpr (std::is_same_v<T, float>)
            cblas_sgemm(CblasRowMajor, ta, tb, i(M), i(N), i(K), 1.0f, A, i(lda), B, i(ldb), 0.0f,
                        C, i(ldc));
        else
            cblas_dgemm(CblasRowMajor, ta, tb, i(M), i(N), i(K), 1.0, A, i(lda), B, i(ldb), 0.0, C,
                        i(ldc));
        // The product is already final everywhere; blocks of 64 x 256 keep the epilogue's
        // working set in L1/L2.
        constexpr std::int64_t bm = 64, bn = 256;
        for (std::int64_t i0 = 0; i0 < M; i0 += bm)
            for (std::int64_t j0 = 0; j0 < N; j0 += bn)
                epilogue(i0, std::min(M, i0 + bm), j0, std::min(N, j0 + bn));
        return true;
    }
}
#endif

/// How a product is shared between threads: C cut into tm row bands x tn column bands (tasks),
/// run by `threads` threads.
struct split {
    int threads = 1, tm = 1, tn = 1;
};

template <class T>
split choose_split(std::int64_t M, std::int64_t N, std::int64_t K) {
    split s;
#if STATICPY_HAS_OPENMP
    if (M * N * K < parallel_product || omp_in_parallel())
        return s;
    using P = blocking<T>;
    const std::int64_t tiles_m = (M + P::MR - 1) / P::MR, panels_n = (N + P::NR - 1) / P::NR;
    const std::int64_t nt = std::min<std::int64_t>(available_threads(), tiles_m * panels_n);
    if (nt <= 1)
        return s;
    // Several tasks per thread, taken first come first served: a thread that the OS deschedules
    // (a DataLoader worker or another process on its core) leaves its share to the others instead
    // of holding up the whole product. Tasks stay big enough to amortise their packing.
    const std::int64_t target = std::max(nt, std::min(4 * nt, M * N * K / (parallel_product / 2)));
    // Column bands first: each task then packs only its own columns of B and reads A in place.
    const std::int64_t tn = std::min(panels_n, target);
    const std::int64_t tm = tn >= 2 * nt ? 1 : std::min(tiles_m, (target + tn - 1) / tn);
    s.tm = static_cast<int>(tm);
    s.tn = static_cast<int>(tn);
    s.threads = static_cast<int>(std::min(nt, tm * tn));
#else
    (void)M;
    (void)N;
    (void)K;
#endif
    return s;
}

/// Bounds of band t of n items split into parts bands, in whole units of `unit`.
inline std::pair<std::int64_t, std::int64_t> band(std::int64_t n, int parts, int t,
                                                  std::int64_t unit) {
    const std::int64_t units = (n + unit - 1) / unit;
    const std::int64_t lo = units * t / parts * unit, hi = units * (t + 1) / parts * unit;
    return {std::min(lo, n), std::min(hi, n)};
}

} // namespace gemm_detail

namespace gemm_detail {
/// gemm() with its epilogue behind a reference: compiled once per element type (and, in compiled
/// mode, once for every program: kernels/config.hpp).
template <class T, unsigned Build = kernel_build>
void gemm_any(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t a_row_stride,
              std::int64_t a_col_stride, const T* B, std::int64_t b_row_stride,
              std::int64_t b_col_stride, T* C, std::int64_t ldc, epilogue_ref epilogue) {
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0) {
        for (std::int64_t i = 0; i < M; ++i)
            std::fill(C + i * ldc, C + i * ldc + N, T(0));
        epilogue(std::int64_t{0}, M, std::int64_t{0}, N);
        return;
    }
    if constexpr (!is_simd_real<T>) {
        gemm_naive(M, N, K, A, a_row_stride, a_col_stride, B, b_row_stride, b_col_stride, C, ldc);
        epilogue(std::int64_t{0}, M, std::int64_t{0}, N);
    } else {
        if (M * N * K <= small_product) {
            gemm_naive(M, N, K, A, a_row_stride, a_col_stride, B, b_row_stride, b_col_stride, C,
                       ldc);
            epilogue(std::int64_t{0}, M, std::int64_t{0}, N);
            return;
        }
#if defined(STATICPY_HAS_CBLAS)
        if (try_cblas(M, N, K, A, a_row_stride, a_col_stride, B, b_row_stride, b_col_stride, C, ldc,
                      epilogue))
            return;
#endif
        const split s = choose_split<T>(M, N, K);
        const bool dot = a_col_stride == 1 && b_row_stride == 1 && std::min(M, N) <= dot_max_side &&
                         K >= dot_min_k;
        const auto run_part = [&](int t) {
            using P = blocking<T>;
            const auto [i0, i1] = band(M, s.tm, t / s.tn, P::MR);
            const auto [j0, j1] = band(N, s.tn, t % s.tn, P::NR);
            if (i0 >= i1 || j0 >= j1)
                return;
            if (dot)
                gemm_dot<T>(i1 - i0, j1 - j0, K, A + i0 * a_row_stride, a_row_stride,
                            B + j0 * b_col_stride, b_col_stride, C + i0 * ldc + j0, ldc, i0, j0,
                            epilogue);
            else
                gemm_serial<T>(i1 - i0, j1 - j0, K, A + i0 * a_row_stride, a_row_stride,
                               a_col_stride,
                               strided_b<T>{B + j0 * b_col_stride, b_row_stride, b_col_stride},
                               C + i0 * ldc + j0, ldc, i0, j0, epilogue);
        };
        parallel_tasks(s.tm * s.tn, s.threads, run_part);
    }
}

#define STATICPY_GEMM_INSTANCE(T)                                                                  \
    STATICPY_KERNEL_INSTANCE(template void gemm_any<T, kernel_build>(                              \
        std::int64_t, std::int64_t, std::int64_t, const T*, std::int64_t, std::int64_t, const T*,  \
        std::int64_t, std::int64_t, T*, std::int64_t, epilogue_ref))
STATICPY_GEMM_INSTANCE(float)
STATICPY_GEMM_INSTANCE(double)
#undef STATICPY_GEMM_INSTANCE
} // namespace gemm_detail

/// C[M x N] = A[M x K] * B[K x N]. A and B are strided (row stride, column stride: any, transposed
/// views included); C is row-major with row stride ldc and unit column stride, and is overwritten.
/// epilogue(i0, i1, j0, j1) is called exactly once for each block of a partition of C, right after
/// that block's values are final, possibly concurrently from several threads for disjoint blocks;
/// it may read and rewrite C inside its block (bias + activation fused while the block is hot).
/// An exception thrown by the epilogue is rethrown to the caller (C is then unspecified).
///   gemm(2, 4, 3, a, 3, 1, b, 4, 1, c, 4);                  // row-major a [2x3], b [3x4]
///   gemm(m, n, k, x, k, 1, w, 1, k, y, n, [&](auto i0, auto i1, auto j0, auto j1) { ... });
template <class T, class Epilogue = no_epilogue>
void gemm(std::int64_t M, std::int64_t N, std::int64_t K, const T* A, std::int64_t a_row_stride,
          std::int64_t a_col_stride, const T* B, std::int64_t b_row_stride,
          std::int64_t b_col_stride, T* C, std::int64_t ldc, Epilogue&& epilogue = {}) {
    gemm_detail::gemm_any<T>(M, N, K, A, a_row_stride, a_col_stride, B, b_row_stride, b_col_stride,
                             C, ldc, epilogue);
}

} // namespace staticpy::kernels

#undef STATICPY_GEMM_UNROLL
