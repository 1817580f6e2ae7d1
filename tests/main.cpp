// The one Catch2 main for every staticpy test executable (built once, linked into each).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
