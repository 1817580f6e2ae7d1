#pragma once
// The index-driven ops on GPU tensors (tensor/ops_index.hpp's index_select, gather, scatter_add,
// index_add, and through them embedding and the derivatives; handed over as
// tensor/index_device.hpp describes):
//   index_first_out_of_range  one block: the first position (row-major) of an index whose value
//                             lies outside [0, bound); its value is read back for the error, as
//                             the CPU reports it, before any element is read through the index;
//   indexed_walk              a thread per position of the walk: reading, out[p] = in[target];
//                             accumulating, out[target] += alpha * in[p], by atomicAdd where the
//                             element type has one (float, double, int32, int64: so repeated
//                             indices add in an order of the threads' making, and a float sum may
//                             differ from the CPU's in its last bits, as PyTorch's CUDA index_add
//                             does), else by one thread in the CPU's order (uint8, bool, ...).
// Dims past an op's rank are size 1, stride 0: one kernel per element and index type serves every
// rank up to max_device_index_rank.

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "staticpy/backend/cuda/codegen.hpp"
#include "staticpy/backend/cuda/evaluate.hpp"
#include "staticpy/backend/cuda/launch.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/tensor/functors.hpp"
#include "staticpy/tensor/index_device.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy::cuda::detail {

/// The index kernels, after the typedefs of staticpy_x_t and staticpy_i_t (the element and index
/// types) and the definitions of staticpy_scaled and staticpy_accumulate (index_element_ops).
inline constexpr const char* index_source = R"(
#define STATICPY_INDEX_RANK 8
// The offset of row-major position p of `sizes` over `strides`.
__device__ inline long long staticpy_offset_of(long long p, const staticpy_dims<STATICPY_INDEX_RANK>& sizes,
                                               const staticpy_dims<STATICPY_INDEX_RANK>& strides) {
    long long offset = 0;
    for (int d = STATICPY_INDEX_RANK - 1; d >= 0; --d) {
        const long long c = p % sizes.v[d];
        p /= sizes.v[d];
        offset += c * strides.v[d];
    }
    return offset;
}

extern "C" __global__ void index_first_out_of_range(long long n,
                                                    staticpy_dims<STATICPY_INDEX_RANK> sizes,
                                                    staticpy_dims<STATICPY_INDEX_RANK> strides,
                                                    const staticpy_i_t* index, long long bound,
                                                    long long* first) {
    __shared__ long long first32[32];
    long long bad = n;
    for (long long p = threadIdx.x; p < n; p += blockDim.x) {
        const long long v = (long long)index[staticpy_offset_of(p, sizes, strides)];
        if ((unsigned long long)v >= (unsigned long long)bound) {
            bad = p;
            break;
        }
    }
    bad = staticpy_block_reduce(bad, [](long long a, long long b) { return b < a ? b : a; },
                                first32);
    if (threadIdx.x == 0)
        *first = bad;
}

extern "C" __global__ void indexed_walk(long long n, int dim, int accumulate,
                                        staticpy_dims<STATICPY_INDEX_RANK> sizes,
                                        staticpy_dims<STATICPY_INDEX_RANK> direct_strides,
                                        staticpy_dims<STATICPY_INDEX_RANK> index_strides,
                                        staticpy_dims<STATICPY_INDEX_RANK> target_strides,
                                        const staticpy_i_t* index, const staticpy_x_t* in,
                                        staticpy_x_t* out, staticpy_x_t alpha) {
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < n;
         p += (long long)gridDim.x * blockDim.x) {
        long long rest = p, direct = 0, at = 0, target = 0;
        for (int d = STATICPY_INDEX_RANK - 1; d >= 0; --d) {
            const long long c = rest % sizes.v[d];
            rest /= sizes.v[d];
            direct += c * direct_strides.v[d];
            at += c * index_strides.v[d];
            if (d != dim)
                target += c * target_strides.v[d];
        }
        target += (long long)index[at] * target_strides.v[dim];
        if (accumulate)
            staticpy_accumulate(out + target, staticpy_scaled(in[direct], alpha));
        else
            out[direct] = in[target];
    }
}
)";

/// Whether element type T adds by atomicAdd (else one thread walks in order).
template <class T>
inline constexpr bool atomic_accumulation =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::int32_t>;

/// staticpy_scaled(v, alpha) and staticpy_accumulate(p, v) for T, as the CPU's add_scaled
/// computes a + v * alpha (ops_index.hpp: integers wrap, bools or).
template <class T>
std::string index_element_ops() {
    std::string s = "__device__ inline staticpy_x_t staticpy_scaled(staticpy_x_t v, staticpy_x_t "
                    "alpha) {\n";
    if constexpr (std::is_same_v<T, bool>)
        s += "    return v && alpha;\n}\n";
    else if constexpr (std::is_integral_v<T>)
        s += "    return (staticpy_x_t)((unsigned long long)v * (unsigned long long)alpha);\n}\n";
    else
        s += "    return v * alpha;\n}\n";
    s += "__device__ inline void staticpy_accumulate(staticpy_x_t* p, staticpy_x_t v) {\n";
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
        s += "    atomicAdd(p, v);\n}\n";
    else if constexpr (std::is_same_v<T, std::int64_t>)
        s += "    atomicAdd((unsigned long long*)p, (unsigned long long)v);\n}\n";
    else if constexpr (std::is_same_v<T, std::int32_t>)
        s += "    atomicAdd((unsigned int*)p, (unsigned int)v);\n}\n";
    else if constexpr (std::is_same_v<T, bool>)
        s += "    *p = *p || v;\n}\n";
    else
        s += "    *p = (staticpy_x_t)((unsigned long long)*p + (unsigned long long)v);\n}\n";
    return s;
}

/// The kernels' module for an element type T and an index type I (a key of the kernel registry).
template <class T, class I>
struct index_kernels {
    static std::string source() {
        return block_reduce_source + typedef_of<T>("staticpy_x_t") + typedef_of<I>("staticpy_i_t") +
               index_element_ops<T>() + index_source;
    }
};

/// A walk's dims as a kernel takes them: max_device_index_rank values, the absent ones `fill`.
template <class Array>
Array padded(const Array& values, std::size_t rank, std::int64_t fill) {
    Array out{};
    out.fill(fill);
    for (std::size_t d = 0; d < rank; ++d)
        out[d] = values[d];
    return out;
}

} // namespace staticpy::cuda::detail

namespace staticpy::detail {

/// The first value of a GPU index (over `space`, its sizes and strides from the index's first
/// element) outside [0, bound), if any: found on the device, one position and one value read back.
template <class I, class SI>
std::optional<std::int64_t> first_out_of_range_on_cuda(index_device_tag, const index_space& space,
                                                       const Tensor<I, SI>& index,
                                                       std::int64_t bound) {
    namespace cd = cuda::detail;
    std::int64_t n = 1;
    for (std::size_t d = 0; d < space.rank; ++d)
        n *= space.sizes[d];
    if (n == 0)
        return std::nullopt;
    const Device device = index.device();
    cd::make_current(device.index());
    const cd::device_shape launch_shape = cd::shape_of_device(device.index());
    cd::compiled_kernels& ks = cd::module_of<cd::index_kernels<I, I>>(device.index());
    Tensor<std::int64_t, shape<>> first(shape<>{}, device);
    const auto sizes = cd::padded(space.sizes, space.rank, 1);
    const auto strides = cd::padded(space.strides, space.rank, 0);
    cd::kernel_arguments a;
    a.add<long long>(n);
    a.add_dims(sizes);
    a.add_dims(strides);
    a.add(static_cast<const void*>(index.data_ptr()));
    a.add<long long>(bound);
    a.add(static_cast<void*>(first.data_ptr()));
    cd::launch_default(ks.function("index_first_out_of_range"), 1, 1, launch_shape.block, a);
    const std::int64_t at = first.item();
    if (at >= n)
        return std::nullopt;
    std::int64_t offset = 0, rest = at;
    for (std::size_t d = space.rank; d-- > 0;) {
        offset += (rest % space.sizes[d]) * space.strides[d];
        rest /= space.sizes[d];
    }
    const Tensor<I, shape<>> value(index.storage(), index.storage_offset() + offset, shape<>{}, {});
    return static_cast<std::int64_t>(value.item());
}

/// A walk (index_device.hpp) over GPU tensors: `index` read at its first element, `in` and `out`
/// at theirs, every index value already checked.
template <class I, class SI, class U, class SU, class T, class S>
void indexed_walk_on_cuda(index_device_tag, const indexed_walk_call& call,
                          const Tensor<I, SI>& index, const Tensor<U, SU>& in, Tensor<T, S>& out,
                          T alpha) {
    static_assert(std::is_same_v<U, T>);
    namespace cd = cuda::detail;
    std::int64_t n = 1;
    for (std::size_t d = 0; d < call.rank; ++d)
        n *= call.sizes[d];
    if (n == 0)
        return;
    const Device device = out.device();
    cd::make_current(device.index());
    const cd::device_shape launch_shape = cd::shape_of_device(device.index());
    cd::compiled_kernels& ks = cd::module_of<cd::index_kernels<T, I>>(device.index());
    cd::kernel_arguments a;
    a.add<long long>(n);
    a.add<int>(static_cast<int>(call.dim));
    a.add<int>(call.accumulate ? 1 : 0);
    a.add_dims(cd::padded(call.sizes, call.rank, 1));
    a.add_dims(cd::padded(call.direct_strides, call.rank, 0));
    a.add_dims(cd::padded(call.index_strides, call.rank, 0));
    a.add_dims(cd::padded(call.target_strides, call.rank, 0));
    a.add(static_cast<const void*>(index.data_ptr()));
    a.add(static_cast<const void*>(in.data_ptr()));
    a.add(static_cast<void*>(out.data_ptr()));
    a.add<T>(alpha);
    const bool in_order = call.accumulate && !cd::atomic_accumulation<T>;
    cd::launch_default(ks.function("indexed_walk"), in_order ? 1 : cd::grid_for(n, launch_shape), 1,
                       in_order ? 1 : launch_shape.block, a);
}

} // namespace staticpy::detail
