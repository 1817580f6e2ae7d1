#pragma once
// Compile-time errors of list and dict that must show what Python shows.
//
// A static_assert's text is a string literal (until C++26), so it cannot contain the offending
// value or type name. Two mechanisms get them onto the first error line anyway:
//   - STATICPY_TYPE_ERROR_PER_KIND pastes each Python type name into one static_assert per kind,
//     of which only the one for the offending kind fires;
//   - a compile-time key or value rides as the template arguments of the class that raises the
//     error (raise::with<raise::KeyError, K> is raise::KeyError<'b'> for "b"_s; building it
//     fires its static_assert), so the class, arguments included, is printed with the error:
//       clang 14: error: static_assert failed due to requirement
//                 'raised<staticpy::raise::KeyError<'b'>>' "staticpy: KeyError: ..."
//       g++ 12:   In instantiation of 'struct staticpy::raise::KeyError<'b'>':
//                 ...
//                 error: static assertion failed: staticpy: KeyError: ...
//     g++ puts no part of a static_assert's condition on its error line (only in a note after
//     it), but names the class being built right above. An error of its own that g++ would print
//     first (an incomplete base naming the class) would make g++'s first error line something
//     other than "staticpy: ...".
//
// Why the arguments are values and a str a pack of chars (tried on g++ 12 and clang 14):
//   - a class-type template argument holding the text (fixed_string) is no text in clang 14,
//     which prints any class value by its members' numbers: KeyError<fs<3>{{39, 98, 39, 0}}>;
//     g++ prints it as a string, but escapes the quotes: fs<3>{"\'b\'"}. A struct of chars is
//     c3{'x', 'b', 'y'} in g++ and {120, 98, 121} in clang. Only a template argument of type
//     char prints as a character in both ('b', '\''; a byte above 127 is '\xc3' in clang,
//     '\37777777703' in g++);
//   - so a str shows as its characters without Python's quotes, each quoted as a char already:
//     "b" is <'b'>, "lr" is <'l', 'r'>, "" is <>. An int is an int (<5>; beyond int's range a long
//     long, 5000000000LL in clang), a bool <true>/<false>, None <nullptr>, and a float the bits
//     of its double (<(staticpy::detail::float_bits)4612811918334230528>: no compiler here prints
//     a floating-point template argument, and the shortest repr is not computed).
//   - No form puts Python's own text ("KeyError: 'b'") on both first lines: clang's message
//     comes after the requirement and is a literal, and g++ prints no template argument in a
//     static assertion's line.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "staticpy/core/constant.hpp"
#include "staticpy/core/value.hpp"

/// One static_assert per Python type named in `before "type" after`; k is the offending kind,
/// or detail::kind_handled_elsewhere for a kind the caller reports with its own text.
#define STATICPY_TYPE_ERROR_PER_KIND(k, before, after)                                             \
    static_assert((k) != ::staticpy::kind::none, "staticpy: TypeError: " before "NoneType" after); \
    static_assert((k) != ::staticpy::kind::boolean, "staticpy: TypeError: " before "bool" after);  \
    static_assert((k) != ::staticpy::kind::integer, "staticpy: TypeError: " before "int" after);   \
    static_assert((k) != ::staticpy::kind::floating,                                               \
                  "staticpy: TypeError: " before "float" after);                                   \
    static_assert((k) != ::staticpy::kind::string, "staticpy: TypeError: " before "str" after);    \
    static_assert((k) != ::staticpy::kind::list, "staticpy: TypeError: " before "list" after);     \
    static_assert((k) != ::staticpy::kind::tuple, "staticpy: TypeError: " before "tuple" after);   \
    static_assert((k) != ::staticpy::kind::dict, "staticpy: TypeError: " before "dict" after)

namespace staticpy {

namespace detail {

/// Matches no kind: STATICPY_TYPE_ERROR_PER_KIND then stays silent.
inline constexpr auto kind_handled_elsewhere = static_cast<kind>(-1);

/// k, or kind_handled_elsewhere when it is one of the kinds the caller words itself.
template <class... Handled>
constexpr kind unless(kind k, Handled... handled) {
    return ((k == handled) || ...) ? kind_handled_elsewhere : k;
}

/// The bits of a compile-time float, as a template argument that says it is one.
enum class float_bits : std::uint64_t {};

/// std::type_identity<Tag<args...>>, where args show the compile-time scalar V (see the top).
template <template <auto...> class Tag, class V>
constexpr auto tag_showing() {
    if constexpr (is_str_constant_v<V>) {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return std::type_identity<Tag<V::value[I]...>>{};
        }
        (std::make_index_sequence<V::value.size()>{});
    } else if constexpr (is_bool_constant_v<V>) {
        return std::type_identity<Tag<static_cast<bool>(V::value)>>{};
    } else if constexpr (is_int_constant_v<V>) {
        constexpr auto v = static_cast<long long>(V::value);
        // An int prints as 5 in both compilers, a long long as 5LL in clang's.
        if constexpr (v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max())
            return std::type_identity<Tag<static_cast<int>(v)>>{};
        else
            return std::type_identity<Tag<v>>{};
    } else if constexpr (is_float_constant_v<V>) {
        return std::type_identity<Tag<std::bit_cast<float_bits>(V::value)>>{};
    } else {
        static_assert(std::is_same_v<V, none_t>, "staticpy: internal: no scalar constant");
        return std::type_identity<Tag<nullptr>>{};
    }
}

} // namespace detail

/// The errors whose Python message shows a compile-time key or value: each is a class template
/// whose arguments show it (raise::KeyError<'b'>), and whose static_assert fires when the class
/// is built, as raise::with<raise::KeyError, K>{}.
namespace raise {
/// The static_assert's condition: false, and clang prints it with the class in full
/// ("requirement 'raised<staticpy::raise::KeyError<'b'>>'").
template <class Error>
inline constexpr bool raised = false;
template <auto... Key>
struct KeyError {
    static_assert(raised<KeyError>, "staticpy: KeyError: the key shown as the arguments of "
                                    "staticpy::raise::KeyError<...> is not in the dict");
};
template <auto... Value>
struct ValueError {
    static_assert(raised<ValueError>, "staticpy: ValueError: the value shown as the arguments "
                                      "of staticpy::raise::ValueError<...> is not in list");
};
/// Error with the arguments that show the compile-time scalar V: raise::with<raise::KeyError, K>.
template <template <auto...> class Error, class V>
using with = typename decltype(detail::tag_showing<Error, V>())::type;
} // namespace raise

} // namespace staticpy
