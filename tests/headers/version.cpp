// The version macros of core/config.hpp match CMake's project(VERSION ...), which also gives the
// installed package version (staticpyConfigVersion.cmake). CMake passes its numbers as
// CMAKE_VERSION_* (tests/headers/CMakeLists.txt); a mismatch is a compile error.
#include <staticpy/core/config.hpp>

#include <cstdio>
#include <string_view>

static_assert(STATICPY_VERSION_MAJOR == CMAKE_VERSION_MAJOR, "STATICPY_VERSION_MAJOR != CMake's");
static_assert(STATICPY_VERSION_MINOR == CMAKE_VERSION_MINOR, "STATICPY_VERSION_MINOR != CMake's");
static_assert(STATICPY_VERSION_PATCH == CMAKE_VERSION_PATCH, "STATICPY_VERSION_PATCH != CMake's");
static_assert(std::string_view(STATICPY_VERSION) == CMAKE_VERSION_STRING,
              "STATICPY_VERSION != CMake's project(VERSION)");
static_assert(std::string_view(staticpy::version) == STATICPY_VERSION);

int main() {
    std::printf("staticpy %s\n", STATICPY_VERSION);
    return 0;
}
