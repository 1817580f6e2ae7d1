#!/usr/bin/env bash
# Zero run-time overhead of staticpy's dict: compiles the same computation written on a staticpy
# dict, on a hand-written struct and on a raw hana::map (benchmarks/zero_overhead/*.cpp, each
# exporting `zo_chain`) with -O2, and compares the machine code of zo_chain, normalised (no
# addresses, no symbol names; jump targets become instruction numbers). Then it builds
# benchmarks/dict_runtime_bench.cpp and prints the three variants' CPU time side by side.
#
#   benchmarks/zero_overhead.sh                    # g++ and clang++
#   benchmarks/zero_overhead.sh --no-bench clang++ # machine code only, one compiler
#   benchmarks/zero_overhead.sh --show g++         # also print the normalised listings
#
# Exit status 1 when, for some compiler, the staticpy version of zo_chain has more instructions
# than the struct version (a different register allocation or block order of the same length is
# reported, with the diff, but is not a failure).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
bench=1
show=0
compilers=()
for arg in "$@"; do
    case "$arg" in
        --no-bench) bench=0 ;;
        --show) show=1 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) compilers+=("$arg") ;;
    esac
done
[ ${#compilers[@]} -gt 0 ] || compilers=(g++ clang++)

work="$(mktemp -d "${TMPDIR:-/tmp}/staticpy_zero_overhead.XXXXXX")"
trap 'rm -rf "$work"' EXIT

flags=(-std=c++20 -O2 -DNDEBUG "-I$repo/include")
variants=(struct staticpy hana)

# The instructions of one function, normalised: "mnemonic operands", jump/call targets inside the
# function replaced by the number of the instruction they land on (L<n>), other targets by <ext>,
# comments and the symbolic <sym+off> annotations dropped.
normalised() {  # object symbol
    objdump -d --no-show-raw-insn --disassemble="$2" "$1" |
        awk '
            /^ *[0-9a-f]+:\t/ {
                addr = $1; sub(/:$/, "", addr); sub(/^ */, "", addr)
                line = $0; sub(/^ *[0-9a-f]+:\t/, "", line)
                sub(/ *#.*$/, "", line)
                n++; index_of[addr] = n; text[n] = line
            }
            END {
                for (i = 1; i <= n; i++) {
                    line = text[i]
                    if (match(line, /[0-9a-f]+ <[^>]*>/)) {
                        target = substr(line, RSTART, RLENGTH); sub(/ .*/, "", target)
                        label = (target in index_of) ? "L" index_of[target] : "<ext>"
                        line = substr(line, 1, RSTART - 1) label substr(line, RSTART + RLENGTH)
                    }
                    gsub(/[ \t]+/, " ", line); sub(/ $/, "", line)
                    print line
                }
            }'
}

# The other functions in an object (static initialisers, out-of-line helpers) and their size.
others() {  # object
    objdump -d --no-show-raw-insn "$1" |
        awk '/^[0-9a-f]+ <.*>:$/ { name = $2 } /^ *[0-9a-f]+:\t/ { if (name != "<zo_chain>:") count[name]++ }
             END { for (f in count) printf "%s %d instructions; ", f, count[f] }'
}

status=0
for cxx in "${compilers[@]}"; do
    if ! command -v "$cxx" > /dev/null; then
        echo "zero_overhead.sh: $cxx not found, skipped" >&2
        continue
    fi
    echo "=== $cxx ($("$cxx" --version | head -n 1)), ${flags[*]/#-I*/-I<repo>/include}"
    for v in "${variants[@]}"; do
        "$cxx" "${flags[@]}" -c "$here/zero_overhead/$v.cpp" -o "$work/$v.o"
        normalised "$work/$v.o" zo_chain > "$work/$cxx.$v.s"
    done
    printf '%-10s %s\n' "variant" "instructions in zo_chain"
    for v in "${variants[@]}"; do
        printf '%-10s %s\n' "$v" "$(wc -l < "$work/$cxx.$v.s")"
    done
    compare() {  # a b: prints the verdict; returns 1 when b is longer than a
        local a="$1" b="$2" na nb
        na=$(wc -l < "$work/$cxx.$a.s"); nb=$(wc -l < "$work/$cxx.$b.s")
        if cmp -s "$work/$cxx.$a.s" "$work/$cxx.$b.s"; then
            echo "$b vs $a: IDENTICAL machine code ($nb instructions)"
        elif [ "$nb" -le "$na" ]; then
            if [ "$nb" -eq "$na" ]; then local how="same length"; else local how="SHORTER"; fi
            echo "$b vs $a: $how ($nb vs $na instructions), different register use or block layout:"
            diff -u --label "$a" --label "$b" "$work/$cxx.$a.s" "$work/$cxx.$b.s" | sed 1,2d || true
        else
            echo "$b vs $a: LONGER by $((nb - na)) instructions ($nb vs $na):"
            diff -u --label "$a" --label "$b" "$work/$cxx.$a.s" "$work/$cxx.$b.s" | sed 1,2d || true
            return 1
        fi
    }
    compare struct staticpy || status=1
    compare struct hana || true
    cmp -s "$work/$cxx.struct.s" "$work/$cxx.staticpy.s" || compare hana staticpy || true
    for v in "${variants[@]}"; do
        rest="$(others "$work/$v.o")"
        [ -n "$rest" ] && echo "outside zo_chain, $v.o also holds: $rest(a static initialiser:" \
            "<iostream>'s std::ios_base::Init, run once at start-up)"
    done
    if [ "$show" = 1 ]; then
        echo "--- normalised zo_chain (struct):"
        cat "$work/$cxx.struct.s"
    fi

    if [ "$bench" = 1 ]; then
        exe="$work/dict_runtime_bench.$cxx"
        if "$cxx" "${flags[@]}" "$here/dict_runtime_bench.cpp" -o "$exe" -lbenchmark -lpthread 2> "$work/bench.err"; then
            echo "--- Google Benchmark (CPU ns per call, median of 5 repetitions, same run):"
            "$exe" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
                --benchmark_format=csv 2> /dev/null |
                awk -F, '
                    /_median"?,/ {
                        name = $1; gsub(/"/, "", name); sub(/_median$/, "", name)
                        split(name, part, "/"); variant = part[1]; sub(/^BM_dict_chain_/, "", variant)
                        cpu[part[2], variant] = $4; args[part[2]] = 1
                    }
                    END {
                        printf "%-8s %12s %12s %12s %16s\n", "epochs", "struct ns", "staticpy ns", "hana ns", "staticpy/struct"
                        for (a = 0; a <= 64; a++) if (a in args)
                            printf "%-8s %12.2f %12.2f %12.2f %16.3f\n", a, cpu[a, "hand_struct"],
                                   cpu[a, "staticpy"], cpu[a, "hana_map"], cpu[a, "staticpy"] / cpu[a, "hand_struct"]
                    }'
        else
            echo "--- Google Benchmark not built (libbenchmark-dev missing?): $(head -n 1 "$work/bench.err")"
        fi
    fi
    echo
done
exit "$status"
