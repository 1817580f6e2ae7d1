#!/usr/bin/env python3
"""Issue 11's training-epoch benchmark, PyTorch 1.13's side (Debian's python3-torch).

The MLP 784-128-10 or the LeNet-5-style CNN (torch.nn, default initialisation after
torch.manual_seed(seed), the shuffling from torch.Generator().manual_seed(42 + seed)), SGD(lr=0.1), batch 64, F.cross_entropy (class indices, mean), on
Fashion-MNIST read from Debian's .gz files and normalised once as torchvision's ToTensor +
Normalize((0.2860,), (0.3530,)) (epoch_support.hpp's constants), shuffled each epoch; the test
accuracy after each epoch (batches of 1000, torch.no_grad()). Each step: zero_grad(set_to_none=True),
forward, loss, backward, step.

Variants (--variant):
  dataloader        torch.utils.data.DataLoader(TensorDataset(images, labels), batch_size=64,
                    shuffle=True, num_workers=--workers): what the tutorials write
  memory            in-memory batching: each epoch torch.randperm(n), each batch
                    images.index_select(0, idx) (the last batch has 32 samples)
  dataloader_trace  the DataLoader, the model and loss torch.jit.trace'd together
  memory_trace      in-memory batching, traced
Threads: torch.set_num_threads(--threads) and OpenBLAS's openblas_set_num_threads(--blas-threads)
through ctypes (the libopenblas.so.0 torch's libblas.so.3 loads), as train_step_pytorch.py.

Output: one JSON line per epoch on stdout, the fields of epoch_support.hpp.

  /usr/bin/python3 benchmarks/epoch_pytorch.py --net mlp --epochs 1 --variant memory --threads 1
"""
import argparse
import ctypes
import ctypes.util
import gzip
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

MEAN, STD = 0.2860, 0.3530
BATCH, TEST_BATCH, LR = 64, 1000, 0.1
DEFAULT_ROOT = "/usr/share/datasets/fashion-mnist"


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(784, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


class LeNet(torch.nn.Module):
    """conv 1->6 k5 pad 2, ReLU, max-pool 2, conv 6->16 k5, ReLU, max-pool 2, flatten, 400->120,
    ReLU, 120->84, ReLU, 84->10."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = torch.nn.Conv2d(6, 16, 5)
        self.fc1 = torch.nn.Linear(400, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.max_pool2d(torch.relu(self.conv2(x)), 2).flatten(1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class Loss(torch.nn.Module):
    """The model and the loss as one module, so that jit.trace records both."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        return F.cross_entropy(self.model(x), y)


def read_idx(root, name):
    path = os.path.join(root, name + ".gz")
    opener = gzip.open
    if not os.path.exists(path):
        path, opener = os.path.join(root, name), open
    with opener(path, "rb") as f:
        return f.read()


def load(root, train):
    """(images [n, 1, 28, 28] float32 normalised, labels [n] int64)."""
    prefix = "train" if train else "t10k"
    images = read_idx(root, prefix + "-images-idx3-ubyte")
    labels = read_idx(root, prefix + "-labels-idx1-ubyte")
    n = int.from_bytes(images[4:8], "big")
    x = np.frombuffer(images, dtype=np.uint8, offset=16).reshape(n, 1, 28, 28)
    x = torch.from_numpy((x.astype(np.float32) / 255.0 - MEAN) / STD)
    y = torch.from_numpy(np.frombuffer(labels, dtype=np.uint8, offset=8).astype(np.int64))
    return x, y


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


def main():
    setup_start = time.perf_counter()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--net", choices=("mlp", "cnn"), default="mlp")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--blas-threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--variant", default="memory",
                    choices=("dataloader", "memory", "dataloader_trace", "memory_trace"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--root", default=DEFAULT_ROOT)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    blas = openblas()
    if blas is not None:
        blas.openblas_set_num_threads(args.blas_threads)
    else:
        print("epoch_pytorch: OpenBLAS not found: --blas-threads has no effect", file=sys.stderr)

    train_x, train_y = load(args.root, True)
    test_x, test_y = load(args.root, False)
    n = train_x.shape[0]

    torch.manual_seed(args.seed)
    model = MLP() if args.net == "mlp" else LeNet()
    loss_fn = Loss(model)
    traced = args.variant.endswith("_trace")
    if traced:
        loss_fn = torch.jit.trace(loss_fn, (train_x[:BATCH], train_y[:BATCH]))
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    shuffle = torch.Generator().manual_seed(42 + args.seed)
    use_loader = args.variant.startswith("dataloader")
    if use_loader:
        loader = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(train_x, train_y), batch_size=BATCH, shuffle=True,
            num_workers=args.workers, generator=shuffle)
    variant = args.variant + (f"_w{args.workers}" if use_loader else "")
    record = {"peer": "pytorch", "variant": variant, "net": args.net,
              "setting": f"torch:{args.threads}/blas:{args.blas_threads}", "seed": args.seed,
              "setup_s": time.perf_counter() - setup_start}

    def batches():
        if use_loader:
            yield from loader
            return
        perm = torch.randperm(n, generator=shuffle)
        for b in range(0, n, BATCH):
            idx = perm[b:b + BATCH]
            yield train_x.index_select(0, idx), train_y.index_select(0, idx)

    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        loss_sum, steps = 0.0, 0
        for x, y in batches():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(x, y)
            loss.backward()
            opt.step()
            loss_sum += loss.item()
            steps += 1
        train_s = time.perf_counter() - start

        eval_start = time.perf_counter()
        correct = 0
        with torch.no_grad():
            for b in range(0, test_x.shape[0], TEST_BATCH):
                predicted = model(test_x[b:b + TEST_BATCH]).argmax(1)
                correct += int((predicted == test_y[b:b + TEST_BATCH]).sum())
        record.update(epoch=epoch, train_s=train_s, eval_s=time.perf_counter() - eval_start,
                      train_loss=loss_sum / steps, test_acc=correct / test_x.shape[0], samples=n)
        print(json.dumps(record), flush=True)
        print(f"pytorch {variant} {args.net} [{record['setting']}] epoch {epoch}: {train_s:.3f} s, "
              f"loss {record['train_loss']:.4f}, test accuracy {100 * record['test_acc']:.2f} %",
              file=sys.stderr)


if __name__ == "__main__":
    main()
