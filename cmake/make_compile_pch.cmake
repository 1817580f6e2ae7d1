# Precompiles staticpy/staticpy.hpp for the compile-fail checks, with exactly their flags:
#   cmake -DCF_FLAGS_FILE=<flags.cmake> [-DCF_PCH_WHICH=small] -P this
# (small: staticpy/core.hpp + staticpy/containers.hpp, for the cases that include no more)
# (a build step added by StaticpyCompileFail.cmake; the checks fall back to no PCH without it).
cmake_minimum_required(VERSION 3.21)
include("${CF_FLAGS_FILE}")
set(CF_BUILDING_PCH TRUE)
include("${CMAKE_CURRENT_LIST_DIR}/staticpy_compile_command.cmake")
if(CF_PCH_WHICH STREQUAL "small")
    # The cases that include only core/ and containers/ headers (staticpy_compile_command.cmake).
    set(CF_PCH "${CF_PCH_SMALL}")
    set(CF_PCH_HEADER "${CF_PCH_SMALL_HEADER}")
    set(_content "#include <staticpy/core.hpp>\n#include <staticpy/containers.hpp>\n")
else()
    set(_content "#include <staticpy/staticpy.hpp>\n")
endif()
file(WRITE "${CF_PCH_HEADER}" "${_content}")
execute_process(COMMAND ${_cmd_base} -x c++-header "${CF_PCH_HEADER}" -o "${CF_PCH}.tmp"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
    file(REMOVE "${CF_PCH}.tmp")
    message(FATAL_ERROR "precompiling ${CF_PCH_HEADER} failed (exit ${_rc}):\n${_out}")
endif()
file(RENAME "${CF_PCH}.tmp" "${CF_PCH}")
