#!/usr/bin/env bash
# all_reduce bandwidth (issue 13) in one run: installs what is missing (Google Benchmark, Open
# MPI), configures a Release build with the benchmarks on, builds distributed_bench only, runs it
# under mpirun -np <ranks> and prints one Markdown table: for each float32 message size, the
# medians over the rounds of staticpy's all_reduce, raw MPI_Allreduce on the same sizes,
# staticpy's overhead over it (from paired calls, and from the separate cases), MPI_Iallreduce + MPI_Wait (the nonblocking call), the container
# form (a dict of 4 tensors) and memcpy of the same bytes on every rank at once (the physical
# reference: ranks on one machine talk through shared memory).
#
#   benchmarks/run_distributed_benchmarks.sh [build-dir]        (default build/bench)
#
# Environment:
#   BENCH_RANKS=2        ranks (mpirun -np; --oversubscribe, so more than the cores works)
#   BENCH_ROUNDS=5       rounds: every case runs once per round, interleaved; medians reported
#   BENCH_FILTER=regex   only the matching cases, e.g. '/(1MB|4MB)/'
#   BENCH_JSON_DIR=dir   where the raw results go (default <build-dir>/distributed-bench)
#   BENCH_CMAKE_ARGS=... extra arguments for the configure step
#   BENCH_MPIRUN_ARGS=.. extra mpirun arguments (e.g. '--mca btl_vader_single_copy_mechanism none')
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build/bench}"
ranks="${BENCH_RANKS:-2}"
rounds="${BENCH_ROUNDS:-5}"
filter="${BENCH_FILTER:-}"
json_dir="${BENCH_JSON_DIR:-$build/distributed-bench}"

"$root/scripts/install-deps.sh" libbenchmark-dev python3 libopenmpi-dev openmpi-bin >&2

# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DSTATICPY_BUILD_BENCHMARKS=ON -DSTATICPY_BUILD_TESTS=OFF \
    -DSTATICPY_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Release ${BENCH_CMAKE_ARGS:-} >&2
cmake --build "$build" --target distributed_bench -j "$(nproc)" >&2

mkdir -p "$json_dir"
# Open MPI refuses to run as root without these (the build machines run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
echo "run_distributed_benchmarks: mpirun -np $ranks distributed_bench --rounds=$rounds ..." >&2
args=(--rounds="$rounds" --benchmark_format=console --benchmark_color=false
    --benchmark_out="$json_dir/distributed_bench.json" --benchmark_out_format=json)
if [[ -n "$filter" ]]; then
    args+=(--benchmark_filter="$filter")
fi
# shellcheck disable=SC2086
mpirun -np "$ranks" --oversubscribe ${BENCH_MPIRUN_ARGS:-} "$build/benchmarks/distributed_bench" \
    "${args[@]}" >"$json_dir/distributed_bench.txt" 2>&1 ||
    { cat "$json_dir/distributed_bench.txt" >&2; exit 1; }
elapsed=$(($(date +%s) - start))
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$json_dir/distributed_bench.json" "$elapsed" "$rounds" "$load_before" "$load_after" \
    "$ranks" <<'PY'
import json, statistics, subprocess, sys
from collections import defaultdict

path, elapsed, rounds, load_before, load_after, ranks = sys.argv[1:7]
with open(path) as f:
    data = json.load(f)
seconds = defaultdict(list)   # (case, size) -> seconds per call, one per round
paired = defaultdict(list)    # size -> paired_overhead's overhead_pct, one per round
errors = {}
for b in data["benchmarks"]:
    case, size = b["run_name"].split("/")[:2]
    if b.get("error_occurred"):
        errors[(case, size)] = b.get("error_message", "error")
        continue
    if case == "paired_overhead":
        paired[size].append(b["overhead_pct"])
        continue
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
    seconds[(case, size)].append(b["real_time"] * scale)

def size_bytes(label):
    return int(label[:-2]) * (1024 if label.endswith("KB") else 1024 * 1024)

sizes = sorted({s for _, s in seconds} | set(paired), key=size_bytes)

def median(case, size):
    v = seconds.get((case, size))
    return statistics.median(v) if v else None

def gbps(case, size):
    t = median(case, size)
    return None if t is None else size_bytes(size) / t / 1e9

def spread(case, size):
    """Slowest round over fastest, as a percentage: the noise the medians hide."""
    v = seconds.get((case, size))
    return None if not v or len(v) < 2 else (max(v) / min(v) - 1) * 100

def cell(x, fmt="{:.2f}"):
    return "—" if x is None else fmt.format(x)

commit = subprocess.run(["git", "-C", sys.path[0] or ".", "rev-parse", "--short", "HEAD"],
                        capture_output=True, text=True).stdout.strip()
ctx = data["context"]
print(f"mpirun -np {ranks}, {rounds} rounds (medians), {ctx.get('mpi_library', 'MPI')}, "
      f"{ctx['num_cpus']} CPUs at {ctx['mhz_per_cpu']} MHz, {ctx['date']}, {elapsed} s; "
      f"load average {load_before} before, {load_after} after")
print()
print("| size | staticpy all_reduce GB/s | MPI_Allreduce GB/s | overhead, paired calls "
      "(min–max of rounds) | overhead, separate cases | MPI_Iallreduce + MPI_Wait GB/s | "
      "staticpy dict of 4 GB/s | memcpy GB/s | spread staticpy / MPI |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for size in sizes:
    ts, tm = median("staticpy_all_reduce", size), median("MPI_Allreduce", size)
    overhead = None if ts is None or tm is None else (ts / tm - 1) * 100
    p = paired.get(size)
    paired_median = statistics.median(p) if p else None
    bold = paired_median is not None and size_bytes(size) >= 1024 * 1024 and paired_median > 5
    over = cell(paired_median, "{:+.1f} %")
    if p and len(p) > 1:
        over = f"{'**' + over + '**' if bold else over} ({min(p):+.0f} to {max(p):+.0f} %)"
    print(f"| {size} | {cell(gbps('staticpy_all_reduce', size))} | "
          f"{cell(gbps('MPI_Allreduce', size))} | {over} | {cell(overhead, '{:+.1f} %')} | "
          f"{cell(gbps('MPI_Iallreduce_wait', size))} | "
          f"{cell(gbps('staticpy_all_reduce_dict', size))} | {cell(gbps('memcpy', size))} | "
          f"{cell(spread('staticpy_all_reduce', size), '{:.0f} %')} / "
          f"{cell(spread('MPI_Allreduce', size), '{:.0f} %')} |")
print()
print("GB/s: message bytes (float32) per call over the wall time per call, 1 GB = 1e9 bytes "
      "(nccl-tests' algorithm bandwidth; its bus bandwidth is this times 2(N-1)/N, 1 at 2 ranks). "
      "Overhead, paired calls: staticpy's median time per call over MPI_Allreduce's, minus 1, "
      "the two called alternately in one case (paired_overhead), median over the rounds (issue "
      "13: <= 5 % at >= 1 MB; bold where above). Overhead, separate cases: the same from the "
      "medians of the separate cases, which a busy minute skews. Spread: slowest round over "
      "fastest.")
for (case, size), message in sorted(errors.items()):
    print(f"- {case}/{size}: {message}")
PY
