# Checks that one file compiles (-fsyntax-only, warnings as errors) against a target:
#   cmake -DCF_SOURCE=<file.cpp> -DCF_FLAGS_FILE=<flags.cmake> -P this
# Registered by staticpy_add_compiles_test() (StaticpyCompileFail.cmake), e.g. once per public
# header by tests/headers/CMakeLists.txt.

cmake_minimum_required(VERSION 3.21)

foreach(_var CF_SOURCE CF_FLAGS_FILE)
    if(NOT DEFINED ${_var})
        message(FATAL_ERROR "check_compiles.cmake: -D${_var}=... is required")
    endif()
endforeach()
include("${CF_FLAGS_FILE}")
set(CF_NO_PCH TRUE)  # a header alone: nothing precompiled before it
include("${CMAKE_CURRENT_LIST_DIR}/staticpy_compile_command.cmake")

execute_process(COMMAND ${_cmd} "${CF_SOURCE}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out TIMEOUT 300)
if(NOT _rc EQUAL 0)
    list(JOIN _cmd " " _cmd_text)
    file(READ "${CF_SOURCE}" _text)
    message("command: ${_cmd_text} ${CF_SOURCE}\n----- ${CF_SOURCE} -----\n${_text}"
            "----- compiler output -----\n${_out}")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE} does not compile (exit ${_rc})")
endif()
