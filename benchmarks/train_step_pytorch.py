#!/usr/bin/env python3
"""Issue 10's PyTorch 1.13 peer (Debian's python3-torch): one training step of the MLPs of
train_step_bench.cpp, in steps/s, plain and with torch.jit.trace, data already in memory.

A step: zero_grad(set_to_none=True), loss = F.cross_entropy(model(x), y) (class indices, mean),
loss.backward(), SGD(lr=0.01).step(). jit.trace traces the model and the loss together (a module
whose forward returns the loss), so the TorchScript graph holds everything the step computes
before backward. The same initial weights and batch as train_step_bench.cpp and
train_step_libtorch.cpp (init_value there).

Threads are set explicitly: torch.set_num_threads(--torch-threads) and OpenBLAS's
openblas_set_num_threads(--blas-threads) through ctypes (the libopenblas.so.0 that torch's
libblas.so.3 loaded); run one setting per process (run_train_step_benchmarks.sh does).

The output is Google Benchmark's JSON format (the fields the run script reads), cases named
"<model>/pytorch/torch_threads:T/blas_threads:B" and "<model>/pytorch_jit_trace/...", as
train_step_libtorch's.

  /usr/bin/python3 benchmarks/train_step_pytorch.py --torch-threads 1 --blas-threads 1 --json out.json
  /usr/bin/python3 benchmarks/train_step_pytorch.py --trajectory 5
"""
import argparse
import ctypes
import ctypes.util
import json
import math
import platform
import sys
import time

import torch
import torch.nn.functional as F

MODELS = [("784-128-10/b64", 64, [784, 128, 10]),
          ("784-512-512-10/b256", 256, [784, 512, 512, 10])]


def pattern(sizes, seed, lo, hi):
    """init_value of train_step_bench.cpp over a tensor of `sizes`, computed in float64."""
    n = math.prod(sizes)
    i = torch.arange(n, dtype=torch.int64)
    h = ((i + seed * 1000003) * 2654435761) % 4294967296
    u = (h.double() / 4294967296.0).float().double()
    return (lo + (hi - lo) * u).float().view(*sizes)


class MLP(torch.nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.layers = torch.nn.ModuleList()
        with torch.no_grad():
            for l in range(len(widths) - 1):
                fan_in, out = widths[l], widths[l + 1]
                fc = torch.nn.Linear(fan_in, out)
                bound = 1.0 / math.sqrt(fan_in)
                fc.weight.copy_(pattern([out, fan_in], 2 * l + 1, -bound, bound))
                fc.bias.copy_(pattern([out], 2 * l + 2, -bound, bound))
                self.layers.append(fc)

    def forward(self, x):
        for l, fc in enumerate(self.layers):
            x = fc(x)
            if l + 1 < len(self.layers):
                x = torch.relu(x)
        return x


class Loss(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        return F.cross_entropy(self.model(x), y)


def make(batch, widths, traced):
    model = MLP(widths)
    x = pattern([batch, 784], 100, 0.0, 1.0)
    y = (torch.arange(batch, dtype=torch.int64) * 7 + 3) % 10
    loss_fn = Loss(model)
    if traced:
        loss_fn = torch.jit.trace(loss_fn, (x, y))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(x, y)
        loss.backward()
        opt.step()
        return loss

    return step


def openblas():
    """The OpenBLAS library torch loaded (through libblas.so.3), or None."""
    for name in ("libopenblas.so.0", ctypes.util.find_library("openblas")):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_set_num_threads  # noqa: B018 (raises if absent)
            return lib
        except (OSError, AttributeError):
            pass
    return None


def measure(step, min_time):
    """Steps per second over at least min_time seconds (Google Benchmark's way: grow the
    iteration count until one run lasts long enough)."""
    iters = 1
    while True:
        start = time.perf_counter()
        for _ in range(iters):
            step()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or iters >= 1_000_000:
            return iters, elapsed
        iters = max(iters + 1, int(iters * min(10.0, 1.4 * min_time / max(elapsed, 1e-9))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--blas-threads", type=int, default=1)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--repetitions", type=int, default=1)
    ap.add_argument("--warmup", type=int, default=20,
                    help="steps before timing (the profiling executor optimises the traced graph "
                         "on its first calls)")
    ap.add_argument("--json", help="write Google Benchmark's JSON format here")
    ap.add_argument("--trajectory", type=int, default=0,
                    help="print the first N losses of each model (plain) and exit")
    args = ap.parse_args()

    blas = openblas()
    torch.set_num_threads(args.torch_threads)
    if blas is not None:
        blas.openblas_set_num_threads(args.blas_threads)

    if args.trajectory:
        for name, batch, widths in MODELS:
            for variant, traced in (("pytorch", False), ("pytorch_jit_trace", True)):
                step = make(batch, widths, traced)
                for s in range(args.trajectory):
                    print(f"trajectory {name} {variant} {s} {step().item():.9g}")
        return

    results = []
    for name, batch, widths in MODELS:
        for variant, traced in (("pytorch", False), ("pytorch_jit_trace", True)):
            run_name = (f"{name}/{variant}/torch_threads:{args.torch_threads}"
                        f"/blas_threads:{args.blas_threads}")
            step = make(batch, widths, traced)
            for _ in range(args.warmup):
                step()
            for rep in range(args.repetitions):
                iters, elapsed = measure(step, args.min_time)
                results.append({
                    "name": run_name, "run_name": run_name, "run_type": "iteration",
                    "repetitions": args.repetitions, "repetition_index": rep, "threads": 1,
                    "iterations": iters, "real_time": elapsed / iters * 1e6,
                    "cpu_time": elapsed / iters * 1e6, "time_unit": "us",
                    "items_per_second": iters / elapsed})
                print(f"{run_name:<64} {elapsed / iters * 1e6:10.1f} us {iters:8d} "
                      f"items_per_second={iters / elapsed:.1f}/s", file=sys.stderr)
    context = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "executable": sys.argv[0],
        "torch": torch.__version__,
        "python": platform.python_version(),
        "torch_threads": str(torch.get_num_threads()),
        "openblas": "found" if blas is not None else "not found: BLAS threads not set",
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"context": context, "benchmarks": results}, f, indent=1)


if __name__ == "__main__":
    main()
