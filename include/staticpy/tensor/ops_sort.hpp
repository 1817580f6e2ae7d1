#pragma once
// Eager sort, argsort and topk with PyTorch's names, arguments, results and errors.
//
//   auto [values, indices] = sort(x);            // along the last dim, ascending
//   auto [top, at] = topk(x, 3_c, 1_c);          // the 3 largest along dim 1: a static extent 3
//   auto order = argsort(x, 0_c, true);          // descending along dim 0
//
// Each returns new contiguous tensors: values of x's dtype and int64 indices (values_indices,
// torch.return_types.sort / topk), of x's shape type, with topk's dim of extent k (static for a
// compile-time k and dim, dynamic for a run-time one). The order is that of PyTorch's CPU kernels:
// NaN above every number (numpy's order), and ties as the same algorithms of the C++ library leave
// them (sort: std::sort, or std::stable_sort with `stable`; topk: std::partial_sort where
// k * 64 <= n, else std::nth_element, then std::sort of the first k - 1 when sorted), run on
// (value, index) pairs with PyTorch's comparisons, so that the indices of tied values are
// PyTorch's too where both are built on libstdc++ (PyTorch's Linux wheels are).
// The differentiable forms on traced and recorded values are op_objects_index.hpp's.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/error.hpp"
#include "staticpy/tensor/ops_join.hpp"
#include "staticpy/tensor/ops_reduce.hpp"
#include "staticpy/tensor/shape.hpp"
#include "staticpy/tensor/tensor.hpp"

namespace staticpy {
namespace detail::sorting {

template <class T>
constexpr bool is_nan(T v) {
    if constexpr (std::is_floating_point_v<T>)
        return v != v;
    else
        return false;
}

template <class T>
using keyed = std::pair<T, std::int64_t>;

/// PyTorch's KeyValueCompAsc and KeyValueCompDesc (and topk's comparisons): the values alone
/// decide, NaN the largest of all.
template <class T>
struct before_ascending {
    bool operator()(const keyed<T>& a, const keyed<T>& b) const {
        return (!is_nan(a.first) && is_nan(b.first)) || a.first < b.first;
    }
};
template <class T>
struct before_descending {
    bool operator()(const keyed<T>& a, const keyed<T>& b) const {
        return (is_nan(a.first) && !is_nan(b.first)) || a.first > b.first;
    }
};

/// Where a sort or topk reads and writes its rows (the elements along its dim): each row's first
/// element in the input and in the contiguous outputs, the stride along the dim in each, the
/// input rows' length and the output rows'. The kernels below take this, not a shape, so that
/// they are instantiated once per dtype.
struct row_plan {
    std::vector<std::int64_t> in_starts, out_starts;
    std::int64_t in_stride = 1, out_stride = 1, length = 1, out_length = 1;
};

/// The rows of x along dim d, written into a contiguous output of out_sizes (x's sizes with d's
/// replaced). A zero-dim x is one row of one element.
template <std::size_t R>
row_plan plan_rows(const std::array<std::int64_t, R>& sizes,
                   const std::array<std::int64_t, R>& strides,
                   const std::array<std::int64_t, R>& out_sizes, std::size_t d) {
    row_plan p;
    if constexpr (R == 0) {
        p.in_starts = {0};
        p.out_starts = {0};
    } else {
        std::array<bool, R> along{};
        along[d] = true;
        const auto out_strides = contiguous_strides(out_sizes);
        p.in_starts = dim_offsets(sizes, strides, along, false);
        p.out_starts = dim_offsets(out_sizes, out_strides, along, false);
        p.in_stride = strides[d];
        p.out_stride = out_strides[d];
        p.length = sizes[d];
        p.out_length = out_sizes[d];
    }
    return p;
}

template <class T>
void read_row(const T* in, const row_plan& p, std::vector<keyed<T>>& row) {
    for (std::int64_t j = 0; j < p.length; ++j)
        row[static_cast<std::size_t>(j)] = {in[j * p.in_stride], j};
}

template <class T>
void write_row(const std::vector<keyed<T>>& row, const row_plan& p, std::size_t r, T* values,
               std::int64_t* indices) {
    T* v = values + p.out_starts[r];
    std::int64_t* i = indices + p.out_starts[r];
    for (std::int64_t j = 0; j < p.out_length; ++j) {
        v[j * p.out_stride] = row[static_cast<std::size_t>(j)].first;
        i[j * p.out_stride] = row[static_cast<std::size_t>(j)].second;
    }
}

template <class T, class Before>
void order_row(std::vector<keyed<T>>& row, Before before, bool stable) {
    if (stable)
        std::stable_sort(row.begin(), row.end(), before);
    else
        std::sort(row.begin(), row.end(), before);
}

/// PyTorch's sort kernel over every row of x.
template <class T>
void sort_rows(const T* x, const row_plan& p, bool descending, bool stable, T* values,
               std::int64_t* indices) {
    std::vector<keyed<T>> row(static_cast<std::size_t>(p.length));
    for (std::size_t r = 0; r < p.in_starts.size(); ++r) {
        read_row(x + p.in_starts[r], p, row);
        if (descending)
            order_row(row, before_descending<T>{}, stable);
        else
            order_row(row, before_ascending<T>{}, stable);
        write_row(row, p, r, values, indices);
    }
}

template <class T, class Before>
void top_of_row(std::vector<keyed<T>>& row, std::int64_t k, bool sorted, Before before) {
    const auto first = row.begin();
    if (k * 64 <= static_cast<std::int64_t>(row.size())) {
        std::partial_sort(first, first + k, row.end(), before);
    } else {
        std::nth_element(first, first + (k - 1), row.end(), before);
        if (sorted)
            std::sort(first, first + (k - 1), before);
    }
}

/// PyTorch's topk kernel (topk_impl_loop) over every row of x: the first p.out_length (k) of each.
template <class T>
void topk_rows(const T* x, const row_plan& p, bool largest, bool sorted, T* values,
               std::int64_t* indices) {
    if (p.out_length == 0)
        return;
    std::vector<keyed<T>> row(static_cast<std::size_t>(p.length));
    for (std::size_t r = 0; r < p.in_starts.size(); ++r) {
        read_row(x + p.in_starts[r], p, row);
        if (largest)
            top_of_row(row, p.out_length, sorted, before_descending<T>{});
        else
            top_of_row(row, p.out_length, sorted, before_ascending<T>{});
        write_row(row, p, r, values, indices);
    }
}

[[noreturn]] inline void throw_not_on_cuda(const char* name) {
    throw RuntimeError(std::string("staticpy: ") + name +
                       " has no CUDA kernel yet: copy its tensor with .cpu()");
}

/// The shape type of topk's result: S with dim D's extent K's (int_<K> for a compile-time k, a
/// dynamic extent otherwise); every extent dynamic for a run-time dim, as elsewhere.
template <class S, class K, class D>
struct topk_shape {
    using type = dynamic_shape<S::rank>;
};
template <class S, class K, class D>
requires(S::rank == 0) struct topk_shape<S, K, D> {
    using type = S;
};
template <class S, class K, class D>
requires(S::rank > 0 && is_static_dim_v<D>) struct topk_shape<S, K, D> {
    using type =
        shape_replace_t<S, wrap_dim_c<std::remove_cvref_t<D>::value, S::rank>(), extent_of_t<K>>;
};

/// Whether a compile-time k is out of range: below 0, or above the static extent of a
/// compile-time dim (1 for a zero-dim tensor, as PyTorch's check).
template <class S, class K, class D>
constexpr bool static_k_out_of_range() {
    if constexpr (!is_int_constant_v<K>) {
        return false;
    } else {
        constexpr long long k = K::value;
        if constexpr (S::rank == 0) {
            return k < 0 || k > 1;
        } else if constexpr (is_static_dim_v<D>) {
            constexpr std::int64_t extent =
                S::static_extents[wrap_dim_c<std::remove_cvref_t<D>::value, S::rank>()];
            return k < 0 || (extent >= 0 && k > extent);
        } else {
            return k < 0;
        }
    }
}

} // namespace detail::sorting

/// torch.sort(x, dim=-1, descending=False, stable=False): the values along dim in order, and the
/// index each came from (PyTorch's stable is keyword-only; here it is the fourth argument).
///   auto [values, indices] = sort(tensor<float>({3, 1, 2}));   // [1, 2, 3], [1, 2, 0]
template <class T, class S, detail::dim_argument D = int_<-1>>
auto sort(const Tensor<T, S>& x, D dim = {}, bool descending = false, bool stable = false) {
    namespace so = detail::sorting;
    const std::size_t d = detail::index_ops::resolve_dim<S::rank>(dim);
    if (x.is_cuda())
        so::throw_not_on_cuda("sort");
    Tensor<T, S> values(x.shape());
    Tensor<std::int64_t, S> indices(x.shape());
    if (x.numel() != 0)
        so::sort_rows(x.data(), so::plan_rows(x.sizes(), x.strides(), x.sizes(), d), descending,
                      stable, values.data(), indices.data());
    return values_indices<Tensor<T, S>, Tensor<std::int64_t, S>>{std::move(values),
                                                                 std::move(indices)};
}

/// torch.argsort(x, dim=-1, descending=False, stable=False): sort's indices.
///   auto order = argsort(tensor<float>({3, 1, 2}));   // [1, 2, 0]
template <class T, class S, detail::dim_argument D = int_<-1>>
Tensor<std::int64_t, S> argsort(const Tensor<T, S>& x, D dim = {}, bool descending = false,
                                bool stable = false) {
    return sort(x, dim, descending, stable).indices;
}

/// torch.topk(x, k, dim=-1, largest=True, sorted=True): the k largest (smallest) values along dim
/// and their indices. k is a compile-time int (3_c: a static extent) or a run-time one; outside
/// [0, x.size(dim)] it is PyTorch's RuntimeError "selected index k out of range" (a compile error
/// where k and the extent are both known).
///   auto [top, at] = topk(tensor<float>({1, 5, 3}), 2_c);   // [5, 3], [1, 2]
template <class T, class S, class K, detail::dim_argument D = int_<-1>>
requires detail::is_extent_argument_v<K>
auto topk(const Tensor<T, S>& x, K k, D dim = {}, bool largest = true, bool sorted = true) {
    namespace so = detail::sorting;
    static_assert(!so::static_k_out_of_range<S, K, D>(),
                  "staticpy: RuntimeError: selected index k out of range");
    using Out = typename so::topk_shape<S, K, D>::type;
    const std::size_t d = detail::index_ops::resolve_dim<S::rank>(dim);
    const std::int64_t kk = detail::extent_value(k);
    auto out_sizes = x.sizes();
    std::int64_t n = 1; // a zero-dim tensor's one element
    if constexpr (S::rank > 0) {
        n = out_sizes[d];
        out_sizes[d] = kk;
    }
    if (kk < 0 || kk > n)
        throw RuntimeError("selected index k out of range");
    if (x.is_cuda())
        so::throw_not_on_cuda("topk");
    const Out out_shape(out_sizes);
    Tensor<T, Out> values(out_shape);
    Tensor<std::int64_t, Out> indices(out_shape);
    if (values.numel() != 0)
        so::topk_rows(x.data(), so::plan_rows(x.sizes(), x.strides(), out_sizes, d), largest,
                      sorted, values.data(), indices.data());
    return values_indices<Tensor<T, Out>, Tensor<std::int64_t, Out>>{std::move(values),
                                                                     std::move(indices)};
}

} // namespace staticpy
