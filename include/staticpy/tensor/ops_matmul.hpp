#pragma once
// Eager matmul and linear, as torch.matmul and torch.nn.functional.linear.
//
//   auto c = matmul(a, b);           // [n, k] x [k, m] -> [n, m]; 1-D x 1-D is a dot product
//   auto y = linear(x, w, bias);     // x [..., in], w [out, in], bias [out] -> [..., out]
//
// torch.matmul's rules: 1-D x 1-D gives a zero-dim tensor; a 1-D first operand is a row
// ([1, k], the 1 dropped from the result), a 1-D second operand a column ([k, 1], dropped);
// dims before the last two are batch dims and broadcast. Both operands must have one element type
// (a compile error otherwise, as PyTorch's "expected m1 and m2 to have the same dtype").
// Inner dimensions that differ: with static extents a compile error ("staticpy: RuntimeError:
// mat1 and mat2 shapes cannot be multiplied"); otherwise RuntimeError with PyTorch's text,
// "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)".
// The products run on the GEMM of the kernels layer below tensor/ (kernels/gemm.hpp: blocked,
// SIMD, threaded; integers by a wrapping loop), which the CPU backend's matmul epilogues share.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/gemm.hpp"
#include "staticpy/tensor/broadcast.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/op_objects.hpp"
#include "staticpy/tensor/ops_elementwise.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {

namespace detail {

template <class T, class U>
constexpr void check_matmul_types() {
    static_assert(std::is_same_v<T, U>,
                  "staticpy: RuntimeError: expected m1 and m2 to have the same dtype");
    static_assert(!std::is_same_v<T, bool>,
                  "staticpy: RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Bool'");
}

/// Static extents of the inner dimension that differ: a compile error.
template <class EA, class EB>
constexpr void check_inner_static() {
    if constexpr (is_int_constant_v<EA> && is_int_constant_v<EB>)
        static_assert(EA::value == EB::value,
                      "staticpy: RuntimeError: mat1 and mat2 shapes cannot be multiplied");
}

/// The shape bookkeeping of torch.matmul for operand shapes SA, SB (ranks >= 1).
template <class SA, class SB>
struct matmul_shapes {
    static constexpr std::size_t ra = SA::rank;
    static constexpr std::size_t rb = SB::rank;
    static_assert(ra >= 1 && rb >= 1,
                  "staticpy: RuntimeError: both arguments to matmul need to be at least 1D");
    static constexpr std::size_t batch_a = ra >= 2 ? ra - 2 : 0;
    static constexpr std::size_t batch_b = rb >= 2 ? rb - 2 : 0;
    using a_batch = shape_range_t<SA, 0, batch_a>;
    using b_batch = shape_range_t<SB, 0, batch_b>;
    using batch = broadcast_shape_t<a_batch, b_batch>;
    using k_a = shape_extent_t<SA, ra - 1>;
    using k_b = shape_extent_t<SB, (rb >= 2 ? rb - 2 : 0)>;
    // The n and m dims of the result (absent for a 1-D operand); chosen lazily, as the other
    // branch would name a dim that does not exist.
    static auto n_part_of() {
        if constexpr (ra >= 2)
            return shape<shape_extent_t<SA, ra - 2>>{};
        else
            return shape<>{};
    }
    static auto m_part_of() {
        if constexpr (rb >= 2)
            return shape<shape_extent_t<SB, rb - 1>>{};
        else
            return shape<>{};
    }
    using n_part = decltype(n_part_of());
    using m_part = decltype(m_part_of());
    using result = typename shape_cat<typename shape_cat<batch, n_part>::type, m_part>::type;
};

} // namespace detail

namespace detail {

/// One matmul's GEMMs in row-major terms, for a device's BLAS: for each batch i, the n x m
/// matrix at c + i*n*m (contiguous) is the product of the n x k matrix at a + a_offsets[i]
/// (strides as0, as1) and the k x m matrix at b + b_offsets[i] (strides bs0, bs1). Each matrix
/// has a unit stride in one dim and at least its extent in the other (blas_readable), as a BLAS
/// reads it; offsets and strides count elements. With `accumulate`, the products are added to
/// c's elements (a BLAS's beta 1) rather than written over them.
struct batched_gemm {
    int device = 0;
    dtype type = dtype::float32; // float32 or float64
    std::int64_t n = 0, m = 0, k = 0;
    const void* a = nullptr;
    std::int64_t as0 = 0, as1 = 0;
    const void* b = nullptr;
    std::int64_t bs0 = 0, bs1 = 0;
    void* c = nullptr;
    std::vector<std::int64_t> a_offsets, b_offsets;
    bool accumulate = false;
};

/// The CUDA backend's GEMM (backend/cuda/cublas.hpp, through cuBLAS), null until a translation
/// unit of the program includes <staticpy/cuda.hpp>.
using device_gemm_function = void (*)(const batched_gemm&);
inline device_gemm_function& cuda_gemm_hook() noexcept {
    static device_gemm_function hook = nullptr;
    return hook;
}

/// Whether a BLAS reads the rows x cols matrix with strides (s_row, s_col) as it is: one unit
/// stride (a dim of extent 1 has any stride), the other at least the extent it steps over.
constexpr bool blas_readable(std::int64_t rows, std::int64_t cols, std::int64_t s_row,
                             std::int64_t s_col) {
    const bool by_rows = (cols == 1 || s_col == 1) && (rows == 1 || s_row >= cols);
    const bool by_cols = (rows == 1 || s_row == 1) && (cols == 1 || s_col >= rows);
    return by_rows || by_cols;
}

/// Operand x of a matmul on a GPU, as the device's BLAS can read its matrices: x itself, or a
/// contiguous copy where a matrix of it is strided both ways (or broadcast within itself). A 1-D
/// operand is a row (First) or a column.
template <bool First, class T, class S>
Tensor<T, S> blas_operand(const Tensor<T, S>& x) {
    constexpr std::size_t r = S::rank;
    const std::int64_t rows = r >= 2 ? x.sizes()[r - 2] : (First ? 1 : x.sizes()[0]);
    const std::int64_t cols = r >= 2 ? x.sizes()[r - 1] : (First ? x.sizes()[0] : 1);
    const std::int64_t s_row = r >= 2 ? x.strides()[r - 2] : (First ? 0 : x.strides()[0]);
    const std::int64_t s_col = r >= 2 ? x.strides()[r - 1] : (First ? x.strides()[0] : 0);
    return blas_readable(rows, cols, s_row, s_col) ? x : x.contiguous();
}

/// matmul_impl's work, on operands of dynamic shapes.
template <class T, class SA, class SB>
auto matmul_rank_erased(const Tensor<T, SA>& a_in, const Tensor<T, SB>& b_in) {
    const Device device = check_same_device(a_in, b_in);
    if constexpr (!std::is_floating_point_v<T>)
        if (device.is_cuda()) // cuBLAS multiplies floating-point matrices only
            throw RuntimeError("\"addmm_cuda\" not implemented for '" +
                               std::string(scalar_type_name(dtype_of_v<T>)) + "'");
    const Tensor<T, SA> a = device.is_cuda() ? blas_operand<true>(a_in) : a_in;
    const Tensor<T, SB> b = device.is_cuda() ? blas_operand<false>(b_in) : b_in;
    using info = detail::matmul_shapes<SA, SB>;
    constexpr std::size_t ra = info::ra, rb = info::rb;
    constexpr std::size_t nb = info::batch::rank;

    const std::int64_t n = ra >= 2 ? a.sizes()[ra - 2] : 1;
    const std::int64_t k = a.sizes()[ra - 1];
    const std::int64_t kb = rb >= 2 ? b.sizes()[rb - 2] : b.sizes()[0];
    const std::int64_t m = rb >= 2 ? b.sizes()[rb - 1] : 1;
    if (k != kb) {
        if constexpr (ra == 1 && rb == 1)
            throw RuntimeError(
                "inconsistent tensor size, expected tensor [" + std::to_string(k) + "] and src [" +
                std::to_string(kb) + "] to have the same number of elements, but got " +
                std::to_string(k) + " and " + std::to_string(kb) + " elements respectively");
        else if constexpr (ra == 2 && rb == 1)
            throw RuntimeError("size mismatch, got input (" + std::to_string(n) + "), mat (" +
                               std::to_string(n) + "x" + std::to_string(k) + "), vec (" +
                               std::to_string(kb) + ")");
        else
            throw RuntimeError("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(n) +
                               "x" + std::to_string(k) + " and " + std::to_string(kb) + "x" +
                               std::to_string(m) + ")");
    }

    // Batch dims: broadcast, then the offsets of each batch in a and b.
    std::array<std::int64_t, nb> batch_sizes{};
    {
        std::array<std::int64_t, info::batch_a> ba{};
        std::array<std::int64_t, info::batch_b> bb{};
        for (std::size_t d = 0; d < info::batch_a; ++d)
            ba[d] = a.sizes()[d];
        for (std::size_t d = 0; d < info::batch_b; ++d)
            bb[d] = b.sizes()[d];
        broadcast_sizes_into(ba, bb, batch_sizes);
    }
    typename info::result::sizes_type out_sizes{};
    for (std::size_t d = 0; d < nb; ++d)
        out_sizes[d] = batch_sizes[d];
    {
        std::size_t d = nb;
        if constexpr (ra >= 2)
            out_sizes[d++] = n;
        if constexpr (rb >= 2)
            out_sizes[d++] = m;
    }
    Tensor<T, typename info::result> out{typename info::result(out_sizes), device};
    const std::int64_t total = out.numel();
    if (total == 0)
        return out;

    const std::int64_t as0 = ra >= 2 ? a.strides()[ra - 2] : 0;
    const std::int64_t as1 = a.strides()[ra - 1];
    const std::int64_t bs0 = rb >= 2 ? b.strides()[rb - 2] : b.strides()[0];
    const std::int64_t bs1 = rb >= 2 ? b.strides()[rb - 1] : 0;

    std::array<std::int64_t, nb> sa{}, sb{};
    for (std::size_t d = 0; d < nb; ++d) {
        const std::size_t oa = nb - info::batch_a, ob = nb - info::batch_b;
        sa[d] = (d < oa || a.sizes()[d - oa] == 1) ? 0 : a.strides()[d - oa];
        sb[d] = (d < ob || b.sizes()[d - ob] == 1) ? 0 : b.strides()[d - ob];
    }
    // f(offset in a, offset in b) for each batch, in the order of the result's matrices.
    const std::int64_t batches = total / (n * m);
    const auto each_batch = [&](auto&& f) {
        std::array<std::int64_t, nb> idx{};
        std::int64_t oa = 0, ob = 0;
        for (std::int64_t i = 0; i < batches; ++i) {
            f(oa, ob);
            for (std::size_t d = nb; d-- > 0;) { // next batch index (odometer)
                ++idx[d];
                oa += sa[d];
                ob += sb[d];
                if (idx[d] < batch_sizes[d])
                    break;
                oa -= sa[d] * batch_sizes[d];
                ob -= sb[d] * batch_sizes[d];
                idx[d] = 0;
            }
        }
    };
    if (device.is_cuda()) {
        if constexpr (std::is_floating_point_v<T>) {
            if (k == 0) { // the sum of no products; cuBLAS is not asked
                const std::vector<T> zeros(static_cast<std::size_t>(total));
                cuda_memory().copy(out.data_ptr(), device, zeros.data(), Device{},
                                   zeros.size() * sizeof(T));
                return out;
            }
            const device_gemm_function gemm = cuda_gemm_hook();
            if (gemm == nullptr)
                throw RuntimeError("staticpy: CUDA is not available here: a matmul's tensors are "
                                   "on the GPU, and its translation unit does not include "
                                   "<staticpy/cuda.hpp>");
            batched_gemm g{device.index(),
                           dtype_of_v<T>,
                           n,
                           m,
                           k,
                           a.data_ptr(),
                           as0,
                           as1,
                           b.data_ptr(),
                           bs0,
                           bs1,
                           out.data_ptr(),
                           {},
                           {}};
            g.a_offsets.reserve(static_cast<std::size_t>(batches));
            g.b_offsets.reserve(static_cast<std::size_t>(batches));
            each_batch([&](std::int64_t oa, std::int64_t ob) {
                g.a_offsets.push_back(oa);
                g.b_offsets.push_back(ob);
            });
            gemm(g);
        }
        return out;
    }
    T* cblock = out.data();
    each_batch([&](std::int64_t oa, std::int64_t ob) {
        kernels::gemm<T>(n, m, k, a.data() + oa, as0, as1, b.data() + ob, bs0, bs1, cblock, m);
        cblock += n * m;
    });
    return out;
}

template <class T, class SA, class SB>
auto matmul_impl(const Tensor<T, SA>& a_in, const Tensor<T, SB>& b_in) {
    check_matmul_types<T, T>();
    using info = detail::matmul_shapes<SA, SB>;
    check_inner_static<typename info::k_a, typename info::k_b>();
    using erased_a = dynamic_shape<SA::rank>;
    using erased_b = dynamic_shape<SB::rank>;
    if constexpr (!is_dynamic_shape_v<SA> || !is_dynamic_shape_v<SB>) {
        // The product's work depends on the ranks, not on the static extents: it runs on the
        // operands seen with dynamic shapes, compiled once per (dtype, ranks) rather than once
        // per pair of shapes; the result takes its static shape back (checked, as a view).
        return Tensor<T, typename info::result>(
            matmul_impl(Tensor<T, erased_a>(a_in), Tensor<T, erased_b>(b_in)));
    } else {
        return matmul_rank_erased(a_in, b_in);
    }
}
} // namespace detail

/// torch.matmul(a, b) (also a.matmul(b)).
///   auto c = matmul(a, b);   // [2, 3] x [3, 4] -> [2, 4];   [B, n, k] x [k, m] -> [B, n, m]
template <class T, class SA, class U, class SB>
auto matmul(const Tensor<T, SA>& a, const Tensor<U, SB>& b) {
    static_assert(std::is_same_v<T, U>,
                  "staticpy: RuntimeError: expected m1 and m2 to have the same dtype");
    if constexpr (std::is_same_v<T, U>)
        return detail::matmul_impl(a, b);
}

namespace detail {
template <class T, class SX, class SW, class Bias>
auto linear_impl(const Tensor<T, SX>& x, const Tensor<T, SW>& w, const Bias* bias) {
    constexpr std::size_t rx = SX::rank;
    static_assert(rx >= 1, "staticpy: RuntimeError: linear: the input must be at least 1D");
    static_assert(
        SW::rank == 2,
        "staticpy: RuntimeError: linear: the weight must be 2D [out_features, in_features]");
    check_matmul_types<T, T>();
    check_inner_static<shape_extent_t<SX, rx - 1>, shape_extent_t<SW, 1>>();
    if constexpr (std::is_same_v<Bias, void>)
        check_same_device(x, w);
    else if (bias != nullptr)
        check_same_device(x, w, *bias);
    else
        check_same_device(x, w);
    using out_extent = shape_extent_t<SW, 0>;
    using result = shape_replace_t<SX, rx - 1, out_extent>;

    const std::int64_t in = x.sizes()[rx - 1];
    const std::int64_t out_features = w.sizes()[0];
    const std::int64_t rows = in == 0 ? [&] {
        std::int64_t r = 1;
        for (std::size_t d = 0; d + 1 < rx; ++d) r *= x.sizes()[d];
        return r;
    }() : x.numel() / in;
    if (w.sizes()[1] != in)
        throw RuntimeError("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(rows) +
                           "x" + std::to_string(in) + " and " + std::to_string(w.sizes()[1]) + "x" +
                           std::to_string(out_features) + ")");
    std::int64_t bias_n = 0, bias_stride = 0;
    if constexpr (!std::is_same_v<Bias, void>) {
        using SB = typename Bias::shape_type;
        static_assert(SB::rank <= 1,
                      "staticpy: RuntimeError: linear: the bias must be 1D [out_features]");
        if constexpr (SB::rank == 1) {
            using eb = shape_extent_t<SB, 0>;
            if constexpr (is_int_constant_v<eb> && is_int_constant_v<out_extent>)
                static_assert(eb::value == out_extent::value || eb::value == 1,
                              "staticpy: RuntimeError: The size of tensor a must match the size of "
                              "tensor b at a non-singleton dimension");
            bias_n = bias->sizes()[0];
            bias_stride = bias_n == 1 ? 0 : bias->strides()[0];
        } else {
            bias_n = 1;
        }
        if (bias_n != out_features && bias_n != 1)
            throw_broadcast_error(out_features, bias_n, rx - 1);
    }

    if (x.is_cuda()) { // cuBLAS's product, then the bias added by an elementwise kernel
        Tensor<T, result> y(matmul_impl(x, w.t()));
        if constexpr (!std::is_same_v<Bias, void>)
            if (bias != nullptr)
                return Tensor<T, result>(elementwise<fn::add>(std::move(y), *bias));
        return y;
    }
    typename result::sizes_type out_sizes = x.sizes();
    out_sizes[rx - 1] = out_features;
    Tensor<T, result> out{result(out_sizes)};
    T* c = out.data();
    if (out.numel() == 0)
        return out;
    // y = x . w^T: w read with its strides swapped, the bias added by the GEMM's epilogue while
    // each block of y is still in cache, as the eager add's kernel over that block (y + b).
    const auto add_bias = [&](std::int64_t i0, std::int64_t i1, std::int64_t j0, std::int64_t j1) {
        if constexpr (!std::is_same_v<Bias, void>) {
            using kernel = elementwise_kernel<fn::add, T, T, Tensor<T, result>, Bias>;
            const std::array<std::int64_t, 2> y_strides{out_features, 1};
            const std::array<std::array<std::int64_t, 2>, 3> strides{
                y_strides, std::array<std::int64_t, 2>{0, bias_stride}, y_strides};
            kernels::store_block(kernel(out, *bias), strides, c, i0, i1, j0, j1);
        } else {
            (void)i0, (void)i1, (void)j0, (void)j1;
        }
    };
    const std::int64_t ws0 = w.strides()[0], ws1 = w.strides()[1];
    const std::int64_t xs1 = x.strides()[rx - 1];
    if constexpr (rx == 1) {
        kernels::gemm<T>(1, out_features, in, x.data(), 0, xs1, w.data(), ws1, ws0, c, out_features,
                         add_bias);
    } else {
        // The leading dims of x as one run of rows when their strides allow (always for a
        // contiguous x); otherwise one GEMM per matrix over the last leading dim.
        std::int64_t row_stride = x.strides()[rx - 2];
        bool collapses = true;
        for (std::size_t d = 0; d + 2 < rx; ++d)
            if (x.sizes()[d] != 1 && x.strides()[d] != x.strides()[d + 1] * x.sizes()[d + 1])
                collapses = false;
        if (collapses) {
            for (std::size_t d = rx - 1; d-- > 0;)
                if (x.sizes()[d] != 1) {
                    row_stride = x.strides()[d];
                    break;
                }
            kernels::gemm<T>(rows, out_features, in, x.data(), row_stride, xs1, w.data(), ws1, ws0,
                             c, out_features, add_bias);
        } else {
            const std::int64_t n = x.sizes()[rx - 2];
            std::array<std::int64_t, rx - 2> idx{};
            std::int64_t off = 0;
            for (std::int64_t r0 = 0; r0 < rows; r0 += n) {
                T* cblock = c + r0 * out_features;
                kernels::gemm<T>(n, out_features, in, x.data() + off, row_stride, xs1, w.data(),
                                 ws1, ws0, cblock, out_features,
                                 [&](std::int64_t i0, std::int64_t i1, std::int64_t j0,
                                     std::int64_t j1) { add_bias(r0 + i0, r0 + i1, j0, j1); });
                for (std::size_t d = rx - 2; d-- > 0;) { // next matrix (odometer)
                    ++idx[d];
                    off += x.strides()[d];
                    if (idx[d] < x.sizes()[d])
                        break;
                    off -= x.strides()[d] * x.sizes()[d];
                    idx[d] = 0;
                }
            }
        }
    }
    return out;
}
} // namespace detail

/// torch.nn.functional.linear(x, w, b): x . w^T + b, x [..., in_features], w [out_features,
/// in_features], b [out_features]; the result is [..., out_features].
///   auto y = linear(x, w, b);
template <class T, class SX, class U, class SW, class V, class SB>
auto linear(const Tensor<T, SX>& x, const Tensor<U, SW>& w, const Tensor<V, SB>& b) {
    static_assert(std::is_same_v<T, U> && std::is_same_v<T, V>,
                  "staticpy: RuntimeError: expected m1 and m2 to have the same dtype");
    if constexpr (std::is_same_v<T, U> && std::is_same_v<T, V>)
        return detail::linear_impl(x, w, &b);
}
/// linear(x, w): no bias.
template <class T, class SX, class U, class SW>
auto linear(const Tensor<T, SX>& x, const Tensor<U, SW>& w) {
    static_assert(std::is_same_v<T, U>,
                  "staticpy: RuntimeError: expected m1 and m2 to have the same dtype");
    if constexpr (std::is_same_v<T, U>)
        return detail::linear_impl<T, SX, SW, void>(x, w, nullptr);
}

namespace detail {

/// Whether the 2-D matrix m is stored column by column, as the transposed view w.t() of a
/// contiguous w (linear's weight): strides {1, rows}, PyTorch's test in its mm backward. A bool
/// read from the strides of a tensor (a Var's value); graph/tracer.hpp specializes it for traced
/// values, where the node's type tells at compile time (std::true_type / std::false_type).
template <class M>
struct stored_by_columns {
    static bool of(const M& m) {
        if constexpr (requires { m.strides(); })
            return m.sizes()[1] > 1 && m.strides()[0] == 1 && m.strides()[1] == m.sizes()[0];
        else
            return stored_by_columns<std::remove_cvref_t<decltype(m.value)>>::of(m.value);
    }
};

/// matmul_vjp of two matrices: g @ bᵀ (I = 0) and aᵀ @ g (I = 1), computed in the layout of the
/// operand they are the gradient of. For an operand stored by columns (w.t() in linear) it is the
/// transposed product, (b @ gᵀ)ᵀ or (gᵀ @ a)ᵀ, so that the view's derivative, a transpose again,
/// gives w's gradient contiguous like w (as PyTorch's mm_mat2_backward): an optimiser then reads it
/// in one flat pass instead of a strided one.
template <std::size_t I, class G, class A, class B>
auto matmul_vjp_2d(const G& g, const A& a, const B& b) {
    const auto plain = [&] {
        if constexpr (I == 0)
            return matmul(g, b.t());
        else
            return matmul(a.t(), g);
    };
    const auto by_columns = [&] {
        if constexpr (I == 0)
            return matmul(b, g.t()).t();
        else
            return matmul(g.t(), a).t();
    };
    using operand = std::remove_cvref_t<std::tuple_element_t<I, std::tuple<A, B>>>;
    const auto layout = stored_by_columns<operand>::of(std::get<I>(std::tie(a, b)));
    if constexpr (std::is_same_v<std::remove_const_t<decltype(layout)>, bool>) {
        if (layout)
            return by_columns();
        return plain();
    } else if constexpr (decltype(layout)::value) {
        return by_columns();
    } else {
        return plain();
    }
}

/// torch.matmul's derivative for operand I (0: a, 1: b), given the cotangent g of a @ b: g @ bᵀ
/// and aᵀ @ g, with a 1-D operand read as a row (a) or a column (b) and summed back over the batch
/// dims it was broadcast along. Written in the ops, so it runs on tensors and traced values alike.
///   auto ga = matmul_vjp<0>(g, a, b);
template <std::size_t I, class G, class A, class B>
auto matmul_vjp(const G& g, const A& a, const B& b) {
    using namespace staticpy::literals;
    constexpr std::size_t ra = A::rank;
    constexpr std::size_t rb = B::rank;
    if constexpr (ra == 1 && rb == 1) { // a dot product: g is zero-dim
        if constexpr (I == 0)
            return g * b;
        else
            return g * a;
    } else if constexpr (ra == 2 && rb == 2) {
        return matmul_vjp_2d<I>(g, a, b);
    } else if constexpr (ra == 1) { // [k] @ [..., k, n] -> [..., n]
        if constexpr (I == 0)
            return fn::sum_to(matmul(g.unsqueeze(-2_c), b.transpose(-2_c, -1_c)), a);
        else
            return fn::sum_to(matmul(a.unsqueeze(-1_c), g.unsqueeze(-2_c)), b);
    } else if constexpr (rb == 1) { // [..., m, k] @ [k] -> [..., m]
        if constexpr (I == 0)
            return fn::sum_to(matmul(g.unsqueeze(-1_c), b.unsqueeze(0_c)), a);
        else
            return fn::sum_to(matmul(a.transpose(-2_c, -1_c), g.unsqueeze(-1_c)).squeeze(-1_c), b);
    } else {
        if constexpr (I == 0)
            return fn::sum_to(matmul(g, b.transpose(-2_c, -1_c)), a);
        else
            return fn::sum_to(matmul(a.transpose(-2_c, -1_c), g), b);
    }
}

} // namespace detail

} // namespace staticpy
