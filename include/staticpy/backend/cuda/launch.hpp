#pragma once
// A kernel's arguments as cuLaunchKernel takes them: an array of pointers, one per parameter,
// each to a copy of the argument's value in the parameter's type. The generated kernels' parameters
// (codegen.hpp) are long longs, element pointers, scalars and staticpy_dims<R> (R long longs by
// value); the host emulation of the tests reads the same array.
//
//   kernel_arguments a;  a.add(numel);  a.add(x.data_ptr());  a.add_dims(sizes);
//   driver().cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream, a.pointers(), nullptr);

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <type_traits>
#include <vector>

namespace staticpy::cuda::detail {

class kernel_arguments {
public:
    /// A parameter of type T (a number or a pointer).
    template <class T>
    void add(T value) {
        static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(slot));
        slot& s = slots_.emplace_back();
        std::memcpy(s.bytes, &value, sizeof(T));
        pointers_.push_back(s.bytes);
    }
    /// A staticpy_dims<R> parameter: R long longs, where R is values' size.
    template <class Range>
    void add_dims(const Range& values) {
        auto& dims = dims_.emplace_back();
        for (auto v : values)
            dims.push_back(static_cast<long long>(v));
        if (dims.empty()) // a rank-0 space is walked as rank 1 of size 1 (codegen.hpp)
            dims.push_back(0);
        pointers_.push_back(dims.data());
    }
    /// The array cuLaunchKernel takes as kernelParams.
    [[nodiscard]] void** pointers() noexcept { return pointers_.data(); }
    [[nodiscard]] std::size_t size() const noexcept { return pointers_.size(); }

private:
    struct slot {
        alignas(8) unsigned char bytes[8];
    };
    // deques: a new argument never moves the earlier ones, whose addresses are already taken
    std::deque<slot> slots_;
    std::deque<std::vector<long long>> dims_;
    std::vector<void*> pointers_;
};

} // namespace staticpy::cuda::detail
