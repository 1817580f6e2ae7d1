#pragma once
// DataLoader(pin_memory=true): every tensor of a batch copied into page-locked host memory, as
// PyTorch's torch/utils/data/_utils/pin_memory.py walks a batch: tensors are pinned, mappings and
// sequences are walked, an object with a pin_memory() method is replaced by what it returns, and
// anything else (numbers, strings) is left as it is. Pinning never changes a batch's type, so the
// walk works in place.

#include <array>
#include <concepts>
#include <cstddef>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticpy/containers/dict.hpp"
#include "staticpy/containers/list.hpp"
#include "staticpy/core/device.hpp"
#include "staticpy/core/traits.hpp"

namespace staticpy::data::detail {

/// Whether pinning can be done: a program that includes the CUDA backend, on a machine where a
/// device can be used. PyTorch warns and leaves batches unpinned otherwise.
inline bool can_pin_memory() noexcept {
    const staticpy::detail::device_memory_hooks* hooks = staticpy::detail::cuda_memory_hooks();
    return hooks != nullptr && hooks->available();
}

template <class T>
void pin_in_place(T& value) {
    if constexpr (requires {
                      { value.pin_memory() } -> std::convertible_to<T>;
                  }) {
        value = value.pin_memory(); // a tensor, or a batch type of the user's
    } else if constexpr (traits::is_std_tuple_or_pair_v<T>) {
        std::apply([](auto&... e) { (pin_in_place(e), ...); }, value);
    } else if constexpr (is_list_v<T>) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (pin_in_place(value.template at<I>()), ...);
        }
        (std::make_index_sequence<T::size()>{});
    } else if constexpr (is_dict_v<T>) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (pin_in_place(value[T::template key_at<I>()]), ...);
        }
        (std::make_index_sequence<T::size()>{});
    } else if constexpr (requires { typename T::mapped_type; }) {
        for (auto& entry : value)
            pin_in_place(entry.second);
    } else if constexpr (std::is_same_v<T, std::string>) {
        // a string is a sequence of characters to Python, and left alone by pin_memory
    } else if constexpr (requires {
                             value.begin();
                             value.end();
                         }) {
        for (auto& e : value) // std::vector, std::array
            pin_in_place(e);
    }
}

} // namespace staticpy::data::detail
