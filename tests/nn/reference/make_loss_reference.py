#!/usr/bin/env python3
# Reference values for the losses of staticpy::nn::functional (tests/nn/functional_test.cpp, the
# values, and tests/autodiff/loss_test.cpp, the gradients), computed by PyTorch in float64. The C++
# tests read the file this writes, loss_reference.txt; they never run Python.
#
# Regenerate (Debian 12: `apt-get install python3-torch`, PyTorch 1.13.1), from the repository root:
#     /usr/bin/python3 tests/nn/reference/make_loss_reference.py
#
# Format (as make_reference.py's): one record a line, a name without spaces, then its numbers as
# repr(float), row-major. Lines starting with '#' are comments. Records:
#   input/<NAME>            an input, so that both sides use the very same numbers (shapes below);
#   <call>/value            a loss's value, <call> spelling it with PyTorch's keyword arguments,
#                           e.g. cross_entropy(X,TI,weight=W,label_smoothing=0.2,reduction='sum');
#   grad/<case>/d<NAME>     the gradient of the scalar function <case> (GRAD_CASES) with respect to
#                           input <NAME>.
# The C++ tests hold the same calls under the same names, so a case added on one side only fails.

import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def filled(shape, f):
    n = math.prod(shape)
    return torch.tensor([f(k) for k in range(n)], dtype=torch.float64).reshape(shape)


def make_inputs():
    x = filled((4, 5), lambda k: 2.0 * math.sin(1.3 * k + 0.2))
    a = filled((3, 4), lambda k: math.sin(0.9 * k + 0.4))
    b = a.clone().flatten()
    # edge points of the elementwise losses: d = a - b is 0, +-1 (beta, delta), +-0.5
    b[0] = a.flatten()[0]
    b[1] = a.flatten()[1] - 1.0
    b[2] = a.flatten()[2] + 1.0
    b[3] = a.flatten()[3] - 0.5
    b[4:] = filled((8,), lambda k: 1.5 * math.cos(0.7 * k + 0.3))
    pr = filled((3, 4), lambda k: 0.5 + 0.45 * math.sin(1.1 * k + 0.5)).flatten()
    pr[0], pr[5] = 0.0, 1.0  # bce's edges: log(0) clamped at -100, the gradient's 1e-12
    return {
        # [4, 5] logits, class indices [4] (with ignore_index's -100, and 2 to ignore), class
        # weights [5], class probabilities [4, 5] (rows of softmax)
        "X": x,
        "T": torch.tensor([1.0, 0.0, 4.0, 2.0]),
        "TI": torch.tensor([1.0, -100.0, 4.0, 2.0]),
        "W": torch.tensor([0.2, 1.0, 0.5, 2.0, 1.5]),
        "P": torch.softmax(filled((4, 5), lambda k: math.cos(0.8 * k)), 1),
        "TN": torch.tensor([-100.0, -100.0, -100.0, -100.0]),
        # K-dimensional: [2, 3, 4] logits, [2, 4] indices; one row: [5] logits, a 0-dim index
        "X3": filled((2, 3, 4), lambda k: 1.5 * math.cos(0.6 * k + 0.1)),
        "T3": torch.tensor([[0.0, 2.0, 1.0, 1.0], [2.0, 0.0, 0.0, 1.0]]),
        "X1": filled((5,), lambda k: math.sin(2.1 * k)),
        "T1": torch.tensor(3.0),
        # the elementwise losses' input and target [3, 4]; a cotangent of [4] rows
        "A": a,
        "B": b.reshape(3, 4),
        "C": torch.tensor([0.5, -1.0, 2.0, 1.5]),
        # bce: probabilities [3, 4] (0 and 1 among them), targets in [0, 1], weights over the
        # last dim [4], logits [3, 4]
        "PR": pr.reshape(3, 4),
        "Q": filled((3, 4), lambda k: 0.5 + 0.5 * math.cos(1.7 * k)),
        "BW": torch.tensor([0.5, 1.0, 2.0, 0.25]),
        "PW": torch.tensor([3.0, 0.5, 1.0, 2.0]),
        "L": filled((3, 4), lambda k: 3.0 * math.sin(0.77 * k + 0.9)),
    }


def idx(t):
    return t.to(torch.int64)


def value_cases(i):
    X, T, TI, W, P, TN = i["X"], idx(i["T"]), idx(i["TI"]), i["W"], i["P"], idx(i["TN"])
    X3, T3, X1, T1 = i["X3"], idx(i["T3"]), i["X1"], idx(i["T1"])
    A, B, PR, Q, BW, PW, L = i["A"], i["B"], i["PR"], i["Q"], i["BW"], i["PW"], i["L"]
    LS = torch.log_softmax(X, 1)
    return [
        ("cross_entropy(X,T)", F.cross_entropy(X, T)),
        ("cross_entropy(X,T,reduction='sum')", F.cross_entropy(X, T, reduction="sum")),
        ("cross_entropy(X,T,reduction='none')", F.cross_entropy(X, T, reduction="none")),
        ("cross_entropy(X,TI)", F.cross_entropy(X, TI)),
        ("cross_entropy(X,T,weight=W)", F.cross_entropy(X, T, weight=W)),
        ("cross_entropy(X,TI,weight=W,reduction='none')",
         F.cross_entropy(X, TI, weight=W, reduction="none")),
        ("cross_entropy(X,T,ignore_index=2)", F.cross_entropy(X, T, ignore_index=2)),
        ("cross_entropy(X,T,label_smoothing=0.1)", F.cross_entropy(X, T, label_smoothing=0.1)),
        ("cross_entropy(X,TI,label_smoothing=0.1)", F.cross_entropy(X, TI, label_smoothing=0.1)),
        ("cross_entropy(X,TI,weight=W,label_smoothing=0.2)",
         F.cross_entropy(X, TI, weight=W, label_smoothing=0.2)),
        ("cross_entropy(X,TI,weight=W,reduction='sum',label_smoothing=0.2)",
         F.cross_entropy(X, TI, weight=W, reduction="sum", label_smoothing=0.2)),
        ("cross_entropy(X,TI,weight=W,reduction='none',label_smoothing=0.2)",
         F.cross_entropy(X, TI, weight=W, reduction="none", label_smoothing=0.2)),
        ("cross_entropy(X,T,label_smoothing=-0.5)", F.cross_entropy(X, T, label_smoothing=-0.5)),
        ("cross_entropy(X,TN)", F.cross_entropy(X, TN)),
        ("cross_entropy(X,TN,reduction='sum')", F.cross_entropy(X, TN, reduction="sum")),
        ("cross_entropy(X,P)", F.cross_entropy(X, P)),
        ("cross_entropy(X,P,reduction='sum')", F.cross_entropy(X, P, reduction="sum")),
        ("cross_entropy(X,P,weight=W,reduction='none',label_smoothing=0.3)",
         F.cross_entropy(X, P, weight=W, reduction="none", label_smoothing=0.3)),
        ("cross_entropy(X,P,weight=W,label_smoothing=0.3)",
         F.cross_entropy(X, P, weight=W, label_smoothing=0.3)),
        ("cross_entropy(X3,T3)", F.cross_entropy(X3, T3)),
        ("cross_entropy(X3,T3,weight=W[:3],reduction='none')",
         F.cross_entropy(X3, T3, weight=W[:3], reduction="none")),
        ("cross_entropy(X3,T3,label_smoothing=0.25)", F.cross_entropy(X3, T3, label_smoothing=0.25)),
        ("cross_entropy(X1,T1)", F.cross_entropy(X1, T1)),
        ("cross_entropy(X1,T1,weight=W,reduction='none',label_smoothing=0.1)",
         F.cross_entropy(X1, T1, weight=W, reduction="none", label_smoothing=0.1)),
        ("nll_loss(LS,T)", F.nll_loss(LS, T)),
        ("nll_loss(X,TI,weight=W)", F.nll_loss(X, TI, weight=W)),
        ("nll_loss(X,TI,weight=W,reduction='none')", F.nll_loss(X, TI, weight=W, reduction="none")),
        ("nll_loss(X,T,ignore_index=0,reduction='sum')",
         F.nll_loss(X, T, ignore_index=0, reduction="sum")),
        ("nll_loss(X3,T3,weight=W[:3])", F.nll_loss(X3, T3, weight=W[:3])),
        ("nll_loss(X1,T1)", F.nll_loss(X1, T1)),
        ("mse_loss(A,B)", F.mse_loss(A, B)),
        ("mse_loss(A,B,reduction='none')", F.mse_loss(A, B, reduction="none")),
        ("mse_loss(A,C,reduction='sum')", F.mse_loss(A, i["C"], reduction="sum")),
        ("l1_loss(A,B)", F.l1_loss(A, B)),
        ("l1_loss(A,B,reduction='none')", F.l1_loss(A, B, reduction="none")),
        ("smooth_l1_loss(A,B)", F.smooth_l1_loss(A, B)),
        ("smooth_l1_loss(A,B,reduction='none',beta=0.5)",
         F.smooth_l1_loss(A, B, reduction="none", beta=0.5)),
        ("smooth_l1_loss(A,B,reduction='sum',beta=0.0)",
         F.smooth_l1_loss(A, B, reduction="sum", beta=0.0)),
        ("huber_loss(A,B)", F.huber_loss(A, B)),
        ("huber_loss(A,B,reduction='none',delta=0.5)",
         F.huber_loss(A, B, reduction="none", delta=0.5)),
        ("huber_loss(A,B,reduction='sum',delta=2.0)", F.huber_loss(A, B, reduction="sum", delta=2.0)),
        ("binary_cross_entropy(PR,Q)", F.binary_cross_entropy(PR, Q)),
        ("binary_cross_entropy(PR,Q,reduction='none')",
         F.binary_cross_entropy(PR, Q, reduction="none")),
        ("binary_cross_entropy(PR,Q,weight=BW,reduction='sum')",
         F.binary_cross_entropy(PR, Q, weight=BW, reduction="sum")),
        ("binary_cross_entropy_with_logits(L,Q)", F.binary_cross_entropy_with_logits(L, Q)),
        ("binary_cross_entropy_with_logits(L,Q,reduction='none')",
         F.binary_cross_entropy_with_logits(L, Q, reduction="none")),
        ("binary_cross_entropy_with_logits(L,Q,weight=BW,reduction='sum')",
         F.binary_cross_entropy_with_logits(L, Q, weight=BW, reduction="sum")),
        ("binary_cross_entropy_with_logits(L,Q,reduction='none',pos_weight=PW)",
         F.binary_cross_entropy_with_logits(L, Q, reduction="none", pos_weight=PW)),
        ("binary_cross_entropy_with_logits(L,Q,weight=BW,pos_weight=PW)",
         F.binary_cross_entropy_with_logits(L, Q, weight=BW, pos_weight=PW)),
    ]


# Scalar functions whose gradients loss_test.cpp checks in both autodiff modes: (name, the inputs
# differentiated, the function of the inputs dict). One function covers several options, as one
# grad instantiation costs the C++ compiler seconds.
GRAD_CASES = [
    ("ce_indices", ["X"], lambda i: F.cross_entropy(i["X"], idx(i["T"]))
     + F.cross_entropy(i["X"], idx(i["TI"]), weight=i["W"], reduction="sum", label_smoothing=0.2)),
    ("ce_none", ["X"], lambda i: (F.cross_entropy(i["X"], idx(i["TI"]), weight=i["W"],
                                                  reduction="none") * i["C"]).sum()),
    ("ce_probabilities", ["X", "P"], lambda i: F.cross_entropy(
        i["X"], i["P"], weight=i["W"], label_smoothing=0.3)),
    ("ce_kdim", ["X3", "X1"], lambda i: F.cross_entropy(
        i["X3"], idx(i["T3"]), weight=i["W"][:3], label_smoothing=0.1)
     + F.cross_entropy(i["X1"], idx(i["T1"]))),
    ("nll", ["X"], lambda i: F.nll_loss(i["X"], idx(i["T"]), weight=i["W"])
     + F.nll_loss(i["X"], idx(i["TI"]), reduction="sum")),
    ("mse_l1", ["A", "B"], lambda i: F.mse_loss(i["A"], i["B"])
     + F.l1_loss(i["A"], i["B"], reduction="sum")),
    ("smooth_l1", ["A", "B"], lambda i: F.smooth_l1_loss(i["A"], i["B"], reduction="sum")
     + F.smooth_l1_loss(i["A"], i["B"], beta=0.0)),
    ("huber", ["A", "B"], lambda i: F.huber_loss(i["A"], i["B"], reduction="sum")
     + F.huber_loss(i["A"], i["B"], delta=0.5)),
    ("bce", ["PR", "Q"], lambda i: F.binary_cross_entropy(i["PR"], i["Q"], weight=i["BW"])),
    ("bce_with_logits", ["L", "Q"], lambda i: F.binary_cross_entropy_with_logits(
        i["L"], i["Q"], weight=i["BW"], pos_weight=i["PW"], reduction="sum")
     + F.binary_cross_entropy_with_logits(i["L"], i["Q"])),
]


def numbers(t):
    return " ".join(repr(float(v)) for v in t.detach().flatten().tolist())


def records():
    inputs = make_inputs()
    out = [f"input/{name} {numbers(t)}" for name, t in inputs.items()]
    out += [f"{call}/value {numbers(v)}" for call, v in value_cases(inputs)]
    for case, wrt, f in GRAD_CASES:
        leaves = {n: (t.clone().requires_grad_() if n in wrt else t) for n, t in inputs.items()}
        f(leaves).backward()
        out += [f"grad/{case}/d{n} {numbers(leaves[n].grad)}" for n in wrt]
    return out


def main():
    torch.set_default_dtype(torch.float64)
    warnings.simplefilter("ignore")  # mse_loss(A, C)'s note on broadcasting, on purpose
    header = (
        f"# Written by tests/nn/reference/make_loss_reference.py with torch {torch.__version__} "
        f"(PyTorch 1.13.1), Python {sys.version.split()[0]}; do not edit.\n"
    )
    with open(os.path.join(HERE, "loss_reference.txt"), "w") as f:
        f.write(header)
        for r in records():
            f.write(r + "\n")


if __name__ == "__main__":
    main()
