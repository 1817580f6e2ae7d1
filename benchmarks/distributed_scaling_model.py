#!/usr/bin/env python3
"""Issue 13's scaling on paper: data-parallel step time at N = 1, 2, 8, 64 nodes from a ring
all-reduce's traffic. A model, not a measurement: nothing here runs on more than one machine.

For a ring all-reduce of B gradient bytes over N nodes, each node sends and receives
2(N-1)/N * B bytes in 2(N-1) messages, so with link bandwidth beta (bytes/s) and per-message
latency alpha:

    t_comm(N) = 2(N-1) * alpha + 2(N-1)/N * B / beta        (0 at N = 1)

With per-step compute t_c (forward, backward, update at the per-node batch), a step takes
t_c + t_comm when the all-reduce runs after the backward (no overlap) and max(t_c, t_comm) when
it is hidden behind the compute entirely (the bound bucketed overlap approaches; in practice only
the backward overlaps). Weak scaling: every node keeps its batch, so samples/s = N * batch / step.

    python3 benchmarks/distributed_scaling_model.py [distributed_bench.json]

Given distributed_bench's JSON (run_distributed_benchmarks.sh writes it to
build/bench/distributed-bench/), it also prints the measured staticpy all_reduce time at each
model's gradient bytes on this machine (2 ranks, shared memory), interpolated log-log between the
measured sizes.
"""
import json
import math
import statistics
import sys
from collections import defaultdict

BATCH = 64  # examples/train_fashion_mnist.cpp's batch per step (per node here)

# Parameter counts from examples/train_fashion_mnist.cpp's nn::Sequential definitions (weights +
# biases, float32); t_c per step from benchmarks/README.md section 8 (issue 11's twelfth
# session: an epoch of 938 steps of batch 64 on this 2-core VM, 2 threads).
MLP = ("MLP 784-128-10", 784 * 128 + 128 + 128 * 10 + 10, 0.192 / 938)
LENET = ("LeNet-5", (1 * 6 * 25 + 6) + (6 * 16 * 25 + 16) + (400 * 120 + 120) +
         (120 * 84 + 84) + (84 * 10 + 10), 1.674 / 938)
BUCKET_BYTES = 25 * 1024 * 1024  # PyTorch DDP's default bucket: one 25 MiB all-reduce per step

LINKS = [
    # name, beta (bytes/s), alpha (s per message): assumptions, at line rate (an upper bound)
    ("100 Gb/s InfiniBand (EDR/HDR100)", 100e9 / 8, 2e-6),
    ("25 Gb/s Ethernet (TCP)", 25e9 / 8, 20e-6),
]
NODES = [1, 2, 8, 64]


def ring_allreduce_seconds(nbytes, n, beta, alpha):
    if n == 1:
        return 0.0
    return 2 * (n - 1) * alpha + 2 * (n - 1) / n * nbytes / beta


def fmt_time(s):
    return f"{s * 1e6:,.0f} µs" if s < 1e-2 else f"{s * 1e3:,.1f} ms"


def measured_seconds(path, nbytes):
    with open(path) as f:
        data = json.load(f)
    times = defaultdict(list)
    for b in data["benchmarks"]:
        case, size = b["run_name"].split("/")[:2]
        if case != "staticpy_all_reduce" or b.get("error_occurred"):
            continue
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        size_bytes = int(size[:-2]) * (1024 if size.endswith("KB") else 1024 * 1024)
        times[size_bytes].append(b["real_time"] * scale)
    points = sorted((s, statistics.median(v)) for s, v in times.items())
    for (s0, t0), (s1, t1) in zip(points, points[1:]):
        if s0 <= nbytes <= s1:
            w = math.log(nbytes / s0) / math.log(s1 / s0)
            return math.exp(math.log(t0) + w * (math.log(t1) - math.log(t0)))
    return None


def main():
    models = [(name, params * 4, t_c) for name, params, t_c in (MLP, LENET)]
    print("| model | gradient bytes | t_c per step | link | N | all-reduce | step, no overlap | "
          "step, overlapped | efficiency (no overlap / overlapped) | samples/s (no overlap) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for name, nbytes, t_c in models:
        for link, beta, alpha in LINKS:
            for n in NODES:
                t = ring_allreduce_seconds(nbytes, n, beta, alpha)
                serial, overlapped = t_c + t, max(t_c, t)
                print(f"| {name} | {nbytes / 1e3:,.0f} kB | {fmt_time(t_c)} | {link} | {n} | "
                      f"{fmt_time(t)} | {fmt_time(serial)} | {fmt_time(overlapped)} | "
                      f"{t_c / serial:.0%} / {t_c / overlapped:.0%} | "
                      f"{n * BATCH / serial:,.0f} |")
    print()
    print("A 25 MiB gradient bucket (PyTorch DDP's default; a model of ~6.6 M float parameters "
          "all-reduced as one bucket): the all-reduce, and the compute per step that keeps the "
          "efficiency at 90 % without overlap (t_c >= 9 t_comm) and with full overlap "
          "(t_c >= t_comm):")
    print()
    print("| link | N | all-reduce of 25 MiB | t_c for 90 %, no overlap | t_c for 100 %, "
          "overlapped |")
    print("|---|---:|---:|---:|---:|")
    for link, beta, alpha in LINKS:
        for n in NODES:
            t = ring_allreduce_seconds(BUCKET_BYTES, n, beta, alpha)
            print(f"| {link} | {n} | {fmt_time(t)} | {fmt_time(9 * t)} | {fmt_time(t)} |")
    if len(sys.argv) > 1:
        print()
        print("Measured on this machine (staticpy all_reduce, 2 ranks, shared memory, "
              "interpolated):")
        for name, nbytes, t_c in models + [("25 MiB bucket", BUCKET_BYTES, None)]:
            t = measured_seconds(sys.argv[1], nbytes)
            extra = "" if t_c is None or t is None else f" ({t / t_c:.0%} of t_c)"
            print(f"- {name}, {nbytes / 1e3:,.0f} kB: "
                  f"{'—' if t is None else fmt_time(t)}{extra}")


if __name__ == "__main__":
    main()
