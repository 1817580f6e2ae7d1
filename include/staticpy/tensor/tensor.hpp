#pragma once
// staticpy::Tensor: a strided view of a Storage, with a compile-time element type and rank and
// extents that are each static or dynamic (see shape.hpp).
//
//   auto x = staticpy::zeros<float>(2_c, 3_c);   // Tensor<float, shape<int_<2>, int_<3>>>
//   auto row = x[1];                             // a view: Tensor<float, shape<int_<3>>>
//   row(0) = 5;                                  // writes through to x
//   std::cout << x;                              // tensor([[0., 0., 0.],
//                                                //         [5., 0., 0.]])
//
// A Tensor is a handle, as in PyTorch: copying one copies the handle, not the elements (use
// clone() for that), and views (select, slice, transpose, permute, view/reshape, expand, squeeze,
// unsqueeze, flatten) share the storage. Strides are in elements.
//
// Dimension arguments are either compile-time ints (1_c, -1_c) or run-time integers. Where the
// result's type depends on which dimension it is (the extents that stay static), a compile-time
// dimension keeps them static and a run-time one makes the result's extents dynamic. Misuse that
// a static shape reveals is a compile error "staticpy: <PyTorch error>: ..."; the same misuse
// with dynamic extents throws with PyTorch's text.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/containers/slice.hpp"
#include "staticpy/core/constant.hpp"
#include "staticpy/core/device.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/kernels/loop.hpp"
#include "staticpy/tensor/dtype.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/storage.hpp"

namespace staticpy {

template <class T = default_float_t, class Shape = dynamic_shape<1>>
class Tensor;

template <class X>
inline constexpr bool is_tensor_v = false;
template <class T, class S>
inline constexpr bool is_tensor_v<Tensor<T, S>> = true;

namespace detail {
/// The methods x.sum(1_c), x.relu(), x.matmul(w), ... forward to the free functions of ops.hpp,
/// which include this header; this class template, defined there, is the bridge (a dependent
/// name, so it is looked up when a method is called, after ops.hpp has been read).
template <class Self>
struct tensor_methods;
/// x.where(condition, other) is torch.where(condition, x, other): the one method whose arguments
/// are not the function's after self. Defined beside where (ops_elementwise.hpp), for Tensor,
/// Var and Tracer alike (a template, as tensor_methods, so that it is looked up when called).
template <class Self>
struct where_method;

template <class T, class S>
void tensor_repr_into(std::string& out, const Tensor<T, S>& t); // print.hpp

/// PyTorch's maybe_wrap_dim: a negative dim counts from the end; rank 0 accepts -1 and 0.
inline std::int64_t wrap_dim(std::int64_t dim, std::int64_t rank) {
    const std::int64_t r = rank == 0 ? 1 : rank;
    if (dim < -r || dim >= r)
        throw IndexError("Dimension out of range (expected to be in range of [" +
                         std::to_string(-r) + ", " + std::to_string(r - 1) + "], but got " +
                         std::to_string(dim) + ")");
    return dim < 0 ? dim + r : dim;
}

/// The compile-time counterpart: a compile error when D is out of range for rank R.
template <long long D, std::size_t R>
constexpr std::size_t wrap_dim_c() {
    constexpr long long r = R == 0 ? 1 : static_cast<long long>(R);
    constexpr bool in_range = D >= -r && D < r;
    static_assert(in_range, "staticpy: IndexError: Dimension out of range");
    // After the error, a dim in range: the compiler goes on instantiating the caller, and an
    // out-of-range dim there (an index_sequence of size R - d - 1, say) made clang allocate
    // without end.
    if constexpr (!in_range)
        return 0;
    else
        return static_cast<std::size_t>(D < 0 ? D + r : D);
}

template <class D>
inline constexpr bool is_static_dim_v = is_int_constant_v<std::remove_cvref_t<D>>;

template <class D>
concept dim_argument = is_extent_argument_v<D>;

/// Contiguous (row-major) strides of sizes.
template <std::size_t R>
constexpr std::array<std::int64_t, R> contiguous_strides(const std::array<std::int64_t, R>& sizes) {
    std::array<std::int64_t, R> strides{};
    std::int64_t s = 1;
    for (std::size_t i = R; i-- > 0;) {
        strides[i] = s;
        if (__builtin_mul_overflow(s, std::max<std::int64_t>(sizes[i], 1), &s))
            throw_size_overflow(sizes); // sizes no shape has validated
    }
    return strides;
}

/// The strided walk (kernels::for_each_offsets) over two operands: f(offset_a, offset_b).
template <std::size_t R, class F>
void for_each_offset2(const std::array<std::int64_t, R>& sizes, std::int64_t a0,
                      const std::array<std::int64_t, R>& sa, std::int64_t b0,
                      const std::array<std::int64_t, R>& sb, F&& f) {
    kernels::for_each_offsets<R, 2>(sizes, {a0, b0}, {sa, sb},
                                    [&](const std::array<std::int64_t, 2>& o) { f(o[0], o[1]); });
}

template <std::size_t R, class F>
void for_each_offset(const std::array<std::int64_t, R>& sizes, std::int64_t a0,
                     const std::array<std::int64_t, R>& sa, F&& f) {
    for_each_offset2(sizes, a0, sa, 0, sa, [&](std::int64_t a, std::int64_t) { f(a); });
}

/// PyTorch's view stride computation (computeStride): the strides that let `new_sizes` view a
/// tensor of `old_sizes`/`old_strides` without copying, or false when none exist.
template <std::size_t R, std::size_t N>
bool compute_view_strides(const std::array<std::int64_t, R>& old_sizes,
                          const std::array<std::int64_t, R>& old_strides,
                          const std::array<std::int64_t, N>& new_sizes,
                          std::array<std::int64_t, N>& new_strides) {
    std::int64_t numel = 1;
    for (std::int64_t e : old_sizes)
        numel *= e;
    if (numel == 0 || R == 0) {
        new_strides = contiguous_strides(new_sizes);
        return true;
    }
    if constexpr (R > 0) {
        std::int64_t view_d = static_cast<std::int64_t>(N) - 1;
        std::int64_t chunk_base_stride = old_strides[R - 1];
        std::int64_t tensor_numel = 1;
        std::int64_t view_numel = 1;
        for (std::int64_t tensor_d = static_cast<std::int64_t>(R) - 1; tensor_d >= 0; --tensor_d) {
            const auto td = static_cast<std::size_t>(tensor_d);
            tensor_numel *= old_sizes[td];
            if (tensor_d == 0 || (old_sizes[td - 1] != 1 &&
                                  old_strides[td - 1] != tensor_numel * chunk_base_stride)) {
                while (view_d >= 0 && (view_numel < tensor_numel ||
                                       new_sizes[static_cast<std::size_t>(view_d)] == 1)) {
                    new_strides[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
                    view_numel *= new_sizes[static_cast<std::size_t>(view_d)];
                    --view_d;
                }
                if (view_numel != tensor_numel)
                    return false;
                if (tensor_d > 0) {
                    chunk_base_stride = old_strides[td - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        if (view_d != -1)
            return false;
    }
    return true;
}

// ---- the result types of reshape and expand ----------------------------------------------

/// The extent type reshape gives an argument A: int_<N> stays, int_<-1> is inferred (static when
/// `Inferred` >= 0), a run-time integer is dynamic.
template <class A, std::int64_t Inferred>
struct reshape_extent {
    using type = std::int64_t;
};
template <long long N, std::int64_t Inferred>
requires(N >= 0) struct reshape_extent<int_<N>, Inferred> {
    using type = int_<N>;
};
template <std::int64_t Inferred>
requires(Inferred >= 0) struct reshape_extent<int_<-1>, Inferred> {
    using type = int_<Inferred>;
};

} // namespace detail

/// The dimensions that view/reshape/expand accept: compile-time ints or run-time integers.
template <class... Args>
concept extent_arguments = (detail::is_extent_argument_v<Args> && ...);

/// The ops every tensor-like type (Tensor, Var, Tracer) also has as methods: x.sum(1_c), x.relu(),
/// x.gather(1_c, i), ... (each of PyTorch's Tensor methods that staticpy has as a function; x.where
/// takes its arguments in another order, see where_method). X(name) is expanded once per op name.
#define STATICPY_TENSOR_OP_METHODS(X)                                                              \
    X(sum)                                                                                         \
    X(prod)                                                                                        \
    X(mean)                                                                                        \
    X(var)                                                                                         \
    X(amax)                                                                                        \
    X(amin)                                                                                        \
    X(argmax)                                                                                      \
    X(argmin)                                                                                      \
    X(max)                                                                                         \
    X(min)                                                                                         \
    X(softmax)                                                                                     \
    X(log_softmax)                                                                                 \
    X(matmul)                                                                                      \
    X(abs)                                                                                         \
    X(exp)                                                                                         \
    X(log)                                                                                         \
    X(sqrt)                                                                                        \
    X(rsqrt)                                                                                       \
    X(sin)                                                                                         \
    X(cos)                                                                                         \
    X(tanh)                                                                                        \
    X(sigmoid)                                                                                     \
    X(relu)                                                                                        \
    X(gelu)                                                                                        \
    X(sign)                                                                                        \
    X(square)                                                                                      \
    X(detach)                                                                                      \
    X(floor)                                                                                       \
    X(ceil)                                                                                        \
    X(round)                                                                                       \
    X(expm1)                                                                                       \
    X(log1p)                                                                                       \
    X(reciprocal)                                                                                  \
    X(erf)                                                                                         \
    X(clamp)                                                                                       \
    X(clip)                                                                                        \
    X(pow)                                                                                         \
    X(maximum)                                                                                     \
    X(minimum)                                                                                     \
    X(neg)                                                                                         \
    X(add)                                                                                         \
    X(sub)                                                                                         \
    X(mul)                                                                                         \
    X(div)                                                                                         \
    X(eq)                                                                                          \
    X(ne)                                                                                          \
    X(lt)                                                                                          \
    X(le)                                                                                          \
    X(gt)                                                                                          \
    X(ge)                                                                                          \
    X(gather)                                                                                      \
    X(index_select)                                                                                \
    X(scatter_add)                                                                                 \
    X(index_add)                                                                                   \
    X(select_scatter)                                                                              \
    X(slice_scatter)                                                                               \
    X(masked_fill)                                                                                 \
    X(topk)                                                                                        \
    X(sort)                                                                                        \
    X(argsort)

template <class T, class Shape>
class Tensor {
    static_assert(
        is_tensor_element_v<T>,
        "staticpy: TypeError: a Tensor holds bool, uint8_t, int32_t, int64_t, float or double");
    static_assert(is_shape_v<Shape>,
                  "staticpy: TypeError: Tensor's second argument is a staticpy::shape");

    template <class, class>
    friend class Tensor;

public:
    using value_type = T;
    using shape_type = Shape;
    /// The rank, a compile-time constant.
    static constexpr std::size_t rank = Shape::rank;
    using sizes_type = std::array<std::int64_t, rank>;
    using strides_type = std::array<std::int64_t, rank>;

    // ---- construction ---------------------------------------------------------------------

    /// An undefined tensor (no storage), as torch::Tensor(): defined() is false.
    Tensor() = default;

    /// A new contiguous tensor of the given shape, elements uninitialised (torch.empty).
    explicit Tensor(const Shape& s)
        : storage_(Storage<T>::allocate(s.numel())),
          shape_(s),
          strides_(detail::contiguous_strides(s.sizes())) {}
    /// The same on `device` ("cuda" needs <staticpy/cuda.hpp>; elements uninitialised).
    Tensor(const Shape& s, const Device& device)
        : storage_(Storage<T>::allocate(s.numel(), device)),
          shape_(s),
          strides_(detail::contiguous_strides(s.sizes())) {}

    /// A view of `storage` (what view operations and from_blob build).
    Tensor(Storage<T> storage, std::int64_t offset, const Shape& s, const strides_type& strides)
        : storage_(std::move(storage)), offset_(offset), shape_(s), strides_(strides) {}

    /// The same tensor with another shape type of the same rank (static extents made dynamic:
    /// implicit; dynamic extents asserted static: explicit, checked at run time). Shares storage.
    template <class S2>
    requires(S2::rank == rank &&
             !std::is_same_v<S2, Shape>) explicit(!std::is_convertible_v<const S2&, Shape>)
        Tensor(const Tensor<T, S2>& o)
        : storage_(o.storage_), offset_(o.offset_), shape_(o.shape_), strides_(o.strides_) {}
    /// The same, taking o's storage (no other handle is added, so o's memory can still be lent
    /// to an op's result as an rvalue's).
    template <class S2>
    requires(S2::rank == rank &&
             !std::is_same_v<S2, Shape>) explicit(!std::is_convertible_v<const S2&, Shape>)
        Tensor(Tensor<T, S2>&& o)
        : storage_(std::move(o.storage_)), offset_(o.offset_), shape_(o.shape_),
          strides_(o.strides_) {}

    // ---- metadata ---------------------------------------------------------------------------

    /// Whether the tensor has storage (a default-constructed one has none).
    [[nodiscard]] bool defined() const noexcept { return static_cast<bool>(storage_); }
    /// torch.Tensor.shape / size(): the shape, whose repr is "Size([2, 3])".
    [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
    [[nodiscard]] const Shape& size() const noexcept { return shape_; }
    /// The extents as an array (ATen's sizes()).
    [[nodiscard]] const sizes_type& sizes() const noexcept { return shape_.sizes(); }
    /// size(dim), dim negative counts from the end; a compile-time dim of a static extent is a
    /// compile-time int.
    template <detail::dim_argument D>
    [[nodiscard]] auto size(D dim) const {
        if constexpr (detail::is_static_dim_v<D>) {
            constexpr std::size_t d = detail::wrap_dim_c<std::remove_cvref_t<D>::value, rank>();
            static_assert(
                rank > 0,
                "staticpy: IndexError: dimension specified as 0 but tensor has no dimensions");
            return shape_.template get<d>();
        } else {
            if constexpr (rank == 0)
                throw IndexError("dimension specified as " + std::to_string(dim) +
                                 " but tensor has no dimensions");
            else
                return shape_[static_cast<std::size_t>(detail::wrap_dim(dim, rank))];
        }
    }
    /// stride(dim) in elements; strides() all of them.
    [[nodiscard]] std::int64_t stride(std::int64_t dim) const {
        if constexpr (rank == 0)
            throw IndexError("dimension specified as " + std::to_string(dim) +
                             " but tensor has no dimensions");
        else
            return strides_[static_cast<std::size_t>(detail::wrap_dim(dim, rank))];
    }
    [[nodiscard]] const strides_type& strides() const noexcept { return strides_; }
    /// dim() / ndim: the rank.
    [[nodiscard]] static constexpr std::int64_t dim() noexcept {
        return static_cast<std::int64_t>(rank);
    }
    [[nodiscard]] static constexpr std::int64_t ndim() noexcept {
        return static_cast<std::int64_t>(rank);
    }
    [[nodiscard]] std::int64_t numel() const noexcept { return shape_.numel(); }
    /// The dtype (torch.Tensor.dtype).
    [[nodiscard]] static constexpr staticpy::dtype dtype() noexcept { return dtype_of_v<T>; }
    [[nodiscard]] static constexpr std::int64_t element_size() noexcept { return sizeof(T); }
    [[nodiscard]] std::int64_t storage_offset() const noexcept { return offset_; }
    [[nodiscard]] const Storage<T>& storage() const noexcept { return storage_; }
    /// Whether the elements are laid out row-major without gaps (size-1 dims' strides ignored,
    /// as in PyTorch).
    [[nodiscard]] bool is_contiguous() const noexcept {
        std::int64_t expected = 1;
        for (std::size_t i = rank; i-- > 0;) {
            if (shape_[i] == 1)
                continue;
            if (shape_[i] == 0)
                return true;
            if (strides_[i] != expected)
                return false;
            expected *= shape_[i];
        }
        return true;
    }
    /// The first element (storage data + offset), for the host: RuntimeError for a tensor on a
    /// GPU. A const Tensor gives a const pointer; note that a Tensor is a handle, and copies of it
    /// (views) may write.
    [[nodiscard]] T* data() { return storage_.data() + offset_; }
    [[nodiscard]] const T* data() const { return storage_.data() + offset_; }
    /// The first element's address on the tensor's device, as torch.Tensor.data_ptr().
    [[nodiscard]] T* data_ptr() noexcept { return storage_.device_data() + offset_; }
    [[nodiscard]] const T* data_ptr() const noexcept { return storage_.device_data() + offset_; }

    // ---- device -----------------------------------------------------------------------------

    /// Where the elements are: cpu, or cuda:N (torch.Tensor.device).
    [[nodiscard]] const Device& device() const noexcept { return storage_.device(); }
    [[nodiscard]] bool is_cuda() const noexcept { return device().is_cuda(); }
    [[nodiscard]] bool is_cpu() const noexcept { return device().is_cpu(); }
    /// The tensor on `device`: *this when already there (no copy, as PyTorch), else a contiguous
    /// copy. x.to("cuda"), x.to("cuda:1"), x.to(kCPU).
    /// non_blocking, as PyTorch's: a contiguous pinned tensor's copy to a device is queued on the
    /// device's stream and the call returns at once (the pinned memory is not reused before the
    /// stream is done with it); a GPU tensor's copy to the CPU lands in pinned memory, and its
    /// elements are there once the stream has done it (cuda::synchronize()). Any other copy is
    /// synchronous.
    ///   auto xb = batch.pin_memory().to(kCUDA, true);   // overlaps with the device's work
    [[nodiscard]] Tensor to(const Device& device, bool non_blocking = false) const {
        if constexpr (!is_rank_erased) {
            return like_this(rank_erased().to(device, non_blocking));
        } else {
            const Device target = detail::resolve_device(device);
            if (!defined() || target == this->device())
                return *this;
            if (non_blocking && numel() != 0 && is_contiguous() &&
                ((is_pinned() && target.is_cuda()) || (is_cuda() && target.is_cpu()))) {
                Tensor out = target.is_cpu() ? pinned_empty() : Tensor(shape_, target);
                detail::cuda_memory().copy_async(out.data_ptr(), target, data_ptr(), this->device(),
                                                 static_cast<std::size_t>(numel()) * sizeof(T));
                return out;
            }
            return copy_to(target);
        }
    }
    /// to(cuda:index), the current device by default; cpu() is to("cpu").
    [[nodiscard]] Tensor cuda(int index = -1, bool non_blocking = false) const {
        return to(Device(DeviceType::CUDA, index), non_blocking);
    }
    [[nodiscard]] Tensor cpu() const { return to(Device{}); }

    /// Whether the elements are in page-locked host memory (torch.Tensor.is_pinned()).
    [[nodiscard]] bool is_pinned() const noexcept { return storage_.is_pinned(); }
    /// A contiguous copy in page-locked host memory, or *this when already pinned
    /// (torch.Tensor.pin_memory()): what a non_blocking copy to a device needs. PyTorch's
    /// RuntimeError for a GPU tensor; the "CUDA is not available" one where there is no device.
    [[nodiscard]] Tensor pin_memory() const {
        if constexpr (!is_rank_erased) {
            return like_this(rank_erased().pin_memory());
        } else {
            if (is_cuda())
                throw RuntimeError("cannot pin 'torch.cuda." +
                                   std::string(scalar_type_name(dtype_of_v<T>)) +
                                   "Tensor' only dense CPU tensors can be pinned");
            if (!defined() || is_pinned())
                return *this;
            Tensor out = pinned_empty();
            if (numel() != 0)
                out.assign_from(*this);
            return out;
        }
    }

    // ---- elements ---------------------------------------------------------------------------

    /// t(i, j): the element, bounds-checked, negative indices counting from the end (as t[i, j]).
    template <class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...)) T& operator()(I... idx) {
        return storage_.data()[element_offset({static_cast<std::int64_t>(idx)...})];
    }
    template <class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...)) const T&
    operator()(I... idx) const {
        return storage_.data()[element_offset({static_cast<std::int64_t>(idx)...})];
    }
    template <class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...)) T& at(I... idx) {
        return (*this)(idx...);
    }
    template <class... I>
    requires(sizeof...(I) == rank && (std::is_integral_v<I> && ...)) const T& at(I... idx) const {
        return (*this)(idx...);
    }

    /// The one element as a number (RuntimeError unless numel() == 1).
    [[nodiscard]] T item() const {
        if (numel() != 1)
            throw RuntimeError("a Tensor with " + std::to_string(numel()) +
                               " elements cannot be converted to Scalar");
        if (is_cuda()) { // one element copied to the host, as PyTorch's item() does
            T value;
            detail::cuda_memory().copy(&value, Device{}, data_ptr(), device(), sizeof(T));
            return value;
        }
        return storage_.data()[offset_];
    }

    /// Sets every element to v; returns *this.
    Tensor& fill_(T v) {
        if constexpr (!is_rank_erased) {
            rank_erased().fill_(v); // a view: the same elements
            return *this;
        } else {
            if (is_cuda()) { // a copy on the device from one element, at stride 0 in every dim
                if (numel() == 0)
                    return *this;
                const auto one = Storage<T>::allocate(1, device());
                detail::cuda_memory().copy(one.device_data(), device(), &v, Device{}, sizeof(T));
                const strides_type broadcast{};
                if (!write_on_device(one.device_data(), broadcast))
                    update_through_host([&](Tensor& staged) { staged.fill_(v); });
                return *this;
            }
            T* p = storage_.data();
            detail::for_each_offset(sizes(), offset_, strides_, [&](std::int64_t o) { p[o] = v; });
            return *this;
        }
    }

    /// Copies src's elements (converted to T) into this tensor's; src must have the same sizes.
    template <class U, class S2>
    Tensor& copy_(const Tensor<U, S2>& src) {
        static_assert(S2::rank == rank,
                      "staticpy: RuntimeError: copy_: source and destination ranks differ");
        static_assert(!(Shape::is_static && S2::is_static) ||
                          S2::static_extents == Shape::static_extents,
                      "staticpy: RuntimeError: copy_: source and destination shapes differ");
        if constexpr (!is_rank_erased || !Tensor<U, S2>::is_rank_erased) {
            rank_erased().copy_(src.rank_erased());
            return *this;
        } else {
            if (!(src.shape() == shape_))
                throw RuntimeError(
                    "The size of tensor a (" + first_mismatch(src.sizes(), true) +
                    ") must match the size of tensor b (" + first_mismatch(src.sizes(), false) +
                    ") at non-singleton dimension " + first_mismatch_dim(src.sizes()));
            if (is_cuda() || src.is_cuda()) {
                copy_across_devices(src);
                return *this;
            }
            bool overlap = false;
            if constexpr (std::is_same_v<U, T>)
                overlap = storage_.is_same(src.storage_);
            if (overlap) { // copy from a snapshot, so that overlapping views are safe
                const auto tmp = src.contiguous_copy();
                assign_from(tmp);
            } else {
                assign_from(src);
            }
            return *this;
        }
    }

    // ---- copies -----------------------------------------------------------------------------

    /// A new contiguous tensor with the same elements (its own storage).
    [[nodiscard]] Tensor clone() const { return contiguous_copy(); }
    /// *this when already contiguous (no copy, shares storage), clone() otherwise.
    [[nodiscard]] Tensor contiguous() const { return is_contiguous() ? *this : clone(); }
    /// The elements converted to U, as tensor.to(dtype): float to int truncates toward zero,
    /// to bool is != 0. to<T>() returns *this (no copy), as PyTorch.
    template <class U>
    [[nodiscard]] Tensor<U, Shape> to() const {
        if constexpr (std::is_same_v<U, T>) {
            return *this;
        } else if constexpr (!is_rank_erased) {
            const auto erased = rank_erased().template to<U>();
            return Tensor<U, Shape>(erased.storage_, erased.offset_, shape_, erased.strides_);
        } else {
            Tensor<U, Shape> out(shape_);
            U* q = out.data();
            const T* p = storage_.data();
            std::int64_t k = 0;
            detail::for_each_offset(sizes(), offset_, strides_,
                                    [&](std::int64_t o) { q[k++] = detail::convert<U>(p[o]); });
            return out;
        }
    }
    /// torch.allclose: |a - b| <= atol + rtol * |b| element-wise (equal infinities are close, NaN
    /// is never close). Same dtype and same sizes required, as in PyTorch.
    template <class S2>
    [[nodiscard]] bool allclose(const Tensor<T, S2>& other, double rtol = 1e-05,
                                double atol = 1e-08) const;

    // ---- views ------------------------------------------------------------------------------

    /// select(dim, index): the slice at `index` along dim, which is dropped (t[i] for dim 0).
    template <detail::dim_argument D>
    [[nodiscard]] auto select(D dim, std::int64_t index) const;
    /// t[i] is select(0, i); t[slice(a, b, c)] is slice(0, a, b, c).
    [[nodiscard]] auto operator[](std::int64_t index) const;
    template <class A, class B, class C>
    [[nodiscard]] auto operator[](const slice_t<A, B, C>& s) const;
    /// slice(dim, start, stop, step): elements start, start+step, ... before stop along dim.
    /// Bounds are clamped as Python's; None (staticpy::None) means the end; step must be > 0.
    template <detail::dim_argument D, class Start = none_t, class Stop = none_t,
              class Step = int_<1>>
    [[nodiscard]] auto slice(D dim, Start start = {}, Stop stop = {}, Step step = {}) const;
    /// narrow(dim, start, length): slice(dim, start, start + length), checked.
    template <detail::dim_argument D>
    [[nodiscard]] auto narrow(D dim, std::int64_t start, std::int64_t length) const;
    /// transpose(d0, d1): swaps two dimensions (a view).
    template <detail::dim_argument D0, detail::dim_argument D1>
    [[nodiscard]] auto transpose(D0 d0, D1 d1) const;
    /// t(): transpose(0, 1) of a tensor of rank <= 2.
    [[nodiscard]] auto t() const;
    /// permute(dims...): the dims in a new order (a view).
    template <detail::dim_argument... D>
    [[nodiscard]] auto permute(D... dims) const;
    /// view(extents...): the same elements with another shape, without copying; RuntimeError
    /// when the strides don't allow it. One extent may be -1 (or -1_c): inferred.
    template <class... A>
    requires extent_arguments<A...>
    [[nodiscard]] auto view(A... extents) const;
    template <class... Es>
    [[nodiscard]] auto view(const staticpy::shape<Es...>& s) const;
    /// reshape(extents...): view when the strides allow, a contiguous copy otherwise.
    template <class... A>
    requires extent_arguments<A...>
    [[nodiscard]] auto reshape(A... extents) const;
    template <class... Es>
    [[nodiscard]] auto reshape(const staticpy::shape<Es...>& s) const;
    /// flatten(): a 1-D view (or copy, as reshape) of all the elements.
    [[nodiscard]] auto flatten() const;
    /// flatten(start_dim, end_dim = -1_c): dims start_dim..end_dim (compile-time ints) as one, as
    /// torch.flatten: x.flatten(1_c) turns [N, 16, 5, 5] into [N, 400].
    template <class Start, class End = int_<-1>>
    requires is_int_constant_v<Start> && is_int_constant_v<End>
    [[nodiscard]] auto flatten(Start start_dim, End end_dim = {}) const;
    /// expand(extents...): size-1 dims repeated with stride 0, new leading dims; -1 keeps a size.
    template <class... A>
    requires extent_arguments<A...>
    [[nodiscard]] auto expand(A... extents) const;
    /// broadcast_to(shape): expand to the shape.
    template <class... Es>
    [[nodiscard]] auto broadcast_to(const staticpy::shape<Es...>& s) const;
    /// expand_as(other): expand to other's shape.
    template <class U, class S2>
    [[nodiscard]] auto expand_as(const Tensor<U, S2>& other) const {
        return broadcast_to(other.shape());
    }
    /// squeeze(dim): drops dim when its size is 1. A static extent other than 1 leaves the tensor
    /// unchanged, as PyTorch; a dynamic extent is dropped and must be 1 at run time (a staticpy
    /// rank is a compile-time fact, so it cannot depend on a run-time size): RuntimeError if not.
    template <detail::dim_argument D>
    [[nodiscard]] auto squeeze(D dim) const;
    /// squeeze(): drops every static size-1 dim (dynamic ones stay: see squeeze(dim)).
    [[nodiscard]] auto squeeze() const;
    /// unsqueeze(dim): a new size-1 dim before dim (dim in [-rank-1, rank]).
    template <detail::dim_argument D>
    [[nodiscard]] auto unsqueeze(D dim) const;

    // ---- ops as methods (PyTorch's x.sum(1), x.relu(), ...; defined in ops.hpp) -----------------

#define STATICPY_TENSOR_METHOD(name)                                                               \
    template <class... Args>                                                                       \
    auto name(const Args&... args) const {                                                         \
        return detail::tensor_methods<Tensor>::name(*this, args...);                               \
    }
    STATICPY_TENSOR_OP_METHODS(STATICPY_TENSOR_METHOD)
#undef STATICPY_TENSOR_METHOD
    /// x.where(condition, y): torch.where(condition, x, y).
    template <class C, class O>
    auto where(const C& condition, const O& other) const {
        return detail::where_method<Tensor>::apply(condition, *this, other);
    }

    // ---- printing ---------------------------------------------------------------------------

    /// As PyTorch prints: tensor([[1., 2.],\n        [3., 4.]]).
    void repr_into(std::string& out) const {
        detail::tensor_repr_into(out, *this);
    }
    /// Streams repr(t); a template so that only <iosfwd> is needed here.
    template <class CharT, class Traits>
    friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                         const Tensor& t) {
        std::string text;
        t.repr_into(text);
        return os << text;
    }

private:
    // Copies, fills and device moves do the same work for every shape of a rank: their bodies
    // run on the tensor seen with its rank's dynamic shape, so that each is compiled once per
    // (dtype, rank) rather than once per static shape (85 shapes of copy_to in the training
    // example were 150 kB of code).
    using rank_erased_type = Tensor<T, dynamic_shape<rank>>;
    static constexpr bool is_rank_erased = is_dynamic_shape_v<Shape>;
    /// This tensor (the same storage) with its rank's dynamic shape.
    [[nodiscard]] rank_erased_type rank_erased() const {
        return rank_erased_type(storage_, offset_, dynamic_shape<rank>(sizes()), strides_);
    }
    /// A tensor of this one's sizes, computed on its rank_erased() view, with this shape type.
    [[nodiscard]] Tensor like_this(const rank_erased_type& t) const {
        return Tensor(t.storage_, t.offset_, shape_, t.strides_);
    }

    std::int64_t element_offset(const std::array<std::int64_t, rank>& idx) const {
        std::int64_t off = offset_;
        for (std::size_t d = 0; d < rank; ++d) {
            std::int64_t i = idx[d];
            const std::int64_t n = shape_[d];
            if (i < -n || i >= n)
                throw IndexError("index " + std::to_string(i) + " is out of bounds for dimension " +
                                 std::to_string(d) + " with size " + std::to_string(n));
            if (i < 0)
                i += n;
            off += i * strides_[d];
        }
        return off;
    }

    Tensor contiguous_copy() const {
        if constexpr (!is_rank_erased) {
            return like_this(rank_erased().contiguous_copy());
        } else {
            if (is_cuda())
                return copy_to(device());
            Tensor out(shape_);
            T* q = out.data();
            const T* p = storage_.data();
            std::int64_t k = 0;
            detail::for_each_offset(sizes(), offset_, strides_, [&](std::int64_t o) { q[k++] = p[o]; });
            return out;
        }
    }

    /// A contiguous tensor of this shape in page-locked host memory, elements uninitialised.
    [[nodiscard]] Tensor pinned_empty() const {
        return Tensor(Storage<T>::allocate_pinned(numel()), 0, shape_,
                      detail::contiguous_strides(shape_.sizes()));
    }

    /// The storage span a view reaches: its first and one-past-last element offsets.
    [[nodiscard]] std::pair<std::int64_t, std::int64_t> storage_span() const noexcept {
        std::int64_t lo = offset_, hi = offset_;
        for (std::size_t d = 0; d < rank; ++d) {
            const std::int64_t reach = (shape_[d] - 1) * strides_[d];
            (reach < 0 ? lo : hi) += reach;
        }
        return {lo, hi + 1};
    }

    /// The elements of a view of a GPU's memory, on the host: the storage span it reaches is
    /// copied, and the view taken of that copy.
    [[nodiscard]] Tensor staged_on_host() const {
        const auto [lo, hi] = storage_span();
        auto host = Storage<T>::allocate(hi - lo);
        detail::cuda_memory().copy(host.data(), Device{}, storage_.device_data() + lo, device(),
                                   static_cast<std::size_t>(hi - lo) * sizeof(T));
        return Tensor(std::move(host), offset_ - lo, shape_, strides_);
    }

    /// A contiguous copy on `target`. A contiguous tensor is one copy of its bytes; a strided
    /// view on a GPU is packed there by the strided copy kernel first (through the host only
    /// where the kernel cannot: more than 8 dims that do not merge).
    [[nodiscard]] Tensor copy_to(const Device& target) const {
        if constexpr (!is_rank_erased) {
            return like_this(rank_erased().copy_to(target));
        } else {
            Tensor out(shape_, target);
            if (numel() == 0)
                return out;
            const auto bytes = static_cast<std::size_t>(numel()) * sizeof(T);
            if (is_contiguous()) {
                detail::cuda_memory().copy(out.data_ptr(), target, data_ptr(), device(), bytes);
                return out;
            }
            if (is_cuda()) {
                Tensor packed = target == device() ? out : Tensor(shape_, device());
                if (packed.write_on_device(data_ptr(), strides_)) {
                    if (target != device())
                        detail::cuda_memory().copy(out.data_ptr(), target, packed.data_ptr(), device(),
                                                   bytes);
                    return out;
                }
            }
            const Tensor packed = is_cuda() ? staged_on_host().contiguous_copy() : contiguous_copy();
            if (target.is_cpu())
                return packed;
            detail::cuda_memory().copy(out.data_ptr(), target, packed.data_ptr(), Device{}, bytes);
            return out;
        }
    }

    /// Writes the view of this tensor's device at src (with src_strides) into this view, on the
    /// device; false where the kernel cannot.
    bool write_on_device(const T* src, const strides_type& src_strides) {
        const auto sizes = this->sizes();
        return detail::cuda_memory().copy_strided(
            data_ptr(), strides_.data(), src, src_strides.data(), sizes.data(),
            static_cast<int>(rank), sizeof(T), device().index());
    }

    /// copy_ where either side is on a GPU: src converted to T on the host when its dtype
    /// differs, a contiguous destination written in one copy, a strided one through the host.
    template <class U, class S2>
    void copy_across_devices(const Tensor<U, S2>& src) {
        if (numel() == 0)
            return;
        if constexpr (std::is_same_v<U, T>) {
            if (is_contiguous() && src.is_contiguous()) {
                detail::cuda_memory().copy(data_ptr(), device(), src.data_ptr(), src.device(),
                                           static_cast<std::size_t>(numel()) * sizeof(T));
                return;
            }
            if (is_cuda()) { // the source on this device, apart from this view, then written in
                const bool apart = src.device() == device() && !src.storage_.is_same(storage_);
                const Tensor<U, S2> here = apart ? src : src.copy_to(device());
                if (write_on_device(here.data_ptr(), here.strides_))
                    return;
            }
        }
        const auto host_src = src.cpu();
        if (is_cpu()) {
            assign_from(host_src);
            return;
        }
        update_through_host([&](Tensor& staged) { staged.assign_from(host_src); });
    }

    /// Changes the elements of a view of a GPU's memory on the host: f(the view of a host copy
    /// of the storage span it reaches), then that span copied back.
    template <class F>
    void update_through_host(F&& f) {
        const auto [lo, hi] = storage_span();
        Tensor staged = staged_on_host();
        f(staged);
        detail::cuda_memory().copy(storage_.device_data() + lo, device(), staged.storage_.data(),
                                   Device{}, static_cast<std::size_t>(hi - lo) * sizeof(T));
    }

    template <class U, class S2>
    void assign_from(const Tensor<U, S2>& src) {
        T* q = storage_.data();
        const U* p = src.storage_.data();
        detail::for_each_offset2(
            sizes(), offset_, strides_, src.offset_, src.strides_,
            [&](std::int64_t a, std::int64_t b) { q[a] = detail::convert<T>(p[b]); });
    }

    std::string first_mismatch(const sizes_type& other, bool mine) const {
        for (std::size_t i = 0; i < rank; ++i)
            if (shape_[i] != other[i])
                return std::to_string(mine ? shape_[i] : other[i]);
        return "0";
    }
    std::string first_mismatch_dim(const sizes_type& other) const {
        for (std::size_t i = 0; i < rank; ++i)
            if (shape_[i] != other[i])
                return std::to_string(i);
        return "0";
    }

    Storage<T> storage_;
    std::int64_t offset_ = 0;
    Shape shape_{};
    strides_type strides_{};
};

namespace detail {
/// PyTorch's check that the tensors among an op's arguments share one device (RuntimeError
/// "Expected all tensors to be on the same device, ..." where they do not); other arguments are
/// ignored. Returns that device (the CPU where there is no tensor).
template <class... X>
Device check_same_device(const X&... xs) {
    const Device* first = nullptr;
    (
        [&] {
            if constexpr (is_tensor_v<std::remove_cvref_t<X>>) {
                if (first == nullptr)
                    first = &xs.device();
                else if (xs.device() != *first)
                    throw_device_mismatch(*first, xs.device());
            }
        }(),
        ...);
    return first != nullptr ? *first : Device{};
}
} // namespace detail

/// torch.allclose(a, b, rtol, atol).
template <class T, class S1, class S2>
[[nodiscard]] bool allclose(const Tensor<T, S1>& a, const Tensor<T, S2>& b, double rtol = 1e-05,
                            double atol = 1e-08) {
    return a.allclose(b, rtol, atol);
}

} // namespace staticpy

#include "staticpy/tensor/detail/tensor_impl.hpp"
#include "staticpy/tensor/print.hpp"
