#!/usr/bin/env bash
# Builds and runs every staticpy test, in four passes:
#   gcc    build/gcc    g++,     compiled kernels (STATICPY_COMPILED_KERNELS=ON: GEMM, convolution,
#                                pooling and softmax compiled once, in staticpy::kernels; the clang
#                                pass checks the header-only default),
#                                optimised (-O2: the vectorised paths users run; not Release's
#                                -O3, which compiles the nn and graph tests in twice the time,
#                                168 s against 91 s for tests/nn/modules_test, nearly all of it
#                                inlining and code generation), -Werror, all labels (unit,
#                                headers, layers, readme/docs, install) but compile-fail (the
#                                clang pass checks those) and the derivative tests (autodiff:
#                                ~12 minutes of build per pass; the clang pass runs them under
#                                the sanitizers; docs/autodiff.md's snippets still build here)
#                                and the emulated-device tests (cuda-codegen/emulated_*: built at
#                                -O0 in any pass, their run the stand-in NVRTC's compiles, 2.5
#                                minutes of this pass; with them the real NVRTC's sweep of the
#                                kernels they generate, cuda-codegen/nvrtc_sweep, 25 s) and the
#                                jit test's scalar twin (2.4 minutes of its CPU; the clang pass
#                                runs both under the sanitizers, the sweep without them); the
#                                labels nn and graph compiled as a check only, neither linked nor
#                                run (STATICPY_TEST_CHECK_ONLY_LABELS: g++'s front end, every
#                                template they instantiate and its warnings as errors, at a third
#                                of a -O1 build's time, which was 16 of this pass's 35 minutes of
#                                CPU: code generation for hundreds of graph functions per file;
#                                the clang pass builds and runs them under the sanitizers, and the
#                                examples, compiled here at -O2, instantiate the same models,
#                                training steps and graphs), and so is the label cuda on a machine
#                                without a GPU (every case would skip); the labels docs and
#                                distributed at -O1 (STATICPY_TEST_O1_LABELS: their checks are
#                                semantics, the snippets' results and the collectives' and
#                                data-parallel training's values; the kernels they run are
#                                compiled at -O2 by the kernels and backend tests and the demo)
#   clang  build/clang  clang++, Debug, -Werror, under AddressSanitizer + UndefinedBehaviorSanitizer
#                                (one build is both the clang pass and the sanitizer pass), all
#                                labels but headers (each header compiled alone: once is enough)
#                                and install (the install and find_package check: compiler-
#                                independent); without the examples (compiled by the gcc pass,
#                                never run) and the README's and docs' snippets (labels readme
#                                and docs: 2.5 minutes of build for code the unit tests run under
#                                the sanitizers; the gcc pass compiles and runs them), with
#                                line tables only for debug info (-gline-tables-only: all the
#                                sanitizers' stack traces need, 2-20% less compile time), and
#                                without UBSan's alignment and null checks (13 % of the pass's
#                                compile time; ASan still stops at a null dereference), with the
#                                op table's graph-against-eager checks (tests/autodiff/op_table_*:
#                                ~100 ops, 8 minutes of clang CPU) compiled without the
#                                sanitizers' instrumentation (14 s an op with it, 8.5 without:
#                                their checks are numbers; the ops' memory is the other tests'), and
#                                without the GPU tests (tests/cuda, label cuda: every case skips
#                                on a machine without a GPU; the gcc pass builds and runs them),
#                                and without the MPI tests (tests/distributed, label distributed,
#                                STATICPY_DISTRIBUTED_TESTS=OFF: Open MPI's own allocations at
#                                MPI_Init, never freed by design, are leaks to LeakSanitizer, and
#                                its ranks run under mpirun, outside what ASan checks of our
#                                code; the gcc pass builds and runs them, and they are compiled
#                                warning-free with clang++ too)
# The compile-fail cases (184, label compile-fail) are checked in the clang pass only, where they
# take 1.1 s each against g++'s 1.5 s (2.3 minutes of the gcc pass; the suite passed 45 minutes
# with both), without their control compile (the case minus its offending code, which must
# compile): the promised first error, a "staticpy: <PythonError>" text, is what shows that a case
# fails for its reason. A plain CMake build (STATICPY_COMPILE_FAIL_CONTROL=ON) checks the
# controls too, with either compiler: use one when adding or changing a case (ctest -L
# compile-fail).
#   tsan   build/tsan   g++,     Debug, -Werror, ThreadSanitizer: the DataLoader's tests only
#   fuzz   build/fuzz   clang++, the readers' libFuzzer targets, 3 seconds each (scripts/fuzz.sh)
# Installs the missing Debian packages first (cmake make g++ libboost-dev clang catch2 ...).
# Prints each pass's time and, in the summary, the total.
#
#   scripts/test.sh [gcc] [clang] [tsan] [fuzz]     (default: all four; asan = clang)
# Extra ctest arguments can be given in $CTEST_ARGS (e.g. CTEST_ARGS="-L containers").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="$(nproc 2>/dev/null || echo 2)"
read -r -a EXTRA_CTEST_ARGS <<< "${CTEST_ARGS:-}"

"$ROOT/scripts/install-deps.sh" test

passes=("$@")
if [[ ${#passes[@]} -eq 0 ]]; then
    passes=(gcc clang tsan fuzz)
fi

# ASan/UBSan: fail on the first report, with a stack.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# The gcc pass's labels compiled as a check only: tests/cuda too where there is no GPU (each of
# its cases would skip); with one, the pass builds and runs them.
gcc_check_only="nn;graph"
if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
    gcc_check_only+=";cuda"
fi

summary=()
failed=0
total_start=$SECONDS

# run_pass <name> <compiler> <ctest args...> -- <cmake args...>
# $BUILD_TARGET, when set, builds that target only; $BUILD_TYPE (default Debug) is the build type.
run_pass() {
    local name="$1" cxx="$2"
    shift 2
    local ctest_args=()
    while [[ $# -gt 0 && "$1" != "--" ]]; do
        ctest_args+=("$1")
        shift
    done
    [[ $# -gt 0 ]] && shift
    local build="$ROOT/build/$name"
    local start=$SECONDS

    echo
    echo "================ pass: $name ($cxx) in build/$name ================"
    if [[ -f "$build/CMakeCache.txt" ]] &&
       ! grep -q '^CMAKE_GENERATOR:INTERNAL=Unix Makefiles$' "$build/CMakeCache.txt"; then
        rm -rf "$build"
    fi
    if ! cmake -S "$ROOT" -B "$build" -G "Unix Makefiles" \
            -DCMAKE_CXX_COMPILER="$cxx" \
            -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Debug}" \
            -DSTATICPY_BUILD_TESTS=ON \
            -DSTATICPY_BUILD_EXAMPLES=ON \
            -DSTATICPY_BUILD_BENCHMARKS=OFF \
            -DSTATICPY_WARNINGS_AS_ERRORS=ON \
            "$@"; then
        summary+=("FAIL  $name: configure failed ($((SECONDS - start))s)")
        return 1
    fi
    if ! cmake --build "$build" -j "$JOBS" ${BUILD_TARGET:+--target "$BUILD_TARGET"}; then
        summary+=("FAIL  $name: build failed ($((SECONDS - start))s)")
        return 1
    fi
    if ! (cd "$build" && ctest --output-on-failure -j "$JOBS" \
            "${ctest_args[@]}" "${EXTRA_CTEST_ARGS[@]}"); then
        summary+=("FAIL  $name: tests failed ($((SECONDS - start))s)")
        return 1
    fi
    summary+=("PASS  $name ($((SECONDS - start))s)")
}

# The fuzz targets, briefly: enough for a regression in a reader to crash within the run.
fuzz_pass() {
    local start=$SECONDS
    echo
    echo "================ pass: fuzz (clang++) in build/fuzz ================"
    if ! "$ROOT/scripts/fuzz.sh" "${FUZZ_SECONDS:-3}"; then
        summary+=("FAIL  fuzz: a fuzz target crashed or did not build ($((SECONDS - start))s)")
        return 1
    fi
    summary+=("PASS  fuzz ($((SECONDS - start))s)")
}

for pass in "${passes[@]}"; do
    case "$pass" in
        gcc)   BUILD_TYPE=Release run_pass gcc g++ -LE compile-fail -- \
                   -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
                   -DSTATICPY_SANITIZE=OFF -DSTATICPY_COMPILE_FAIL_CONTROL=OFF \
                   -DSTATICPY_COMPILED_KERNELS=ON \
                   -DSTATICPY_COMPILE_FAIL_PCH=OFF -DSTATICPY_AUTODIFF_TESTS=OFF \
                   -DSTATICPY_EMULATED_DEVICE_TESTS=OFF -DSTATICPY_SCALAR_JIT_TEST=OFF \
                   "-DSTATICPY_TEST_O1_LABELS=docs;distributed" \
                   "-DSTATICPY_TEST_CHECK_ONLY_LABELS=$gcc_check_only" || failed=1 ;;
        clang|asan)
               run_pass clang clang++ -LE '^(headers|install|distributed)$' -- \
                   -DSTATICPY_SANITIZE=ON \
                   -DSTATICPY_SANITIZE_SKIP=alignment,null -DSTATICPY_COMPILE_FAIL_CONTROL=OFF \
                   -DSTATICPY_BUILD_EXAMPLES=OFF -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
                   -DSTATICPY_CUDA_DEVICE_TESTS=OFF -DSTATICPY_DOC_TESTS=OFF \
                   -DSTATICPY_DISTRIBUTED_TESTS=OFF ||
                   failed=1 ;;
        tsan)  BUILD_TARGET=data_dataloader_tsan_test run_pass tsan g++ -R dataloader_tsan -- \
                   -DSTATICPY_SANITIZE=OFF -DSTATICPY_TSAN_TESTS=ON -DSTATICPY_BUILD_EXAMPLES=OFF ||
                   failed=1 ;;
        fuzz)  fuzz_pass || failed=1 ;;
        *) echo "test.sh: unknown pass '$pass' (expected gcc, clang, tsan or fuzz; asan = clang)" >&2
           exit 2 ;;
    esac
done

echo
echo "================ summary ================"
for line in "${summary[@]}"; do
    echo "$line"
done
echo "total: $((SECONDS - total_start))s"
if [[ $failed -ne 0 ]]; then
    echo "test.sh: FAILED"
    exit 1
fi
echo "test.sh: all passes OK"
