#pragma once
// What every area's tests use to check an error: the message of the exception a call throws, the
// warnings written to std::cerr, and whether a sanitizer runtime is present (they reserve terabytes
// of address space and report huge allocations themselves, so tests of memory limits step aside
// under them).

#include <exception>
#include <iostream>
#include <sstream>
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

/// std::cerr's output while it lives (where warnings go).
class capture_cerr {
public:
    capture_cerr() : old_(std::cerr.rdbuf(out_.rdbuf())) {}
    capture_cerr(const capture_cerr&) = delete;
    capture_cerr& operator=(const capture_cerr&) = delete;
    ~capture_cerr() { std::cerr.rdbuf(old_); }
    [[nodiscard]] std::string text() const { return out_.str(); }

private:
    std::ostringstream out_;
    std::streambuf* old_;
};

} // namespace test_errors
