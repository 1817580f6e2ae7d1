#!/usr/bin/env bash
# Builds the readers' libFuzzer targets with clang++ (fuzz/, docs/fuzzing.md) and runs each for
# SECONDS seconds, after writing their seed corpora:
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (default: 60 seconds, every target)
#
# In build/fuzz (or $FUZZ_BUILD_DIR): seeds/<target> (rewritten each run), corpus/<target> (what
# libFuzzer found, kept between runs) and crashes/<target>/ (inputs that crashed). Each run also
# starts from fuzz/regressions/<target>. A crash fails the script after every target has run;
# reproduce one with `build/fuzz/fuzz/fuzz_<target> <crash file>`, and once fixed, commit it as
# a regression input (fuzz/regressions/<target>/ and a line in its EXPECTED).
# $FUZZ_ARGS adds libFuzzer flags (e.g. FUZZ_ARGS="-jobs=2 -workers=2").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${FUZZ_BUILD_DIR:-$ROOT/build/fuzz}"
JOBS="$(nproc 2>/dev/null || echo 2)"
SECONDS_PER_TARGET="${1:-60}"
[[ $# -gt 0 ]] && shift
read -r -a EXTRA_ARGS <<< "${FUZZ_ARGS:-}"

if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]]; then
    echo "usage: $0 [SECONDS] [TARGET...]" >&2
    exit 2
fi

cmake -S "$ROOT" -B "$BUILD" -G "Unix Makefiles" \
    -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=Debug \
    -DSTATICPY_BUILD_FUZZERS=ON \
    -DSTATICPY_BUILD_TESTS=OFF \
    -DSTATICPY_BUILD_EXAMPLES=OFF \
    -DSTATICPY_WARNINGS_AS_ERRORS=ON \
    -DSTATICPY_SANITIZE=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target fuzz_targets

targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    for exe in "$BUILD"/fuzz/fuzz_*; do
        targets+=("${exe##*/fuzz_}")
    done
fi

rm -rf "$BUILD/seeds"
"$BUILD/fuzz/make_seed_corpus" "$BUILD/seeds"

# ASan/UBSan reports end the run (libFuzzer saves the input); an allocation above 128 MB is
# a crash too: no input of at most a few KB (decompressing to a few MB) needs one, and issue 8
# promises that a size a file claims never reaches the allocator.
failed=()
for target in "${targets[@]}"; do
    exe="$BUILD/fuzz/fuzz_$target"
    if [[ ! -x "$exe" ]]; then
        echo "fuzz.sh: no target '$target' (built: $(ls "$BUILD/fuzz" | grep '^fuzz_' | tr '\n' ' '))" >&2
        exit 2
    fi
    corpus="$BUILD/corpus/$target"
    crashes="$BUILD/crashes/$target/"
    mkdir -p "$corpus" "$crashes"
    inputs=("$corpus" "$BUILD/seeds/$target")
    [[ -d "$ROOT/fuzz/regressions/$target" ]] && inputs+=("$ROOT/fuzz/regressions/$target")
    echo "---- fuzz $target: ${SECONDS_PER_TARGET}s"
    start=$SECONDS
    if "$exe" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
            -malloc_limit_mb=128 -artifact_prefix="$crashes" -print_final_stats=1 \
            "${EXTRA_ARGS[@]}" "${inputs[@]}" > "$BUILD/$target.log" 2>&1; then
        echo "     $(grep -E '^stat::number_of_executed_units' "$BUILD/$target.log" |
                      awk '{print $2}') inputs in $((SECONDS - start))s, corpus" \
             "$(ls "$corpus" | wc -l) files"
    else
        failed+=("$target")
        echo "     CRASH after $((SECONDS - start))s: the report (full log: $BUILD/$target.log):"
        grep -E 'ERROR|SUMMARY|staticpy fuzz|runtime error|Test unit written' \
            "$BUILD/$target.log" | head -20 | sed 's/^/     /'
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz.sh: crashes in: ${failed[*]} (inputs in $BUILD/crashes/<target>/)"
    exit 1
fi
echo "fuzz.sh: no crash in ${#targets[@]} targets"
