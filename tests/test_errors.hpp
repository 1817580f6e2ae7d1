#pragma once
// What every area's tests use to check an error: the message of the exception a call throws, and
// whether a sanitizer runtime is present (they reserve terabytes of address space and report
// huge allocations themselves, so tests of memory limits step aside under them).

#include <exception>
#include <string>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STATICPY_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STATICPY_TEST_SANITIZED 1
#endif
#endif

namespace test_errors {

/// The message of the E that f throws, or a note that it threw none (or another type).
template <class E, class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("<another exception: ") + e.what() + ">";
    }
    return "<no exception>";
}

} // namespace test_errors
