#!/usr/bin/env bash
# The compile-cost benchmark (issue 44): what the compiler makes a staticpy user wait, beside the
# peers, in one run. Three parts:
#
# 1. The training example, examples/train_fashion_mnist.cpp (both models, graph steps, eager
#    evaluation, checkpoints, the distributed path), header-only and with the compiled kernels
#    (-DSTATICPY_COMPILED_KERNELS, as the CMake option STATICPY_COMPILED_KERNELS=ON builds it),
#    beside dlib's equivalent program, benchmarks/epoch_dlib_example.cpp (the same MLP and
#    LeNet-5, data, training loop, progress line, test accuracy and CSV log, written as dlib's
#    examples write them), and libtorch's epoch program, benchmarks/epoch_libtorch.cpp (the same
#    two networks and training loop as torch::nn modules), each with every compiler, interleaved
#    (every repetition compiles each once, so a slow minute of a shared machine hits all alike):
#    wall and CPU seconds, the compiler's peak memory, and the object's code size, function count
#    and symbol bytes (nm). dlib's and libtorch's figures are what their headers cost: their
#    layers' code is in their prebuilt libraries.
# 2. One model and its training step as the model grows, and the demo's MLP alone beside dlib's
#    and libtorch's one-model programs (benchmarks/model_compile_cost.sh: mlp-one and its peers,
#    the MLP depth sweep, the CNN sweep), with g++.
# 3. The suite's time per pass (scripts/test.sh), from a log of it (COMPILE_COST_SUITE_LOG) or run
#    now in a fresh clone of HEAD (COMPILE_COST_SUITE=run: about 40 minutes on 2 cores).
#
#   benchmarks/compile_cost.sh [build-dir]     (default build/bench; parts 1 and 2 take about
#                                               15 minutes on 2 cores)
#
# Part 1's command lines come from one CMake configuration per compiler,
# <build-dir>/compile-cost-<compiler> (configured only, nothing is built there), as CMake writes
# them in compile_commands.json; each is compiled alone (-c, no dependency file, no -Werror) with
# its optimisation and -march flags replaced by COMPILE_COST_FLAGS for every program alike.
#
# Environment:
#   COMPILE_COST_FLAGS="-O2"        every program's optimisation flags (the issue's goals: -O2)
#   COMPILE_COST_COMPILERS="g++ clang++"
#   COMPILE_COST_REPEAT=1           repetitions of part 1 (the table gives the median)
#   COMPILE_COST_PARTS="1 2 3"      which parts to run
#   COMPILE_COST_KERNELS=compiled   part 2's MODEL_KERNELS (header-only or compiled)
#   COMPILE_COST_MODEL_CASES=...    part 2's cases (default: model_compile_cost.sh's)
#   COMPILE_COST_SUITE_LOG=file     part 3: the pass times of this scripts/test.sh log
#   COMPILE_COST_SUITE=run          part 3: run scripts/test.sh in a fresh clone of HEAD
#   COMPILE_COST_STATICPY_SOURCE=file   compile this file with the example's command line instead
#                                   (e.g. a commit's version: git show REV:examples/...)
#   BENCH_CMAKE_ARGS=...            extra arguments for the configure steps
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
repeat="${COMPILE_COST_REPEAT:-1}"
compilers="${COMPILE_COST_COMPILERS:-g++ clang++}"
flags="${COMPILE_COST_FLAGS:--O2}"
parts=" ${COMPILE_COST_PARTS:-1 2 3} "

if [[ "$parts" == *" 1 "* ]]; then
for cxx in $compilers; do
    if ! command -v "$cxx" >/dev/null; then
        echo "compile_cost: $cxx not found (apt-get install clang for clang++): skipped" >&2
        continue
    fi
    dir="$build/compile-cost-$cxx"
    echo "compile_cost: configuring $dir ..." >&2
    mkdir -p "$build"
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
        -DSTATICPY_BUILD_TESTS=OFF \
        -DSTATICPY_BUILD_EXAMPLES=ON -DSTATICPY_BUILD_BENCHMARKS=ON \
        -DSTATICPY_WARNINGS_AS_ERRORS=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
        ${BENCH_CMAKE_ARGS:-} >"$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log" >&2; exit 1; }
done

python3 - "$build" "$repeat" "$compilers" "$flags" "${COMPILE_COST_STATICPY_SOURCE:-}" <<'PY'
import json, os, re, shlex, statistics, subprocess, sys, tempfile

build, repeat, compilers, flags, staticpy_source = sys.argv[1], int(sys.argv[2]), \
    sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
EXAMPLE = "examples/train_fashion_mnist.cpp"
# (label, source, extra flags); the first two are staticpy's, compared with the peers.
PROGRAMS = [("staticpy, header-only", EXAMPLE, []),
            ("staticpy, compiled kernels", EXAMPLE, ["-DSTATICPY_COMPILED_KERNELS"]),
            ("dlib", "benchmarks/epoch_dlib_example.cpp", []),
            ("libtorch", "benchmarks/epoch_libtorch.cpp", [])]
PEERS = ("dlib", "libtorch")

def command(cxx, suffix, extra, source=None):
    path = os.path.join(build, f"compile-cost-{cxx}", "compile_commands.json")
    if not os.path.exists(path):
        return None
    entry = next((e for e in json.load(open(path)) if e["file"].endswith(suffix)), None)
    if entry is None:
        return None
    args = shlex.split(entry["command"])
    # The compile alone, at the benchmark's flags: no dependency file, no -Werror, the object
    # where measure() puts it, no optimisation or -march flag of the target's own.
    clean, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-MT", "-MF", "-o"):
            skip = True
            continue
        if a in ("-MD", "-Werror") or re.fullmatch(r"-O\S*|-march=\S+", a):
            continue
        clean.append(os.path.abspath(source) if source and a == entry["file"] else a)
    at = clean.index("-c") if "-c" in clean else len(clean)
    return clean[:at] + flags + extra + clean[at:], entry["directory"]

def object_facts(obj):
    """Code bytes (text), defined functions and the bytes of every symbol name, as nm lists them."""
    text = int(subprocess.run(["size", obj], capture_output=True, text=True)
               .stdout.splitlines()[1].split()[0])
    nm = subprocess.run(["nm", obj], capture_output=True, text=True).stdout.splitlines()
    names = [l.split()[-1] for l in nm if l.strip()]
    functions = sum(1 for l in nm if len(l.split()) == 3 and l.split()[1] in "TtWw")
    return text, functions, sum(len(n) for n in names)

def measure(cmd, cwd):
    with tempfile.TemporaryDirectory() as tmp:
        obj = os.path.join(tmp, "program.o")
        r = subprocess.run(["/usr/bin/time", "-v"] + cmd + ["-o", obj], cwd=cwd,
                           capture_output=True, text=True)
        text = r.stderr
        field = lambda label: re.search(re.escape(label) + r":\s*(\S+)", text).group(1)
        wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":")
        wall_s = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
        cpu_s = float(field("User time (seconds)")) + float(field("System time (seconds)"))
        rss_mib = int(field("Maximum resident set size (kbytes)")) / 1024
        if r.returncode != 0:
            tail = "\n".join(l for l in text.splitlines()[:20])
            print(f"compile_cost: exit {r.returncode}:\n{tail}", file=sys.stderr)
            return wall_s, cpu_s, rss_mib, r.returncode, (0, 0, 0)
        return wall_s, cpu_s, rss_mib, 0, object_facts(obj)

cmds = {}
for cxx in compilers:
    for label, suffix, extra in PROGRAMS:
        c = command(cxx, suffix, extra, staticpy_source if suffix == EXAMPLE else None)
        if c is None:
            print(f"compile_cost: no command for {suffix} with {cxx} (dlib: apt-get install "
                  f"libdlib-dev; libtorch: libtorch-dev; both need zlib1g-dev and the "
                  f"benchmarks libbenchmark-dev): left out", file=sys.stderr)
        else:
            cmds[(cxx, label)] = c
results = {k: [] for k in cmds}
for rep in range(1, repeat + 1):
    for (cxx, label), (cmd, cwd) in cmds.items():
        print(f"compile_cost: repetition {rep} of {repeat}: {label} with {cxx} ...",
              file=sys.stderr)
        results[(cxx, label)].append(measure(cmd, cwd))

versions = {cxx: subprocess.run([cxx, "--version"], capture_output=True, text=True)
            .stdout.splitlines()[0] for cxx in compilers if any(k[0] == cxx for k in cmds)}
print("## 1. The training example beside dlib's and libtorch's programs\n")
print("One translation unit each, compiled alone with the command lines below (include paths left "
      f"out; median of {repeat}). Object: code bytes (`size`), defined functions and the bytes of "
      "all symbol names (`nm`).\n")
print("```")
for cxx, v in versions.items():
    print(f"{cxx}: {v}")
for (cxx, label), (cmd, _) in cmds.items():
    shown = [a for i, a in enumerate(cmd)
             if not a.startswith(("-I", "-isystem")) and (i == 0 or cmd[i - 1] != "-isystem")]
    print(f"{label}, {cxx}: {' '.join(shown[1:])}")
print("```\n")
print("| compiler | program | wall s | CPU s | peak MiB | code KB | functions | symbol KB | "
      "CPU ÷ dlib | memory ÷ dlib | CPU ÷ libtorch | memory ÷ libtorch |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for cxx in compilers:
    med = {label: tuple(statistics.median(r[i] for r in rs) for i in range(3))
           for (c, label), rs in results.items() if c == cxx and all(r[3] == 0 for r in rs)}
    for label, suffix, _ in PROGRAMS:
        rs = results.get((cxx, label))
        if not rs:
            continue
        ok = label in med
        w, c, m = tuple(statistics.median(r[i] for r in rs) for i in range(3))
        text, functions, symbol_bytes = rs[-1][4]
        shown = staticpy_source if suffix == EXAMPLE and staticpy_source else suffix
        ratios = ""
        for peer in PEERS:
            if label.startswith("staticpy") and ok and peer in med:
                ratios += f" {c / med[peer][1]:.2f} | {m / med[peer][2]:.2f} |"
            else:
                ratios += "  |  |"
        print(f"| {cxx} | {label} (`{shown}`){'' if ok else ' **failed to compile**'} | "
              f"{w:.1f} | {c:.1f} | {m:.0f} | {text / 1000:.0f} | {functions} | "
              f"{symbol_bytes / 1000:.0f} |" + ratios)
print()
PY
fi

if [[ "$parts" == *" 2 "* ]]; then
    echo "## 2. One model and its training step, as the model grows"
    echo
    MODEL_KERNELS="${COMPILE_COST_KERNELS:-compiled}" MODEL_COMPILERS=g++ \
        MODEL_FLAGS="$flags" \
        MODEL_CASES="${COMPILE_COST_MODEL_CASES:-}" \
        "$root/benchmarks/model_compile_cost.sh"
    echo
fi

if [[ "$parts" == *" 3 "* ]]; then
    echo "## 3. The suite (scripts/test.sh), each pass's time"
    echo
    log="${COMPILE_COST_SUITE_LOG:-}"
    if [[ "${COMPILE_COST_SUITE:-}" == run ]]; then
        clone="$(mktemp -d)"
        git clone -q "$root" "$clone/staticpy"
        log="$build/compile-cost-suite.log"
        echo "compile_cost: scripts/test.sh in a fresh clone, $clone/staticpy (log: $log) ..." >&2
        (cd "$clone/staticpy" && ./scripts/test.sh) >"$log" 2>&1 || true
        rm -rf "$clone"
    fi
    if [[ -n "$log" && -f "$log" ]]; then
        echo "From \`$log\`:"
        echo
        echo '```'
        grep -E '^(PASS|FAIL)  |^total' "$log" || echo "(no pass lines in the log)"
        echo '```'
    else
        echo "Not run: COMPILE_COST_SUITE=run runs scripts/test.sh in a fresh clone (about 40"
        echo "minutes on 2 cores), COMPILE_COST_SUITE_LOG=file reads a log of it."
    fi
fi
