#!/usr/bin/python3
"""PyTorch's DataLoader on the Fashion-MNIST training set, the Python peer of dataloader_bench.

The same work as the C++ cases: 60000 x 28x28 uint8 images to float32, normalised with
(x / 255 - 0.2860) / 0.3530, batches of 64, shuffled by a seeded generator, 0 and 2 workers,
one epoch per measurement (workers start with each epoch, as persistent_workers=False).

  pytorch_float/W  TensorDataset over the images normalised once up front (float32, 188 MB): the
                   loader only indexes and stacks (the usual idiom, the least work per batch)
  pytorch_uint8/W  TensorDataset over the uint8 images; a collate_fn normalises each batch in
                   the workers (what staticpy's fast path does)

  /usr/bin/python3 benchmarks/dataloader_pytorch.py [--min-time 0.5] [--repetitions 3]
      [--root /usr/share/datasets/fashion-mnist] [--json out.json]

Prints one line per case (median samples/s of the repetitions) and, with --json, writes
{"context": {...}, "results": {"pytorch_float/0": [samples/s, ...], ...}}. Debian's python3-torch
(1.13) is what the table uses: run it with /usr/bin/python3, not a virtualenv's interpreter.
"""

import argparse
import gzip
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data._utils.collate import default_collate

MEAN, STD, BATCH = 0.2860, 0.3530, 64


def read_idx(path):
    """An IDX file (plain or .gz) as a numpy array, checking the magic number."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        sys.exit(f"{path}: not a uint8 IDX file")
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def find(root, name):
    for candidate in (os.path.join(root, name), os.path.join(root, name + ".gz")):
        if os.path.exists(candidate):
            return candidate
    return None


def normalise_collate(batch):
    x, y = default_collate(batch)
    return (x.float() / 255 - MEAN) / STD, y


def epoch(loader):
    seen = 0
    for x, y in loader:
        seen += x.shape[0]
    return seen


def measure(loader, n, min_time, repetitions):
    epoch(loader)  # warm-up: page cache, allocator, fork paths
    rates = []
    for _ in range(repetitions):
        seen, start = 0, time.perf_counter()
        while True:
            seen += epoch(loader)
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        if seen % n != 0:
            sys.exit(f"an epoch saw {seen} samples, expected a multiple of {n}")
        rates.append(seen / elapsed)
    return rates


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", default=os.environ.get("STATICPY_FASHION_MNIST",
                                                    "/usr/share/datasets/fashion-mnist"))
    p.add_argument("--min-time", type=float, default=0.5, help="seconds per repetition (at least one epoch)")
    p.add_argument("--repetitions", type=int, default=3)
    p.add_argument("--workers", default="0,2")
    p.add_argument("--json")
    args = p.parse_args()

    images_path = find(args.root, "train-images-idx3-ubyte")
    labels_path = find(args.root, "train-labels-idx1-ubyte")
    if images_path is None or labels_path is None:
        print(f"Fashion-MNIST not found in {args.root} (apt-get install dataset-fashion-mnist): "
              "PyTorch cases skipped")
        return 0
    images = torch.from_numpy(read_idx(images_path).copy())
    labels = torch.from_numpy(read_idx(labels_path).astype(np.int64))
    n = images.shape[0]
    normalised = (images.float() / 255 - MEAN) / STD

    cases = {
        "pytorch_float": (TensorDataset(normalised, labels), default_collate),
        "pytorch_uint8": (TensorDataset(images, labels), normalise_collate),
    }
    results = {}
    for workers in (int(w) for w in args.workers.split(",")):
        for name, (dataset, collate) in cases.items():
            loader = DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=workers,
                                collate_fn=collate, generator=torch.Generator().manual_seed(0))
            rates = measure(loader, n, args.min_time, args.repetitions)
            key = f"{name}/{workers}"
            results[key] = rates
            print(f"{key:18s} {statistics.median(rates) / 1e3:10.1f} k samples/s  "
                  f"(median of {len(rates)})", flush=True)

    if args.json:
        context = {"torch": torch.__version__, "numpy": np.__version__,
                   "python": sys.version.split()[0], "torch_threads": torch.get_num_threads(),
                   "cpus": os.cpu_count(), "root": args.root}
        with open(args.json, "w") as f:
            json.dump({"context": context, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
