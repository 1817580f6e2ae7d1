# install-consumer test: install this build tree into <build>/consumer-prefix, then configure,
# build and run tests/consumer (find_package(staticpy CONFIG REQUIRED)) against that prefix in
# <build>/consumer-build, with the same compiler and generator.
#
#   cmake -DSTATICPY_BUILD_DIR=<build> -DSTATICPY_CONSUMER_SOURCE_DIR=<tests/consumer>
#         -DSTATICPY_CXX_COMPILER=<c++> -DSTATICPY_GENERATOR=<generator>
#         [-DSTATICPY_CONFIG=<config>] [-DSTATICPY_BOOST_DIR=<dir>] -P check_install_consumer.cmake

cmake_minimum_required(VERSION 3.21)

foreach(_var STATICPY_BUILD_DIR STATICPY_CONSUMER_SOURCE_DIR STATICPY_CXX_COMPILER STATICPY_GENERATOR)
    if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
        message(FATAL_ERROR "check_install_consumer.cmake: -D${_var}=... is required")
    endif()
endforeach()

set(_prefix "${STATICPY_BUILD_DIR}/consumer-prefix")
set(_build "${STATICPY_BUILD_DIR}/consumer-build")
if(NOT DEFINED STATICPY_CONFIG OR STATICPY_CONFIG STREQUAL "")
    set(STATICPY_CONFIG Release)
endif()

function(_step what)
    message(STATUS "install-consumer: ${what}")
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
    if(NOT _rc EQUAL 0)
        list(JOIN ARGN " " _cmd)
        message("command: ${_cmd}\n----- output -----\n${_out}------------------")
        message(FATAL_ERROR "FAIL: install-consumer: ${what} failed (exit ${_rc})")
    endif()
endfunction()

# Fresh prefix and build every time, so stale files can't hide a broken install.
file(REMOVE_RECURSE "${_prefix}" "${_build}")

_step("install into ${_prefix}"
    "${CMAKE_COMMAND}" --install "${STATICPY_BUILD_DIR}" --prefix "${_prefix}"
                       --config "${STATICPY_CONFIG}")

set(_configure "${CMAKE_COMMAND}"
    -S "${STATICPY_CONSUMER_SOURCE_DIR}" -B "${_build}"
    -G "${STATICPY_GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${STATICPY_CXX_COMPILER}"
    "-DCMAKE_PREFIX_PATH=${_prefix}"
    "-DCMAKE_BUILD_TYPE=${STATICPY_CONFIG}"
    # Only the install may provide staticpy: never the build tree via the package registry.
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
if(DEFINED STATICPY_BOOST_DIR AND NOT STATICPY_BOOST_DIR STREQUAL "")
    list(APPEND _configure "-DBoost_DIR=${STATICPY_BOOST_DIR}")
endif()
_step("configure tests/consumer" ${_configure})

_step("build tests/consumer"
    "${CMAKE_COMMAND}" --build "${_build}" --config "${STATICPY_CONFIG}")

# Single-config generators put the executable in the build dir, multi-config in <config>/.
set(_exe "${_build}/staticpy_consumer")
if(NOT EXISTS "${_exe}" AND EXISTS "${_build}/${STATICPY_CONFIG}/staticpy_consumer")
    set(_exe "${_build}/${STATICPY_CONFIG}/staticpy_consumer")
endif()
_step("run staticpy_consumer" "${_exe}")

message(STATUS "install-consumer: PASS (staticpy found in ${_prefix})")
