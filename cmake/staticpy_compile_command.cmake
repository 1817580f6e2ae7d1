# Script-mode helper (include() it from a `cmake -P` script after including a flags file written
# by StaticpyCompileFail.cmake). Sets
#   _cmd_base  the compiler with the C++20 flags, the project's warnings as errors, and the include
#              directories (dependencies as -isystem), definitions and options of the target;
#   _cmd       _cmd_base + "-x c++ -fsyntax-only" and, unless CF_NO_PCH is set, the precompiled
#              staticpy/staticpy.hpp (staticpy/core.hpp + containers.hpp when CF_SOURCE includes
#              nothing else of staticpy) when it exists and is newer than every staticpy header
#              (_cmd_pch_note says which);
#   _cmd_no_pch  the same without the precompiled header (clang 14 crashes on a few cases with
#              one: the checks retry a crashed compile with this);
# and an English, ASCII locale for the compiler's messages. The caller appends its own -D flags
# and the source file.

set(_cmd_base "${CF_COMPILER}" ${CF_CXX_FLAGS} -std=c++20
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
        list(APPEND _cmd_base "-I${_dir}")        # staticpy's headers: warnings apply
    else()
        list(APPEND _cmd_base -isystem "${_dir}") # dependencies (Boost, ...): as the build does
    endif()
endforeach()
foreach(_def IN LISTS CF_DEFINITIONS)
    if(NOT _def STREQUAL "")
        list(APPEND _cmd_base "-D${_def}")
    endif()
endforeach()
# An option given as "SHELL:-a b" (CMake's form for a flag with its value, kept together) is the
# words after SHELL:.
foreach(_opt IN LISTS CF_OPTIONS)
    if(_opt MATCHES "^SHELL:(.*)$")
        separate_arguments(_words UNIX_COMMAND "${CMAKE_MATCH_1}")
        list(APPEND _cmd_base ${_words})
    elseif(NOT _opt STREQUAL "")
        list(APPEND _cmd_base "${_opt}")
    endif()
endforeach()

set(_cmd ${_cmd_base} -x c++ -fsyntax-only)
set(_cmd_no_pch ${_cmd})
set(_cmd_pch_note "")
# A case that configures the library before including it (#define of a STATICPY_HAS_/NO_/USE_/
# DEFAULT_ macro, e.g. STATICPY_DEFAULT_DTYPE) cannot start from a header compiled without that.
if(DEFINED CF_SOURCE AND EXISTS "${CF_SOURCE}")
    file(STRINGS "${CF_SOURCE}" _configures
         REGEX "^[ \t]*#[ \t]*(define|undef)[ \t]+STATICPY_(HAS|NO|USE|DEFAULT)_")
    if(_configures)
        set(CF_NO_PCH TRUE)
    endif()
endif()
if(NOT CF_NO_PCH AND CF_PCH AND NOT CF_BUILDING_PCH)
    # A case whose staticpy includes are all of core/ and containers/ starts from the smaller
    # precompiled header of those two layers: it is read in a third of the time.
    if(CF_PCH_SMALL AND DEFINED CF_SOURCE)
        file(STRINGS "${CF_SOURCE}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]staticpy/")
        set(_small TRUE)
        foreach(_line IN LISTS _includes)
            if(NOT _line MATCHES "[<\"]staticpy/(core|containers)[/.]")
                set(_small FALSE)
                break()
            endif()
        endforeach()
        if(_includes AND _small)
            set(CF_PCH "${CF_PCH_SMALL}")
            set(CF_PCH_HEADER "${CF_PCH_SMALL_HEADER}")
        endif()
    endif()
    set(_fresh FALSE)
    if(EXISTS "${CF_PCH}")
        set(_fresh TRUE)
        file(GLOB_RECURSE _headers "${CF_PROJECT_SOURCE_DIR}/include/*.hpp")
        foreach(_header IN LISTS _headers)
            if("${_header}" IS_NEWER_THAN "${CF_PCH}")
                set(_fresh FALSE)
                break()
            endif()
        endforeach()
    endif()
    if(_fresh AND CF_COMPILER_ID STREQUAL "GNU")
        list(APPEND _cmd -include "${CF_PCH_HEADER}")   # g++ picks up the .gch beside it
    elseif(_fresh)
        list(APPEND _cmd -include-pch "${CF_PCH}")
    else()
        set(_cmd_pch_note "(the precompiled header ${CF_PCH} is missing or older than a header: compiled without it; build the project to refresh it)")
    endif()
endif()

set(ENV{LC_ALL} C)
set(ENV{LANG} C)
unset(ENV{GCC_COLORS})
