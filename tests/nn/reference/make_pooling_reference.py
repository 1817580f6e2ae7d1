#!/usr/bin/env python3
# Reference values for staticpy's pooling (tests/nn/pooling_test.cpp): max_pool2d, avg_pool2d and
# adaptive_avg_pool2d of torch.nn.functional, their values and their input gradients, computed by
# PyTorch in float64. The C++ test reads the file this writes, pooling_reference.txt; it never runs
# Python.
#
# Regenerate (Debian 12: `apt-get install python3-torch`, PyTorch 1.13.1), from the repository root:
#     /usr/bin/python3 tests/nn/reference/make_pooling_reference.py
#
# Format (as make_loss_reference.py's): one record a line, a name without spaces, then its numbers
# as repr(float), row-major ('nan', 'inf' and '-inf' included). Lines starting with '#' are
# comments. Records:
#   input/<NAME>        an input (shapes in make_inputs), so that both sides use the same numbers;
#   <call>/shape        the result's shape, <call> spelling the call as PyTorch's positional
#                       arguments, e.g. max_pool2d(X,3,2,1);
#   <call>/value        the result;
#   <call>/cotangent    c, of the result's shape;
#   <call>/grad         the gradient of sum(<call> * c) with respect to the input (floating inputs).
# The C++ test holds the same calls under the same names, so a case added on one side only fails.
# ERRORS lists the error texts the C++ test expects, checked here against PyTorch's.

import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
NAN, INF = float("nan"), float("inf")


def filled(shape, f):
    n = math.prod(shape)
    return torch.tensor([f(k) for k in range(n)], dtype=torch.float64).reshape(shape)


def make_inputs():
    return {
        # [2, 3, 6, 7]: distinct values (no ties), odd width
        "X": filled((2, 3, 6, 7), lambda k: 2.0 * math.sin(1.3 * k + 0.2) + 0.01 * k),
        # [1, 2, 4, 5]: ties in the first plane (the first of equal values is the max), NaNs and
        # -inf in the second (the last NaN is the argmax; an all -inf window's is its first tap)
        "XT": torch.tensor([[[[1.0, 1.0, 0.0, 2.0, 2.0],
                              [1.0, 1.0, 2.0, 2.0, 0.0],
                              [3.0, 3.0, 3.0, 0.0, 0.0],
                              [-1.0, 3.0, 3.0, 0.0, 0.0]],
                             [[NAN, 1.0, NAN, 2.0, -INF],
                              [0.0, NAN, 3.0, -INF, -INF],
                              [-INF, -INF, 5.0, NAN, NAN],
                              [-INF, -INF, NAN, 1.0, 2.0]]]]),
        # [3, 5, 5]: unbatched
        "X3": filled((3, 5, 5), lambda k: 1.5 * math.cos(0.7 * k + 0.3)),
        # [1, 2, 4, 4] int64, negatives: avg_pool2d's integer division truncates towards zero
        "XI": torch.tensor([[[[-7, 3, 5, -2], [4, -9, 8, 1], [0, 6, -5, 7], [2, -3, 9, -8]],
                             [[10, -11, 12, 0], [1, 2, 3, 4], [-13, 5, 6, -1], [7, 8, -9, 14]]]]),
    }


def cases(i):
    X, XT, X3, XI = i["X"], i["XT"], i["X3"], i["XI"]
    return [
        ("max_pool2d(X,2)", X, lambda x: F.max_pool2d(x, 2)),
        ("max_pool2d(X,3,2,1)", X, lambda x: F.max_pool2d(x, 3, 2, 1)),
        ("max_pool2d(X,3,1,1,2)", X, lambda x: F.max_pool2d(x, 3, 1, 1, 2)),
        ("max_pool2d(X,2,2,0,1,True)", X, lambda x: F.max_pool2d(x, 2, 2, 0, 1, True)),
        ("max_pool2d(X,3,4,1,1,True)", X, lambda x: F.max_pool2d(x, 3, 4, 1, 1, True)),
        ("max_pool2d(X,(3,2),(2,1),(1,0),(1,2),True)", X,
         lambda x: F.max_pool2d(x, (3, 2), (2, 1), (1, 0), (1, 2), True)),
        ("max_pool2d(XT,2,1)", XT, lambda x: F.max_pool2d(x, 2, 1)),
        ("max_pool2d(XT,2,2,1,1,True)", XT, lambda x: F.max_pool2d(x, 2, 2, 1, 1, True)),
        ("max_pool2d(X3,2,1)", X3, lambda x: F.max_pool2d(x, 2, 1)),
        ("avg_pool2d(X,2)", X, lambda x: F.avg_pool2d(x, 2)),
        ("avg_pool2d(X,3,2,1)", X, lambda x: F.avg_pool2d(x, 3, 2, 1)),
        ("avg_pool2d(X,3,2,1,False,False)", X, lambda x: F.avg_pool2d(x, 3, 2, 1, False, False)),
        ("avg_pool2d(X,3,2,1,True,True)", X, lambda x: F.avg_pool2d(x, 3, 2, 1, True, True)),
        ("avg_pool2d(X,3,2,1,True,False)", X, lambda x: F.avg_pool2d(x, 3, 2, 1, True, False)),
        ("avg_pool2d(X,4,3,2,True,True)", X, lambda x: F.avg_pool2d(x, 4, 3, 2, True, True)),
        ("avg_pool2d(X,(2,3),(1,2),(1,1),False,True,5)", X,
         lambda x: F.avg_pool2d(x, (2, 3), (1, 2), (1, 1), False, True, 5)),
        ("avg_pool2d(X3,2,1)", X3, lambda x: F.avg_pool2d(x, 2, 1)),
        ("avg_pool2d(XI,3,1,1)", XI, lambda x: F.avg_pool2d(x, 3, 1, 1)),
        ("avg_pool2d(XI,2,2,0,False,True,-3)", XI,
         lambda x: F.avg_pool2d(x, 2, 2, 0, False, True, -3)),
        ("adaptive_avg_pool2d(X,(3,4))", X, lambda x: F.adaptive_avg_pool2d(x, (3, 4))),
        ("adaptive_avg_pool2d(X,(4,5))", X, lambda x: F.adaptive_avg_pool2d(x, (4, 5))),
        ("adaptive_avg_pool2d(X,1)", X, lambda x: F.adaptive_avg_pool2d(x, 1)),
        ("adaptive_avg_pool2d(X,(None,3))", X, lambda x: F.adaptive_avg_pool2d(x, (None, 3))),
        ("adaptive_avg_pool2d(X3,(8,9))", X3, lambda x: F.adaptive_avg_pool2d(x, (8, 9))),
    ]


# The error texts pooling_test.cpp expects (the C++ side throws staticpy::RuntimeError with them).
X122 = torch.zeros(1, 2, 2)
ERRORS = [
    (lambda: F.max_pool2d(X122, 3), "Given input size: (1x2x2). Calculated output size: (1x0x0). "
     "Output size is too small"),
    (lambda: F.max_pool2d(X122, 3, 1, 2), "pad should be at most half of kernel size, but got "
     "pad=2 and kernel_size=3"),
    (lambda: F.max_pool2d(X122, 2, 0), "stride should not be zero"),
    (lambda: F.max_pool2d(X122, 2, 1, -1), "pad must be non-negative, but got pad: -1"),
    (lambda: F.max_pool2d(X122, 0, 1), "kernel size should be greater than zero, but got kH: 0 "
     "kW: 0"),
    (lambda: F.max_pool2d(X122, 2, -1), "stride should be greater than zero, but got dH: -1 "
     "dW: -1"),
    (lambda: F.max_pool2d(X122, 2, 1, 0, 0), "dilation should be greater than zero, but got "
     "dilationH: 0 dilationW: 0"),
    (lambda: F.max_pool2d(torch.zeros(0, 2, 2), 1), "Expected 3D or 4D (batch mode) tensor with "
     "optional 0 dim batch size for input, but got:[0, 2, 2]"),
    (lambda: F.avg_pool2d(torch.zeros(1, 1, 0, 2), 1), "Expected 3D or 4D (batch mode) tensor "
     "with optional 0 dim batch size for input, but got:[1, 1, 0, 2]"),
    (lambda: F.avg_pool2d(X122, 3, 1, 2, divisor_override=0), "divisor must be not zero"),
    (lambda: F.avg_pool2d(X122, 3), "Given input size: (1x2x2). Calculated output size: (1x0x0). "
     "Output size is too small"),
    (lambda: F.adaptive_avg_pool2d(X122, (2, -2)), "adaptive_avg_pool2d: elements of output_size "
     "must be greater than or equal to 0 but received {2, -2}"),
    (lambda: F.adaptive_avg_pool2d(torch.zeros(1, 0, 4), 2), "adaptive_avg_pool2d(): Expected "
     "input to have non-zero size for non-batch dimensions, but input has sizes [1, 0, 4] with "
     "dimension 1 being empty"),
]


def check_errors():
    for call, text in ERRORS:
        try:
            call()
        except RuntimeError as e:
            assert str(e) == text, f"PyTorch says {str(e)!r}, the test expects {text!r}"
        else:
            raise AssertionError(f"no error for {text!r}")


def numbers(t):
    return " ".join(repr(float(v)) for v in t.detach().flatten().tolist())


def records():
    inputs = make_inputs()
    out = [f"input/{name} {numbers(t)}" for name, t in inputs.items()]
    for call, x, f in cases(inputs):
        y = f(x)
        out.append(f"{call}/shape {numbers(torch.tensor(y.shape, dtype=torch.float64))}")
        out.append(f"{call}/value {numbers(y)}")
        if x.is_floating_point():
            leaf = x.clone().requires_grad_()
            c = filled(tuple(y.shape), lambda k: math.cos(0.37 * k + 0.1))
            (f(leaf) * c).sum().backward()
            out.append(f"{call}/cotangent {numbers(c)}")
            out.append(f"{call}/grad {numbers(leaf.grad)}")
    return out


def main():
    torch.set_default_dtype(torch.float64)
    check_errors()
    header = (
        f"# Written by tests/nn/reference/make_pooling_reference.py with torch {torch.__version__} "
        f"(PyTorch 1.13.1), Python {sys.version.split()[0]}; do not edit.\n"
    )
    with open(os.path.join(HERE, "pooling_reference.txt"), "w") as f:
        f.write(header)
        for r in records():
            f.write(r + "\n")


if __name__ == "__main__":
    main()
