#pragma once
// Copies between strided views of one device's memory, done on the device: what makes a GPU
// tensor's view contiguous (contiguous(), clone(), to() of a view), writes into a view (copy_),
// and fills one (fill_: a copy from one element, every stride of the source 0). Bytes are moved,
// not values, so there is one kernel per element size (1, 2, 4, 8), over up to 8 dims: first the
// dims of size 1 are dropped and the dims that follow one another in both views are merged (a
// contiguous block of a view is one dim), which leaves most views with one or two.
//
//   copy_strided_on_device(dst, dst_strides, src, src_strides, sizes, rank, sizeof(float), 0);

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "staticpy/backend/cuda/driver.hpp"
#include "staticpy/backend/cuda/kernel_registry.hpp"
#include "staticpy/backend/cuda/launch.hpp"

namespace staticpy::cuda::detail {

inline constexpr int strided_copy_max_rank = 8;

/// The kernel: element i of the iteration space (row-major over `sizes`) goes from src to dst,
/// each at its own strides; grid-stride, 64-bit offsets.
inline constexpr const char* strided_copy_source = R"(
extern "C" __global__ void strided_copy(staticpy_element_t* dst, const staticpy_element_t* src,
                                        long long n, staticpy_dims<8> sizes,
                                        staticpy_dims<8> dst_strides, staticpy_dims<8> src_strides,
                                        int rank) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long rest = i, to = 0, from = 0;
        for (int d = rank - 1; d >= 0; --d) {
            const long long c = rest % sizes.v[d];
            rest /= sizes.v[d];
            to += c * dst_strides.v[d];
            from += c * src_strides.v[d];
        }
        dst[to] = src[from];
    }
}
)";

/// The unsigned integer of each element size: the kernel's element type.
inline const char* strided_copy_element(std::size_t element_size) {
    switch (element_size) {
    case 1:
        return "unsigned char";
    case 2:
        return "unsigned short";
    case 4:
        return "unsigned int";
    default:
        return "unsigned long long";
    }
}

/// One module per element size (the kernel_key's program type tells them apart).
template <std::size_t ElementSize>
struct strided_copy_kernels {
    static std::string source() {
        return std::string("typedef ") + strided_copy_element(ElementSize) +
               " staticpy_element_t;\n" + strided_copy_source;
    }
};

/// A view's dims as the kernel walks them: size-1 dims dropped, neighbours that follow one
/// another in both views merged.
struct copy_dims {
    int rank = 0;
    std::array<std::int64_t, strided_copy_max_rank> sizes{}, dst{}, src{};
};

/// The dims of a copy of `rank` dims merged; rank -1 where more than the kernel's 8 remain.
inline copy_dims merged_copy_dims(const std::int64_t* sizes, const std::int64_t* dst_strides,
                                  const std::int64_t* src_strides, int rank) {
    copy_dims m;
    for (int d = 0; d < rank; ++d) {
        if (sizes[d] == 1)
            continue;
        if (m.rank > 0) {
            const int last = m.rank - 1;
            if (m.dst[last] == dst_strides[d] * sizes[d] &&
                m.src[last] == src_strides[d] * sizes[d]) {
                m.sizes[last] *= sizes[d];
                m.dst[last] = dst_strides[d];
                m.src[last] = src_strides[d];
                continue;
            }
        }
        if (m.rank == strided_copy_max_rank) {
            m.rank = -1;
            return m;
        }
        m.sizes[m.rank] = sizes[d];
        m.dst[m.rank] = dst_strides[d];
        m.src[m.rank] = src_strides[d];
        ++m.rank;
    }
    return m;
}

template <std::size_t ElementSize>
void launch_strided_copy(void* dst, const void* src, std::int64_t n, const copy_dims& m,
                         int device) {
    compiled_kernels& ks = module_of<strided_copy_kernels<ElementSize>>(device);
    const device_shape shape = shape_of_device(device);
    kernel_arguments a;
    a.add(dst);
    a.add(src);
    a.add(static_cast<long long>(n));
    std::array<std::int64_t, strided_copy_max_rank> sizes{};
    sizes.fill(1);
    std::copy_n(m.sizes.begin(), m.rank, sizes.begin());
    a.add_dims(sizes);
    a.add_dims(m.dst);
    a.add_dims(m.src);
    a.add(m.rank);
    launch_default(ks.function("strided_copy"), grid_for(n, shape), 1, shape.block, a);
}

/// Copies the elements of a view at src (strides src_strides, in elements) into a view of the
/// same sizes at dst, both on `device`, on its stream; the views must not overlap. False, with
/// nothing done, where the views keep more dims than the kernel takes (the caller goes through
/// the host then).
inline bool copy_strided_on_device(void* dst, const std::int64_t* dst_strides, const void* src,
                                   const std::int64_t* src_strides, const std::int64_t* sizes,
                                   int rank, std::size_t element_size, int device) {
    std::int64_t n = 1;
    for (int d = 0; d < rank; ++d)
        n *= sizes[d];
    const copy_dims m = merged_copy_dims(sizes, dst_strides, src_strides, rank);
    if (m.rank < 0)
        return false;
    if (n == 0)
        return true;
    make_current(device);
    switch (element_size) {
    case 1:
        launch_strided_copy<1>(dst, src, n, m, device);
        break;
    case 2:
        launch_strided_copy<2>(dst, src, n, m, device);
        break;
    case 4:
        launch_strided_copy<4>(dst, src, n, m, device);
        break;
    case 8:
        launch_strided_copy<8>(dst, src, n, m, device);
        break;
    default:
        return false;
    }
    return true;
}

} // namespace staticpy::cuda::detail
