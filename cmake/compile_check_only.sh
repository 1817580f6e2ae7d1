#!/bin/sh
# A compiler launcher (CXX_COMPILER_LAUNCHER) for the test targets that are compiled only as a
# check (STATICPY_TEST_CHECK_ONLY_LABELS, tests/CMakeLists.txt): it runs the compile command it is
# given with -fsyntax-only (the front end: every template the file instantiates, and its warnings
# as errors), then leaves an empty file where the object would be, so that make sees the target
# built and rebuilds it only when the file or a header it includes changes (the dependency file
# is still written). Any launcher after it on the line (ccache, a timer) runs the compiler.
#   compile_check_only.sh [launcher...] <compiler> <args...> -o <object> -c <source>
object=""
previous=""
for argument in "$@"; do
    if [ "$previous" = "-o" ]; then
        object="$argument"
    fi
    previous="$argument"
done
"$@" -fsyntax-only || exit $?
if [ -n "$object" ]; then
    : >"$object"
fi
