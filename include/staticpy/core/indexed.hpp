#pragma once
// A pack of values, each reached by its position in one step: a class deriving from
// element<I, T> for each position I, from which get<I> and type_at<I> deduce T by overload
// resolution. std::tuple's get and tuple_element instead recurse over the pack (libstdc++ 12
// peels three types per instantiation, each naming the rest of the pack), and its constrained
// constructors check every element type whenever one is built; over a graph program's hundred
// slots, asked once per slot, that was minutes of the compiler's time.
//
//   indexed::pack<int, double> p{{1}, {2.5}};
//   indexed::get<1>(p)                     // 2.5
//   indexed::type_at<0, decltype(p)>       // int

#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>

namespace staticpy::indexed {

template <std::size_t I, class T>
struct element {
    using type = T;
    // An empty T takes no room: a graph node's operands are mostly nodes without run-time
    // attributes, which are then no bytes to copy.
    [[no_unique_address]] T value;
};

template <class Seq, class... T>
struct pack_of;
/// An aggregate: built as pack_of<...>{element<I, T>{v}...} or value-initialized.
template <std::size_t... I, class... T>
struct pack_of<std::index_sequence<I...>, T...> : element<I, T>... {};

template <class... T>
using pack = pack_of<std::index_sequence_for<T...>, T...>;

template <std::size_t I, class T>
constexpr T& get(element<I, T>& e) {
    return e.value;
}
template <std::size_t I, class T>
constexpr const T& get(const element<I, T>& e) {
    return e.value;
}

template <std::size_t I, class T>
element<I, T> element_at(const element<I, T>&); // declared only: for decltype

/// f(elements...): std::apply for a pack.
template <class F, std::size_t... I, class... T>
constexpr decltype(auto) apply(F&& f, const pack_of<std::index_sequence<I...>, T...>& p) {
    return static_cast<F&&>(f)(static_cast<const element<I, T>&>(p).value...);
}

/// Evaluates the elements of a pack expansion in order: `indexed::in_order{(f<S>(), 0)...};`.
/// Not a fold expression `(f<S>(), ...)`: clang rejects a fold of more than 256 operands (its
/// -fbracket-depth), and a graph program has more slots than that (a 16-layer MLP's training step
/// has 276). The elements of a braced list are evaluated in order, however many there are.
struct in_order {
    constexpr in_order() noexcept = default;
    constexpr in_order(std::initializer_list<int>) noexcept {}
};

/// The type at position I of a pack.
template <std::size_t I, class Pack>
using type_at = typename decltype(indexed::element_at<I>(std::declval<const Pack&>()))::type;

/// The number of elements of a pack.
template <class Pack>
struct size;
template <std::size_t... I, class... T>
struct size<pack_of<std::index_sequence<I...>, T...>>
    : std::integral_constant<std::size_t, sizeof...(T)> {};
template <class Pack>
inline constexpr std::size_t size_v = size<Pack>::value;

/// The elements of several packs, in order, as one pack: std::tuple_cat for packs. Each element
/// of the result is found in one step (which pack, which position), not by recursion over the
/// packs, and no constructor constraint checks the element types (graph nodes, whose names are
/// kilobytes long: std::tuple_cat of a training step's outputs checked each several times).
template <class... Packs>
constexpr auto cat(const Packs&... packs) {
    constexpr std::size_t count = (std::size_t{0} + ... + size_v<Packs>);
    struct place {
        std::size_t pack, index;
    };
    constexpr auto places = [] {
        constexpr std::array<std::size_t, sizeof...(Packs) + 1> sizes{size_v<Packs>..., 0};
        std::array<place, count + 1> at{};
        std::size_t j = 0;
        for (std::size_t p = 0; p < sizeof...(Packs); ++p)
            for (std::size_t k = 0; k < sizes[p]; ++k)
                at[j++] = {p, k};
        return at;
    }();
    using all = pack<Packs...>; // named only for type_at: never built
    const std::array<const void*, sizeof...(Packs) + 1> addresses{&packs..., nullptr};
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
        using result = pack<type_at<places[J].index, type_at<places[J].pack, all>>...>;
        return result{{get<places[J].index>(
            *static_cast<const type_at<places[J].pack, all>*>(addresses[places[J].pack]))}...};
    }
    (std::make_index_sequence<count>{});
}

} // namespace staticpy::indexed
