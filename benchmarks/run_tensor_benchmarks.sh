#!/usr/bin/env bash
# The tensor benchmarks in one run: installs the bench dependencies (only the missing ones),
# configures a Release build with the benchmarks on, builds elementwise_bench and reduce_bench
# (-O3 -march=native), runs them and prints Markdown tables: GB/s per case and size for staticpy
# and its peers, with the machine's bandwidth (memcpy, OpenMP) measured in the same run.
#
#   benchmarks/run_tensor_benchmarks.sh [build-dir]        (default build/bench; ~6 min on 2 cores)
#
# Environment:
#   BENCH_REPETITIONS=3   repetitions of every case (the table shows the median)
#   BENCH_MIN_TIME=0.1    seconds each repetition runs at least (one call when a call is longer)
#   BENCH_FILTER=regex    only the matching cases, e.g. 'triad|bandwidth' or '/1000000/'
#   BENCH_JSON_DIR=dir    where the raw Google Benchmark JSON goes (default <build-dir>/tensor-bench)
#   BENCH_CMAKE_ARGS=...  extra arguments for the configure step
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
reps="${BENCH_REPETITIONS:-3}"
min_time="${BENCH_MIN_TIME:-0.1}"
filter="${BENCH_FILTER:-}"
json_dir="${BENCH_JSON_DIR:-$build/tensor-bench}"

"$root/scripts/install-deps.sh" bench >&2

# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DSTATICPY_BUILD_BENCHMARKS=ON -DSTATICPY_BUILD_TESTS=OFF \
    -DSTATICPY_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release ${BENCH_CMAKE_ARGS:-} >&2
cmake --build "$build" --target elementwise_bench reduce_bench -j "$(nproc)" >&2

mkdir -p "$json_dir"
start=$(date +%s)
for bench in elementwise_bench reduce_bench; do
    echo "run_tensor_benchmarks: running $bench ..." >&2
    args=(--benchmark_format=console --benchmark_out="$json_dir/$bench.json"
        --benchmark_out_format=json --benchmark_repetitions="$reps"
        --benchmark_min_time="$min_time")
    if [[ -n "$filter" ]]; then
        args+=(--benchmark_filter="$filter")
    fi
    "$build/benchmarks/$bench" "${args[@]}" >"$json_dir/$bench.txt" 2>&1 ||
        { cat "$json_dir/$bench.txt" >&2; exit 1; }
done
elapsed=$(($(date +%s) - start))

python3 - "$json_dir" "$elapsed" "$reps" "$min_time" <<'PY'
import json, statistics, subprocess, sys
from collections import defaultdict

json_dir, elapsed, reps, min_time = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
gbps = defaultdict(list)   # (case, peer, arg) -> GB/s of every repetition
errors = {}
context = {}
for bench in ("elementwise_bench", "reduce_bench"):
    with open(f"{json_dir}/{bench}.json") as f:
        data = json.load(f)
    context.update(data["context"])
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        case, peer, arg = b["run_name"].split("/")[:3]
        if b.get("error_occurred"):
            errors[(case, peer, int(arg))] = b.get("error_message", "error")
            continue
        gbps[(case, peer, int(arg))].append(b["bytes_per_second"] / 1e9)
med = {k: statistics.median(v) for k, v in gbps.items()}

def cell(key):
    if key in med:
        v = med[key]
        return f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 0.1 else f"{v:.3f}"
    if key in errors:
        return "skipped"
    return ""

def ratio(a, b):
    if a in med and b is not None and b > 0:
        return f"{med[a] / b:.2f}"
    return ""

def size_label(n):
    e = len(str(n)) - 1
    return f"1e{e}" if n == 10 ** e else str(n)

torch_threads = context.get("torch_default_threads", "?")
omp_threads = context.get("omp_threads", "?")
graph = context.get("staticpy_graph", "no (pending)")
graph_pending = not graph.startswith("yes")
pending = "pending" if graph_pending else ""

PEERS = [("staticpy_eager", "staticpy eager"),
         ("staticpy_graph", f"staticpy graph ({omp_threads} thr)"),
         ("staticpy_graph_1thread", "staticpy graph (1 thr)"),
         ("eigen", "Eigen"), ("xtensor", "xtensor"),
         ("torch", f"torch ({torch_threads} thr, default)"),
         ("torch_allcores", f"torch ({omp_threads} thr)")]

def table(title, case, refs, ref_case=None, label="n", arg_label=size_label, note=""):
    ref_case = ref_case or case
    args = sorted({a for (c, _, a) in list(med) + list(errors) if c == case})
    if not args:
        return
    print(f"#### {title}\n")
    if note:
        print(note + "\n")
    heads = [label] + [h for _, h in PEERS] + [h for _, h in refs] + [
        "eager ÷ Eigen", "eager ÷ bandwidth", "graph 1 thr ÷ Eigen", "graph ÷ bandwidth"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" + "---:|" * (len(heads) - 1))
    for a in args:
        bw_vals = [med[(ref_case, r, a)] for r, _ in refs if (ref_case, r, a) in med]
        bw = max(bw_vals) if bw_vals else None
        eig = med.get((case, "eigen", a))
        row = [arg_label(a)]
        for p, _ in PEERS:
            c = cell((case, p, a))
            row.append(c if c or not p.startswith("staticpy_graph") else pending)
        row += [cell((ref_case, r, a)) for r, _ in refs]
        row += [ratio((case, "staticpy_eager", a), eig), ratio((case, "staticpy_eager", a), bw)]
        if graph_pending:
            row += [pending, pending]
        else:
            row += [ratio((case, "staticpy_graph_1thread", a), eig),
                    ratio((case, "staticpy_graph", a), bw)]
        print("| " + " | ".join(row) + " |")
    print()

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""

print("### Tensor benchmarks: GB/s (median of %s repetitions, min time %s s each)\n" % (reps, min_time))
print("```")
print(sh("lscpu | grep -E '^(Model name|CPU\\(s\\)|Thread|Core|Socket|L2|L3|Hypervisor)' "
         "| sed 's/  */ /g'"))
print(sh("free -g | awk '/Mem:/{print \"Memory: \" $2 \" GiB\"}'"))
print(sh("g++ --version | head -1"))
print(sh("dpkg-query -W -f='${Package} ${Version}\\n' libeigen3-dev libxtensor-dev libxsimd-dev "
         "libtorch-dev libbenchmark-dev 2>/dev/null"))
print(f"OpenMP threads: {omp_threads}; libtorch default intra-op threads: {torch_threads}; "
      f"staticpy graph mode: {graph}")
print(f"whole run: {elapsed} s")
print("```\n")
print("GB/s = bytes a fused one-pass kernel moves per call (inputs read once, output written "
      "once) / wall time. bandwidth = the faster of the two references at the same size, "
      "measured in the same run. Eigen, xtensor, staticpy eager and memcpy run on one thread; "
      "staticpy graph (all threads) uses OpenMP above the backend's size threshold (parallel_threshold). "
      "Empty: peer not built; skipped: not enough memory.\n")
mc, omp_triad, omp_sum = ("memcpy", "memcpy"), ("omp_triad", "OpenMP triad"), ("omp_sum", "OpenMP sum")
table("triad  y = a*x + b", "triad", [mc, omp_triad], ref_case="bandwidth")
table("chain  y = tanh(a*x + b) * c", "chain", [mc, omp_triad], ref_case="bandwidth")
table("chain5  y = sigmoid(x*a + b) * c - d / (1 + abs(x))", "chain5", [mc, omp_triad],
      ref_case="bandwidth")
table("sum of n floats", "sum", [mc, omp_sum])
table("softmax along rows of [rows x 1024]", "softmax", [mc, omp_triad], label="rows",
      arg_label=str)
if errors:
    print("Skipped:\n")
    for (c, p, a), m in sorted(errors.items()):
        print(f"- {c}/{p}/{a}: {m}")
    print()
PY
