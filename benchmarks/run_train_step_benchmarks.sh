#!/usr/bin/env bash
# Issue 10's training-step benchmarks in one run: installs the bench dependencies (only the
# missing ones), configures a Release build with the benchmarks on, builds train_step_bench and
# train_step_libtorch (-O3 -march=native), checks that every step computes the same losses as
# PyTorch from the same weights (the first steps' trajectories), then runs every library at every
# thread setting, one process per (library, setting), in rounds (each round runs all of them once,
# so a slow minute of a shared machine hits all alike), and prints Markdown tables: steps/s
# (median over the rounds, min-max), the thread setting each peer was fastest at, the sweep, the
# time breakdown of the graph step and the issue's targets.
#
#   benchmarks/run_train_step_benchmarks.sh [build-dir]     (default build/bench; ~6 min of runs
#                                                            after the build on 2 cores)
# Environment:
#   BENCH_ROUNDS=5          rounds (each process runs each of its cases once per round)
#   BENCH_MIN_TIME=0.3      seconds each case runs at least per round
#   BENCH_JSON_DIR=dir      where the raw results go (default <build-dir>/train-step-bench)
#   BENCH_BUILD_JOBS=1      parallel compile jobs (train_step_bench.cpp alone takes ~9 GB with g++)
#   BENCH_SKIP_BUILD=1      use the binaries already in <build-dir>
#   BENCH_SKIP_PYTORCH=1    leave out train_step_pytorch.py
#   BENCH_COMPILE_COST=1    also compile train_step_bench.cpp once with g++ and once with clang++
#                           (its CMake command line), /usr/bin/time -f "%e s %M KB"
#   BENCH_CMAKE_ARGS=...    extra arguments for the configure step
#   PYTORCH_PYTHON=/usr/bin/python3   the interpreter with Debian's python3-torch
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
rounds="${BENCH_ROUNDS:-5}"
min_time="${BENCH_MIN_TIME:-0.3}"
json_dir="${BENCH_JSON_DIR:-$build/train-step-bench}"
jobs="${BENCH_BUILD_JOBS:-1}"
python="${PYTORCH_PYTHON:-/usr/bin/python3}"
bench="$build/benchmarks/train_step_bench"
libtorch="$build/benchmarks/train_step_libtorch"

if [[ "${BENCH_SKIP_BUILD:-0}" != 1 ]]; then
    "$root/scripts/install-deps.sh" bench >&2
    # shellcheck disable=SC2086
    cmake -S "$root" -B "$build" -DSTATICPY_BUILD_BENCHMARKS=ON -DSTATICPY_BUILD_TESTS=OFF \
        -DSTATICPY_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ${BENCH_CMAKE_ARGS:-} >&2
    targets=(train_step_bench)
    # the target list in a variable first: grep -q on a pipe would exit at the first match and,
    # under pipefail, the SIGPIPE cmake gets would make the test false
    target_list="$(cmake --build "$build" --target help 2>/dev/null || true)"
    if grep -q train_step_libtorch <<<"$target_list"; then
        targets+=(train_step_libtorch) # built when CMake found libtorch
    fi
    for t in "${targets[@]}"; do
        echo "run_train_step_benchmarks: building $t (minutes) ..." >&2
        cmake --build "$build" --target "$t" -j "$jobs" >&2
    done
fi

rm -rf "$json_dir"
mkdir -p "$json_dir"
have_libtorch=0
[[ -x "$libtorch" ]] && have_libtorch=1
have_pytorch=0
if [[ "${BENCH_SKIP_PYTORCH:-0}" != 1 ]]; then
    if "$python" -c 'import torch' 2>/dev/null; then
        have_pytorch=1
    else
        echo "run_train_step_benchmarks: $python has no torch (apt-get install python3-torch):" \
            "PyTorch columns left empty" >&2
    fi
fi
have_openblas=0
"$bench" --benchmark_list_tests=true | grep -q gemm_openblas && have_openblas=1

# ---- compile cost (optional) --------------------------------------------------------------------
if [[ "${BENCH_COMPILE_COST:-0}" == 1 ]]; then
    python3 - "$build/compile_commands.json" "$json_dir/compile_cost.txt" <<'PY' >&2
import json, os, shlex, subprocess, sys
cmds, out = sys.argv[1], sys.argv[2]
entry = next(e for e in json.load(open(cmds)) if e["file"].endswith("train_step_bench.cpp"))
args = shlex.split(entry["command"])
# the compile alone: no dependency file, object to /dev/null
# (and no -Werror: a warning of the other compiler must not stop the measurement)
drop = {"-MD", "-MT", "-MF", "-o"}
clean, skip = [], False
for a in args[1:]:
    if skip:
        skip = False
        continue
    if a in drop:
        skip = a != "-MD"
        continue
    if a != "-Werror":
        clean.append(a)
lines = []
for cxx in ("g++", "clang++"):
    cmd = ["/usr/bin/time", "-f", "%e s %M KB", cxx] + clean + ["-o", "/dev/null"]
    print("run_train_step_benchmarks: compiling train_step_bench.cpp with", cxx, "...")
    r = subprocess.run(cmd, cwd=entry["directory"], capture_output=True, text=True)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "?"
    lines.append(f"{cxx}: {last}" + ("" if r.returncode == 0 else f" (exit {r.returncode})"))
open(out, "w").write("\n".join(lines) + "\n")
PY
fi

# ---- correctness: the first losses of every step -------------------------------------------------
steps=5
{
    "$bench" --trajectory=$steps
    if [[ $have_libtorch == 1 ]]; then "$libtorch" --trajectory=$steps; fi
    if [[ $have_pytorch == 1 ]]; then "$python" "$root/benchmarks/train_step_pytorch.py" \
        --trajectory $steps; fi
} >"$json_dir/trajectories.txt"

# ---- the rounds ---------------------------------------------------------------------------------
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
gb=(--benchmark_format=console --benchmark_out_format=json --benchmark_repetitions=1
    --benchmark_min_time="$min_time")
for ((r = 1; r <= rounds; ++r)); do
    echo "run_train_step_benchmarks: round $r of $rounds ..." >&2
    for t in 1 2; do
        "$bench" "${gb[@]}" --benchmark_filter="/(staticpy_[a-z_]+|gemm_staticpy)/threads:$t/" \
            --benchmark_out="$json_dir/r$r-staticpy-t$t.json" >"$json_dir/log.txt" 2>&1 ||
            { cat "$json_dir/log.txt" >&2; exit 1; }
        if [[ $have_openblas == 1 ]]; then
            "$bench" "${gb[@]}" --benchmark_filter="/gemm_openblas/threads:$t/" \
                --benchmark_out="$json_dir/r$r-openblas-t$t.json" >"$json_dir/log.txt" 2>&1 ||
                { cat "$json_dir/log.txt" >&2; exit 1; }
        fi
        for b in 1 2; do
            if [[ $have_libtorch == 1 ]]; then
                "$libtorch" "${gb[@]}" --benchmark_filter="/torch_threads:$t/blas_threads:$b/" \
                    --benchmark_out="$json_dir/r$r-libtorch-t$t-b$b.json" \
                    >"$json_dir/log.txt" 2>&1 || { cat "$json_dir/log.txt" >&2; exit 1; }
            fi
            if [[ $have_pytorch == 1 ]]; then
                "$python" "$root/benchmarks/train_step_pytorch.py" --torch-threads $t \
                    --blas-threads $b --min-time "$min_time" \
                    --json "$json_dir/r$r-pytorch-t$t-b$b.json" 2>"$json_dir/log.txt" ||
                    { cat "$json_dir/log.txt" >&2; exit 1; }
            fi
        done
    done
done
elapsed=$(($(date +%s) - start))
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$json_dir" "$elapsed" "$rounds" "$min_time" "$load_before" "$load_after" <<'PY'
import glob, json, os, re, statistics, subprocess, sys
from collections import defaultdict

json_dir, elapsed, rounds, min_time, load_before, load_after = sys.argv[1:7]

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""

# ---- trajectories ----
traj = defaultdict(dict)  # (model, variant) -> step -> loss
for line in open(os.path.join(json_dir, "trajectories.txt")):
    f = line.split()
    if len(f) == 5 and f[0] == "trajectory":
        traj[(f[1], f[2])][int(f[3])] = float(f[4])
MODELS = ["784-128-10/b64", "784-512-512-10/b256"]

print("### Correctness: the first losses, same weights and batch\n")
print("| model | step | " + " | ".join(["staticpy graph", "staticpy eager", "PyTorch",
                                       "PyTorch jit.trace", "libtorch"]) + " | max rel. diff |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for m in MODELS:
    steps = sorted({s for (mm, _), d in traj.items() if mm == m for s in d})
    for s in steps:
        vals = [traj.get((m, v), {}).get(s) for v in
                ("staticpy_graph", "staticpy_eager", "pytorch", "pytorch_jit_trace", "libtorch")]
        known = [v for v in vals if v is not None]
        ref = traj.get((m, "pytorch"), {}).get(s, known[0] if known else None)
        diff = max(abs(v - ref) / abs(ref) for v in known) if known and ref else 0.0
        print(f"| {m} | {s} | " + " | ".join("" if v is None else f"{v:.7f}" for v in vals)
              + f" | {diff:.1e} |")
print()

# ---- timings ----
runs = defaultdict(list)  # (model, variant, setting) -> steps/s per round
context = {}
for path in sorted(glob.glob(os.path.join(json_dir, "r*-*.json"))):
    data = json.load(open(path))
    for k, v in data.get("context", {}).items():
        if k in ("openblas", "libtorch", "torch", "python", "staticpy_cross_entropy"):
            context[k] = v
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        parts = b["run_name"].split("/")
        model, variant = "/".join(parts[:2]), parts[2]
        setting = "/".join(p for p in parts[3:] if p != "real_time")
        runs[(model, variant, setting)].append(b["items_per_second"])
med = {k: statistics.median(v) for k, v in runs.items()}

def short(setting):
    s = setting.replace("torch_threads:", "torch ").replace("/blas_threads:", ", BLAS ")
    return s.replace("threads:", "") + ("" if "torch" in s else " thr")

def best(model, variant):
    cands = [(med[k], k[2]) for k in med if k[0] == model and k[1] == variant]
    return max(cands) if cands else (None, None)

def rng(model, variant, setting):
    v = runs[(model, variant, setting)]
    return min(v), max(v)

def fmt(x):
    if x is None:
        return ""
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"

COLS = [("staticpy_graph", "staticpy graph"), ("staticpy_eager", "staticpy eager"),
        ("pytorch", "PyTorch"), ("pytorch_jit_trace", "PyTorch jit.trace"),
        ("libtorch", "libtorch"), ("gemm_staticpy", "GEMMs alone, staticpy matmul"),
        ("gemm_openblas", "GEMMs alone, OpenBLAS")]
PEERS = ("pytorch", "pytorch_jit_trace", "libtorch")

print(f"### Steps/s (median of {rounds} rounds, min–max; each at its fastest thread setting)\n")
print("```")
print(sh("lscpu | grep -E '^(Model name|CPU\\(s\\)|Thread|Core|Socket|L2|L3|Hypervisor)' "
         "| sed 's/  */ /g'"))
print(sh("free -g | awk '/Mem:/{print \"Memory: \" $2 \" GiB\"}'"))
print(sh("g++ --version | head -1"))
print(sh("dpkg-query -W -f='${Package} ${Version}\\n' libtorch-dev python3-torch "
         "libopenblas0-pthread libbenchmark-dev 2>/dev/null"))
print("staticpy loss: " + context.get("staticpy_cross_entropy", "?") + "; OpenBLAS: "
      + context.get("openblas", "not found").strip())
print(f"load average before / after: {load_before} / {load_after}; runs: {elapsed} s; "
      f"min time {min_time} s per case and round")
print("```\n")
heads = ["model"] + [h for _, h in COLS] + ["graph ÷ fastest peer", "graph ÷ eager",
                                            "graph time ÷ GEMM time"]
print("| " + " | ".join(heads) + " |")
print("|---|" + "---:|" * (len(heads) - 1))
summary = {}
for m in MODELS:
    row = [m]
    for v, _ in COLS:
        val, setting = best(m, v)
        if val is None:
            row.append("")
            continue
        lo, hi = rng(m, v, setting)
        row.append(f"{fmt(val)} ({fmt(lo)}–{fmt(hi)})")
    g, _ = best(m, "staticpy_graph")
    e, _ = best(m, "staticpy_eager")
    peers = [(best(m, p)[0], p) for p in PEERS if best(m, p)[0] is not None]
    fp = max(peers) if peers else (None, None)
    gs, _ = best(m, "gemm_staticpy")
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else ""
    row += [ratio(g, fp[0]) + (f" ({dict(COLS)[fp[1]]})" if fp[1] else ""), ratio(g, e),
            ratio(gs, g)]
    summary[m] = (g, e, fp, gs)
    print("| " + " | ".join(row) + " |")
print()

print("Thread settings (the fastest of each, by median; torch = intra-op threads, "
      "BLAS = OpenBLAS threads; staticpy and the GEMM floors: set_num_threads / "
      "openblas_set_num_threads):\n")
settings = sorted({k[2] for k in med}, key=lambda s: (("torch" in s), s))
variants = [v for v, _ in COLS] + ["staticpy_grad_only", "staticpy_forward"]
names = dict(COLS, staticpy_grad_only="staticpy graph, no SGD update",
             staticpy_forward="staticpy forward graph only")
print("| model | case | fastest | " + " | ".join(short(s) for s in settings) + " |")
print("|---|---|---|" + "---:|" * len(settings))
for m in MODELS:
    for v in variants:
        val, setting = best(m, v)
        if val is None:
            continue
        cells = [fmt(med.get((m, v, s))) for s in settings]
        print(f"| {m} | {names[v]} | {short(setting)} | " + " | ".join(cells) + " |")
print()

print("Where the graph step's time goes (µs per step, medians, at the graph step's fastest "
      "setting):\n")
print("| model | setting | graph step | no SGD step (value_and_grad only) | forward only | "
      "GEMMs, staticpy | GEMMs, OpenBLAS | SGD (step − no SGD) | backward (no SGD − forward) | "
      "outside the GEMMs (step − GEMMs) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for m in MODELS:
    _, s = best(m, "staticpy_graph")
    if s is None:
        continue
    us = lambda v: 1e6 / med[(m, v, s)] if (m, v, s) in med else None
    step, vg, fwd, gs, gb = (us("staticpy_graph"), us("staticpy_grad_only"),
                             us("staticpy_forward"), us("gemm_staticpy"), us("gemm_openblas"))
    d = lambda a, b: f"{a - b:.0f}" if a is not None and b is not None else ""
    f0 = lambda a: f"{a:.0f}" if a is not None else ""
    print(f"| {m} | {short(s)} | {f0(step)} | {f0(vg)} | {f0(fwd)} | {f0(gs)} | {f0(gb)} | "
          f"{d(step, vg)} | {d(vg, fwd)} | {d(step, gs)} |")
print()

print("Targets (issue 10):\n")
print("| target | result |")
print("|---|---|")
for m, want in (("784-128-10/b64", 2.0), ("784-512-512-10/b256", 1.2)):
    g, e, fp, gs = summary.get(m, (None, None, (None, None), None))
    if g and fp[0]:
        met = "met" if g / fp[0] >= want else "not met"
        print(f"| graph ≥ {want}× the fastest peer, {m} | **{met}**: {g / fp[0]:.2f}× "
              f"({dict(COLS)[fp[1]]}) |")
for m in MODELS:
    g, e, fp, gs = summary.get(m, (None, None, (None, None), None))
    if g and e:
        print(f"| graph ≥ 3× staticpy eager, {m} | **{'met' if g / e >= 3 else 'not met'}**: "
              f"{g / e:.2f}× |")
for m in MODELS:
    g, e, fp, gs = summary.get(m, (None, None, (None, None), None))
    if g and gs:
        print(f"| graph step ≤ 1.3× its GEMMs' time, {m} | "
              f"**{'met' if gs / g <= 1.3 else 'not met'}**: {gs / g:.2f}× |")
print()
cc = os.path.join(json_dir, "compile_cost.txt")
if os.path.exists(cc):
    print("Compile cost of train_step_bench.cpp (its CMake command, -O3 -march=native):\n")
    print("```")
    print(open(cc).read().strip())
    print("```")
PY
