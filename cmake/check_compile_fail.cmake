# Runs one compile-fail case:  cmake -DCF_SOURCE=<file.cpp> -DCF_FLAGS_FILE=<flags.cmake> -P this
# (registered by StaticpyCompileFail.cmake; see tests/compile_fail/README.md).
#
#  (a) control:  -DSTATICPY_EXPECT_FAIL=0 must compile cleanly (warnings are errors);
#  (b) expect:   -DSTATICPY_EXPECT_FAIL=1 must fail, and the first output line containing
#                "error:" must contain the text from the file's first line "// expect: <text>".

cmake_minimum_required(VERSION 3.21)

foreach(_var CF_SOURCE CF_FLAGS_FILE)
    if(NOT DEFINED ${_var})
        message(FATAL_ERROR "check_compile_fail.cmake: -D${_var}=... is required")
    endif()
endforeach()
if(NOT EXISTS "${CF_FLAGS_FILE}")
    message(FATAL_ERROR "check_compile_fail.cmake: flags file ${CF_FLAGS_FILE} missing "
                        "(re-run the CMake configure/generate step)")
endif()
include("${CF_FLAGS_FILE}")

# --- the expectation ---------------------------------------------------------------------
file(READ "${CF_SOURCE}" _text)
string(REGEX MATCH "^[^\n]*" _first_line "${_text}")
string(REGEX REPLACE "\r$" "" _first_line "${_first_line}")
if(NOT _first_line MATCHES "^//[ \t]*expect:[ \t]*(.*)$")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE}: the first line must be\n"
                        "  // expect: <text the first compiler error must contain>\n"
                        "but it is\n  ${_first_line}")
endif()
string(STRIP "${CMAKE_MATCH_1}" _expected)
if(_expected STREQUAL "")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE}: empty '// expect:' text")
endif()
if(NOT _text MATCHES "STATICPY_EXPECT_FAIL")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE}: no '#if STATICPY_EXPECT_FAIL' block; "
                        "the offending code must be inside one")
endif()

# --- the command (shared with check_compiles.cmake) --------------------------------------------
include("${CMAKE_CURRENT_LIST_DIR}/staticpy_compile_command.cmake")

function(_cf_compile value out_rc out_log)
    execute_process(
        COMMAND ${_cmd} "-DSTATICPY_EXPECT_FAIL=${value}" "${CF_SOURCE}"
        RESULT_VARIABLE _rc
        OUTPUT_VARIABLE _out
        ERROR_VARIABLE _out
        TIMEOUT 300)
    # A compiler crash with the precompiled header (clang 14 on some jit cases): again without.
    if(NOT _cmd STREQUAL _cmd_no_pch AND _out MATCHES "frontend command failed|internal compiler error")
        execute_process(
            COMMAND ${_cmd_no_pch} "-DSTATICPY_EXPECT_FAIL=${value}" "${CF_SOURCE}"
            RESULT_VARIABLE _rc
            OUTPUT_VARIABLE _out
            ERROR_VARIABLE _out
            TIMEOUT 300)
    endif()
    set(${out_rc} "${_rc}" PARENT_SCOPE)
    set(${out_log} "${_out}" PARENT_SCOPE)
endfunction()

list(JOIN _cmd " " _cmd_text)
set(_cmd_text "${_cmd_text} -DSTATICPY_EXPECT_FAIL=<0|1> ${CF_SOURCE} ${_cmd_pch_note}")

# (a) control
if(DEFINED CF_CONTROL AND NOT CF_CONTROL)
    set(_rc 0) # the control compile is left out (STATICPY_COMPILE_FAIL_CONTROL=OFF)
else()
    _cf_compile(0 _rc _log)
endif()
if(NOT _rc EQUAL 0)
    message("command: ${_cmd_text}\n"
            "----- compiler output (STATICPY_EXPECT_FAIL=0) -----\n${_log}"
            "----------------------------------------------------")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE}: control compile failed "
                        "(the file must compile with STATICPY_EXPECT_FAIL=0; exit ${_rc})")
endif()

# (b) the case itself
_cf_compile(1 _rc _log)
if(_rc EQUAL 0)
    message("command: ${_cmd_text}\n"
            "----- compiler output (STATICPY_EXPECT_FAIL=1) -----\n${_log}"
            "----------------------------------------------------")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE}: compiled successfully with "
                        "STATICPY_EXPECT_FAIL=1, expected an error containing\n  ${_expected}")
endif()

# First line with "error:" (gcc: "f.cpp:3:5: error: static assertion failed: staticpy: ...",
# clang 14: "f.cpp:3:5: error: static_assert failed due to requirement '...' \"staticpy: ...\"").
string(REGEX MATCH "[^\n]*[ :]error:[^\n]*" _error_line "${_log}")
if(_error_line STREQUAL "")
    string(REGEX MATCH "[^\n]*error[^\n]*" _error_line "${_log}")
endif()
# clang quotes the message, escaping the quotes inside it (\"tuple\"): compare the text as written.
string(REPLACE "\\\"" "\"" _error_line "${_error_line}")
string(FIND "${_error_line}" "${_expected}" _pos)
if(_pos EQUAL -1)
    message("command: ${_cmd_text}\n"
            "expected text:    ${_expected}\n"
            "first error line: ${_error_line}\n"
            "----- compiler output (STATICPY_EXPECT_FAIL=1) -----\n${_log}"
            "----------------------------------------------------")
    message(FATAL_ERROR "FAIL: ${CF_SOURCE}: the first error does not contain the expected text\n"
                        "  expected:    ${_expected}\n"
                        "  first error: ${_error_line}")
endif()
message(STATUS "PASS: ${CF_SOURCE}\n  first error: ${_error_line}")
