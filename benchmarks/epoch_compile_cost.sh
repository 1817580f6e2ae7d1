#!/usr/bin/env bash
# Issue 11: the compile cost of the training example, examples/train_fashion_mnist.cpp (staticpy),
# beside dlib's equivalent program, benchmarks/epoch_dlib_example.cpp (the same MLP, data,
# training loop, progress line, test accuracy and CSV log, written as dlib's examples write them),
# each compiled with g++ and with clang++ in the same run, interleaved (every repetition compiles
# all four once, so a slow minute of a shared machine hits all alike).
#
#   benchmarks/epoch_compile_cost.sh [build-dir]     (default build/bench; about 4 compiles of
#                                                     1-5 min each per repetition on 2 cores)
#
# Each compiler gets its own CMake configuration, <build-dir>/compile-cost-<compiler> (configured
# only, nothing is built there): Release (-O3 -DNDEBUG) with -march=native for the whole build,
# as scripts/demo.sh builds the example, the examples and benchmarks on. The two translation units'
# command lines come from its compile_commands.json, as CMake writes them; each is compiled alone
# (-c, object to /dev/null, no dependency file, no -Werror), under /usr/bin/time -v: wall seconds,
# user + system CPU seconds and the compiler's peak resident memory (cc1plus or clang -cc1).
# dlib's part is only what its headers cost: libdlib.so is prebuilt, and linking is not measured
# (for either program).
#
# Environment:
#   EPOCH_COMPILE_REPEAT=1     repetitions (the table gives the median)
#   EPOCH_COMPILERS="g++ clang++"
#   EPOCH_COMPILE_STATICPY_SOURCE=file   compile this file with the example's command line instead
#                              (e.g. a commit's version: git show HEAD:examples/train_fashion_mnist.cpp)
#   BENCH_CMAKE_ARGS=...       extra arguments for the configure steps
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
repeat="${EPOCH_COMPILE_REPEAT:-1}"
compilers="${EPOCH_COMPILERS:-g++ clang++}"

for cxx in $compilers; do
    if ! command -v "$cxx" >/dev/null; then
        echo "epoch_compile_cost: $cxx not found (apt-get install clang for clang++): skipped" >&2
        continue
    fi
    dir="$build/compile-cost-$cxx"
    echo "epoch_compile_cost: configuring $dir ..." >&2
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_FLAGS=-march=native -DSTATICPY_BUILD_TESTS=OFF \
        -DSTATICPY_BUILD_EXAMPLES=ON -DSTATICPY_BUILD_BENCHMARKS=ON \
        -DSTATICPY_WARNINGS_AS_ERRORS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
        ${BENCH_CMAKE_ARGS:-} >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log" >&2; exit 1; }
done

python3 - "$build" "$repeat" "$compilers" "${EPOCH_COMPILE_STATICPY_SOURCE:-}" <<'PY'
import json, os, re, shlex, statistics, subprocess, sys

build, repeat, compilers, staticpy_source = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), \
    sys.argv[4]
PROGRAMS = [("staticpy", "examples/train_fashion_mnist.cpp"),
            ("dlib", "benchmarks/epoch_dlib_example.cpp")]

def command(cxx, suffix, source=None):
    path = os.path.join(build, f"compile-cost-{cxx}", "compile_commands.json")
    if not os.path.exists(path):
        return None
    entry = next((e for e in json.load(open(path)) if e["file"].endswith(suffix)), None)
    if entry is None:
        return None
    args = shlex.split(entry["command"])
    # the compile alone: no dependency file, object to /dev/null, no -Werror
    clean, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-MT", "-MF", "-o"):
            skip = True
            continue
        if a in ("-MD", "-Werror"):
            continue
        clean.append(os.path.abspath(source) if source and a == entry["file"] else a)
    return clean + ["-o", "/dev/null"], entry["directory"]

def measure(cmd, cwd):
    r = subprocess.run(["/usr/bin/time", "-v"] + cmd, cwd=cwd, capture_output=True, text=True)
    text = r.stderr
    field = lambda label: re.search(re.escape(label) + r":\s*(\S+)", text).group(1)
    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
    wall_s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    cpu_s = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss_mib = int(field("Maximum resident set size (kbytes)")) / 1024
    if r.returncode != 0:
        tail = "\n".join(l for l in text.splitlines()[:20])
        print(f"epoch_compile_cost: exit {r.returncode}:\n{tail}", file=sys.stderr)
    return wall_s, cpu_s, rss_mib, r.returncode

cmds = {}
for cxx in compilers:
    for lib, suffix in PROGRAMS:
        c = command(cxx, suffix, staticpy_source if lib == "staticpy" else None)
        if c is None:
            print(f"epoch_compile_cost: no command for {suffix} with {cxx} (dlib: apt-get install "
                  f"libdlib-dev; the benchmarks need libbenchmark-dev): left out", file=sys.stderr)
        else:
            cmds[(cxx, lib)] = c
results = {k: [] for k in cmds}
for rep in range(1, repeat + 1):
    for (cxx, lib), (cmd, cwd) in cmds.items():
        print(f"epoch_compile_cost: repetition {rep} of {repeat}: {lib} with {cxx} ...",
              file=sys.stderr)
        results[(cxx, lib)].append(measure(cmd, cwd))

versions = {cxx: subprocess.run([cxx, "--version"], capture_output=True, text=True)
            .stdout.splitlines()[0] for cxx in compilers if any(k[0] == cxx for k in cmds)}
print("Compile cost of the training example (one translation unit, compile only, the flags below; "
      f"median of {repeat}):\n")
print("```")
for cxx, v in versions.items():
    print(f"{cxx}: {v}")
for (cxx, lib), (cmd, _) in cmds.items():
    # without include paths (-I<dir>, -isystem <dir>)
    shown = [a for i, a in enumerate(cmd)
             if not a.startswith(("-I", "-isystem")) and (i == 0 or cmd[i - 1] != "-isystem")]
    print(f"{lib}, {cxx}: {' '.join(shown[1:])}")
print("```\n")
print("| compiler | program | wall s | CPU s (user + sys) | peak memory MiB | "
      "staticpy ÷ dlib: wall | CPU | memory |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for cxx in compilers:
    med = {}
    for lib, suffix in PROGRAMS:
        rs = results.get((cxx, lib))
        if not rs:
            continue
        ok = all(r[3] == 0 for r in rs)
        w, c, m = tuple(statistics.median(r[i] for r in rs) for i in range(3))
        if ok:
            med[lib] = (w, c, m)
        shown = staticpy_source if lib == "staticpy" and staticpy_source else suffix
        label = f"{lib} (`{shown}`)" + ("" if ok else " **failed to compile**")
        ratio = ""
        if lib == "dlib" and "staticpy" in med and ok:
            s = med["staticpy"]
            ratio = f" {s[0] / w:.2f} | {s[1] / c:.2f} | {s[2] / m:.2f} |"
        print(f"| {cxx} | {label} | {w:.1f} | {c:.1f} | {m:.0f} |" + (ratio or "  |  |  |"))
print()
PY
