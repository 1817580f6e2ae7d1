# Script-mode helper (include() it from a `cmake -P` script after including a flags file written
# by StaticpyCompileFail.cmake): sets _cmd to the command line that compiles one C++20 file
# against that target with -fsyntax-only and the project's warnings as errors, the target's include
# directories (dependencies as -isystem), definitions and options, and sets an English, ASCII
# locale for the compiler's messages. The caller appends its own -D flags and the source file.

set(_cmd "${CF_COMPILER}" ${CF_CXX_FLAGS}
    -x c++ -std=c++20 -fsyntax-only
    -Wall -Wextra -Wpedantic -Werror
    -fdiagnostics-color=never -fmessage-length=0)

foreach(_dir IN LISTS CF_INCLUDE_DIRS)
    if(_dir STREQUAL "")
        continue()
    endif()
    list(FIND CF_IMPLICIT_INCLUDE_DIRS "${_dir}" _implicit)
    if(NOT _implicit EQUAL -1)
        continue()  # -I/usr/include would reorder the compiler's own include_next chain
    endif()
    string(FIND "${_dir}" "${CF_PROJECT_SOURCE_DIR}/" _own)
    if(_own EQUAL 0)
        list(APPEND _cmd "-I${_dir}")        # staticpy's headers: warnings apply
    else()
        list(APPEND _cmd -isystem "${_dir}") # dependencies (Boost, ...): as the build does
    endif()
endforeach()
foreach(_def IN LISTS CF_DEFINITIONS)
    if(NOT _def STREQUAL "")
        list(APPEND _cmd "-D${_def}")
    endif()
endforeach()
list(APPEND _cmd ${CF_OPTIONS})

set(ENV{LC_ALL} C)
set(ENV{LANG} C)
unset(ENV{GCC_COLORS})
