#pragma once
// Version and the one configuration switch every header sees.

#define STATICPY_VERSION_MAJOR 0
#define STATICPY_VERSION_MINOR 1
#define STATICPY_VERSION_PATCH 0

namespace staticpy {
inline constexpr const char* version = "0.1.0";
} // namespace staticpy
