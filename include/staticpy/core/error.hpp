#pragma once
// Run-time errors, named after Python's built-in exceptions so that a Python user recognises them.
// Compile-time errors are static_asserts (or constrained overloads) whose text starts with
// "staticpy:" and names the same exception; where Python shows the offending key or value, the
// class that raises the error carries it as its template arguments (containers/diagnostics.hpp).

#include <stdexcept>
#include <string>

namespace staticpy {

/// Base of every exception staticpy throws; catch it to catch them all.
///   try { l.index(x); } catch (const staticpy::Error& e) { std::puts(e.what()); }
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    /// The Python name of the exception ("IndexError", ...).
    [[nodiscard]] virtual const char* python_name() const noexcept { return "Error"; }
};

#define STATICPY_DEFINE_ERROR(Name)                                                                \
    class Name : public Error {                                                                    \
    public:                                                                                        \
        using Error::Error;                                                                        \
        [[nodiscard]] const char* python_name() const noexcept override { return #Name; }          \
    }

STATICPY_DEFINE_ERROR(IndexError);
STATICPY_DEFINE_ERROR(KeyError);
STATICPY_DEFINE_ERROR(ValueError);
STATICPY_DEFINE_ERROR(TypeError);
STATICPY_DEFINE_ERROR(RuntimeError);
// Python's MemoryError: an allocation failed. Thrown instead of std::bad_alloc wherever staticpy
// allocates on behalf of a size it was given (tensor storage, reader buffers), so that one
// `catch (const staticpy::Error&)` also sees memory running out.
STATICPY_DEFINE_ERROR(MemoryError);

#undef STATICPY_DEFINE_ERROR

namespace detail {
/// A dependent false, so that a static_assert fires only when its template is instantiated.
template <class...>
inline constexpr bool always_false = false;
} // namespace detail

} // namespace staticpy
