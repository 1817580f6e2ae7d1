#!/usr/bin/env python3
# Reference values for staticpy's normalisation, embedding and train/eval machinery
# (tests/nn/normalization_test.cpp, dropout_embedding_test.cpp, train_eval_test.cpp), computed by
# PyTorch in float64. The C++ tests read the file this writes, norm_reference.txt; they never run
# Python.
#
# Regenerate (Debian 12: `apt-get install python3-torch`, PyTorch 1.13.1), from the repository root:
#     /usr/bin/python3 tests/nn/reference/make_norm_reference.py
#
# Format (as make_loss_reference.py's): one record a line, a name without spaces, then its numbers
# as repr(float), row-major. Lines starting with '#' are comments. Records:
#   input/<NAME>              an input, so that both sides use the very same numbers (shapes below);
#   <call>/value              a function's value, <call> spelling it with PyTorch's arguments;
#   <call>/running_mean, <call>/running_var
#                             the running statistics after a training call of batch_norm (each call
#                             starts from copies of RM and RV);
#   module/<case>/<buffer>    a module's buffers after the steps of MODULE_CASES;
#   grad/<case>/d<NAME>       the gradient of the scalar function <case> (GRAD_CASES) with respect
#                             to input <NAME>;
#   keys/<model>              the state_dict() keys of a model, in order (words, not numbers).
# The C++ tests hold the same calls under the same names, so a case added on one side only fails.

import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def filled(shape, f):
    n = math.prod(shape)
    return torch.tensor([f(k) for k in range(n)], dtype=torch.float64).reshape(shape)


def make_inputs():
    return {
        # batch norm: inputs [4, 3] (BatchNorm1d, 2-D), [4, 3, 5] (3-D), [2, 3, 4, 5]
        # (BatchNorm2d); affine parameters and running statistics of 3 channels
        "X2": filled((4, 3), lambda k: 1.5 * math.sin(0.7 * k + 0.3) + 0.2 * k),
        "X3": filled((4, 3, 5), lambda k: 2.0 * math.cos(0.37 * k + 0.1) - 0.5),
        "X4": filled((2, 3, 4, 5), lambda k: math.sin(0.23 * k) * (1 + 0.01 * k) + 0.3),
        "W": torch.tensor([0.5, -1.25, 2.0]),
        "B": torch.tensor([0.1, 0.0, -0.7]),
        "RM": torch.tensor([0.2, -0.1, 0.4]),
        "RV": torch.tensor([1.5, 0.8, 2.5]),
        # cotangents that weigh each output element differently in the gradient cases
        "C2": filled((4, 3), lambda k: math.cos(1.1 * k + 0.2)),
        "C3": filled((4, 3, 5), lambda k: math.sin(0.9 * k + 0.5)),
        "C4": filled((2, 3, 4, 5), lambda k: math.cos(0.31 * k) + 0.1),
        # layer norm: input [2, 3, 4]; affine [4] and [3, 4]
        "XL": filled((2, 3, 4), lambda k: 1.7 * math.sin(0.61 * k + 0.4) + 0.05 * k),
        "WL": torch.tensor([1.5, -0.5, 0.75, 2.0]),
        "BL": torch.tensor([0.0, 0.3, -0.2, 1.0]),
        "WL2": filled((3, 4), lambda k: 1 + 0.5 * math.sin(1.3 * k)),
        "BL2": filled((3, 4), lambda k: 0.2 * math.cos(0.8 * k)),
        "CL": filled((2, 3, 4), lambda k: math.sin(0.47 * k + 1.0)),
        # embedding: weight [5, 3], indices [2, 3] (repeats, and the padding row 1)
        "EW": filled((5, 3), lambda k: math.sin(1.9 * k + 0.3)),
        "EI": torch.tensor([[1.0, 2.0, 1.0], [0.0, 4.0, 1.0]]),
        "CE": filled((2, 3, 3), lambda k: math.cos(0.7 * k)),
        # a training run of a module: three batches [4, 3, 2, 2]
        "M0": filled((4, 3, 2, 2), lambda k: math.sin(0.3 * k) + 0.1 * (k % 5)),
        "M1": filled((4, 3, 2, 2), lambda k: 2 * math.cos(0.41 * k) - 0.3),
        "M2": filled((4, 3, 2, 2), lambda k: 0.5 * math.sin(1.7 * k + 2) + 1),
    }


def idx(t):
    return t.to(torch.int64)


def training_cases(i):
    """(name, input, weight, bias, momentum, eps): training calls of batch_norm that update copies
    of RM and RV."""
    return [
        ("batch_norm(X2,RM,RV,W,B,training=True)", i["X2"], i["W"], i["B"], 0.1, 1e-5),
        ("batch_norm(X3,RM,RV,W,B,training=True,momentum=0.3)", i["X3"], i["W"], i["B"], 0.3,
         1e-5),
        ("batch_norm(X4,RM,RV,W,B,training=True,momentum=0.5,eps=0.001)", i["X4"], i["W"],
         i["B"], 0.5, 1e-3),
        ("batch_norm(X4,RM,RV,training=True)", i["X4"], None, None, 0.1, 1e-5),
    ]


def value_cases(i):
    X2, X3, X4, W, B, RM, RV = i["X2"], i["X3"], i["X4"], i["W"], i["B"], i["RM"], i["RV"]
    XL, WL, BL, WL2, BL2 = i["XL"], i["WL"], i["BL"], i["WL2"], i["BL2"]
    EW, EI = i["EW"], idx(i["EI"])
    return [
        ("batch_norm(X2,RM,RV,W,B)", F.batch_norm(X2, RM, RV, W, B)),
        ("batch_norm(X4,RM,RV,W,B,eps=0.1)", F.batch_norm(X4, RM, RV, W, B, eps=0.1)),
        ("batch_norm(X3,RM,RV)", F.batch_norm(X3, RM, RV)),
        ("batch_norm(X3,None,None,W,B,training=True)",
         F.batch_norm(X3, None, None, W, B, training=True)),
        ("batch_norm(X2,None,None,bias=B,training=True)",
         F.batch_norm(X2, None, None, bias=B, training=True)),
        ("layer_norm(XL,[4],WL,BL)", F.layer_norm(XL, [4], WL, BL)),
        ("layer_norm(XL,[4])", F.layer_norm(XL, [4])),
        ("layer_norm(XL,[3,4],WL2,BL2,eps=0.001)", F.layer_norm(XL, [3, 4], WL2, BL2, eps=1e-3)),
        ("layer_norm(XL,[2,3,4],bias=XL)", F.layer_norm(XL, [2, 3, 4], bias=XL)),
        ("embedding(EI,EW)", F.embedding(EI, EW)),
        ("embedding(EI[0],EW,padding_idx=1)", F.embedding(EI[0], EW, padding_idx=1)),
    ]


# Scalar functions whose gradients the C++ tests check in both autodiff modes: (name, the inputs
# differentiated, the function of the inputs dict). Running statistics are copies (a training
# call updates them; its value does not depend on them).
GRAD_CASES = [
    ("bn_train_4d", ["X4", "W", "B"], lambda i: (F.batch_norm(
        i["X4"], i["RM"].clone(), i["RV"].clone(), i["W"], i["B"], training=True, eps=1e-3)
        * i["C4"]).sum()),
    ("bn_train_2d", ["X2", "W"], lambda i: (F.batch_norm(
        i["X2"], None, None, i["W"], None, training=True) * i["C2"]).sum()),
    ("bn_eval_3d", ["X3", "W", "B"], lambda i: (F.batch_norm(
        i["X3"], i["RM"], i["RV"], i["W"], i["B"]) * i["C3"]).sum()),
    ("bn_train_3d_plain", ["X3"], lambda i: (F.batch_norm(
        i["X3"], None, None, training=True) * i["C3"]).sum()),
    ("ln", ["XL", "WL", "BL"], lambda i: (F.layer_norm(i["XL"], [4], i["WL"], i["BL"])
                                          * i["CL"]).sum()),
    ("ln_2d", ["XL", "WL2"], lambda i: (F.layer_norm(i["XL"], [3, 4], i["WL2"], eps=1e-3)
                                        * i["CL"]).sum()),
    ("ln_plain", ["XL"], lambda i: (F.layer_norm(i["XL"], [4]) * i["CL"]).sum()),
    ("emb", ["EW"], lambda i: (F.embedding(idx(i["EI"]), i["EW"]) * i["CE"]).sum()),
    ("emb_padding", ["EW"], lambda i: (F.embedding(idx(i["EI"]), i["EW"], padding_idx=1)
                                       * i["CE"]).sum()),
]


def module_cases(i):
    """(case, buffers): the buffers of a BatchNorm2d(3) after two training batches and one
    evaluation; of a BatchNorm2d(3, momentum=None) after three training batches."""
    out = []
    bn = torch.nn.BatchNorm2d(3)
    bn(i["M0"])
    bn(i["M1"])
    bn.eval()
    out.append(("bn2d_eval_output", bn(i["M2"])))
    out += [(f"bn2d/{k}", v) for k, v in bn.state_dict().items()]
    cumulative = torch.nn.BatchNorm2d(3, momentum=None)
    for m in ("M0", "M1", "M2"):
        last = cumulative(i[m])
    out.append(("bn2d_cumulative_output", last))
    out += [(f"bn2d_cumulative/{k}", v) for k, v in cumulative.state_dict().items()]
    return out


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(3))
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3),
                                        torch.nn.ReLU(), torch.nn.Dropout(0.2))
        self.head = torch.nn.Linear(3, 2)
        self.norm = torch.nn.LayerNorm(2)


def key_records():
    """The state_dict keys of train_eval_test.cpp's model (a user module with a parameter and a
    buffer of its own, a Sequential with a BatchNorm1d inside, a LayerNorm) and of an Embedding
    in a Sequential."""
    return [
        ("Block", list(Block().state_dict().keys())),
        ("Sequential(Embedding,LayerNorm,BatchNorm1d)",
         list(torch.nn.Sequential(torch.nn.Embedding(5, 4), torch.nn.LayerNorm([3, 4]),
                                  torch.nn.BatchNorm1d(3)).state_dict().keys())),
    ]


def numbers(t):
    return " ".join(repr(float(v)) for v in t.detach().flatten().tolist())


def records():
    inputs = make_inputs()
    out = [f"input/{name} {numbers(t)}" for name, t in inputs.items()]
    for call, x, w, b, momentum, eps in training_cases(inputs):
        rm, rv = inputs["RM"].clone(), inputs["RV"].clone()
        y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=momentum, eps=eps)
        out += [f"{call}/value {numbers(y)}", f"{call}/running_mean {numbers(rm)}",
                f"{call}/running_var {numbers(rv)}"]
    out += [f"{call}/value {numbers(v)}" for call, v in value_cases(inputs)]
    for case, wrt, f in GRAD_CASES:
        leaves = {n: (t.clone().requires_grad_() if n in wrt else t) for n, t in inputs.items()}
        f(leaves).backward()
        out += [f"grad/{case}/d{n} {numbers(leaves[n].grad)}" for n in wrt]
    out += [f"module/{case} {numbers(v)}" for case, v in module_cases(inputs)]
    out += [f"keys/{model} {' '.join(keys)}" for model, keys in key_records()]
    return out


def main():
    torch.set_default_dtype(torch.float64)
    header = (f"# Written by tests/nn/reference/make_norm_reference.py with torch {torch.__version__}"
              f" (PyTorch 1.13.1), Python {sys.version.split()[0]}; do not edit.")
    with open(os.path.join(HERE, "norm_reference.txt"), "w") as f:
        f.write(header + "\n")
        for line in records():
            f.write(line + "\n")


if __name__ == "__main__":
    main()
