#pragma once
// staticpy's version, as macros and as staticpy::version. The numbers are the top-level
// CMakeLists.txt's project(VERSION ...), which is also the installed package's version; the test
// headers/version checks that they agree.

#define STATICPY_VERSION_MAJOR 0
#define STATICPY_VERSION_MINOR 1
#define STATICPY_VERSION_PATCH 0
#define STATICPY_VERSION "0.1.0"

namespace staticpy {
inline constexpr const char* version = STATICPY_VERSION;
} // namespace staticpy
