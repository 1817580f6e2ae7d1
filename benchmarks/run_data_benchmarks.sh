#!/usr/bin/env bash
# The data-loading benchmarks in one run (issue 4): installs the bench dependencies (only the
# missing ones), configures a Release build with the benchmarks on, builds dataloader_bench
# (-O3 -march=native on that target only), runs it and dataloader_pytorch.py (Debian's
# python3-torch) and prints one Markdown table: samples/s of each loader at 0 and 2 workers on
# Fashion-MNIST's training set (batch 64, shuffled, uint8 -> normalised float32), the ratios to
# libtorch and to PyTorch, the fast path as a share of the memcpy rate, and the scaling of a
# CPU-heavy transform from 1 to 2 workers.
#
#   benchmarks/run_data_benchmarks.sh [build-dir]           (default build/bench)
#
# Environment:
#   BENCH_REPETITIONS=3   repetitions of every case (the table shows the median)
#   BENCH_MIN_TIME=0.5    seconds each repetition runs at least (whole epochs: at least one)
#   BENCH_FILTER=regex    only the matching C++ cases, e.g. 'staticpy|memcpy'
#   BENCH_SKIP_PYTORCH=1  leave out dataloader_pytorch.py
#   BENCH_JSON_DIR=dir    where the raw results go (default <build-dir>/data-bench)
#   BENCH_CMAKE_ARGS=...  extra arguments for the configure step
#   PYTORCH_PYTHON=/usr/bin/python3   the interpreter with Debian's python3-torch
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
reps="${BENCH_REPETITIONS:-3}"
min_time="${BENCH_MIN_TIME:-0.5}"
filter="${BENCH_FILTER:-}"
json_dir="${BENCH_JSON_DIR:-$build/data-bench}"
python="${PYTORCH_PYTHON:-/usr/bin/python3}"

"$root/scripts/install-deps.sh" bench >&2

# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DSTATICPY_BUILD_BENCHMARKS=ON -DSTATICPY_BUILD_TESTS=OFF \
    -DSTATICPY_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release ${BENCH_CMAKE_ARGS:-} >&2
cmake --build "$build" --target dataloader_bench -j "$(nproc)" >&2

mkdir -p "$json_dir"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
echo "run_data_benchmarks: running dataloader_bench ..." >&2
args=(--benchmark_format=console --benchmark_out="$json_dir/dataloader_bench.json"
    --benchmark_out_format=json --benchmark_repetitions="$reps" --benchmark_min_time="$min_time")
if [[ -n "$filter" ]]; then
    args+=(--benchmark_filter="$filter")
fi
"$build/benchmarks/dataloader_bench" "${args[@]}" >"$json_dir/dataloader_bench.txt" 2>&1 ||
    { cat "$json_dir/dataloader_bench.txt" >&2; exit 1; }

rm -f "$json_dir/dataloader_pytorch.json"
if [[ "${BENCH_SKIP_PYTORCH:-0}" != 1 ]]; then
    if "$python" -c 'import torch, numpy' 2>/dev/null; then
        echo "run_data_benchmarks: running dataloader_pytorch.py ..." >&2
        "$python" "$root/benchmarks/dataloader_pytorch.py" --min-time "$min_time" \
            --repetitions "$reps" --json "$json_dir/dataloader_pytorch.json" >&2
    else
        echo "run_data_benchmarks: $python has no torch (apt-get install python3-torch):" \
            "PyTorch columns left empty" >&2
    fi
fi
elapsed=$(($(date +%s) - start))
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$json_dir" "$elapsed" "$reps" "$min_time" "$load_before" "$load_after" <<'PY'
import json, os, statistics, subprocess, sys
from collections import defaultdict

json_dir, elapsed, reps, min_time, load_before, load_after = sys.argv[1:7]
rates = defaultdict(list)   # (case, workers) -> samples/s of every repetition
errors = {}
with open(f"{json_dir}/dataloader_bench.json") as f:
    data = json.load(f)
context = data["context"]
for b in data["benchmarks"]:
    if b.get("run_type", "iteration") != "iteration":
        continue
    case, arg = b["run_name"].split("/")[:2]
    if b.get("error_occurred"):
        errors[(case, int(arg))] = b.get("error_message", "error")
        continue
    rates[(case, int(arg))].append(b["samples_per_second"])
py_context = {}
py_path = f"{json_dir}/dataloader_pytorch.json"
if os.path.exists(py_path):
    with open(py_path) as f:
        py = json.load(f)
    py_context = py["context"]
    for key, values in py["results"].items():
        case, arg = key.split("/")
        rates[(case, int(arg))].extend(values)
med = {k: statistics.median(v) for k, v in rates.items()}

def rate(v):
    return f"{v / 1e6:.2f} M" if v >= 1e6 else f"{v / 1e3:.0f} k"

def cell(key):
    if key in med:
        return rate(med[key])
    return "skipped" if key in errors else ""

def div(a, b, pct=False):
    if a in med and b is not None and b > 0:
        r = med[a] / b
        return f"{100 * r:.0f} %" if pct else f"{r:.1f}×"
    return "–"

def pytorch_best(w):
    # The faster PyTorch variant at w workers: ratios to PyTorch are then a lower bound.
    vals = [med[(c, w)] for c in ("pytorch_float", "pytorch_uint8") if (c, w) in med]
    return max(vals) if vals else None

def memcpy(kind, w):
    return med.get((f"memcpy_{kind}", max(w, 1)))

def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""

print(f"### Data loading: Fashion-MNIST training set, samples/s (median of {reps} repetitions, "
      f"min time {min_time} s each)\n")
print("```")
print(sh("lscpu | grep -E '^(Model name|CPU\\(s\\)|Thread|Core|Socket|L2|L3|Hypervisor)' "
         "| sed 's/  */ /g'"))
print(sh("free -g | awk '/Mem:/{print \"Memory: \" $2 \" GiB\"}'"))
print(sh("g++ --version | head -1"))
print(sh("dpkg-query -W -f='${Package} ${Version}\\n' libtorch-dev python3-torch "
         "libbenchmark-dev dataset-fashion-mnist 2>/dev/null"))
print(f"libtorch intra-op threads: {context.get('torch_intra_op_threads', '?')}; "
      f"PyTorch: {py_context.get('torch', 'not run')} (Python {py_context.get('python', '?')}, "
      f"{py_context.get('torch_threads', '?')} intra-op threads)")
print(f"load average before / after: {load_before} / {load_after}; whole run: {elapsed} s")
print("```\n")
print("One epoch = 60000 samples, 28×28 uint8 → float32 `(x/255 − 0.2860)/0.3530`, batch 64 "
      "(938 batches), shuffled; workers start with each epoch (no persistent workers). "
      "Ratio cells: 0 workers / 2 workers. memcpy: the same batches' rows copied with one "
      "memcpy each, in the shuffled order, into a reused buffer, on 1 / 2 threads — f32: the "
      "batch's bytes (3136 B/sample) from a float32 copy of the set; u8: the bytes the fast path "
      "reads (784 B/sample). ÷ PyTorch uses the faster of the two PyTorch rows.\n")

ROWS = [("staticpy_fast", "staticpy, contiguous fast path (FashionMNIST + ToFloat)"),
        ("staticpy_generic", "staticpy, generic path (per-sample tensors + stack)"),
        ("libtorch", "libtorch torch::data (MNIST + Normalize + Stack)"),
        ("pytorch_float", "PyTorch DataLoader, TensorDataset (float32, normalised up front)"),
        ("pytorch_uint8", "PyTorch DataLoader, TensorDataset (uint8) + normalising collate_fn"),
        ("memcpy_f32", "memcpy, batch bytes (float32) — 1 / 2 threads"),
        ("memcpy_u8", "memcpy, dataset bytes (uint8) — 1 / 2 threads")]
heads = ["loader", "0 workers", "2 workers", "÷ libtorch", "÷ PyTorch", "% of memcpy f32",
         "% of memcpy u8"]
print("| " + " | ".join(heads) + " |")
print("|---|" + "---:|" * (len(heads) - 1))
for case, label in ROWS:
    if case.startswith("memcpy"):
        ws = (1, 2)
        row = [label, cell((case, 1)), cell((case, 2)), "", "", "", ""]
    else:
        ws = (0, 2)
        row = [label, cell((case, 0)), cell((case, 2))]
        row.append(" / ".join(div((case, w), med.get(("libtorch", w))) for w in ws))
        row.append(" / ".join(div((case, w), pytorch_best(w)) for w in ws))
        row.append(" / ".join(div((case, w), memcpy("f32", w), True) for w in ws))
        row.append(" / ".join(div((case, w), memcpy("u8", w), True) for w in ws))
    if all(c in ("", "skipped") for c in row[1:3]):
        continue
    print("| " + " | ".join(row) + " |")
print()

print("#### CPU-heavy per-sample transform (ToTensor, RandomCrop(24, padding=4), Normalize; "
      "staticpy, default collate)\n")
print("| 0 workers | 1 worker | 2 workers | 1 → 2 workers | 0 → 2 workers |")
print("|---:|---:|---:|---:|---:|")
t = {w: med.get(("transform", w)) for w in (0, 1, 2)}
print("| " + " | ".join([cell(("transform", w)) for w in (0, 1, 2)] +
                        [div(("transform", 2), t[1]), div(("transform", 2), t[0])]) + " |")
print()
if errors:
    print("Skipped:\n")
    for (c, w), m in sorted(errors.items()):
        print(f"- {c}/{w}: {m}")
    print()
PY
